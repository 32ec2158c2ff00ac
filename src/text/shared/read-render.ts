import { errors } from '../../errors/shared/errors.js';
import { decodeText, forcedEncodingOf, splitLines, type TextEncodingInfo } from './text.js';
import { normalizeEncoding } from './legacy.js';
import { encodingName } from './reencode.js';
import { quotePath } from '../../print/shared/display.js';

/**
 * What `read_file` shows of one file: the header and the requested lines, cut at `max_chars`.
 * Pure functions of the file's bytes and the call's arguments, so that a worker of the pool can
 * format a large file and hand back only the text shown (see workers/read/read.ts).
 */

const TOOL = 'read_file';

/** read_file's line-number prefix with `line_numbers`, as `cat -n` prints it: the number right-aligned in 6 columns, then a tab. */
export function lineNumberPrefix(n: number): string {
    return `${String(n).padStart(6)}\t`;
}

/** The arguments of a `read_file` call that decide what is shown of each file. */
export interface ReadArgs {
    start_line?: number | undefined;
    end_line?: number | undefined;
    line_numbers?: boolean | undefined;
    start_char?: number | undefined;
    last_lines?: number | undefined;
    /** Decode as this encoding instead of the detected one (checked by the tool: {@link forcedEncoding}). */
    encoding?: string | undefined;
}

/** One kept line: its text, terminator, and whether `text` is the whole line (else a prefix). */
export interface StreamedLine {
    text: string;
    eol: string;
    complete: boolean;
}

/**
 * A line as {@link renderRead} takes it: a {@link StreamedLine}, or a window of a long line whose
 * full length is known (`text` holds characters `offset..offset + text.length` of the line,
 * `length` is the whole line's length in characters). A window must hold every character of the
 * line from `start_char` that can be shown (at least `max_chars + 1` of them, or up to the line's
 * end); see workers/read/read-window.ts.
 */
export type ShownLine = StreamedLine & { length?: number; offset?: number };

/**
 * Header plus the requested lines of a file read whole.
 * @throws ToolError `binary` for binary content, `invalid_argument` for a range beyond the file.
 */
export function formatRead(abs: string, bytes: Buffer, args: ReadArgs, maxChars: number, notes: ReadNotes = READ_FILE_NOTES): string {
    const forced = args.encoding === undefined ? undefined : forcedEncoding(bytes, args.encoding);
    const decoded = decodeText(bytes, forced);
    if (!decoded.ok) throw errors.binary(abs, bytes.length, bytes);
    const { lines, eols } = splitLines(decoded.text);
    const shown = renderRead(abs, lines.length, (n) => ({ text: lines[n - 1]!, eol: eols[n - 1]!, complete: true }), args, maxChars, notes);
    const note = encodingNote(decoded.info, forced !== undefined);
    return note === '' ? shown : `${shown}${shown.endsWith('\n') ? '' : '\n'}${note}`;
}

/**
 * The line after a file's text that names its encoding: for a detected legacy encoding (UTF-8,
 * UTF-16 with a BOM and Latin-1 show none, as they never did), and for one the call named.
 */
function encodingNote(info: TextEncodingInfo, forced: boolean): string {
    if (forced) return `[Decoded as ${encodingName(info)} (encoding parameter).]`;
    if (info.encoding !== 'legacy') return '';
    return `[Encoding: ${encodingName(info)}, detected; edits write the file back in it.]`;
}

/**
 * How `bytes` are decoded for read_file's `encoding` parameter.
 * @throws ToolError `invalid_argument` for a name that is no encoding this package decodes.
 */
export function forcedEncoding(bytes: Uint8Array, name: string): TextEncodingInfo {
    const known = normalizeEncoding(name);
    if (known === null) {
        throw errors.invalidArgument(
            TOOL,
            `encoding ${JSON.stringify(name)} is not an encoding read_file can decode. Use utf-8, utf-16le, utf-16be, latin1, or an ASCII-compatible legacy encoding such as shift_jis, euc-jp, gbk, gb18030, big5, euc-kr, windows-1250, windows-1251, windows-1252, iso-8859-2; or leave encoding out to detect it.`,
        );
    }
    return typeof known === 'string' ? forcedEncodingOf(bytes, known) : forcedEncodingOf(bytes, 'legacy', known.legacy);
}

/** What a truncation note names: the limit that cut the read, and how to read on from a line (and a character of it). */
export interface ReadNotes {
    limit: string;
    resume(line: number, char?: number): string;
}

/** read_file's own notes: its parameters. */
export const READ_FILE_NOTES: ReadNotes = {
    limit: 'max_chars / maxCharsPerFile',
    resume: (line, char) => `continue with start_line=${line}${char === undefined ? '' : ` and start_char=${char}`}`,
};

/**
 * Header plus lines `start..end` (from `start_char` of the first), capped at `max_chars`
 * characters with a note saying where to continue; every such note makes progress: a line
 * cut before any of the next lines is continued within itself (`start_char`).
 * @param line - line `n` (1-based) of the file; `complete: false` when only a prefix is known.
 */
export function renderRead(abs: string, total: number, line: (n: number) => ShownLine, args: ReadArgs, maxChars: number, notes: ReadNotes = READ_FILE_NOTES): string {
    const start = args.last_lines !== undefined ? Math.max(1, total - args.last_lines + 1) : (args.start_line ?? 1);
    if (total === 0) {
        if (args.start_line !== undefined && args.start_line > 1) {
            throw errors.invalidArgument(TOOL, `start_line ${start} is beyond the end of ${quotePath(abs)}, which is empty (0 lines).`);
        }
        return `--- ${quotePath(abs)} (lines 0-0 of 0) ---\n`;
    }
    if (start > total) {
        throw errors.invalidArgument(TOOL, `start_line ${start} is beyond the end of ${quotePath(abs)}, which has ${total} lines.`);
    }
    const end = Math.min(args.end_line ?? total, total);
    const startChar = args.start_char ?? 1;
    let body = '';
    let shownEnd = start - 1;
    /** The line cut by max_chars: its number, the characters of it shown (1-based, inclusive) and its length when known. */
    let cut: { n: number; from: number; to: number; length: number | undefined } | undefined;
    for (let n = start; n <= end; n++) {
        const l = line(n);
        const from = n === start ? startChar : 1;
        /** The line's length in characters, and the characters of it before `l.text`. */
        const length = l.length ?? l.text.length;
        const offset = l.offset ?? 0;
        if (from > 1 && l.complete && from > length) {
            throw errors.invalidArgument(TOOL, `start_char ${from} is beyond the end of line ${n} of ${quotePath(abs)}, which has ${length} characters.`);
        }
        const prefix = args.line_numbers === true ? lineNumberPrefix(n) : '';
        const text = from > 1 || offset > 0 ? l.text.slice(Math.max(0, from - 1 - offset)) : l.text;
        /** Characters of the line from `from` on (more than `text` holds when `l` is a window). */
        const rest = l.length === undefined ? text.length : Math.max(0, length - (from - 1));
        const piece = prefix + text + l.eol;
        if (body.length + piece.length > maxChars || !l.complete) {
            const room = maxChars - body.length;
            body += piece.slice(0, room);
            const shown = Math.max(0, Math.min(room - prefix.length, rest));
            cut = { n, from, to: from + shown - 1, length: l.complete ? length : undefined };
            break;
        }
        body += piece;
        shownEnd = n;
    }
    let out = `--- ${quotePath(abs)} (lines ${start}-${cut ? Math.max(shownEnd, start) : end} of ${total}) ---\n${body}`;
    if (cut) {
        const sep = body.endsWith('\n') ? '' : '\n';
        const head = `Truncated at ${maxChars} characters (${notes.limit})`;
        if (cut.n > start) {
            out += `${sep}[${head}: line ${cut.n} is cut off; ${notes.resume(cut.n)}.]`;
        } else if (cut.length !== undefined && cut.to >= cut.length) {
            // All of the line's text was shown, only its line ending was not.
            out += cut.n < end ? `${sep}[${head}: ${notes.resume(cut.n + 1)}.]` : `${sep}[${head}: line ${cut.n} is shown in full, without its line ending.]`;
        } else {
            if (cut.to < cut.from) {
                throw errors.invalidArgument(TOOL, `max_chars ${maxChars} is too small to show any character of line ${cut.n} of ${quotePath(abs)}${args.line_numbers === true ? ' with its line number' : ''}; raise max_chars.`);
            }
            const of = cut.length === undefined ? '' : ` of its ${cut.length}`;
            out += `${sep}[${head}: showed characters ${cut.from}-${cut.to}${of} of line ${cut.n}; ${notes.resume(cut.n, cut.to + 1)}.]`;
        }
    }
    return out;
}
