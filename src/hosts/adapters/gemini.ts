import { dataOf, describePart, mimeTypeOf, omittedLine, textOfParts } from '../../content/parts.js';
import type { FileToolPackage } from '../../package/package.js';
import { geminiSchema } from './schemas.js';
import { allFailed, inputSchemaOf, resultParts, type CallResult } from './run.js';

/** One function declaration for the Gemini API (`tools: [{ functionDeclarations }]`). */
export interface GeminiFunctionDeclaration {
    name: string;
    description: string;
    /** The arguments as the API's `Schema` type (see {@link geminiSchema}). */
    parameters: Record<string, unknown>;
}

/**
 * The package's tools as one Gemini tool, `{ functionDeclarations: [...] }`, in the package's
 * order. Pass it in `config.tools` of `@google/genai`'s `models.generateContent` (or the REST
 * API's `tools`): `config: { tools: [geminiTools(pkg)] }`. Run the calls the model makes with
 * {@link createDispatcher} (`dispatch(call.name, JSON.stringify(call.args))`).
 */
export function geminiTools(pkg: FileToolPackage): { functionDeclarations: GeminiFunctionDeclaration[] } {
    return {
        functionDeclarations: pkg.tools().map((t) => ({ name: t.name, description: t.description, parameters: geminiSchema(inputSchemaOf(t)) })),
    };
}

/** A `functionResponse` part for the Gemini API (`contents[].parts[]`), media in `parts`. */
export interface GeminiFunctionResponsePart {
    functionResponse: {
        id?: string;
        name: string;
        /** `output` with the text; `error` when every result failed. */
        response: { output: string } | { error: string };
        /** Images and documents, inline as base64. */
        parts?: { inlineData: { mimeType: string; data: string } }[];
    };
}

// The media types the Gemini API takes in a function response's parts.
const MEDIA_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'application/pdf', 'text/plain']);

/**
 * The results of one Gemini function call as its `functionResponse` part. The text (results
 * joined by a blank line, failed ones starting with `Error: `) is `response.output`, or
 * `response.error` when every result failed; images and PDF or plain-text blobs are inline
 * `parts`, and a part of another type is a line in the text saying it was left out.
 * `call` is the model's function call (its `name` and, when it has one, `id`).
 */
export function geminiFunctionResponse(call: { id?: string | undefined; name?: string | undefined }, results: readonly CallResult[]): GeminiFunctionResponsePart {
    const media: { inlineData: { mimeType: string; data: string } }[] = [];
    const text = results
        .map((r) =>
            textOfParts(resultParts(r), (p) => {
                if (!MEDIA_TYPES.has(mimeTypeOf(p))) return omittedLine(p, `Gemini function responses take no ${mimeTypeOf(p)}`);
                media.push({ inlineData: { mimeType: mimeTypeOf(p), data: dataOf(p) } });
                return `[${describePart(p)}: attached]`;
            }),
        )
        .join('\n\n');
    const response = allFailed(results) ? { error: text } : { output: text };
    return { functionResponse: { ...(call.id !== undefined && { id: call.id }), name: call.name ?? '', response, ...(media.length > 0 && { parts: media }) } };
}
