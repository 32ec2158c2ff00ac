import fs from 'node:fs/promises';
import { ResultBuilder, type PartialToolResult } from './llm-chat.js';
import { z } from 'zod';
import { AccessType } from '../config/shared/configuration.js';
import { errors, escapeControls, toToolError, ToolError, type ToolErrorKind } from '../errors/shared/errors.js';
import { contentHash } from '../fs/shared/content-hash.js';
import { countLines, readLines, streamable } from '../text/line-stream.js';
import { openRegularFile, readRegularFile, type RealRoots } from '../fs/secure.js';
import type { CheckedPath, WorkspaceView } from '../access/workspace.js';
import { fail, failure, FileTool, ok } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { formatRead, renderRead, type ReadArgs, type StreamedLine } from '../text/shared/read-render.js';
import { rootsOf } from './shared.js';
import { osPath } from '../print/shared/byte-names.js';

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
            .count('Character of the first line (start_line, default 1) to start from, 1-based (default 1): pages through a line longer than max_chars, as a truncation note advises')
            .optional(),
        last_lines: arg.count('Read only the last N lines of each file (instead of start_line/end_line)').optional(),
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
        const roots = await rootsOf(view);
        const { maxFileSize } = this.ctx.fileConfig;
        const checked = await Promise.all(
            args.paths.map((p) => view.check(p, AccessType.Read, this.name, { param: 'paths' }).then(
                (c) => ({ ok: true as const, c }),
                (err: unknown) => ({ ok: false as const, failed: failure(err, p) }),
            )),
        );
        const readable = checked.filter((c): c is { ok: true; c: CheckedPath } => c.ok).map((c) => c.c);
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
        const results = await Promise.all(checked.map(async (entry): Promise<PartialToolResult> => {
            if (!entry.ok) return entry.failed;
            const outcome = outcomes.get(entry.c)!;
            try {
                if ('error' in outcome) {
                    // A line range of a file above maxFileSize is streamed: bounded memory, bounded output.
                    if (outcome.kind === 'too_large' && ranged) return ok(await this.stream(entry.c, roots, args, outcome.error));
                    return fail(outcome.error, outcome.kind);
                }
                if ('shown' in outcome) {
                    this.ctx.filePool.recordHash(entry.c.real, outcome.hash);
                    return ok(outcome.shown);
                }
                const result = formatRead(entry.c.abs, Buffer.from(outcome.bytes.buffer, outcome.bytes.byteOffset, outcome.bytes.byteLength), args, this.maxChars(args));
                this.ctx.filePool.recordHash(entry.c.real, outcome.hash ?? contentHash(outcome.bytes));
                return ok(result);
            } catch (err) {
                return failure(err, entry.c.abs);
            }
        }));
        return ResultBuilder.from(results).build();
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
            if (why === 'utf16') throw new ToolError('too_large', tooLarge);
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

    private maxChars(args: { max_chars?: number | undefined }): number {
        return Math.min(args.max_chars ?? this.ctx.fileConfig.maxCharsPerFile, this.ctx.fileConfig.maxCharsPerFile);
    }
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
    return { start_line: args.start_line, end_line: args.end_line, line_numbers: args.line_numbers, start_char: args.start_char, last_lines: args.last_lines };
}
