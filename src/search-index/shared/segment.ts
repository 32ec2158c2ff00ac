import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { FORMAT_VERSION, IndexFormatError } from './format.js';
import { decodePostings, type MaskedList } from './posting-codec.js';
import { BLOCKED, ListBytes, storedLength } from './posting-list.js';

/**
 * Segment files of the search index (immutable posting lists, one per build chunk), read with
 * positional reads; every read is checked against a CRC-32 (zlib's), so a truncated, corrupt or
 * foreign-version file is an {@link IndexFormatError}, never read wrongly.
 *
 * Layout (little-endian):
 * - header, {@link SEG_HEADER} bytes: magic `LCFSEG\0\0`, version, gram count, first file id,
 *   file count, block count, then the offsets of the block index, dictionary and postings, the
 *   postings' length and count, the block index's CRC and the header's own CRC;
 * - block index: per block of {@link DICT_BLOCK} dictionary entries, its first gram key and the
 *   CRC of its bytes (kept in memory: 8 bytes per 64 grams);
 * - dictionary: per gram, sorted by key, 20 bytes: key, offset and length of its posting list in
 *   the postings, the list's CRC and its posting count (read one 1,280-byte block per lookup, with a
 *   positional read). The count is exact where a list's bytes are not: packs (./posting-pack.ts)
 *   hold a dense list in a fraction of a byte per posting, so the planner reads it from here;
 * - postings: per gram, its list (./posting-list.ts: a block table before a long one's body;
 *   bit 31 of the dictionary's length tells), the files holding it, ascending: each a varint of its
 *   local id's delta and whether its two mask bytes follow (./posting-codec.ts, ./masks.ts).
 */

const SEG_MAGIC = Buffer.from('LCFSEG\0\0', 'latin1');
export const SEG_HEADER = 72;
export const DICT_BLOCK = 64;
export const DICT_ENTRY = 20;
/** The host stores 32-bit words little-endian (the files' byte order): their bytes can be read as a Uint32Array. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Reads of segment files made by this thread so far: dictionary lookups (one block read each)
 * and posting lists read. Diagnosis only (bench/index-queries.ts reads it per query).
 */
export const segmentReads = { lookups: 0, lists: 0 };

/** A segment file's header (see the layout above). */
export function segmentHeader(h: { grams: number; firstId: number; fileCount: number; blocks: number; blockIndexAt: number; dictAt: number; postAt: number; postLen: number; postings: number; blockIndexCrc: number }): Buffer {
    const header = Buffer.alloc(SEG_HEADER);
    SEG_MAGIC.copy(header, 0);
    header.writeUInt32LE(FORMAT_VERSION, 8);
    header.writeUInt32LE(h.grams, 12);
    header.writeUInt32LE(h.firstId, 16);
    header.writeUInt32LE(h.fileCount, 20);
    header.writeUInt32LE(h.blocks, 24);
    header.writeUInt32LE(h.blockIndexAt, 28);
    header.writeDoubleLE(h.dictAt, 32);
    header.writeDoubleLE(h.postAt, 40);
    header.writeDoubleLE(h.postLen, 48);
    header.writeDoubleLE(h.postings, 56);
    header.writeUInt32LE(h.blockIndexCrc, 64);
    header.writeUInt32LE(crc32(header.subarray(0, 68)), 68);
    return header;
}

/** Where a gram's posting list is in a segment. */
interface ListRef {
    off: number;
    len: number;
    crc: number;
    /** Files holding the gram in this segment. */
    count: number;
}

/**
 * A segment file opened for queries: the block index in memory, dictionary blocks and posting
 * lists read on demand with positional reads, each checked against its CRC.
 */
export class SegmentReader {
    readonly firstId: number;
    readonly fileCount: number;
    readonly #fd: number;
    readonly #file: string;
    readonly #blockKeys: Uint32Array;
    readonly #blockCrcs: Uint32Array;
    readonly #grams: number;
    readonly #dictAt: number;
    readonly #postAt: number;
    /** Postings in the segment (the sum of its lists' counts). */
    readonly postings: number;
    /** Bytes of the postings' section. */
    readonly postingsLength: number;
    /** Bytes of the file (checked against the header at open). */
    readonly bytes: number;

    /** File offset of the postings (where a {@link lookup}'s `off` counts from). */
    get postingsAt(): number {
        return this.#postAt;
    }

    /** @throws IndexFormatError when the header, size or block index does not check out; fs errors when unreadable. */
    constructor(file: string) {
        this.#file = file;
        const fd = fs.openSync(file, 'r');
        try {
            const size = fs.fstatSync(fd).size;
            const header = Buffer.alloc(SEG_HEADER);
            if (size < SEG_HEADER || fs.readSync(fd, header, 0, SEG_HEADER, 0) !== SEG_HEADER) throw new IndexFormatError(file, 'truncated header');
            if (!header.subarray(0, 8).equals(SEG_MAGIC)) throw new IndexFormatError(file, 'not a segment file');
            if (header.readUInt32LE(68) !== crc32(header.subarray(0, 68))) throw new IndexFormatError(file, 'header checksum mismatch');
            const version = header.readUInt32LE(8);
            if (version !== FORMAT_VERSION) throw new IndexFormatError(file, `format version ${version}, expected ${FORMAT_VERSION}`);
            this.#grams = header.readUInt32LE(12);
            this.firstId = header.readUInt32LE(16);
            this.fileCount = header.readUInt32LE(20);
            const blocks = header.readUInt32LE(24);
            const blockIndexAt = header.readUInt32LE(28);
            this.#dictAt = header.readDoubleLE(32);
            this.#postAt = header.readDoubleLE(40);
            const postLen = header.readDoubleLE(48);
            this.postings = header.readDoubleLE(56);
            if (this.#postAt + postLen !== size) throw new IndexFormatError(file, `size ${size} bytes, expected ${this.#postAt + postLen}`);
            const bi = Buffer.alloc(blocks * 8);
            if (fs.readSync(fd, bi, 0, bi.length, blockIndexAt) !== bi.length) throw new IndexFormatError(file, 'truncated block index');
            if (crc32(bi) !== header.readUInt32LE(64)) throw new IndexFormatError(file, 'block index checksum mismatch');
            this.#blockKeys = new Uint32Array(blocks);
            this.#blockCrcs = new Uint32Array(blocks);
            // Perf: typed-array reads (a segment has some 30,000 blocks; Buffer's checked reads took milliseconds).
            const words = LITTLE_ENDIAN ? new Uint32Array(bi.buffer, bi.byteOffset, blocks * 2) : null;
            for (let b = 0; b < blocks; b++) {
                this.#blockKeys[b] = words ? words[2 * b]! : bi.readUInt32LE(b * 8);
                this.#blockCrcs[b] = words ? words[2 * b + 1]! : bi.readUInt32LE(b * 8 + 4);
            }
            this.postingsLength = postLen;
            this.bytes = size;
        } catch (err) {
            fs.closeSync(fd);
            throw err;
        }
        this.#fd = fd;
    }

    /** Where the posting list of `key` is, `null` when no file of this segment holds the gram. */
    lookup(key: number): ListRef | null {
        segmentReads.lookups++;
        const keys = this.#blockKeys;
        // Last block whose first key is <= key.
        let lo = 0;
        let hi = keys.length - 1;
        if (hi < 0 || key < keys[0]!) return null;
        while (lo < hi) {
            const mid = (lo + hi + 1) >>> 1;
            if (keys[mid]! <= key) lo = mid;
            else hi = mid - 1;
        }
        const count = Math.min(DICT_BLOCK, this.#grams - lo * DICT_BLOCK);
        const buf = Buffer.allocUnsafe(count * DICT_ENTRY);
        if (fs.readSync(this.#fd, buf, 0, buf.length, this.#dictAt + lo * DICT_BLOCK * DICT_ENTRY) !== buf.length) throw new IndexFormatError(this.#file, 'truncated dictionary');
        if (crc32(buf) !== this.#blockCrcs[lo]) throw new IndexFormatError(this.#file, 'dictionary checksum mismatch');
        let a = 0;
        let b = count - 1;
        while (a <= b) {
            const m = (a + b) >>> 1;
            const k = buf.readUInt32LE(m * DICT_ENTRY);
            if (k === key) return { off: buf.readUInt32LE(m * DICT_ENTRY + 4), len: buf.readUInt32LE(m * DICT_ENTRY + 8), crc: buf.readUInt32LE(m * DICT_ENTRY + 12), count: buf.readUInt32LE(m * DICT_ENTRY + 16) };
            if (k < key) a = m + 1;
            else b = m - 1;
        }
        return null;
    }

    /** Grams in the dictionary, and its blocks of {@link DICT_BLOCK} entries. */
    get gramCount(): number {
        return this.#grams;
    }

    get blockCount(): number {
        return this.#blockKeys.length;
    }

    /**
     * The dictionary's entries of blocks `[from, from + count)` ({@link DICT_ENTRY} bytes each:
     * key, offset, length, CRC and posting count of the list), read with one positional read, each block checked against its
     * CRC (the merge reads the dictionary from start to end this way, into a buffer of its own: `into`, when it has room).
     */
    dictBlocks(from: number, count: number, into?: Buffer): Buffer {
        const first = from * DICT_BLOCK;
        const entries = Math.min(count * DICT_BLOCK, this.#grams - first);
        const buf = into !== undefined && into.length >= entries * DICT_ENTRY ? into.subarray(0, entries * DICT_ENTRY) : Buffer.allocUnsafe(entries * DICT_ENTRY);
        if (fs.readSync(this.#fd, buf, 0, buf.length, this.#dictAt + first * DICT_ENTRY) !== buf.length) throw new IndexFormatError(this.#file, 'truncated dictionary');
        for (let b = 0; b * DICT_BLOCK < entries; b++) {
            const block = buf.subarray(b * DICT_BLOCK * DICT_ENTRY, Math.min(entries, (b + 1) * DICT_BLOCK) * DICT_ENTRY);
            if (crc32(block) !== this.#blockCrcs[from + b]) throw new IndexFormatError(this.#file, 'dictionary checksum mismatch');
        }
        return buf;
    }

    /** Raw bytes of the postings from `off` (relative to their start) into `buf`; unchecked (a list's CRC is checked by its reader). */
    postingBytes(buf: Buffer, off: number, len: number): void {
        if (fs.readSync(this.#fd, buf, 0, len, this.#postAt + off) !== len) throw new IndexFormatError(this.#file, 'truncated postings');
    }

    /** The (absolute) ids of the files holding the gram, ascending, with their masks. */
    read(ref: ListRef): MaskedList {
        return decodePostings(this.readList(ref), this.firstId);
    }

    /**
     * A posting list: a short one read and checked against its CRC; a blocked one's table read and
     * checked, its blocks read and checked as they are decoded (posting-list.ts).
     */
    readList(ref: ListRef): ListBytes {
        segmentReads.lists++;
        const stored = storedLength(ref.len);
        const at = this.#postAt + ref.off;
        if (!(ref.len & BLOCKED)) {
            const buf = Buffer.allocUnsafe(stored);
            if (fs.readSync(this.#fd, buf, 0, stored, at) !== stored) throw new IndexFormatError(this.#file, 'truncated posting list');
            if (crc32(buf) !== ref.crc) throw new IndexFormatError(this.#file, 'posting list checksum mismatch');
            return ListBytes.whole(buf);
        }
        const count = Buffer.allocUnsafe(4);
        if (stored < 4 || fs.readSync(this.#fd, count, 0, 4, at) !== 4) throw new IndexFormatError(this.#file, 'truncated posting list');
        const headLen = 4 + 12 * count.readUInt32LE(0);
        if (headLen > stored) throw new IndexFormatError(this.#file, 'posting list block table malformed');
        const head = Buffer.allocUnsafe(headLen);
        if (fs.readSync(this.#fd, head, 0, headLen, at) !== headLen) throw new IndexFormatError(this.#file, 'truncated posting list');
        if (crc32(head) !== ref.crc) throw new IndexFormatError(this.#file, 'posting list checksum mismatch');
        const bodyAt = at + headLen;
        const fd = this.#fd;
        const file = this.#file;
        return ListBytes.blocked(head, stored - headLen, (dst, from, len) => {
            if (fs.readSync(fd, dst, from, len, bodyAt + from) !== len) throw new IndexFormatError(file, 'truncated posting list');
        }, file);
    }

    close(): void {
        try {
            fs.closeSync(this.#fd);
        } catch {
            // already closed
        }
    }
}
