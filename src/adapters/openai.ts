import { ResultStatus, type Tool } from '../llm-chat.js';
import type { FileToolPackage } from '../package.js';
import { FileTool } from '../tools/base.js';
import { openAiStrictSchema } from './schemas.js';
import { inputSchemaOf } from './shared.js';

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

/** One result of a dispatched call: `result` is the text to send back to the model. */
export interface DispatchResult {
    status: 'success' | 'error';
    result: string;
}

/** Runs one tool call by name with the model's raw JSON arguments. Never rejects. */
export type Dispatcher = (name: string, argsJson: string | null | undefined, options?: { signal?: AbortSignal }) => Promise<DispatchResult[]>;

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

const failure = (result: string): DispatchResult[] => [{ status: 'error', result }];

/**
 * A dispatcher for hosts without a framework: `(name, argsJson) => results`, one result per
 * item (read_file gives one per path), each `{ status, result }`.
 *
 * It never rejects: invalid JSON, arguments that are not an object, an unknown tool name and
 * anything a tool throws all become one error result whose text says what to fix. An empty or
 * missing `argsJson` means `{}`; an optional argument sent as `null` (strict mode) is not given. `options.signal` cancels a long search (see `executeWithSignal`).
 */
export function createDispatcher(pkg: FileToolPackage): Dispatcher {
    const tools = new Map<string, Tool>(pkg.tools().map((t) => [t.name, t]));
    return async (name, argsJson, options = {}) => {
        try {
            const tool = tools.get(name);
            if (!tool) return failure(`Unknown tool: ${JSON.stringify(name)}. Available tools: ${[...tools.keys()].join(', ')}.`);
            let args: unknown;
            try {
                args = argsJson === null || argsJson === undefined || argsJson.trim() === '' ? {} : JSON.parse(argsJson);
            } catch (err) {
                return failure(`Invalid arguments for ${name}: not valid JSON (${(err as Error).message}). Send a JSON object such as {"path": "."}.`);
            }
            if (typeof args !== 'object' || args === null || Array.isArray(args)) {
                return failure(`Invalid arguments for ${name}: expected a JSON object, got ${Array.isArray(args) ? 'an array' : JSON.stringify(args)}.`);
            }
            const record = args as Record<string, unknown>;
            const results = tool instanceof FileTool ? await tool.executeWithSignal(record, options.signal) : await tool.execute(record);
            return results.map((r): DispatchResult => ({ status: r.status === ResultStatus.Error ? 'error' : 'success', result: r.result }));
        } catch (err) {
            return failure(`Tool ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
        }
    };
}
