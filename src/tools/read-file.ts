import fs from 'node:fs/promises';
import { ResultBuilder, type PartialToolResult } from './llm-chat.js';
import { z } from 'zod';
import { AccessType } from '../config/shared/configuration.js';
import { errors, escapeControls, toToolError, ToolError, type ToolErrorKind } from '../errors/shared/errors.js';
import { contentHash } from '../fs/shared/content-hash.js';
import { countLines, readLines, streamable } from '../text/line-stream.js';
import { openRegularFile, readRegularFile, type RealRoots } from '../fs/secure.js';
import type { CheckedPath, WorkspaceView } from '../access/workspace.js';
import { fail, failure, FileTool, ok, type FileToolResult } from './base.js';
import { notFoundNote } from './not-found-note.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { quotePath } from '../print/shared/display.js';
import { forcedEncoding, formatRead, renderRead, type ReadArgs, type StreamedLine } from '../text/shared/read-render.js';
import { rootsOf } from './shared.js';
import { mediaKindOf, type MediaKind } from '../media/shared/kinds.js';
import { RANGE_LIST } from '../media/shared/ranges.js';
import { MAX_IMAGES_PER_CALL, readMedia } from './read-media.js';
import { budgetReason, NOTE_RESERVE } from '../print/budget.js';
import { osPath } from '../print/shared/byte-names.js';

const CELL_LIST = new RegExp(`${RANGE_LIST.source}|^\\s*all\\s*$`);

/** Most paths one read_file call accepts. */
export const MAX_READ_PATHS = 100;

const schema = z
    .strictObject({
        paths: z
            // A single string is a list of one, as models often send it.
            .preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(arg.path()).min(1).max(MAX_READ_PATHS))
            .describe('Array of file paths to read (absolute, or relative to the workspace root); use ["file.txt"] for one file'),
        max_chars: arg.count('Maximum characters to return per file (default and cap: maxCharsPerFile)').optional(),
        start_line: arg.line('First line to read (1-indexed, inclusive)').optional(),
        end_line: arg.line('Last line to read (1-indexed, inclusive)').optional(),
        line_numbers: z
            .boolean()
            .optional()
            .describe('Prefix each line with its 1-based number and a tab, as `cat -n` does (default false). The prefixes are not part of the file: leave them out of edits.'),
        start_char: arg
            .count('Character to start from, 1-based (default 1), in the first line read of a text, page of a PDF or cell of a notebook: reads on in one longer than max_chars, as a truncation note advises')
            .optional(),
        last_lines: arg.count('Read only the last N lines of each file (instead of start_line/end_line)').optional(),
        encoding: z
            .string()
            .optional()
            .describe('Decode the files as this encoding (shift_jis, gbk, big5, euc-kr, windows-1251, latin1, utf-8, ...) instead of the detected one'),
        pages: z
            .string()
            .regex(RANGE_LIST, 'a page list such as "3", "1-5" or "2,7-9"')
            .optional()
            .describe('PDF files only: the pages to read, e.g. "3", "1-5", "2,7-9" (default: the first pages that fit max_chars)'),
        page_images: z
            .boolean()
            .optional()
            .describe('PDF files only: also send each shown page that has no text (a scan, a drawing) as an image of the page (default false)'),
        cells: z
            .string()
            .regex(CELL_LIST, 'a cell list such as "3", "1-5", "2,7-9" or "all"')
            .optional()
            .describe('Jupyter notebooks (.ipynb) only: show the notebook as numbered cells, these ones ("3", "1-5", "2,7-9" or "all"), instead of its JSON'),
        cell_images: z.boolean().optional().describe('With cells: also send the images of the cells\' outputs as images (default false)'),
    })
    .refine((a) => a.start_line === undefined || a.end_line === undefined || a.end_line >= a.start_line, {
        message: 'end_line must be greater than or equal to start_line',
        path: ['end_line'],
    })
    .refine((a) => a.last_lines === undefined || (a.start_line === undefined && a.end_line === undefined), {
        message: 'last_lines reads the end of the file: leave out start_line and end_line, or leave out last_lines',
        path: ['last_lines'],
    });

type Args = z.infer<typeof schema>;

const declaration = declareTool({
    name: 'read_file',
    title: 'Read files',
    description: 'Reads the full contents of one or more text files. Always pass an array of file paths via paths — use ["file.txt"] for a single file or ["a.txt", "b.txt"] for batch. Supports optional character limits and line ranges (start_line/end_line) for reading specific sections. For partial file edits, see replace_file_lines, insert_file_content, or replace_file_content.',
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/**
 * `read_file`: reads one or more text files, one result per path in the order given. Line ranges
 * and a per-file character cap are optional; binaries, directories, FIFOs and files above
 * `maxFileSize` are refused with their own error. Several paths are read in parallel on the
 * worker pool. Each successful read is recorded in the FilePool (read-before-write).
 *
 * Result: `--- /abs/path (lines 1-42 of 42) ---\n<content>`. With `line_numbers: true` each line
 * is prefixed as `cat -n` prints it: the number right-aligned in 6 columns, then a tab
 * (`    12\tconst x = 1;`); the prefixes count towards `max_chars`.
 */
export class ReadFileTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: Args, view: WorkspaceView): Promise<PartialToolResult> {
        // A bad name fails the call before any file is read.
        if (args.encoding !== undefined) forcedEncoding(Buffer.alloc(0), args.encoding);
        const roots = await rootsOf(view);
        const { maxFileSize } = this.ctx.fileConfig;
        const checked = await Promise.all(
            args.paths.map((p) => view.check(p, AccessType.Read, this.name, { param: 'paths' }).then(
                (c) => ({ ok: true as const, c }),
                (err: unknown) => ({ ok: false as const, failed: failure(err, p) }),
            )),
        );
        const kinds = new Map<CheckedPath, MediaKind>();
        for (const entry of checked) {
            if (!entry.ok) continue;
            const kind = mediaKindOf(entry.c.abs);
            // A notebook is shown as cells when asked (cells) or when the package says so; else as text, as the reference reads it.
            if (kind === 'image' || kind === 'pdf' || (kind === 'notebook' && (args.cells !== undefined || this.ctx.notebooks))) kinds.set(entry.c, kind);
        }
        const readable = checked.filter((c): c is { ok: true; c: CheckedPath } => c.ok && !kinds.has(c.c)).map((c) => c.c);
        let images = 0;
        const has = (k: MediaKind): boolean => [...kinds.values()].includes(k);
        let outcomes: Map<CheckedPath, { bytes: Uint8Array; hash?: string } | { shown: string; hash: string } | { error: string; kind: ToolErrorKind }>;
        if (readable.length > 1 || (readable.length === 1 && (await sizeOf(readable[0]!.real)) > MAIN_THREAD_READ_BYTES)) {
            // Perf: several files, or a large one, are read, hashed and formatted on the worker pool
            // (results in the order asked), so the host's event loop never decodes or splits a large
            // file (one 10 MiB file would hold it for ~200 ms).
            const read = await (await this.ctx.engine()).readMany(
                readable.map((c) => ({ shown: c.abs, real: c.real })),
                {
                    maxBytes: maxFileSize,
                    realRoots: roots,
                    timeoutMs: this.ctx.searchConfig.timeoutMs,
                    render: { args: readArgs(args), maxChars: this.maxChars(args) },
                },
            );
            outcomes = new Map(readable.map((c, i) => {
                const r = read[i]!;
                return [c, r.ok ? { shown: r.shown, hash: r.hash } : { error: r.message, kind: r.kind }];
            }));
        } else {
            outcomes = new Map();
            for (const c of readable) {
                try {
                    const opened = await readRegularFile(c.abs, c.real, roots, maxFileSize, 'maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)');
                    outcomes.set(c, { bytes: opened.bytes });
                } catch (err) {
                    const e = toToolError(err, c.abs);
                    outcomes.set(c, { error: escapeControls(e.message), kind: e.kind });
                }
            }
        }
        const ranged = args.start_line !== undefined || args.end_line !== undefined || args.last_lines !== undefined;
        // A read is recorded for read-before-write only when its text is returned (see withinBudget).
        const results = await Promise.all(checked.map(async (entry): Promise<Shown> => {
            if (!entry.ok) return { result: entry.failed };
            const kind = kinds.get(entry.c);
            // pages and cells apply to the PDFs and notebooks of a call; other files beside them are read as usual.
            if (args.pages !== undefined && kind !== 'pdf' && !has('pdf')) return { result: fail(`Invalid arguments for read_file: pages applies to PDF files; ${quotePath(entry.c.abs)} is not one (leave out pages for it).`, 'invalid_argument') };
            if (args.cells !== undefined && kind !== 'notebook' && !has('notebook')) return { result: fail(`Invalid arguments for read_file: cells applies to Jupyter notebooks (.ipynb); ${quotePath(entry.c.abs)} is not one (leave out cells for it).`, 'invalid_argument') };
            if (kind !== undefined) {
                if (kind === 'image' && ++images > MAX_IMAGES_PER_CALL) {
                    return { result: fail(`Too many images: read_file sends at most ${MAX_IMAGES_PER_CALL} images per call; read ${quotePath(entry.c.abs)} in another call.`, 'invalid_argument') };
                }
                return { result: await readMedia(this.ctx, entry.c, kind, args, roots, this.maxChars(args)) };
            }
            const outcome = outcomes.get(entry.c)!;
            const pool = this.ctx.filePool;
            try {
                if ('error' in outcome) {
                    // A line range of a file above maxFileSize is streamed: bounded memory, bounded output.
                    if (outcome.kind === 'too_large' && ranged) return { result: ok(await this.stream(entry.c, roots, args, outcome.error)) };
                    return { result: fail(outcome.error, outcome.kind) };
                }
                if ('shown' in outcome) return { result: ok(outcome.shown), record: () => pool.recordHash(entry.c.real, outcome.hash) };
                const result = formatRead(entry.c.abs, Buffer.from(outcome.bytes.buffer, outcome.bytes.byteOffset, outcome.bytes.byteLength), args, this.maxChars(args));
                return { result: ok(result), record: () => pool.recordHash(entry.c.real, outcome.hash ?? contentHash(outcome.bytes)) };
            } catch (err) {
                return { result: failure(err, entry.c.abs) };
            }
        }));
        // A path not found that meant a file at a line, or a glob, says so (not-found-note.ts).
        for (const [i, shown] of results.entries()) {
            if ((shown.result as FileToolResult).kind !== 'not_found') continue;
            const note = await notFoundNote(view, args.paths[i]!, this.name);
            if (note !== '') shown.result = { ...shown.result, result: `${shown.result.result}\n${note}` };
        }
        return ResultBuilder.from(withinBudget(results, args.paths, this.ctx.fileConfig.maxCharsPerCall)).build();
    }

    /**
     * The requested lines of a file above maxFileSize, streamed (see fs/line-stream.ts). Not
     * recorded as a read for read-before-write: edits refuse such files anyway.
     * @param tooLarge - the too-large error, kept for files that cannot be streamed (UTF-16).
     */
    private async stream(c: CheckedPath, roots: RealRoots, args: Args, tooLarge: string): Promise<string> {
        const { handle, size } = await openRegularFile(c.abs, c.real, roots);
        try {
            const why = await streamable(handle);
            if (why === 'binary') throw errors.binary(c.abs, size);
            // Streamed lines are decoded as UTF-8, else Latin-1: another encoding needs the whole file.
            if (why === 'utf16' || args.encoding !== undefined) throw new ToolError('too_large', tooLarge);
            const budget = this.maxChars(args) + (args.start_char ?? 1);
            let start = args.start_line ?? 1;
            if (args.last_lines !== undefined) start = Math.max(1, (await countLines(handle)) - args.last_lines + 1);
            const range = await readLines(handle, start, args.end_line ?? Infinity, budget);
            const lineAt = (n: number): StreamedLine => range.lines[n - range.first] ?? { text: '', eol: '', complete: false };
            return renderRead(c.abs, range.total, lineAt, args, this.maxChars(args));
        } finally {
            await handle.close();
        }
    }

    /** Characters shown of one file: max_chars, at most maxCharsPerFile, and within the call's budget (one file always fits). */
    private maxChars(args: { max_chars?: number | undefined }): number {
        const { maxCharsPerFile, maxCharsPerCall } = this.ctx.fileConfig;
        return Math.min(args.max_chars ?? maxCharsPerFile, maxCharsPerFile, Math.max(1, maxCharsPerCall - NOTE_RESERVE));
    }
}

/** One path's result, and how to record it as read when it is returned. */
interface Shown {
    result: PartialToolResult;
    record?: () => void;
}

/**
 * The results in order within the call's output budget (src/print/budget.ts): a file is added
 * when it fits together with the results the paths after it would get if it were the last one
 * added; once one does not, it and every later path get a short result instead, the first of them
 * naming the paths left out as a list to pass back. Those files are not recorded as read. The
 * first result is always added, so a call always makes progress.
 */
function withinBudget(results: readonly Shown[], paths: readonly string[], limit: number): PartialToolResult[] {
    const n = results.length;
    const why = `Not read: ${budgetReason(limit)} before this path.`;
    const first = (k: number): string => {
        const left = n - k;
        return `${why} To read the ${left === 1 ? 'path' : `${left} paths`} left out (this one first), call read_file again with paths: ${JSON.stringify(paths.slice(k))}`;
    };
    const later = (k: number): string => `Not read: the output budget is spent; see the result for ${JSON.stringify(paths[k])}.`;
    /** Characters of the results of paths k.. when they are left out. */
    const leftOutCost = (k: number): number => (k >= n ? 0 : first(k).length + (n - k - 1) * later(k).length);
    const out: PartialToolResult[] = [];
    let used = 0;
    let k = 0;
    for (; k < n; k++) {
        const size = String(results[k]!.result.result).length;
        if (k > 0 && used + size + leftOutCost(k + 1) > limit) break;
        used += size;
        results[k]!.record?.();
        out.push(results[k]!.result);
    }
    if (k < n) out.push(ok(first(k)));
    for (let j = k + 1; j < n; j++) out.push(ok(later(k)));
    return out;
}

/** Files up to this many bytes are formatted on the main thread (a few milliseconds at most); larger ones on the pool. */
const MAIN_THREAD_READ_BYTES = 256 * 1024;

/** Size of a file in bytes; 0 when it cannot be stat'ed (the read then reports why). */
async function sizeOf(real: string): Promise<number> {
    try {
        return (await fs.stat(osPath(real))).size;
    } catch {
        return 0;
    }
}

/** The arguments that decide what is shown of each file. */
function readArgs(args: Args): ReadArgs {
    return { start_line: args.start_line, end_line: args.end_line, line_numbers: args.line_numbers, start_char: args.start_char, last_lines: args.last_lines, encoding: args.encoding };
}
