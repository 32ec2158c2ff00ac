import { ResultStatus, type Tool, type ToolResult } from '../llm-chat.js';
import { FileTool } from '../tools/base.js';

/** What the MCP server and the adapters share: a tool's JSON schema and the text of a result. */

/** A tool's JSON schema: FileTool's own, else the `parameters` of its OpenAI definition. */
export function inputSchemaOf(tool: Tool): Record<string, unknown> {
    if (tool instanceof FileTool) return tool.jsonSchema();
    const parameters = tool.toOpenAI().function.parameters as Record<string, unknown> | undefined;
    return parameters ?? { type: 'object', properties: {} };
}

/** A result's text as shown to a model: failed results start with `Error: `. */
export function resultText(r: ToolResult): string {
    return r.status === ResultStatus.Error && !r.result.startsWith('Error: ') ? `Error: ${r.result}` : r.result;
}

/** `true` when a call produced results and every one of them is an error. */
export function allFailed(results: ToolResult[]): boolean {
    return results.length > 0 && results.every((r) => r.status === ResultStatus.Error);
}
