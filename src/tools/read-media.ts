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
              ? { op: 'pdf', ...file, pages: args.pages, maxChars, pageImages: args.page_images === true ? ctx.fileConfig.images : undefined }
              : { op: 'notebook', ...file, cells: args.cells, maxChars, images: args.cell_images === true };
    const r = await runMediaTask(await ctx.engine(), task, ctx.searchConfig.timeoutMs);
    if (!r.ok) return fail(r.message, r.kind);
    ctx.filePool.recordHash(c.real, r.hash);
    if (r.images.length === 0) return ok(r.text);
    const parts: ContentPart[] = [{ type: 'text', text: r.text }, ...r.images.map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mimeType }))];
    return ok(parts);
}
