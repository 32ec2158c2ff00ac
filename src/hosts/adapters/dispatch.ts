import type { Tool } from '../../tools/llm-chat.js';
import type { FileToolPackage } from '../../package/package.js';
import { failedCall, runTool, type CallResult } from './run.js';

/**
 * One result of a dispatched call: `result` is the text to send back to the model; a failed one
 * has `status: 'error'` and the kind of its failure (`kind`, see `ToolErrorKind`). A result with
 * content parts (an image, a resource) carries them in `parts`: `anthropicToolResult`,
 * `openAiFunctionCallOutput` and `geminiFunctionResponse` turn results into each API's format.
 */
export type DispatchResult = CallResult;

/** Runs one tool call by name with the model's raw JSON arguments. Never rejects. */
export type Dispatcher = (name: string, argsJson: string | null | undefined, options?: { signal?: AbortSignal }) => Promise<DispatchResult[]>;

/**
 * A dispatcher for hosts without a framework (OpenAI, Gemini, Anthropic): `(name, argsJson) =>
 * results`, one result per item (read_file gives one per path), each `{ status, result }` and,
 * when it failed, `kind`.
 *
 * It never rejects: invalid JSON, arguments that are not an object and an unknown tool name are
 * one error result of kind `invalid_argument` whose text says what to fix; anything a tool throws
 * is one of kind `io`. An empty or missing `argsJson` means `{}`; an optional argument sent as
 * `null` (strict mode) is not given. `options.signal` cancels a long search (see `executeWithSignal`).
 */
export function createDispatcher(pkg: FileToolPackage): Dispatcher {
    const tools = new Map<string, Tool>(pkg.tools().map((t) => [t.name, t]));
    return async (name, argsJson, options = {}) => {
        const tool = tools.get(name);
        if (!tool) return failedCall(`Unknown tool: ${JSON.stringify(name)}. Available tools: ${[...tools.keys()].join(', ')}.`, 'invalid_argument');
        let args: unknown;
        try {
            // Inside the try: a host passing something other than a string gets an error result too.
            args = argsJson === null || argsJson === undefined || argsJson.trim() === '' ? {} : JSON.parse(argsJson);
        } catch (err) {
            return failedCall(`Invalid arguments for ${name}: not valid JSON (${(err as Error).message}). Send a JSON object of the tool's arguments by name, as its schema describes them.`, 'invalid_argument');
        }
        if (typeof args !== 'object' || args === null || Array.isArray(args)) {
            return failedCall(`Invalid arguments for ${name}: expected a JSON object, got ${Array.isArray(args) ? 'an array' : JSON.stringify(args)}.`, 'invalid_argument');
        }
        return runTool(tool, args as Record<string, unknown>, options.signal ? { signal: options.signal } : {});
    };
}
