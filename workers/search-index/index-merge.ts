import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { IndexFormatError } from '../../src/search-index/shared/format.js';
import type { IndexMergeResult, IndexMergeTask } from '../../src/search-index/shared/protocol.js';
import { PostingCursor } from '../../src/search-index/shared/posting-codec.js';
import { scratchIds, scratchMasks } from '../../src/search-index/shared/posting-scratch.js';
import { BLOCKED, checkedBody, entryLength, frameList, storedLength } from '../../src/search-index/shared/posting-list.js';
import { DICT_BLOCK, DICT_ENTRY, SEG_HEADER, segmentHeader, SegmentReader } from '../../src/search-index/shared/segment.js';
import { takeBackground } from '../pool/background.js';
import { writeAll } from '../../src/fs/shared/write-all.js';
import { DictOut, MergedList, Writer } from './merge-output.js';

/**
 * The merge of a generation's segment files (consecutive id ranges) into one segment file of the
 * same format, one dictionary for all: a query then looks each gram up once instead of once per
 * segment. Every input is read from start to end (its dictionary in runs of blocks, its postings
 * in large reads) and checked as a query checks it (the header, each dictionary block's CRC, each
 * list's CRC); a gram's lists are decoded and encoded again as one list in id order, so that its
 * runs of 128 postings are packed across the inputs' bounds (./posting-pack.ts). Memory: the
 * inputs' read buffers share {@link READ_BUDGET} (at ten times the Linux tree a merge joins some
 * 300 segments of 7 MB: buffers of a fixed size per input grew with their number), the output's
 * dictionary is written a block at a time as it is made (./merge-output.ts; held whole it is 20
 * bytes per distinct gram), and the longest list, encoded as it is made (./merge-output.ts
 * `MergedList`, a few bytes a posting). The file is written under a
 * temporary name, synced, then renamed to its name: a crash leaves no file under that name that
 * is not whole.
 */

/**
 * Bytes of all inputs' read buffers together, a fifth for their dictionaries, the rest for their
 * postings. Memory: held for the merge's minutes beside the serving index; twice as much merged
 * the Linux tree's 68 segments in about the same time.
 */
const READ_BUDGET = 4 << 20;
/** Dictionary blocks read at once per input: at most 64 (80 KiB), at least one. */
const DICT_READ_BLOCKS = 64;
/** Bytes of postings read at once per input: at most 256 KiB, at least 4 KiB (a longer list is read whole). */
const POST_READ = 256 * 1024;
const POST_READ_LEAST = 4096;

/** Each input's reads when `inputs` share `budget` bytes. */
function readSizes(inputs: number, budget: number): { dictBlocks: number; postBytes: number } {
    const share = budget / Math.max(1, inputs);
    const dictBlocks = Math.max(1, Math.min(DICT_READ_BLOCKS, Math.floor(share / 5 / (DICT_BLOCK * DICT_ENTRY))));
    const postBytes = Math.max(POST_READ_LEAST, Math.min(POST_READ, Math.floor((share * 4) / 5)));
    return { dictBlocks, postBytes };
}

/** One input segment read in order: its current dictionary entry and the postings around it. */
class Input {
    readonly seg: SegmentReader;
    readonly #file: string;
    readonly #dictBlocks: number;
    #dict: Buffer = Buffer.alloc(0);
    #dictRoom: Buffer | null = null;
    /** Entry index in #dict, and the next block to read. */
    #at = 0;
    #nextBlock = 0;
    /** Current entry's key; past the last entry: 2^32 (above every gram). */
    key = 0;
    /** Made at the first list read (the first pass reads only the dictionaries). */
    #post: Buffer = Buffer.alloc(0);
    readonly #postBytes: number;
    #postFrom = 0;
    #postLen = 0;

    constructor(file: string, sizes: { dictBlocks: number; postBytes: number }) {
        this.#file = file;
        this.#dictBlocks = sizes.dictBlocks;
        this.#postBytes = sizes.postBytes;
        this.seg = new SegmentReader(file);
        this.#load();
    }

    /** Bytes of this input's read buffers. */
    get heldBytes(): number {
        return this.#post.length + this.#dictBlocks * DICT_BLOCK * DICT_ENTRY;
    }

    #load(): void {
        if (this.#at * DICT_ENTRY >= this.#dict.length) {
            if (this.#nextBlock >= this.seg.blockCount) {
                this.key = 2 ** 32;
                return;
            }
            // Memory: one buffer per input (a buffer per read was garbage the thread's collector let grow by tens of MB).
            this.#dict = this.seg.dictBlocks(this.#nextBlock, this.#dictBlocks, (this.#dictRoom ??= Buffer.allocUnsafe(this.#dictBlocks * DICT_BLOCK * DICT_ENTRY)));
            this.#nextBlock += this.#dictBlocks;
            this.#at = 0;
        }
        this.key = this.#dict.readUInt32LE(this.#at * DICT_ENTRY);
    }

    /** The current entry's posting list body (every block checked against its CRC; valid until the next call). */
    list(): Uint8Array {
        const e = this.#at * DICT_ENTRY;
        const off = this.#dict.readUInt32LE(e + 4);
        const field = this.#dict.readUInt32LE(e + 8);
        const len = storedLength(field);
        if (off < this.#postFrom || off + len > this.#postFrom + this.#postLen) {
            if (this.#post.length < len) this.#post = Buffer.allocUnsafe(Math.max(len, this.#postBytes));
            this.#postLen = Math.min(this.#post.length, this.seg.bytes - this.seg.postingsAt - off);
            if (this.#postLen < len) throw new IndexFormatError(this.#file, 'truncated postings');
            this.seg.postingBytes(this.#post, off, this.#postLen);
            this.#postFrom = off;
        }
        const stored = this.#post.subarray(off - this.#postFrom, off - this.#postFrom + len);
        return checkedBody(stored, (field & BLOCKED) !== 0, this.#dict.readUInt32LE(e + 12), this.#file);
    }

    next(): void {
        this.#at++;
        this.#load();
    }
}

/** Distinct grams of all inputs' dictionaries (a first pass over them). */
function distinctGrams(files: readonly string[], sizes: { dictBlocks: number; postBytes: number }): number {
    const bits = new Uint8Array(1 << 21);
    let n = 0;
    for (const f of files) {
        const input = new Input(f, sizes);
        try {
            for (; input.key < 2 ** 32; input.next()) {
                const k = input.key;
                if (k >= 1 << 24) throw new IndexFormatError(f, 'gram out of range');
                const m = 1 << (k & 7);
                if ((bits[k >>> 3]! & m) === 0) {
                    bits[k >>> 3] = bits[k >>> 3]! | m;
                    n++;
                }
            }
        } finally {
            input.seg.close();
        }
    }
    return n;
}

/** Merges `task.inputs` (consecutive id ranges, in order) into `task.out`. */
export function runIndexMerge(task: IndexMergeTask): IndexMergeResult {
    takeBackground(task.nice);
    const tmp = `${task.out}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const inputs: Input[] = [];
    let fd: number | null = null;
    try {
        const sizes = readSizes(task.inputs.length, task.readBudget ?? READ_BUDGET);
        const n = distinctGrams(task.inputs, sizes);
        for (const f of task.inputs) inputs.push(new Input(f, sizes));
        const firstId = inputs[0]!.seg.firstId;
        let end = firstId;
        for (const i of inputs) {
            if (i.seg.firstId !== end) throw new Error('segments to merge are not consecutive id ranges');
            end = i.seg.firstId + i.seg.fileCount;
        }
        const blocks = Math.ceil(n / DICT_BLOCK);
        const dictAt = SEG_HEADER + blocks * 8;
        const postAt = dictAt + n * DICT_ENTRY;
        fd = fs.openSync(tmp, 'wx', 0o600);
        const out = new Writer(fd, postAt);
        const dict = new DictOut(fd, dictAt, n);
        const list = new MergedList(firstId);
        let g = 0;
        for (;;) {
            let key = 2 ** 32;
            for (const i of inputs) if (i.key < key) key = i.key;
            if (key === 2 ** 32) break;
            if (g === n) throw new Error('more grams than counted');
            const start = out.pos;
            list.start();
            for (const i of inputs) {
                if (i.key !== key) continue;
                // Memory: decoded in the scratch room (grown by the decoding: read after it) and encoded from there.
                const k = new PostingCursor(i.list(), i.seg.firstId).fill(0, Number.POSITIVE_INFINITY);
                list.add(scratchIds, scratchMasks, k);
                i.next();
            }
            const body = list.finish();
            const frame = frameList(body);
            out.write(frame.head);
            out.write(body);
            const stored = out.pos - start;
            if (start - postAt + stored > 0xffffffff) throw new Error('merged postings above 4 GiB');
            dict.add(key, start - postAt, entryLength(stored, frame.blocked), frame.crc, list.count);
            g++;
        }
        if (g !== n) throw new Error('fewer grams than counted');
        out.flush();
        dict.finish();
        const blockIndex = dict.blockIndex;
        writeAll(fd, blockIndex, SEG_HEADER);
        const postLen = out.pos - postAt;
        writeAll(fd, segmentHeader({ grams: n, firstId, fileCount: end - firstId, blocks, blockIndexAt: SEG_HEADER, dictAt, postAt, postLen, postings: inputs.reduce((sum, i) => sum + i.seg.postings, 0), blockIndexCrc: crc32(blockIndex) }), 0);
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        fd = null;
        fs.renameSync(tmp, task.out);
        const heldBytes = inputs.reduce((sum, i) => sum + i.heldBytes, 0) + out.heldBytes + dict.heldBytes + list.heldBytes;
        return { ok: true, bytes: postAt + postLen, grams: n, heldBytes };
    } catch (err) {
        if (fd !== null) fs.closeSync(fd);
        fs.rmSync(tmp, { force: true });
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    } finally {
        for (const i of inputs) i.seg.close();
    }
}
