import { dataUrl, fileNameOf, isBinary, mimeTypeOf, omittedLine, resourceText, type ContentPart } from '../../content/parts.js';
import type { FileToolPackage } from '../../package/package.js';
import { inputSchemaOf, resultParts, resultText, type CallResult } from './run.js';
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

/** A Chat Completions tool message (`messages.push(...)`); its content is text only. */
export interface OpenAiToolMessage {
    role: 'tool';
    tool_call_id: string;
    content: string;
}

/**
 * The results of one Chat Completions tool call as its tool message. The API takes only text in
 * tool messages: results are joined by a blank line, failed ones start with `Error: `, and a
 * part the model cannot get as text (an image) is a line saying it was left out.
 */
export function openAiToolMessage(toolCallId: string, results: readonly CallResult[]): OpenAiToolMessage {
    return { role: 'tool', tool_call_id: toolCallId, content: results.map(resultText).join('\n\n') };
}

/** One item of a Responses API `function_call_output` given as a list. */
export type OpenAiOutputContent =
    | { type: 'input_text'; text: string }
    | { type: 'input_image'; image_url: string }
    | { type: 'input_file'; filename: string; file_data: string };

/** A Responses API `function_call_output` input item. */
export interface OpenAiFunctionCallOutput {
    type: 'function_call_output';
    call_id: string;
    output: string | OpenAiOutputContent[];
}

// The image types `input_image` takes.
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
// The file types sent as `input_file`; other types are named in a line instead of risking a
// request the API refuses as a whole.
const isFileType = (mime: string): boolean => mime === 'application/pdf' || mime === 'application/json' || mime.startsWith('text/');

function responsesItem(part: ContentPart): OpenAiOutputContent {
    if (part.type === 'text') return { type: 'input_text', text: part.text };
    if (!isBinary(part)) return { type: 'input_text', text: resourceText(part) };
    if (part.type === 'image' && IMAGE_TYPES.has(part.mimeType)) return { type: 'input_image', image_url: dataUrl(part) };
    if (part.type === 'resource' && isFileType(mimeTypeOf(part))) return { type: 'input_file', filename: fileNameOf(part), file_data: dataUrl(part) };
    return { type: 'input_text', text: omittedLine(part, `OpenAI function outputs take no ${mimeTypeOf(part)}`) };
}

/**
 * The results of one Responses API function call as its `function_call_output` item. Text
 * results give a string (joined by a blank line, failed ones starting with `Error: `); results
 * with content parts give a list: `input_text`, `input_image` (a data URL) and `input_file`
 * (PDF, JSON and text resources), in order.
 */
export function openAiFunctionCallOutput(callId: string, results: readonly CallResult[]): OpenAiFunctionCallOutput {
    const output = results.some((r) => r.status === 'success' && r.parts)
        ? results.flatMap((r) => resultParts(r).map(responsesItem))
        : results.map(resultText).join('\n\n');
    return { type: 'function_call_output', call_id: callId, output };
}
