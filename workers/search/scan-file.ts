import fs, { type Stats } from 'node:fs';
import { osPath } from '../../src/print/shared/byte-names.js';
import { BINARY_SAMPLE_BYTES, hasUtf16Bom, isBinary } from '../../src/text/shared/text.js';
import { READ_NOFOLLOW_FLAGS } from '../../src/fs/shared/held.js';
import { heldAt } from '../fs/held-at.js';
import type { LiteralSet } from './literal-set.js';
import { PAGE_BYTES, readBuffer, readToEnd } from '../fs/read-buffer.js';
import { countBytes, scanBytes, type ContentMatcher, type LineHit } from './scan.js';
import type { OutputMode } from '../../src/search/shared/types.js';

/**
 * Reading one opened regular file for a content search, with bounded memory: a reusable read
 * buffer, a binary sample before large files are read whole, files above the buffer first
 * streamed through it for the pattern's literals. The matching itself is scan.ts's.
 */

/** Files above this many bytes are sampled for binary content before being read whole. */
const BIG_FILE = 64 * 1024;
/** A short first read ending this far into a page or further is confirmed by one more read (see scanOpen). */
const SEQ_CHUNK_TAIL = PAGE_BYTES - PAGE_BYTES / 4;
/** Largest size of {@link scratch}, in bytes. */
const SCRATCH_MAX = 1 << 20;

/**
 * Reusable read buffer, grown up to {@link SCRATCH_MAX}. Perf: no allocation per file. Memory:
 * it used to grow to the largest file scanned (24 MB on the Linux tree, 32 MB after doubling),
 * per worker: a 16-thread engine then peaked at ~610 MB (bench/compare.js --rss-threads 2,16).
 */
let scratch: Buffer = Buffer.alloc(0); // made at the first scan (see scanOpen): at least BIG_FILE, half a page into its page (read-buffer.ts)

/** {@link scratch}, grown to hold `size` bytes (at most SCRATCH_MAX). */
function scratchOf(size: number): Buffer {
    if (scratch.length < size) scratch = readBuffer(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2)));
    return scratch;
}

/**
 * Whether the first `size` bytes of the file hold one of the literals (ASCII case-insensitively,
 * as the scan's prefilter finds them), read in chunks through {@link scratch}; each chunk keeps
 * the last `longest literal's length - 1` bytes of the one before, so an occurrence across two
 * reads is found. `read`: bytes read.
 */
function streamedLiteral(fd: number, size: number, literals: LiteralSet): { found: boolean; read: number } {
    const buf = scratchOf(SCRATCH_MAX);
    const keep = literals.longest - 1;
    let carried = 0;
    let pos = 0;
    while (pos < size) {
        const n = fs.readSync(fd, buf, carried, Math.min(buf.length - carried, size - pos), pos);
        if (n === 0) break;
        pos += n;
        const len = carried + n;
        literals.reset();
        if (literals.find(buf.subarray(0, len), 0) !== -1) return { found: true, read: pos };
        carried = Math.min(keep, len);
        buf.copy(buf, 0, len - carried, len);
    }
    return { found: false, read: pos };
}

/** A text file at the file's start per its binary sample: read through the reusable buffer. */
function sampleIsText(fd: number): boolean {
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
    /** Size in bytes of a file above the search's maxFileSize whose sample is text (it is reported, not searched); -1 otherwise. */
    tooLarge: number;
}

/** How one file is searched: the search's limits and matcher, as walk.ts holds them for a task. */
export interface ScanSpec {
    matcher: ContentMatcher;
    mode: OutputMode;
    /** Largest file searched, in bytes; a larger one is reported in {@link FileScan.tooLarge}. */
    maxFileSize: number;
    /** Matching lines to collect at most (output mode `content`). */
    max: number;
    /** Lines of context around each match (output mode `content`). */
    context: number;
}

/**
 * The result of the last {@link scanPath} / {@link scanOpen} call. Perf: one object (and one line
 * array) per worker instead of two allocations per file; callers read it before the next call.
 */
const last: FileScan = { units: 0, scanned: false, lines: [], count: 0, tooLarge: -1 };

function reset(): FileScan {
    last.units = 0;
    last.scanned = false;
    last.lines.length = 0;
    last.count = 0;
    last.tooLarge = -1;
    return last;
}

/**
 * Opens the directory entry at `at` (listed as a regular file; never through a final symlink,
 * never blocking on a FIFO, see READ_NOFOLLOW_FLAGS) and searches it as `spec` says. `inside`:
 * a check of the opened descriptor (the real-path re-check of a file reached through a link);
 * when it fails the file is left alone and `null` returned. The result is valid until the next
 * call. Throws the failed system call's error (open, read), as Node raises it.
 */
export function scanPath(at: string, inside: ((fd: number) => boolean) | null, spec: ScanSpec): FileScan | null {
    const fd = fs.openSync(osPath(at), READ_NOFOLLOW_FLAGS);
    try {
        if (inside !== null && !inside(fd)) return null;
        return scanOpen(fd, spec);
    } finally {
        fs.closeSync(fd);
    }
}

/**
 * {@link scanPath} of entry `name` of the held directory `dirFd`, opened relative to it
 * (held-at.ts: openat where the native layer loads, else through the held path; the same flags
 * and the same errors either way). Perf: openat skips resolving a path through /proc per file.
 * A descriptor opened natively is one Node does not track: it is noted in the engine's
 * descriptor ledger (src/fs/shared/fd-ledger.ts), which closes it when the worker is terminated
 * during the scan (a hard abort, a stuck regex).
 */
export function scanEntry(dirFd: number, name: string, spec: ScanSpec): FileScan {
    const at = heldAt();
    const fd = at.open(dirFd, name, READ_NOFOLLOW_FLAGS);
    try {
        return scanOpen(fd, spec);
    } finally {
        at.close(fd);
    }
}

/**
 * Searches the open descriptor `fd` (opened as a regular file was listed) as `spec` says:
 * `content` collects up to `spec.max` matching lines (with `spec.context` lines around each),
 * `files_with_matches` stops at the first, `count` counts them. Binary, empty and non-regular
 * files give no matches and count as not scanned. The result is valid until the next call.
 *
 * Perf: no fstat for files that end within the first read (nearly all of a source tree): the
 * first read asks for up to {@link BIG_FILE} bytes (at most maxFileSize + 1); a shorter answer is
 * the file's end. Linux reads a regular file through the page cache in whole pages and returns
 * less than asked only at its end, or at a page boundary (a partial read of some file systems,
 * or before an I/O error on the next page): a short read that ends inside a page is the end, one
 * that ends on a page boundary is confirmed by a one-byte read there (ripgrep reads until a read
 * returns 0). The stat (a system call and a Stats object with four Dates, ~7% of a worker's time
 * on the Linux tree under --cpu-prof) is only taken for longer files, which need their size, and
 * for a file that has matches.
 *
 * Security and exactness: a file is opened by its entry in the held directory without following
 * a final link, so what is read is that entry whatever it is now (the walk only opens entries
 * listed as regular files). Reads are positional (pread): swapped for a FIFO or socket the read
 * fails (ESPIPE), for a directory too (EISDIR), and a failed read is answered by the stat: a
 * non-regular file gives nothing. A file that matches is stat'ed before its matches count: a
 * non-regular one gives none, and one whose stat size differs from what was read (it changed
 * meanwhile, or a pseudo-file whose stat says 0 bytes) is searched again by its stat size, as
 * before this shortcut, except a regular file whose stat says 0 bytes, which is read to its end
 * (procfs and sysfs files have content and no size). So hits come only from regular files; a
 * file without matches needs no stat, whatever it is: it adds nothing to the result.
 */
export function scanOpen(fd: number, spec: ScanSpec): FileScan {
    const result = reset();
    // Made here, not when the module loads: a thread that never scans loads nothing native for it.
    if (scratch.length < BIG_FILE) scratch = readBuffer(BIG_FILE);
    const want = Math.min(BIG_FILE, spec.maxFileSize + 1);
    let n: number;
    try {
        n = fs.readSync(fd, scratch, 0, want, 0);
    } catch (err) {
        if (!fs.fstatSync(fd).isFile()) return result;
        throw err;
    }
    if (n < want) {
        let more = 0;
        // A short read ending inside a page is the file's end; one ending at a page boundary may
        // be a file system's partial read (or precede an I/O error on the next page), and one
        // ending in a page's last quarter may be a procfs file's first chunk (seq_file hands out
        // about a page per read; its stat says 0 bytes): confirmed. Perf: the confirm read of
        // that quarter costs about 1% of opening and reading the 13,043 files of node_modules.
        const tail = n % PAGE_BYTES;
        if (tail === 0 || tail >= SEQ_CHUNK_TAIL) {
            try {
                more = fs.readSync(fd, scratch, n, 1, n);
            } catch (err) {
                if (!fs.fstatSync(fd).isFile()) return result;
                throw err;
            }
        }
        if (more === 0) {
            // The whole file, `n` bytes, is in the reusable buffer.
            result.units += n >> 14;
            if (n === 0) return result;
            const bytes = scratch.subarray(0, n);
            if (isBinary(bytes)) return result;
            result.scanned = true;
            match(bytes, spec, result);
            if (result.count === 0 && result.lines.length === 0) return result;
            const st = fs.fstatSync(fd);
            if (st.isFile() && st.size === n) return result;
            // A pseudo-file (procfs) says 0 bytes: read on to its end, and searched whole.
            if (st.isFile() && st.size === 0) return scanUnsized(fd, spec, reset(), n);
            // Not what the stat says: searched by the stat alone, from the file's start.
            return scanStat(fd, st, spec, reset(), 0);
        }
        n++;
    }
    return scanStat(fd, fs.fstatSync(fd), spec, result, n);
}

/**
 * Searches the open descriptor `fd` as its stat `st` says, the first `got` bytes of the file
 * being at the start of {@link scratch}: a non-regular file gives nothing, one above
 * maxFileSize is reported when its sample is text (binaries are never searched at any size).
 */
function scanStat(fd: number, st: Stats, spec: ScanSpec, result: FileScan, got: number): FileScan {
    if (!st.isFile()) return result;
    if (st.size === 0 && got > 0) return scanUnsized(fd, spec, result, got);
    const size = st.size;
    if (size > spec.maxFileSize) {
        const text = got >= BINARY_SAMPLE_BYTES ? !isBinary(scratch.subarray(0, BINARY_SAMPLE_BYTES)) : sampleIsText(fd);
        if (text) result.tooLarge = size;
        return result;
    }
    return scanSized(fd, size, spec, result, Math.min(got, size));
}

/**
 * A regular file whose stat says 0 bytes but which reads (procfs, sysfs), its first `got` bytes
 * at the start of {@link scratch}: read to its end (at most maxFileSize + 1 bytes), then searched;
 * one longer than maxFileSize is reported in {@link FileScan.tooLarge} with the bytes read.
 */
function scanUnsized(fd: number, spec: ScanSpec, result: FileScan, got: number): FileScan {
    const bytes = readToEnd(fd, scratch, got, spec.maxFileSize + 1);
    result.units += bytes.length >> 14;
    if (isBinary(bytes.subarray(0, BINARY_SAMPLE_BYTES))) return result;
    if (bytes.length > spec.maxFileSize) result.tooLarge = bytes.length;
    else {
        result.scanned = true;
        match(bytes, spec, result);
    }
    return result;
}

/** Matches the text file `bytes` into `result` as `spec.mode` says. */
function match(bytes: Buffer, spec: ScanSpec, result: FileScan): void {
    if (spec.mode === 'count') result.count = countBytes(bytes, spec.matcher);
    // Perf: files_with_matches stops at the file's first matching line.
    else scanBytes(bytes, spec.matcher, spec.mode === 'content' ? spec.max : 1, result.lines, spec.mode === 'content' ? spec.context : 0);
}

/**
 * Searches the open regular file `fd` of `size` bytes (at most the search's maxFileSize), whose
 * first `got` bytes are already at the start of {@link scratch}.
 */
function scanSized(fd: number, size: number, spec: ScanSpec, result: FileScan, got: number): FileScan {
    const matcher = spec.matcher;
    if (size > BIG_FILE) {
        // Perf: a large binary is recognised from its first bytes, without reading the rest.
        if (got < BINARY_SAMPLE_BYTES) got = fs.readSync(fd, scratch, 0, BINARY_SAMPLE_BYTES, 0);
        if (isBinary(scratch.subarray(0, Math.min(got, BINARY_SAMPLE_BYTES)))) return result;
        if (size > SCRATCH_MAX && !hasUtf16Bom(scratch.subarray(0, got)) && matcher.literals !== null) {
            // Memory: a file above the reusable buffer is first streamed through it for the
            // pattern's literals; one without any has no matching line and is never held whole.
            const seen = streamedLiteral(fd, size, matcher.literals);
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
    const held = scratch;
    const buf = size <= SCRATCH_MAX ? scratchOf(size) : readBuffer(size);
    if (buf !== held && got > 0) held.copy(buf, 0, 0, got);
    while (got < size) {
        const n = fs.readSync(fd, buf, got, size - got, got);
        if (n === 0) break;
        got += n;
    }
    result.units += got >> 14;
    const bytes = buf.subarray(0, got);
    if (got === 0 || isBinary(bytes)) return result;
    result.scanned = true;
    match(bytes, spec, result);
    return result;
}
