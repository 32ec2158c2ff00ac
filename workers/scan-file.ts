import fs from 'node:fs';
import { BINARY_SAMPLE_BYTES, isBinary } from '../src/common/fs/text.js';
import { findLiteral, type LiteralPlan } from './prefilter.js';
import { countBytes, scanBytes, type ContentMatcher, type LineHit } from './scan.js';
import type { OutputMode } from '../src/common/search/types.js';

/**
 * Reading one opened regular file for a content search, with bounded memory: a reusable read
 * buffer, a binary sample before large files are read whole, files above the buffer first
 * streamed through it for the pattern's literal. The matching itself is scan.ts's.
 */

/** Files above this many bytes are sampled for binary content before being read whole. */
const BIG_FILE = 64 * 1024;
/** Largest size of {@link scratch}, in bytes. */
const SCRATCH_MAX = 1 << 20;

/**
 * Reusable read buffer, grown up to {@link SCRATCH_MAX}. Perf: no allocation per file. Memory:
 * it used to grow to the largest file scanned (24 MB on the Linux tree, 32 MB after doubling),
 * per worker: a 16-thread engine then peaked at ~610 MB (bench/compare.js --rss-threads 2,16).
 */
let scratch = Buffer.allocUnsafe(1 << 16);

/** {@link scratch}, grown to hold `size` bytes (at most SCRATCH_MAX). */
function scratchOf(size: number): Buffer {
    if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2)));
    return scratch;
}

/** The first `got` bytes of `buf` start with a UTF-16 byte-order mark (such files are decoded whole, see scan.ts). */
function utf16Bom(buf: Buffer, got: number): boolean {
    return got >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff));
}

/**
 * Whether the first `size` bytes of the file hold the literal (ASCII case-insensitively, as the
 * scan's prefilter finds it), read in chunks through {@link scratch}; each chunk keeps the last
 * `literal length - 1` bytes of the one before, so an occurrence across two reads is found.
 * `read`: bytes read.
 */
function streamedLiteral(fd: number, size: number, plan: LiteralPlan): { found: boolean; read: number } {
    const buf = scratchOf(SCRATCH_MAX);
    const keep = plan.folded.length - 1;
    let carried = 0;
    let pos = 0;
    while (pos < size) {
        const n = fs.readSync(fd, buf, carried, Math.min(buf.length - carried, size - pos), pos);
        if (n === 0) break;
        pos += n;
        const len = carried + n;
        if (findLiteral(buf.subarray(0, len), plan, 0) !== -1) return { found: true, read: pos };
        carried = Math.min(keep, len);
        buf.copy(buf, 0, len - carried, len);
    }
    return { found: false, read: pos };
}

/** A text file at the file's start per its binary sample: read through the reusable buffer. */
export function sampleIsText(fd: number): boolean {
    const got = fs.readSync(fd, scratch, 0, BINARY_SAMPLE_BYTES, 0);
    return !isBinary(scratch.subarray(0, got));
}

/** What scanning one file gave: bytes read, whether it counts as scanned, and its matches. */
export interface FileScan {
    /** Work units of the reads for the task's budget: bytes read / 16 KiB, per read pass. */
    units: number;
    scanned: boolean;
    /** Matching lines (output modes `content` and `files_with_matches`, at most 1 for the latter). */
    lines: LineHit[];
    /** Matching lines in all (output mode `count`). */
    count: number;
}

/**
 * Scans the open regular file `fd` of `size` bytes (at most the search's maxFileSize) for
 * `matcher`, as `mode` says: `content` collects up to `max` matching lines (with `context`
 * lines around each), `files_with_matches` stops at the first, `count` counts them. Binary and
 * empty files give no matches and count as not scanned.
 */
export function scanFile(fd: number, size: number, matcher: ContentMatcher, mode: OutputMode, max: number, context: number): FileScan {
    const result: FileScan = { units: 0, scanned: false, lines: [], count: 0 };
    // Grown before the sample is read into it, so the sample stays at its start.
    const reusable = size <= SCRATCH_MAX ? scratchOf(size) : null;
    let got = 0;
    if (size > BIG_FILE) {
        // Perf: a large binary is recognised from its first bytes, without reading the rest.
        got = fs.readSync(fd, scratch, 0, BINARY_SAMPLE_BYTES, 0);
        if (isBinary(scratch.subarray(0, got))) return result;
        if (size > SCRATCH_MAX && !utf16Bom(scratch, got) && matcher.literal !== null) {
            // Memory: a file above the reusable buffer is first streamed through it for the
            // pattern's literal; one without it has no matching line and is never held whole.
            const seen = streamedLiteral(fd, size, matcher.literal);
            result.units += seen.read >> 14;
            if (!seen.found) {
                result.scanned = seen.read > 0;
                return result;
            }
            got = 0; // the reusable buffer no longer holds the sample: the file is read again whole
        }
    }
    // Memory: the reusable buffer stops at SCRATCH_MAX; a larger file gets a buffer of its own,
    // released after it, so a worker's memory does not stay at the largest file it scanned.
    const buf = reusable ?? Buffer.allocUnsafe(size);
    if (buf !== scratch && got > 0) scratch.copy(buf, 0, 0, got);
    while (got < size) {
        const n = fs.readSync(fd, buf, got, size - got, got);
        if (n === 0) break;
        got += n;
    }
    result.units += got >> 14;
    const bytes = buf.subarray(0, got);
    if (got === 0 || isBinary(bytes)) return result;
    result.scanned = true;
    if (mode === 'count') result.count = countBytes(bytes, matcher);
    // Perf: files_with_matches stops at the file's first matching line.
    else scanBytes(bytes, matcher, mode === 'content' ? max : 1, result.lines, mode === 'content' ? context : 0);
    return result;
}
