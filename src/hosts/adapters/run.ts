/**
 * The one way every front end runs a tool: the dispatcher (OpenAI, Gemini and Anthropic hosts),
 * the AI SDK adapter, the MCP server and the CLI call {@link runTool}; they share the JSON schema
 * each tool shows ({@link inputSchemaOf}), the text of a result ({@link resultText}) and its
 * content parts ({@link resultParts}).
 */
import { ResultStatus, type Tool } from '../../tools/llm-chat.js';
import type { ToolErrorKind } from '../../errors/shared/errors.js';
import type { ContentPart } from '../../content/parts.js';
import { FileTool, type CallOptions, type FileToolResult } from '../../tools/base.js';

/**
 * One result of a tool call: `result` is the text for the model; a failed one carries the
 * {@link ToolErrorKind} of its failure (`io` for a tool that gives none). A result the tool gave
 * as content parts (an image, a resource) carries them, unchanged, in `parts`; `result` is then
 * their text for hosts that take only text (see {@link resultParts}).
 */
export interface CallResult {
    status: 'success' | 'error';
    result: string;
    kind?: ToolErrorKind;
    parts?: ContentPart[];
}

/** A failed call as one error result. */
export const failedCall = (result: string, kind: ToolErrorKind): CallResult[] => [{ status: 'error', result, kind }];

/** A tool's result as a {@link CallResult}. */
export function callResult(r: FileToolResult): CallResult {
    if (r.status !== ResultStatus.Error) return r.parts ? { status: 'success', result: r.result, parts: r.parts } : { status: 'success', result: r.result };
    return { status: 'error', result: r.result, kind: r.kind ?? 'io' };
}

/**
 * Runs one call of `tool` with the call's cancellation signal and progress listener (when the
 * tool is a FileTool; another llm-chat tool runs with `execute`). One result per item (read_file
 * gives one per path). Never rejects: anything thrown becomes one error result of kind `io`.
 */
export async function runTool(tool: Tool, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallResult[]> {
    try {
        const results = tool instanceof FileTool ? await tool.executeWithSignal(args, options.signal, options.onProgress) : await tool.execute(args);
        return results.map(callResult);
    } catch (err) {
        return failedCall(`Tool ${tool.name} failed: ${err instanceof Error ? err.message : String(err)}`, 'io');
    }
}

/** A tool's JSON schema: FileTool's own, else the `parameters` of its OpenAI definition. */
export function inputSchemaOf(tool: Tool): Record<string, unknown> {
    if (tool instanceof FileTool) return tool.jsonSchema();
    const parameters = tool.toOpenAI().function.parameters as Record<string, unknown> | undefined;
    return parameters ?? { type: 'object', properties: {} };
}

/** A result's text as shown to a model: failed results start with `Error: `. */
export function resultText(r: CallResult): string {
    return r.status === 'error' && !r.result.startsWith('Error: ') ? `Error: ${r.result}` : r.result;
}

/** A result's content parts: those the tool gave, else its text ({@link resultText}) as one text part. */
export function resultParts(r: CallResult): ContentPart[] {
    return r.status === 'success' && r.parts ? r.parts : [{ type: 'text', text: resultText(r) }];
}

/** `true` when a call produced results and every one of them is an error. */
export function allFailed(results: readonly CallResult[]): boolean {
    return results.length > 0 && results.every((r) => r.status === 'error');
}
