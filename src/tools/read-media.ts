import type { PartialToolResult } from './llm-chat.js';
import type { ContentPart } from '../content/parts.js';
import type { CheckedPath } from '../access/workspace.js';
import type { RealRoots } from '../fs/secure.js';
import type { MediaKind } from '../media/shared/kinds.js';
import type { MediaTask } from '../media/shared/protocol.js';
import { runMediaTask } from '../media/read-media.js';
import { fail, ok, type ToolContext } from './base.js';

/** Most images one `read_file` call sends; the others are refused with a note saying so. */
export const MAX_IMAGES_PER_CALL = 20;

/** What `read_file` passes on to a media read. */
export interface MediaReadArgs {
    pages?: string | undefined;
    page_images?: boolean | undefined;
    cells?: string | undefined;
    cell_images?: boolean | undefined;
    start_line?: number | undefined;
    end_line?: number | undefined;
    last_lines?: number | undefined;
    start_char?: number | undefined;
    line_numbers?: boolean | undefined;
    encoding?: string | undefined;
}

/** The parameters of text reads, which a media read does not use. */
const TEXT_ONLY = ['start_line', 'end_line', 'last_lines', 'start_char', 'line_numbers', 'encoding'] as const;
const INSTEAD: Readonly<Record<MediaKind, string>> = { image: 'the whole image is sent', pdf: 'pages picks the pages of a PDF', notebook: 'cells picks the cells of a notebook' };

/**
 * The note for text-read parameters given with a media file (a call may mix text files, which
 * use them, and media, which cannot), so that none is dropped silently; `undefined` when none is given.
 */
export function unusedNote(kind: MediaKind, args: MediaReadArgs): string | undefined {
    // A PDF's page or a notebook's cell can be longer than the bound: start_char continues it.
    const given = TEXT_ONLY.filter((k) => args[k] !== undefined && !(kind !== 'image' && k === 'start_char'));
    if (given.length === 0) return undefined;
    const names = given.length === 1 ? given[0]! : `${given.slice(0, -1).join(', ')} and ${given.at(-1)!}`;
    return `[${names} ${given.length === 1 ? 'applies' : 'apply'} to text files and ${given.length === 1 ? 'is' : 'are'} not used for this ${kind === 'pdf' ? 'PDF' : kind}: ${INSTEAD[kind]}.]`;
}

/**
 * One media file as `read_file` returns it: the worker's text, then its images as image parts
 * (a text-only host gets the text and a line per image saying it was not shown). A successful
 * read is recorded for read-before-write, as a text read is.
 */
export async function readMedia(ctx: ToolContext, c: CheckedPath, kind: MediaKind, args: MediaReadArgs, roots: RealRoots, maxChars: number): Promise<PartialToolResult> {
    const file = { shown: c.abs, real: c.real, realRoots: roots, maxBytes: ctx.fileConfig.maxFileSize };
    const task: MediaTask =
        kind === 'image'
            ? { op: 'image', ...file, limits: ctx.fileConfig.images }
            : kind === 'pdf'
              ? { op: 'pdf', ...file, pages: args.pages, maxChars, startChar: args.start_char, pageImages: args.page_images === true ? ctx.fileConfig.images : undefined }
              : { op: 'notebook', ...file, cells: args.cells, maxChars, startChar: args.start_char, images: args.cell_images === true };
    const r = await runMediaTask(await ctx.engine(), task, ctx.searchConfig.timeoutMs);
    if (!r.ok) return fail(r.message, r.kind);
    ctx.filePool.recordHash(c.real, r.hash);
    const note = unusedNote(kind, args);
    const text = note === undefined ? r.text : `${r.text}\n${note}`;
    if (r.images.length === 0) return ok(text);
    const parts: ContentPart[] = [{ type: 'text', text }, ...r.images.map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mimeType }))];
    return ok(parts);
}
