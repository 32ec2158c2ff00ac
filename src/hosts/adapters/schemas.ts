/**
 * A tool's JSON schema in the dialect each provider accepts. Every transform is generic (it walks
 * any JSON schema the tools' zod schemas produce), so a parameter added to a tool reaches every
 * provider without a change here.
 *
 * Sources of the rules:
 * - OpenAI strict function calling and Structured Outputs ("Supported schemas" in OpenAI's
 *   Structured Outputs guide): every property listed in `required`, optional ones nullable,
 *   `additionalProperties: false` on every object, and only the supported keywords. The `openai`
 *   package's `toStrictJsonSchema` (openai/lib/transform) implements the same checks; the tests
 *   run every tool through it.
 * - Gemini function declarations (`parameters`, the OpenAPI 3.0 subset of the API's `Schema`
 *   type): no `additionalProperties`, upper-case type names, `nullable` instead of a `null` type.
 *   The tests compare the result with `@google/genai`'s own conversion.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Keywords OpenAI's strict mode supports (its Structured Outputs guide, "Supported properties"):
 * others (`minLength`, `maxLength`, `default`, ...) are refused by the API and left out here. The
 * tool checks every argument itself, with the full schema, and explains a bad one.
 */
const OPENAI_STRICT_KEYWORDS = new Set([
    'type',
    'description',
    'title',
    'properties',
    'required',
    'additionalProperties',
    'items',
    'enum',
    'const',
    'anyOf',
    '$ref',
    '$defs',
    'pattern',
    'format',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minItems',
    'maxItems',
]);

/** `schema` that also accepts `null`, in the form OpenAI's strict mode recognizes as nullable. */
function nullable(schema: Json): Json {
    if (Array.isArray(schema.anyOf)) {
        return (schema.anyOf as Json[]).some((s) => s.type === 'null') ? schema : { ...schema, anyOf: [...(schema.anyOf as Json[]), { type: 'null' }] };
    }
    if (typeof schema.type === 'string' && !('const' in schema)) {
        const out: Json = { ...schema, type: schema.type === 'null' ? 'null' : [schema.type, 'null'] };
        if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
        return out;
    }
    if (Array.isArray(schema.type)) return schema.type.includes('null') ? schema : { ...schema, type: [...(schema.type as unknown[]), 'null'] };
    const { description, ...rest } = schema;
    return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: 'null' }] };
}

/**
 * The schema for OpenAI strict function calling (`strict: true`; the Responses API's default):
 * every property is required, a property that was optional accepts `null` (which the tools
 * treat as "not given"), every object has `additionalProperties: false`, and keywords strict
 * mode does not support are left out. Does not change `schema`.
 */
export function openAiStrictSchema(schema: Json): Json {
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
        if (!OPENAI_STRICT_KEYWORDS.has(key)) continue;
        if (key === 'properties' && isObject(value)) {
            const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
            out.properties = Object.fromEntries(
                Object.entries(value).map(([name, prop]) => {
                    const strict = openAiStrictSchema(prop as Json);
                    return [name, required.has(name) ? strict : nullable(strict)];
                }),
            );
            out.required = Object.keys(value);
        } else if (key === 'required') {
            if (!isObject(schema.properties)) out.required = value;
        } else if (key === 'items' && isObject(value)) {
            out.items = openAiStrictSchema(value);
        } else if (key === 'anyOf' && Array.isArray(value)) {
            out.anyOf = value.map((s) => openAiStrictSchema(s as Json));
        } else if (key === '$defs' && isObject(value)) {
            out.$defs = Object.fromEntries(Object.entries(value).map(([k, s]) => [k, openAiStrictSchema(s as Json)]));
        } else if (key === 'additionalProperties') {
            // set below for every object
        } else {
            out[key] = value;
        }
    }
    if (out.type === 'object' || isObject(out.properties)) {
        out.properties ??= {};
        out.required ??= [];
        out.additionalProperties = false;
    }
    return out;
}

/** The fields of the Gemini API's `Schema` type (an OpenAPI 3.0 subset). */
const GEMINI_KEYWORDS = new Set([
    'anyOf',
    'default',
    'description',
    'enum',
    'example',
    'format',
    'items',
    'maxItems',
    'maxLength',
    'maxProperties',
    'maximum',
    'minItems',
    'minLength',
    'minProperties',
    'minimum',
    'nullable',
    'pattern',
    'properties',
    'propertyOrdering',
    'required',
    'title',
    'type',
]);

const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/**
 * The schema as a Gemini function declaration's `parameters` (the API's `Schema` type): type
 * names upper-case (`STRING`, `OBJECT`), a `null` alternative becomes `nullable: true`, and
 * keywords the type lacks (`additionalProperties`, `exclusiveMinimum`, `$ref`, ...) are left out.
 * Does not change `schema`.
 */
export function geminiSchema(schema: Json): Json {
    let source = schema;
    const out: Json = {};
    // `anyOf: [X, {type: "null"}]` is X, nullable (the form Gemini's own SDK produces).
    if (Array.isArray(source.anyOf)) {
        const branches = source.anyOf as Json[];
        const nonNull = branches.filter((b) => b.type !== 'null');
        if (nonNull.length < branches.length) out.nullable = true;
        if (nonNull.length === 1) {
            const { anyOf: _, ...siblings } = source;
            source = { ...siblings, ...nonNull[0] };
        } else {
            source = { ...source, anyOf: nonNull };
        }
    }
    if (Array.isArray(source.type)) {
        const types = (source.type as string[]).filter((t) => t !== 'null');
        if (types.length < (source.type as string[]).length) out.nullable = true;
        const { type: _, ...siblings } = source;
        source = types.length === 1 ? { ...siblings, type: types[0] } : { ...siblings, anyOf: types.map((t) => ({ type: t })) };
    }
    for (const [key, value] of Object.entries(source)) {
        if (!GEMINI_KEYWORDS.has(key) || value === undefined || value === null) continue;
        if (key === 'type') {
            if (typeof value === 'string' && GEMINI_TYPES.has(value)) out.type = value.toUpperCase();
        } else if (key === 'properties' && isObject(value)) {
            out.properties = Object.fromEntries(Object.entries(value).map(([k, s]) => [k, geminiSchema(s as Json)]));
        } else if (key === 'items' && isObject(value)) {
            out.items = geminiSchema(value);
        } else if (key === 'anyOf' && Array.isArray(value)) {
            out.anyOf = value.map((s) => geminiSchema(s as Json));
        } else if (key === 'enum' && Array.isArray(value)) {
            // Gemini enums are strings.
            out.enum = value.filter((v) => v !== null).map(String);
        } else {
            out[key] = value;
        }
    }
    return out;
}
