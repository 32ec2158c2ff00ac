/**
 * Vercel AI SDK adapter (`ai` 6.x, an optional peer dependency). Import it from the subpath
 * `@johannes.latzel/llm-chat-file/ai-sdk`, so that the main entry never loads `ai`.
 */
import { jsonSchema, tool, type Tool } from 'ai';
import type { FileToolPackage } from '../../package/package.js';
import { ToolError } from '../../errors/shared/errors.js';
import { isBinary, mimeTypeOf, fileNameOf, resourceText, type ContentPart } from '../../content/parts.js';
import { allFailed, inputSchemaOf, resultParts, resultText, runTool } from './run.js';

/**
 * What a tool's `execute` returns: its text, or, when a result has content parts (an image, a
 * resource), `{ text, parts }`: the text for a reader that takes only text, and the parts that
 * `toModelOutput` gives the model. Both are plain JSON.
 */
export type AiSdkToolOutput = string | { text: string; parts: ContentPart[] };

/** One of the package's tools in the AI SDK's format: JSON input, text (or content parts) output. */
export type AiSdkFileTool = Tool<Record<string, unknown>, AiSdkToolOutput>;

// The SDK's tool-result output (`ai` does not export its type).
type ToolResultOutput = Awaited<ReturnType<NonNullable<AiSdkFileTool['toModelOutput']>>>;
type ContentOutput = Extract<ToolResultOutput, { type: 'content' }>['value'][number];

/** One content part in the SDK's tool-result content (images as `image-data`, blobs as `file-data`). */
function sdkPart(part: ContentPart): ContentOutput {
    if (part.type === 'text') return part;
    if (!isBinary(part)) return { type: 'text', text: resourceText(part) };
    if (part.type === 'image') return { type: 'image-data', data: part.data, mediaType: part.mimeType };
    return { type: 'file-data', data: part.blob, mediaType: mimeTypeOf(part), filename: fileNameOf(part) };
}

/**
 * The package's tools as an AI SDK tool set (`Record<name, Tool>`), ready for
 * `generateText({ model, tools: aiSdkTools(pkg), ... })` or `streamText`.
 *
 * - `inputSchema`: the tool's own JSON schema (via the SDK's `jsonSchema()`); the tool itself
 *   checks the arguments and explains what is wrong, so no second validator runs here.
 * - `execute` returns the tool's text; several results (read_file with several paths) are joined
 *   with a blank line, failed ones prefixed `Error: `. When a result has content parts, it
 *   returns `{ text, parts }` ({@link AiSdkToolOutput}) and `toModelOutput` gives the model the
 *   parts as the SDK's content output (text, `image-data`, `file-data`); each provider sends
 *   what its API takes.
 * - Errors: when every result of a call is an error, `execute` throws a `ToolError` (an `Error`
 *   whose `kind` is the first result's) whose message is that text (starting with `Error: `).
 *   This is what the SDK expects of a failed tool: it records a `tool-error` part and sends the
 *   message back to the model as an error result, so a multi-step run continues and the model
 *   can correct itself. Call `execute` yourself and you get the rejection.
 * - The SDK's `abortSignal` cancels a long search (through `runTool`, adapters/run.ts).
 */
export function aiSdkTools(pkg: FileToolPackage): Record<string, AiSdkFileTool> {
    const set: Record<string, AiSdkFileTool> = {};
    for (const t of pkg.tools()) {
        set[t.name] = tool<Record<string, unknown>, AiSdkToolOutput>({
            description: t.description,
            inputSchema: jsonSchema<Record<string, unknown>>(inputSchemaOf(t) as Parameters<typeof jsonSchema>[0]),
            execute: async (input, { abortSignal }) => {
                const results = await runTool(t, (input ?? {}) as Record<string, unknown>, abortSignal ? { signal: abortSignal } : {});
                // Several results (one per read_file path) are separated by a blank line.
                const text = results.map(resultText).join('\n\n');
                if (allFailed(results)) throw new ToolError(results[0]!.kind ?? 'io', text);
                if (!results.some((r) => r.status === 'success' && r.parts)) return text;
                return { text, parts: results.flatMap(resultParts) };
            },
            toModelOutput: ({ output }): ToolResultOutput =>
                typeof output === 'string' ? { type: 'text', value: output } : { type: 'content', value: output.parts.map(sdkPart) },
        });
    }
    return set;
}
