import { ResultStatus, type Tool } from '@johannes.latzel/llm-chat';
import type { FileToolPackage } from '../package.js';
import { FileTool } from '../tools/base.js';
import { inputSchemaOf } from './shared.js';

/** One tool in the OpenAI function-calling format (Chat Completions `tools[]`). */
export interface OpenAiFunctionTool {
    type: 'function';
    function: {
        name: string;
        description: string;
        /** The tool's JSON schema (draft 2020-12 subset, `type: "object"`). */
        parameters: Record<string, unknown>;
    };
}

/** One result of a dispatched call: `result` is the text to send back to the model. */
export interface DispatchResult {
    status: 'success' | 'error';
    result: string;
}

/** Runs one tool call by name with the model's raw JSON arguments. Never rejects. */
export type Dispatcher = (name: string, argsJson: string | null | undefined, options?: { signal?: AbortSignal }) => Promise<DispatchResult[]>;

/**
 * The package's tools as OpenAI function-calling definitions, in the package's order:
 * `{ type: 'function', function: { name, description, parameters } }` with `parameters` the
 * tool's JSON schema. Pass them as `tools` to `chat.completions.create` (or map them to the
 * Responses API's flat `{ type, name, description, parameters }`).
 */
export function openAiTools(pkg: FileToolPackage): OpenAiFunctionTool[] {
    return pkg.tools().map((t) => ({
        type: 'function' as const,
        function: { name: t.name, description: t.description, parameters: inputSchemaOf(t) },
    }));
}

const failure = (result: string): DispatchResult[] => [{ status: 'error', result }];

/**
 * A dispatcher for hosts without a framework: `(name, argsJson) => results`, one result per
 * item (read_file gives one per path), each `{ status, result }`.
 *
 * It never rejects: invalid JSON, arguments that are not an object, an unknown tool name and
 * anything a tool throws all become one error result whose text says what to fix. An empty or
 * missing `argsJson` means `{}`. `options.signal` cancels a long search (see `executeWithSignal`).
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
