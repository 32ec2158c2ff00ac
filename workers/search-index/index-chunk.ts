import { isAscii } from 'node:buffer';
import { osPath } from '../../src/print/shared/byte-names.js';
import fs from 'node:fs';
import path from 'node:path';
import { READ_NOFOLLOW_FLAGS } from '../../src/fs/shared/held.js';
import { BINARY_SAMPLE_BYTES, isBinary, scanText } from '../../src/text/shared/text.js';
import { Flag } from '../../src/search-index/shared/format.js';
import type { IndexChunkResult, IndexChunkTask } from '../../src/search-index/shared/protocol.js';
import { writeSegment } from '../../src/search-index/shared/segment-encode.js';
import { MaskedGrams, masksPay } from '../../src/search-index/shared/masks.js';
import { GramSlots } from '../../src/search-index/shared/gram-slots.js';
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

/** The thread's per-file grams and masks (its tables are reused from file to file). */
const masked = new MaskedGrams();

/** Pairs per block of {@link Pairs} (6 MiB). */
const PAIR_BLOCK = 1 << 20;

/**
 * A chunk's (gram, masks) pairs in file order, one per distinct gram of each indexed file, and
 * per file its local id and number of pairs (the id is not repeated per pair); one per thread,
 * emptied for each chunk. Memory: fixed blocks, so growing never copies nor leaves a doubled
 * array half empty: 6 bytes a pair (it was 10, in arrays grown by doubling, up to 20).
 */
class Pairs {
    readonly keys: Uint32Array[] = [];
    readonly masks: Uint16Array[] = [];
    fileIds = new Uint32Array(1024);
    fileCounts = new Uint32Array(1024);
    files = 0;
    n = 0;

    clear(): void {
        this.n = 0;
        this.files = 0;
    }

    push(grams: MaskedGrams, id: number): void {
        const count = grams.count;
        if (this.files === this.fileIds.length) {
            const ids = new Uint32Array(this.files * 2);
            ids.set(this.fileIds);
            const counts = new Uint32Array(this.files * 2);
            counts.set(this.fileCounts);
            [this.fileIds, this.fileCounts] = [ids, counts];
        }
        this.fileIds[this.files] = id;
        this.fileCounts[this.files++] = count;
        for (let done = 0; done < count; ) {
            const b = Math.floor(this.n / PAIR_BLOCK);
            if (b === this.keys.length) {
                this.keys.push(new Uint32Array(PAIR_BLOCK));
                this.masks.push(new Uint16Array(PAIR_BLOCK));
            }
            const at = this.n % PAIR_BLOCK;
            const k = Math.min(count - done, PAIR_BLOCK - at);
            this.keys[b]!.set(grams.grams.subarray(done, done + k), at);
            this.masks[b]!.set(grams.masks.subarray(done, done + k), at);
            done += k;
            this.n += k;
        }
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
        // Masks 0: stored without them (masks.ts masksPay).
        if (!masksPay(got)) masked.masks.fill(0, 0, masked.count);
        return { flags: Flag.Indexed, textBytes: got, grams: masked };
    } catch {
        return { flags: Flag.Unindexed, textBytes: 0 };
    } finally {
        fs.closeSync(fd);
    }
}

/** The thread's pairs (a build's threads end with it, and their memory with them). */
let chunkPairs: Pairs | null = null;

/**
 * Postings of one part at most (memory: 6 bytes a pair while the files are read, then 4 or 6 a
 * posting while its segment is written, with the part's gram map: ~30 MB a thread; a segment of
 * ~7 MB). A chunk of 64 MB of the Linux tree's text holds up to 14 million, which in one piece
 * took ~200 MB a thread; parts of 4 million took ~25 MB a thread more than these (and twice as
 * many parts, joined by the merge that follows the build).
 */
const PART_POSTINGS = 2_000_000;

/**
 * Indexes one id range and writes its segment files: one per part of at most `partPostings`
 * postings, each a consecutive id range (a part ends at the next indexed file's id), the last
 * ending where the range ends.
 */
export function runIndexChunk(task: IndexChunkTask): IndexChunkResult {
    takeTaskPriority(task);
    try {
        const pairs = (chunkPairs ??= new Pairs());
        pairs.clear();
        const most = task.partPostings ?? PART_POSTINGS;
        const flags = new Uint8Array(task.ids.length);
        const segmentBytes: number[] = [];
        let partFirst = task.firstId;
        const writePart = (end: number): void => {
            const { keys, starts, ids, masks } = invert(pairs, end - partFirst);
            segmentBytes.push(writeSegment(`${task.out}-${segmentBytes.length}.bin`, keys, starts, ids, masks, partFirst, end - partFirst));
            pairs.clear();
            partFirst = end;
        };
        let textBytes = 0;
        const paths = Buffer.from(task.paths.buffer, task.paths.byteOffset, task.paths.byteLength).toString('utf16le').split('\0');
        for (let i = 0; i < task.ids.length; i++) {
            const r = indexFile(path.join(task.root, paths[i]!), task.maxFileSize);
            flags[i] = r.flags;
            textBytes += r.textBytes;
            if (r.grams === undefined) continue;
            if (pairs.n > 0 && pairs.n + r.grams.count > most) writePart(task.ids[i]!);
            pairs.push(r.grams, task.ids[i]! - partFirst);
        }
        writePart(task.firstId + task.count);
        return { ok: true, flags, textBytes, segmentBytes };
    } catch (err) {
        // A failure inside invert may leave counts in the map: the next chunk starts a new one.
        counts = null;
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    } finally {
        // Perf: a chunk's buffers are large; the next chunk starts small again.
        if (scratch.length > 1 << 24) scratch = readBuffer(1 << 16);
    }
}

/** invert's count per gram, empty between parts; kept by the thread (see chunkPairs). */
let counts: GramSlots | null = null;
/** invert's posting lists' ids and their masks, reused by the thread's next chunk (grown as needed). */
let postingIds = new ArrayBuffer(0);
let postingMasks = new Uint16Array(0);
/** invert's distinct grams and list bounds, reused alike (made per part, they were garbage a thread's heap kept until its next full collection). */
let partKeys = new Uint32Array(1 << 16);
let partStarts = new Uint32Array(1 << 16);

/**
 * Posting lists from a chunk's pairs (in ascending id order): distinct grams ascending, list
 * bounds, ids: a count per gram, then each gram's next free place in its list. The result's `ids`
 * and `masks` are views of the thread's buffers, valid until the next call; the ids are 16-bit
 * when the chunk spans at most 2^16 ids (memory: 4 bytes a posting, not 6). The counts are a map
 * that grows with the part's distinct grams (gram-slots.ts; memory: a table of a slot per possible
 * gram would be 64 MiB a thread, nearly all of it resident after a few parts).
 */
function invert(pairs: Pairs, span: number): { keys: Uint32Array; starts: Uint32Array; ids: Uint16Array | Uint32Array; masks: Uint16Array } {
    const n = pairs.n;
    const m = (counts ??= new GramSlots());
    let keys = partKeys;
    let distinct = 0;
    for (let b = 0; b * PAIR_BLOCK < n; b++) {
        const block = pairs.keys[b]!;
        const len = Math.min(PAIR_BLOCK, n - b * PAIR_BLOCK);
        for (let i = 0; i < len; i++) {
            const g = block[i]!;
            const s = m.slot(g);
            if (m.added) {
                if (distinct === keys.length) {
                    const k = new Uint32Array(keys.length * 2);
                    k.set(keys);
                    keys = k;
                }
                keys[distinct++] = g;
            }
            m.values[s]!++;
        }
    }
    partKeys = keys;
    keys = keys.subarray(0, distinct).sort();
    if (partStarts.length < distinct + 1) partStarts = new Uint32Array(Math.max(distinct + 1, 2 * partStarts.length));
    const starts = partStarts.subarray(0, distinct + 1);
    let at = 0;
    for (let r = 0; r < distinct; r++) {
        const s = m.slot(keys[r]!);
        starts[r] = at;
        at += m.values[s]!;
        m.values[s] = starts[r]!; // from here on: the next free place of the gram's list
    }
    starts[distinct] = at;
    const wide = span > 1 << 16;
    // Memory: grown to what this part needs (rounded up to 2^20 postings), not doubled, and the
    // masks apart from the ids (sized as wide ids, they would take 4 bytes a posting instead of 2).
    const room = Math.ceil(n / (1 << 20)) << 20;
    if (postingIds.byteLength < n * (wide ? 4 : 2)) postingIds = new ArrayBuffer(room * (wide ? 4 : 2));
    if (postingMasks.length < n) postingMasks = new Uint16Array(room);
    const ids = wide ? new Uint32Array(postingIds, 0, n) : new Uint16Array(postingIds, 0, n);
    const masks = postingMasks.subarray(0, n);
    // The pairs' ids: file f's run of fileCounts[f] pairs has id fileIds[f].
    let f = -1;
    let left = 0;
    let id = 0;
    for (let b = 0; b * PAIR_BLOCK < n; b++) {
        const blockKeys = pairs.keys[b]!;
        const blockMasks = pairs.masks[b]!;
        const len = Math.min(PAIR_BLOCK, n - b * PAIR_BLOCK);
        for (let i = 0; i < len; i++) {
            while (left === 0) {
                f++;
                left = pairs.fileCounts[f]!;
                id = pairs.fileIds[f]!;
            }
            left--;
            const to = m.values[m.slot(blockKeys[i]!)]!++;
            ids[to] = id;
            masks[to] = blockMasks[i]!;
        }
    }
    m.clear();
    return { keys, starts, ids, masks };
}
