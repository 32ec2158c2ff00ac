import { dataOf, isBinary, mimeTypeOf, omittedLine, resourceText, type ContentPart } from '../../content/parts.js';
import type { FileToolPackage } from '../../package/package.js';
import { allFailed, inputSchemaOf, resultParts, type CallResult } from './run.js';

/** One tool for the Anthropic Messages API (`tools[]`). */
export interface AnthropicTool {
    name: string;
    description: string;
    /** The tool's JSON schema. */
    input_schema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [keyword: string]: unknown };
}

/**
 * The package's tools for the Anthropic Messages API, `{ name, description, input_schema }`, in
 * the package's order: `client.messages.create({ tools: anthropicTools(pkg), ... })`. Run each
 * `tool_use` block with {@link createDispatcher} (`dispatch(block.name, JSON.stringify(block.input))`).
 */
export function anthropicTools(pkg: FileToolPackage): AnthropicTool[] {
    return pkg.tools().map((t) => ({ name: t.name, description: t.description, input_schema: { ...inputSchemaOf(t), type: 'object' as const } }));
}

/** The image types the Messages API takes. */
export type AnthropicImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** A content block of an Anthropic `tool_result`: text, an image, or a PDF document. */
export type AnthropicToolResultContent =
    | { type: 'text'; text: string }
    | { type: 'image'; source: { type: 'base64'; media_type: AnthropicImageType; data: string } }
    | { type: 'document'; source: { type: 'base64'; media_type: 'application/pdf'; data: string }; title?: string };

/** One `tool_result` block of the Messages API, sent back in the next user message. */
export interface AnthropicToolResultBlock {
    type: 'tool_result';
    tool_use_id: string;
    content: AnthropicToolResultContent[];
    is_error?: boolean;
}

const IMAGE_TYPES: ReadonlySet<string> = new Set<AnthropicImageType>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const isImageType = (mime: string): mime is AnthropicImageType => IMAGE_TYPES.has(mime);

function anthropicBlock(part: ContentPart): AnthropicToolResultContent {
    if (part.type === 'text') return part;
    if (!isBinary(part)) return { type: 'text', text: resourceText(part) };
    const data = dataOf(part);
    if (part.type === 'image' && isImageType(part.mimeType)) return { type: 'image', source: { type: 'base64', media_type: part.mimeType, data } };
    if (part.type === 'resource' && part.mimeType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data }, title: part.uri };
    return { type: 'text', text: omittedLine(part, `Anthropic tool results take no ${mimeTypeOf(part)}`) };
}

/**
 * The results of one `tool_use` as its `tool_result` block: each result's content parts as
 * content blocks (text; images as base64 image blocks; PDF resources as documents; a part of a
 * type the API does not take as a line saying so); failed results start with `Error: `, and
 * `is_error` is set when every result failed. Results come from {@link createDispatcher}.
 */
export function anthropicToolResult(toolUseId: string, results: readonly CallResult[]): AnthropicToolResultBlock {
    const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId, content: results.flatMap((r) => resultParts(r).map(anthropicBlock)) };
    if (allFailed(results)) block.is_error = true;
    return block;
}
