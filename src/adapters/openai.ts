import type { FileToolPackage } from '../package.js';
import { inputSchemaOf } from './run.js';
import { openAiStrictSchema } from './schemas.js';

/** One tool in the OpenAI function-calling format (Chat Completions `tools[]`). */
export interface OpenAiFunctionTool {
    type: 'function';
    function: {
        name: string;
        description: string;
        /** The tool's JSON schema (draft 2020-12 subset, `type: "object"`). */
        parameters: Record<string, unknown>;
        /** Present with `{ strict: true }`: the schema is then in strict form (see {@link openAiStrictSchema}). */
        strict?: boolean;
    };
}

/** One tool in the Responses API's flat format (`client.responses.create({ tools })`). */
export interface OpenAiResponsesTool {
    type: 'function';
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    strict: boolean;
}

/** Options of {@link openAiTools} and {@link openAiResponsesTools}. */
export interface OpenAiToolOptions {
    /**
     * Strict function calling: `strict: true` on each tool and its schema in strict form (every
     * property required, optional ones nullable, `additionalProperties: false`, only supported
     * keywords). The tools and the dispatcher treat `null` as "not given".
     */
    strict?: boolean;
}

/**
 * The package's tools as OpenAI Chat Completions function definitions, in the package's order:
 * `{ type: 'function', function: { name, description, parameters } }` with `parameters` the
 * tool's JSON schema; with `{ strict: true }`, `function.strict: true` and the strict form of the
 * schema. Pass them as `tools` to `chat.completions.create`.
 */
export function openAiTools(pkg: FileToolPackage, options: OpenAiToolOptions = {}): OpenAiFunctionTool[] {
    return pkg.tools().map((t) => ({
        type: 'function' as const,
        function: options.strict
            ? { name: t.name, description: t.description, parameters: openAiStrictSchema(inputSchemaOf(t)), strict: true }
            : { name: t.name, description: t.description, parameters: inputSchemaOf(t) },
    }));
}

/**
 * The package's tools for the OpenAI Responses API (`client.responses.create({ tools })`):
 * `{ type: 'function', name, description, parameters, strict }`. Strict by default, as the
 * Responses API is; `{ strict: false }` gives the tools' own schemas.
 */
export function openAiResponsesTools(pkg: FileToolPackage, options: OpenAiToolOptions = {}): OpenAiResponsesTool[] {
    const strict = options.strict ?? true;
    return pkg.tools().map((t) => ({
        type: 'function' as const,
        name: t.name,
        description: t.description,
        parameters: strict ? openAiStrictSchema(inputSchemaOf(t)) : inputSchemaOf(t),
        strict,
    }));
}
