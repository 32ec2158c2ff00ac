import { isAscii } from 'node:buffer';
import { osPath } from '../../src/print/shared/byte-names.js';
import fs from 'node:fs';
import path from 'node:path';
import { READ_NOFOLLOW_FLAGS } from '../../src/fs/shared/held.js';
import { BINARY_SAMPLE_BYTES, isBinary, scanText } from '../../src/text/shared/text.js';
import { Flag } from '../../src/search-index/shared/format.js';
import type { IndexChunkResult, IndexChunkTask } from '../../src/search-index/shared/protocol.js';
import { encodeSegment } from '../../src/search-index/shared/segment.js';
import { MaskedGrams } from '../../src/search-index/shared/masks.js';
import { takeTaskPriority } from '../pool/background.js';
import { readBuffer } from '../fs/read-buffer.js';

/**
 * The index build's content task: reads a range of files exactly as the search scan does (the
 * same open flags, held.ts READ_NOFOLLOW_FLAGS; the same size limit, binary check and decoding,
 * text.ts scanText), folds and splits the text as the planner does (src/search/shared/fold.ts)
 * and writes the range's posting lists, with each posting's masks (masks.ts), as one segment file.
 */

/** As in walk.ts: files above this many bytes are sampled for binary content before being read whole. */
const BIG_FILE = 64 * 1024;

/** The reusable read buffer, half a page into its page (read-buffer.ts). */
let scratch: Buffer = Buffer.alloc(0); // made at the first file (see indexFile)
/** The read past a file's end that tells whether it grew. */
const oneByte = Buffer.alloc(1);

/**
 * The thread's per-file grams and masks (its tables are reused from file to file); decoded text
 * borrows invert's counting table, all zero between chunks (memory: 64 MiB a thread, not 96).
 */
const masked = new MaskedGrams(() => (countTable ??= new Uint32Array(1 << 24)));

/** Appends to growable postings (key, local id, packed masks); one per thread, emptied for each chunk. */
class Pairs {
    keys = new Uint32Array(1 << 20);
    ids = new Uint32Array(1 << 20);
    masks = new Uint16Array(1 << 20);
    n = 0;
    push(grams: MaskedGrams, id: number): void {
        const count = grams.count;
        if (this.n + count > this.keys.length) {
            const size = Math.max(this.keys.length * 2, this.n + count);
            const k = new Uint32Array(size);
            k.set(this.keys.subarray(0, this.n));
            const i = new Uint32Array(size);
            i.set(this.ids.subarray(0, this.n));
            const m = new Uint16Array(size);
            m.set(this.masks.subarray(0, this.n));
            this.keys = k;
            this.ids = i;
            this.masks = m;
        }
        this.keys.set(grams.grams.subarray(0, count), this.n);
        this.masks.set(grams.masks.subarray(0, count), this.n);
        this.ids.fill(id, this.n, this.n + count);
        this.n += count;
    }
}

/** Flags of one file; when it is indexed text, its distinct grams and their masks are in {@link masked}. */
function indexFile(file: string, maxFileSize: number): { flags: number; textBytes: number; grams?: MaskedGrams } {
    let fd: number;
    try {
        fd = fs.openSync(osPath(file), READ_NOFOLLOW_FLAGS);
    } catch {
        return { flags: Flag.Unindexed, textBytes: 0 };
    }
    try {
        const st = fs.fstatSync(fd);
        if (!st.isFile()) return { flags: Flag.Unindexed, textBytes: 0 };
        const size = st.size;
        if (scratch.length < BINARY_SAMPLE_BYTES) scratch = readBuffer(1 << 16);
        if (size > maxFileSize) {
            const got = fs.readSync(fd, scratch, 0, BINARY_SAMPLE_BYTES, 0);
            return { flags: isBinary(scratch.subarray(0, got)) ? Flag.Binary : Flag.Unindexed, textBytes: 0 };
        }
        if (scratch.length < size) scratch = readBuffer(Math.max(size, scratch.length * 2));
        let got = 0;
        if (size > BIG_FILE) {
            got = fs.readSync(fd, scratch, 0, BINARY_SAMPLE_BYTES, 0);
            if (isBinary(scratch.subarray(0, got))) return { flags: Flag.Binary, textBytes: 0 };
        }
        while (got < size) {
            const n = fs.readSync(fd, scratch, got, size - got, got);
            if (n === 0) break;
            got += n;
        }
        // Grown while read: what the search sees is uncertain (the watcher reports the change too).
        if (got === size && fs.readSync(fd, oneByte, 0, 1, got) !== 0) return { flags: Flag.Unindexed, textBytes: 0 };
        const bytes = scratch.subarray(0, got);
        if (got === 0) return { flags: Flag.Empty, textBytes: 0 };
        if (isBinary(bytes)) return { flags: Flag.Binary, textBytes: 0 };
        // The planner's fold and split (fold.ts) of the text the scan matches; for ASCII bytes
        // (most source files) those are the byte trigrams with A-Z lower-cased, without decoding.
        if (isAscii(bytes)) masked.ascii(bytes);
        else masked.text(scanText(bytes));
        return { flags: Flag.Indexed, textBytes: got, grams: masked };
    } catch {
        return { flags: Flag.Unindexed, textBytes: 0 };
    } finally {
        fs.closeSync(fd);
    }
}

/** The thread's pairs (a build's threads end with it, and their memory with them). */
let chunkPairs: Pairs | null = null;

/** Indexes one id range and writes its segment file. */
export function runIndexChunk(task: IndexChunkTask): IndexChunkResult {
    takeTaskPriority(task);
    try {
        const pairs = (chunkPairs ??= new Pairs());
        pairs.n = 0;
        const flags = new Uint8Array(task.ids.length);
        let textBytes = 0;
        const paths = task.paths.split('\0');
        for (let i = 0; i < task.ids.length; i++) {
            const r = indexFile(path.join(task.root, paths[i]!), task.maxFileSize);
            flags[i] = r.flags;
            textBytes += r.textBytes;
            if (r.grams !== undefined) pairs.push(r.grams, task.ids[i]! - task.firstId);
        }
        const { keys, starts, ids, masks } = invert(pairs);
        const bytes = encodeSegment(keys, starts, ids, masks, task.firstId, task.count);
        fs.writeFileSync(task.out, bytes, { mode: 0o600, flag: 'wx' });
        return { ok: true, flags, textBytes, segmentBytes: bytes.length };
    } catch (err) {
        // A failure inside invert may leave counts in the table: the next chunk starts a new one.
        countTable = null;
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    } finally {
        // Perf: a chunk's buffers are large; the next chunk starts small again.
        if (scratch.length > 1 << 24) scratch = readBuffer(1 << 16);
    }
}

/** invert's counting table, all zero between chunks; kept by the thread (see chunkPairs). */
let countTable: Uint32Array | null = null;
/** invert's posting lists and their masks, reused by the thread's next chunk (grown as needed). */
let postingIds = new Uint32Array(0);
let postingMasks = new Uint16Array(0);

/**
 * Posting lists from (gram, id) pairs given in ascending id order: distinct grams ascending, list
 * bounds, ids. Grams are below 2^24 (fold.ts), so a counting sort over a 2^24 table does it in two
 * passes. The result's `ids` and `masks` are views of the thread's buffers, valid until the next call. The
 * table (64 MiB) is the thread's, set back to zeros at its distinct grams after each chunk
 * instead of allocated anew (Perf: no 64 MiB of fresh pages, and no sweep of them, per chunk).
 */
function invert(pairs: Pairs): { keys: Uint32Array; starts: Uint32Array; ids: Uint32Array; masks: Uint16Array } {
    const n = pairs.n;
    const table = (countTable ??= new Uint32Array(1 << 24));
    let keys = new Uint32Array(1 << 16);
    let distinct = 0;
    for (let i = 0; i < n; i++) {
        const g = pairs.keys[i]!;
        if (table[g]!++ === 0) {
            if (distinct === keys.length) {
                const k = new Uint32Array(keys.length * 2);
                k.set(keys);
                keys = k;
            }
            keys[distinct++] = g;
        }
    }
    keys = keys.slice(0, distinct).sort();
    const starts = new Uint32Array(distinct + 1);
    let at = 0;
    for (let r = 0; r < distinct; r++) {
        const g = keys[r]!;
        starts[r] = at;
        at += table[g]!;
        table[g] = starts[r]!; // from here on: the next free slot of the gram's list
    }
    starts[distinct] = at;
    if (postingIds.length < n) {
        postingIds = new Uint32Array(Math.max(n, postingIds.length * 2));
        postingMasks = new Uint16Array(postingIds.length);
    }
    const ids = postingIds.subarray(0, n);
    const masks = postingMasks.subarray(0, n);
    for (let i = 0; i < n; i++) {
        const at = table[pairs.keys[i]!]!++;
        ids[at] = pairs.ids[i]!;
        masks[at] = pairs.masks[i]!;
    }
    for (let r = 0; r < distinct; r++) table[keys[r]!] = 0;
    return { keys, starts, ids, masks };
}
