/**
 * Tool results as content parts: text, an image, an embedded resource (MCP's content blocks).
 * A tool returns a string (one text part) or parts; each host adapter converts the parts into its
 * own format, and a host that takes only strings gets {@link textOfParts}: the text, and a line
 * for each part it cannot show.
 */

/** Text for the model. */
export interface TextPart {
    type: 'text';
    text: string;
}

/** An image: `data` is base64 (no `data:` prefix), `mimeType` e.g. `image/png`. */
export interface ImagePart {
    type: 'image';
    data: string;
    mimeType: string;
}

/**
 * A resource embedded in the result, named by `uri` (e.g. `file:///abs/path.pdf`): either its
 * `text`, or its bytes as base64 in `blob`.
 */
export type ResourcePart = { type: 'resource'; uri: string; mimeType?: string } & ({ text: string; blob?: undefined } | { blob: string; text?: undefined });

/** One part of a tool result. */
export type ContentPart = TextPart | ImagePart | ResourcePart;

/** The part a host cannot show as text: an image, or a resource given as bytes. */
export type BinaryPart = ImagePart | (ResourcePart & { blob: string });

/** The reason a text-only host (llm-chat's `ToolResult`, the CLI, Chat Completions) gives. */
export const TEXT_ONLY = 'this host takes text only';

/** True for the parts only a host that takes media can show. */
export function isBinary(part: ContentPart): part is BinaryPart {
    return part.type === 'image' || (part.type === 'resource' && part.blob !== undefined);
}

/** The bytes of base64 `data`, counted without decoding it. */
export function base64Size(data: string): number {
    const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
    return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** The MIME type of a binary part (`application/octet-stream` for a resource that names none). */
export function mimeTypeOf(part: BinaryPart): string {
    return part.mimeType ?? 'application/octet-stream';
}

/** The payload of a binary part, base64. */
export function dataOf(part: BinaryPart): string {
    return part.type === 'image' ? part.data : part.blob;
}

/** A `data:` URL of a binary part (OpenAI's image and file inputs take them). */
export function dataUrl(part: BinaryPart): string {
    return `data:${mimeTypeOf(part)};base64,${dataOf(part)}`;
}

/** The last path segment of a resource's URI, a file name for hosts that want one. */
export function fileNameOf(part: ResourcePart): string {
    const name = part.uri.replace(/[?#].*$/, '').split('/').pop();
    try {
        return name ? decodeURIComponent(name) : 'file';
    } catch {
        return name || 'file';
    }
}

/** One line naming a binary part: kind, MIME type, size (`image image/png, 12,345 bytes`). */
export function describePart(part: BinaryPart): string {
    const size = `${base64Size(dataOf(part)).toLocaleString('en-US')} bytes`;
    return part.type === 'image' ? `image ${part.mimeType}, ${size}` : `resource ${part.uri}, ${mimeTypeOf(part)}, ${size}`;
}

/** The line that stands for a part a host leaves out, saying why. */
export function omittedLine(part: BinaryPart, reason: string = TEXT_ONLY): string {
    return `[${describePart(part)}: not shown: ${reason}]`;
}

/** A text resource as text: a header naming it, then its text. */
export function resourceText(part: ResourcePart & { text: string }): string {
    return `--- ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ''} ---\n${part.text}`;
}

/**
 * The parts as one string for a host that takes only text: text parts as they are, text
 * resources with a header, and for each binary part the line `omit` gives (by default
 * {@link omittedLine}), one part per line. One text part gives its text unchanged.
 */
export function textOfParts(parts: readonly ContentPart[], omit: (part: BinaryPart) => string = (p) => omittedLine(p)): string {
    return parts.map((p) => (isBinary(p) ? omit(p) : p.type === 'text' ? p.text : resourceText(p))).join('\n');
}
