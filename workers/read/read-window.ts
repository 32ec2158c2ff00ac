import { isAscii, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { errors } from '../../src/errors/shared/errors.js';
import { BINARY_SAMPLE_BYTES, isBinary, textEncodingOf } from '../../src/text/shared/text.js';
import { DetectionSample, detectLegacySample } from '../../src/text/shared/legacy.js';
import { renderRead, type ReadArgs, type ShownLine } from '../../src/text/shared/read-render.js';
import { readBuffer } from '../fs/read-buffer.js';

/**
 * `read_file`'s text of a large file without holding the file: what `formatRead` shows of the
 * whole file's bytes, and `contentHash` of them, from positional reads of {@link CHUNK_BYTES}
 * into one reused buffer. Memory / event loop: a 200 MB one-line file read whole would take the
 * process to ~900 MB RSS (the bytes, their decoded text and its lines on the worker), and freeing
 * that would stall the host's event loop, while `read_file` shows at most `max_chars` characters
 * (10,000 by default).
 *
 * Two passes over the descriptor: the first hashes every byte, decides the encoding as
 * `decodeText` does (strict UTF-8 for the whole file, else a legacy encoding or Latin-1) and counts the lines (the
 * model of `splitLines`: `\n` ends a line, a `\r` before it belongs to the terminator); the second
 * reads from the start only up to the last line shown, keeping of each line a window of
 * `max_chars + 1` characters from where it is shown and counting its full length in UTF-16
 * code units, the unit of JavaScript strings and of `max_chars`.
 */

/** Files above this many bytes are read in windows on the worker; smaller ones whole. */
export const WINDOWED_READ_BYTES = 1024 * 1024;

/** Bytes per positional read. */
export const CHUNK_BYTES = 1024 * 1024;

/** Room before the chunk for the up to 3 bytes of a UTF-8 sequence cut by the previous chunk. */
const CARRY = 4;

/** The chunk buffer of this thread, made on first use. */
let chunkBuffer: Buffer | undefined;

/** The text shown of a file and the SHA-256 (hex) and size in bytes of all of it. */
export interface WindowedRead {
    shown: string;
    hash: string;
    size: number;
}

/**
 * {@link formatRead} of the whole file open as `fd` plus `contentHash` of its bytes, reading at
 * most two chunks' worth of memory. Returns `null` for a file starting with a byte-order mark
 * (its lenient decoding is left to the whole-file read), one in a legacy encoding and one read
 * with a named `encoding` (decoded whole, as formatRead does).
 * @throws ToolError `binary` for binary content, `invalid_argument` for a range beyond the file
 *   (the errors of formatRead).
 */
export function readWindowed(fd: number, abs: string, args: ReadArgs, maxChars: number): WindowedRead | null {
    // Memory: one buffer per thread for every file it reads (a call runs synchronously to its end),
    // not a fresh megabyte per file left to the collector.
    // Placed in its page only where this thread already uses held-at's native layer (read-buffer.ts).
    const buf = (chunkBuffer ??= readBuffer(CARRY + CHUNK_BYTES, false));
    // A copy: the passes below reuse the buffer.
    const head = Buffer.from(chunkAt(fd, buf, 0).subarray(0, BINARY_SAMPLE_BYTES));
    if (textEncodingOf(head).bom) return null;
    const first = firstPass(fd, buf);
    if (isBinary(head)) throw errors.binary(abs, first.size, head);
    // A file in a legacy encoding (text.ts textEncodingOf, decided on the same sample) and one
    // read in a named encoding are read whole; the rest is UTF-8 or Latin-1, read in windows.
    if (args.encoding !== undefined || (!first.utf8 && detectLegacySample(sampleOf(fd, buf)) !== null)) return null;
    const total = first.lines;
    const start = args.last_lines !== undefined ? Math.max(1, total - args.last_lines + 1) : (args.start_line ?? 1);
    let lines: ShownLine[] = [];
    if (total > 0 && start <= total) {
        const end = Math.min(args.end_line ?? total, total);
        lines = windows(fd, buf, first.utf8, start, end, args.start_char ?? 1, maxChars);
    }
    const line = (n: number): ShownLine => {
        const l = lines[n - start];
        if (l === undefined) throw new Error(`read-window: line ${n} was not kept`);
        return l;
    };
    return { shown: renderRead(abs, total, line, args, maxChars), hash: first.hash, size: first.size };
}

/** The bytes at `position` (up to {@link CHUNK_BYTES}) in `buf` after its carry room; empty at the end. */
function chunkAt(fd: number, buf: Buffer, position: number): Buffer {
    const n = readSync(fd, buf, CARRY, CHUNK_BYTES, position);
    return buf.subarray(CARRY, CARRY + n);
}

/**
 * What the encoding detector judges of the file (legacy.ts `DetectionSample`), read again from
 * the start until the sample is full: only for a file that is not UTF-8, so UTF-8 files pay nothing.
 */
function sampleOf(fd: number, buf: Buffer): Buffer {
    const sample = new DetectionSample();
    for (let at = 0; !sample.full; ) {
        const data = chunkAt(fd, buf, at);
        if (data.length === 0) break;
        sample.feed(data);
        at += data.length;
    }
    return sample.bytes();
}

/** Hash, size, line count and whether all of the file is valid UTF-8, from one pass. */
function firstPass(fd: number, buf: Buffer): { hash: string; size: number; lines: number; utf8: boolean } {
    const hash = createHash('sha256');
    let size = 0;
    let newlines = 0;
    let last = -1;
    let utf8 = true;
    let carried = 0;
    for (;;) {
        const data = chunkAt(fd, buf, size);
        if (data.length === 0) break;
        hash.update(data);
        size += data.length;
        last = data[data.length - 1]!;
        for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) newlines++;
        if (utf8) {
            // The sequence cut by the previous chunk was copied before this one: validate them together.
            const whole = buf.subarray(CARRY - carried, CARRY + data.length);
            const cut = sequenceEnd(whole);
            utf8 = isUtf8(whole.subarray(0, cut));
            carried = whole.length - cut;
            if (carried > 0) Buffer.from(whole.subarray(cut)).copy(buf, CARRY - carried);
        }
    }
    if (carried > 0) utf8 = false;
    return { hash: hash.digest('hex'), size, lines: size === 0 ? 0 : newlines + (last === 10 ? 0 : 1), utf8 };
}

/**
 * Where `b` ends at a UTF-8 sequence boundary: `b.length`, or the start of a last sequence its
 * lead byte says is longer than the bytes left (at most 3 bytes are then carried). Validating
 * the part before and the rest with the next chunk decides the same as validating all at once.
 */
function sequenceEnd(b: Uint8Array): number {
    for (let k = 1; k <= 3 && k <= b.length; k++) {
        const c = b[b.length - k]!;
        if ((c & 0xc0) === 0x80) continue;
        if (c < 0xc0) return b.length;
        const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
        return need > k ? b.length - k : b.length;
    }
    return b.length;
}

/** UTF-16 code units of the UTF-8 bytes `b` (valid UTF-8): one per sequence, two for a 4-byte one. */
function utf8Units(b: Uint8Array): number {
    if (isAscii(b)) return b.length;
    let n = 0;
    for (let i = 0; i < b.length; i++) {
        const c = b[i]!;
        if ((c & 0xc0) !== 0x80) n += c >= 0xf0 ? 2 : 1;
    }
    return n;
}

/**
 * Lines `start..end` as windows (see {@link ShownLine}): of each, the characters from `startChar`
 * (the first line) or 1 (the others), `maxChars + 1` of them at most, with the line's full
 * length; lines are kept until they hold more than `maxChars` characters, which `renderRead`
 * never shows past.
 */
function windows(fd: number, buf: Buffer, utf8: boolean, start: number, end: number, startChar: number, maxChars: number): ShownLine[] {
    const span = maxChars + 1;
    const out: ShownLine[] = [];
    let kept = 0;
    let lineNo = 1;
    // The line being read: its length so far in UTF-16 units, its window's bytes and where the window starts.
    let units = 0;
    let lastByte = -1;
    let parts: Buffer[] = [];
    let windowAt = -1;
    /** The last sequence taken into the window may go on in the next chunk. */
    let tailInWindow = false;
    let from = start === 1 ? startChar - 1 : 0;
    const inRange = (): boolean => lineNo >= start && lineNo <= end;
    /** Takes the bytes `data[a..b)` of the current line: into the window where they fall in it, else only counted. */
    const take = (data: Buffer, a: number, b: number): void => {
        if (b <= a) return;
        lastByte = data[b - 1]!;
        if (!inRange()) return;
        const windowEnd = from + span;
        if (!utf8) {
            // Latin-1: one unit per byte.
            const lo = Math.max(a, a + (from - units));
            const hi = Math.min(b, a + (windowEnd - units));
            if (hi > lo) {
                if (windowAt < 0) windowAt = units + (lo - a);
                parts.push(Buffer.from(data.subarray(lo, hi)));
            }
            units += b - a;
            return;
        }
        // Continuation bytes that end the previous chunk's last sequence belong where it went.
        let i = a;
        while (i < b && (data[i]! & 0xc0) === 0x80) i++;
        if (i > a && tailInWindow) parts.push(Buffer.from(data.subarray(a, i)));
        tailInWindow = false;
        let lo = -1;
        for (; i < b && units < windowEnd; i++) {
            const c = data[i]!;
            if ((c & 0xc0) === 0x80) continue;
            const w = c >= 0xf0 ? 2 : 1;
            // A sequence belongs to the window when any of its units does (a surrogate pair may straddle `from`).
            if (lo < 0 && units + w > from) {
                lo = i;
                if (windowAt < 0) windowAt = units;
            }
            units += w;
        }
        // The continuation bytes of the last sequence counted.
        while (i < b && (data[i]! & 0xc0) === 0x80) i++;
        if (lo >= 0) {
            parts.push(Buffer.from(data.subarray(lo, i)));
            tailInWindow = i === b;
        }
        if (i < b) units += utf8Units(data.subarray(i, b));
    };
    /** Ends the current line (`terminated` by `\n`); false when no more lines are needed. */
    const finish = (terminated: boolean, lineBytes: number): boolean => {
        if (inRange()) {
            const crlf = terminated && lineBytes > 0 && lastByte === 13;
            const length = units - (crlf ? 1 : 0);
            const bytes = Buffer.concat(parts);
            const decoded = utf8 ? bytes.toString('utf8') : bytes.toString('latin1');
            const offset = windowAt < 0 ? Math.min(from, length) : from;
            const skip = windowAt < 0 ? 0 : from - windowAt;
            const text = decoded.slice(skip, skip + Math.max(0, Math.min(span, length - offset)));
            const eol = terminated ? (crlf ? '\r\n' : '\n') : '';
            out.push({ text, eol, complete: true, length, offset });
            kept += Math.max(0, length - from) + eol.length;
        }
        const more = lineNo < end && kept <= maxChars;
        lineNo++;
        units = 0;
        lastByte = -1;
        parts = [];
        windowAt = -1;
        tailInWindow = false;
        from = lineNo === start ? startChar - 1 : 0;
        return more;
    };
    let position = 0;
    let lineBytes = 0;
    for (;;) {
        const data = chunkAt(fd, buf, position);
        if (data.length === 0) break;
        position += data.length;
        let pos = 0;
        for (;;) {
            const nl = data.indexOf(10, pos);
            const stop = nl === -1 ? data.length : nl;
            take(data, pos, stop);
            lineBytes += stop - pos;
            if (nl === -1) break;
            if (!finish(true, lineBytes)) return out;
            lineBytes = 0;
            pos = nl + 1;
        }
    }
    if (lineBytes > 0) finish(false, lineBytes);
    return out;
}
