/**
 * The tools' argument schemas: zod helpers for common arguments, the JSON schema models see
 * (generated on first use), `null` as "not given", and the one-line summary of a schema that
 * error messages show.
 */
import { ToolParameterProperty, ToolParameters } from './llm-chat.js';
import { z } from 'zod';

/**
 * ToolParameters whose JSON is the full JSON schema generated from a zod schema (ranges, enums).
 * Start-up: the JSON schema is generated on first use (a one-shot CLI call never needs it).
 */
export class SchemaParameters extends ToolParameters {
    #schema: Record<string, unknown> | undefined;
    readonly #source: z.ZodType;
    constructor(source: z.ZodType) {
        super({}, []);
        this.#source = source;
        // llm-chat's `properties` and `required` are plain fields: computed from the schema when read.
        Object.defineProperty(this, 'properties', {
            configurable: true,
            enumerable: true,
            get: () => {
                const props = (this.toJSON().properties ?? {}) as Record<string, { description?: string }>;
                return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, new ToolParameterProperty(v.description ?? k)]));
            },
        });
        Object.defineProperty(this, 'required', {
            configurable: true,
            enumerable: true,
            get: () => (this.toJSON().required as string[] | undefined) ?? [],
        });
    }
    override toJSON(): Record<string, unknown> {
        return (this.#schema ??= jsonSchemaOf(this.#source));
    }
}

/**
 * JSON schema (draft 2020-12, without `$schema`) of a tool's arguments. The bounds zod adds to
 * every integer (`minimum: -9007199254740991`, `maximum: 9007199254740991`, JavaScript's safe
 * integer range) say nothing a model needs and cost tokens on every request: they are left out.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
    const { $schema: _, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
    return dropSafeIntegerBounds(rest) as Record<string, unknown>;
}

function dropSafeIntegerBounds(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(dropSafeIntegerBounds);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
        if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
        if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
        // `enum`, `const` and `default` hold values, not schemas.
        out[key] = key === 'enum' || key === 'const' || key === 'default' ? value : dropSafeIntegerBounds(value);
    }
    return out;
}

/**
 * `args` without the optional arguments whose value is `null`: strict function-calling modes
 * (OpenAI strict, the Responses API) send `null` for an optional argument not given, so `null`
 * means "not given" for any argument that may be left out. A required argument sent as `null`
 * is kept, and the schema refuses it. Anything but a plain object is returned as is.
 */
export function withoutNullOptionals(schema: z.ZodObject, args: unknown): unknown {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
    const shape = schema.shape as Record<string, z.ZodType | undefined>;
    let out: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
        if (value !== null || !shape[key]?.safeParse(undefined).success) continue;
        out ??= { ...(args as Record<string, unknown>) };
        delete out[key];
    }
    return out ?? args;
}

/** `{ path: string (required), recursive?: boolean }` style summary of a JSON schema. */
export function describeShape(schema: Record<string, unknown>): string {
    type Prop = { type?: string; items?: { type?: string }; enum?: unknown[]; anyOf?: Prop[] };
    const props = (schema.properties ?? {}) as Record<string, Prop>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const typeOf = (v: Prop): string =>
        v.enum
            ? v.enum.map((e) => JSON.stringify(e)).join(' | ')
            : v.anyOf
              ? v.anyOf.map(typeOf).join(' | ')
              : v.type === 'array'
                ? `${v.items?.type ?? 'unknown'}[]`
                : (v.type ?? 'unknown');
    const parts = Object.entries(props).map(([k, v]) => `${k}${required.has(k) ? '' : '?'}: ${typeOf(v)}`);
    return parts.length === 0 ? 'no arguments ({})' : `{ ${parts.join(', ')} }`;
}

/** zod helpers shared by the tools' schemas. */
export const arg = {
    path: (what = 'File path') => z.string().describe(`${what} (absolute, or relative to the workspace root; "." is the workspace root)`),
    line: (desc: string) => z.number().int().min(1).describe(desc),
    count: (desc: string) => z.number().int().min(1).describe(desc),
    /** One glob or a list of them (`include`, `exclude`), optional. */
    globs: (desc: string) =>
        z
            .union([z.string(), z.array(z.string())], { error: 'expected a glob string or a list of glob strings' })
            .optional()
            .describe(desc),
    /** Items to skip for the next page of a cut listing or search (optional, 0 up). */
    offset: (desc: string) => z.number().int().min(0).optional().describe(desc),
    isoDate: (desc: string) =>
        z
            .string()
            .refine(isIsoDate, { message: 'expected an ISO 8601 date-time such as 2025-01-31T12:00:00Z' })
            .describe(desc),
};

const isoDateTime = z.iso.datetime({ offset: true, local: true });
const isoDay = z.iso.date();

/**
 * True for an ISO 8601 date-time (`2025-01-31T12:00:00Z`, an offset such as `+02:00`, fractions of
 * a second; without an offset it is UTC, see search-times.ts) or a calendar date (`2025-01-31`, midnight UTC), as
 * zod's `z.iso` validators define them, whose date is a real calendar day. `"1"` or `"Jan 1 2025"`,
 * which `Date.parse` accepts, are refused.
 */
function isIsoDate(s: string): boolean {
    return (isoDay.safeParse(s).success || isoDateTime.safeParse(s).success) && isoDay.safeParse(s.slice(0, 10)).success && !Number.isNaN(Date.parse(s));
}
