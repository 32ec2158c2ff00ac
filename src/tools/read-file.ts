import { ResultBuilder, type PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import { AccessType } from '../config/configuration.js';
import { errors } from '../errors.js';
import { contentHash } from '../file-pool.js';
import { readRegularFile } from '../fs/secure.js';
import { decodeText, splitLines } from '../fs/text.js';
import type { CheckedPath, Workspace, WorkspaceView } from '../workspace.js';
import { arg, describeFailure, fail, FileTool, ok, type ToolShared } from './base.js';
import { rootsOf } from './shared.js';

/** Most paths one read_file call accepts. */
export const MAX_READ_PATHS = 100;

const schema = z
    .strictObject({
        paths: z
            .array(arg.path())
            .min(1)
            .max(MAX_READ_PATHS)
            .describe('Array of file paths to read (absolute, or relative to the workspace root); use ["file.txt"] for one file'),
        max_chars: arg.count('Maximum characters to return per file (default and cap: maxCharsPerFile)').optional(),
        start_line: arg.line('First line to read (1-indexed, inclusive)').optional(),
        end_line: arg.line('Last line to read (1-indexed, inclusive)').optional(),
        line_numbers: z
            .boolean()
            .optional()
            .describe('Prefix each line with its 1-based number and a tab, as `cat -n` does (default false). The prefixes are not part of the file: leave them out of edits.'),
    })
    .refine((a) => a.start_line === undefined || a.end_line === undefined || a.end_line >= a.start_line, {
        message: 'end_line must be greater than or equal to start_line',
        path: ['end_line'],
    });

type Args = z.infer<typeof schema>;

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
    constructor(workspace: Workspace, shared?: ToolShared) {
        super(
            'read_file',
            'Reads the full contents of one or more text files. Always pass an array of file paths via paths — use ["file.txt"] for a single file or ["a.txt", "b.txt"] for batch. Supports optional character limits and line ranges (start_line/end_line) for reading specific sections. For partial file edits, see replace_file_lines, insert_file_content, or replace_file_content.',
            schema,
            workspace,
            shared,
        );
    }

    protected async run(args: Args, view: WorkspaceView): Promise<PartialToolResult> {
        const roots = await rootsOf(view);
        const { maxFileSize } = this.ctx.fileConfig;
        const checked = await Promise.all(
            args.paths.map((p) => view.check(p, AccessType.Read, this.name, { param: 'paths' }).then(
                (c) => ({ ok: true as const, c }),
                (err: unknown) => ({ ok: false as const, message: describeFailure(err, p) }),
            )),
        );
        const readable = checked.filter((c): c is { ok: true; c: CheckedPath } => c.ok).map((c) => c.c);
        let outcomes: Map<CheckedPath, { bytes: Uint8Array; hash?: string } | { error: string }>;
        if (readable.length > 1) {
            // Perf: several files are read in parallel on the worker pool, results in the order asked.
            const read = await this.ctx.engine.readMany(
                readable.map((c) => ({ shown: c.abs, real: c.real })),
                { maxBytes: maxFileSize, realRoots: roots, timeoutMs: this.ctx.searchConfig.timeoutMs },
            );
            outcomes = new Map(readable.map((c, i) => {
                const r = read[i]!;
                return [c, r.ok ? { bytes: r.bytes, hash: r.hash } : { error: r.message }];
            }));
        } else {
            outcomes = new Map();
            for (const c of readable) {
                try {
                    const opened = await readRegularFile(c.abs, c.real, roots, maxFileSize, 'maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)');
                    outcomes.set(c, { bytes: opened.bytes });
                } catch (err) {
                    outcomes.set(c, { error: describeFailure(err, c.abs) });
                }
            }
        }
        const results = checked.map((entry): PartialToolResult => {
            if (!entry.ok) return fail(entry.message);
            const outcome = outcomes.get(entry.c)!;
            if ('error' in outcome) return fail(outcome.error);
            try {
                const result = this.format(entry.c.abs, Buffer.from(outcome.bytes.buffer, outcome.bytes.byteOffset, outcome.bytes.byteLength), args);
                this.ctx.filePool.recordHash(entry.c.real, outcome.hash ?? contentHash(outcome.bytes));
                return ok(result);
            } catch (err) {
                return fail(describeFailure(err, entry.c.abs));
            }
        });
        return ResultBuilder.from(results).build();
    }

    /** Header plus the requested lines, capped at `max_chars` characters with a note saying where to continue. */
    private format(abs: string, bytes: Buffer, args: Args): string {
        const decoded = decodeText(bytes);
        if (!decoded.ok) throw errors.binary(abs, bytes.length);
        const { lines, eols } = splitLines(decoded.text);
        const total = lines.length;
        const start = args.start_line ?? 1;
        if (total === 0) {
            if (args.start_line !== undefined && args.start_line > 1) {
                throw errors.invalidArgument(this.name, `start_line ${start} is beyond the end of ${abs}, which is empty (0 lines).`);
            }
            return `--- ${abs} (lines 0-0 of 0) ---\n`;
        }
        if (start > total) {
            throw errors.invalidArgument(this.name, `start_line ${start} is beyond the end of ${abs}, which has ${total} lines.`);
        }
        const end = Math.min(args.end_line ?? total, total);
        const maxChars = Math.min(args.max_chars ?? this.ctx.fileConfig.maxCharsPerFile, this.ctx.fileConfig.maxCharsPerFile);
        let body = '';
        let shownEnd = start - 1;
        let truncated = false;
        for (let i = start - 1; i < end; i++) {
            const piece = (args.line_numbers === true ? `${String(i + 1).padStart(6)}\t` : '') + lines[i]! + eols[i]!;
            if (body.length + piece.length > maxChars) {
                body += piece.slice(0, maxChars - body.length);
                truncated = true;
                break;
            }
            body += piece;
            shownEnd = i + 1;
        }
        let out = `--- ${abs} (lines ${start}-${truncated ? Math.max(shownEnd, start) : end} of ${total}) ---\n${body}`;
        if (truncated) {
            const next = shownEnd + 1;
            out += `${body.endsWith('\n') ? '' : '\n'}[Truncated at ${maxChars} characters (max_chars / maxCharsPerFile): line ${next} is cut off; continue with start_line=${next}.]`;
        }
        return out;
    }
}
