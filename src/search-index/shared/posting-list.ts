import { crc32 } from 'node:zlib';
import { IndexFormatError } from './format.js';
import { PACK_MASKED, packEnd, packLast } from './posting-pack.js';

/**
 * A posting list as stored: its body (the postings, ./posting-codec.ts) and, for a body above
 * {@link LIST_BLOCK} bytes, a block table before it, so that a query reads and checks only the
 * blocks it decodes. Perf: at ten times the Linux tree a quarter of a query's planning went to
 * reading and checking the CRC of whole lists of which a few blocks were decoded.
 *
 * Stored bytes of a list: for a short list, the body (the dictionary entry's CRC is the body's);
 * for a blocked one (bit {@link BLOCKED} of the entry's length), a u32 block count `n`, then per
 * block 12 bytes (u32 each, little-endian): the local id of the last posting before it plus 1
 * (0 for the first block), where the block ends in the body, the block's CRC; then the body. The
 * entry's CRC is the table's. Blocks end between units (single postings or packs,
 * ./posting-pack.ts): each block decodes on its own from its base id.
 */

/** Body bytes of a list above which it is cut into blocks of about this size. */
export const LIST_BLOCK = 4096;
/** Bit of a dictionary entry's length: the list begins with a block table. */
export const BLOCKED = 0x80000000;
const ENTRY = 12;

/** A body's stored form: the table before it (empty for a short list), whether it is blocked, and the CRC the dictionary holds. */
export interface ListFrame {
    head: Uint8Array;
    blocked: boolean;
    crc: number;
}

const NO_HEAD = new Uint8Array(0);

/**
 * Walks a body's units (./posting-codec.ts: a single posting, or a pack of 128, ./posting-pack.ts):
 * `each(last, end)` per unit, in order, with the local id of its last posting and where it ends.
 * Perf: no object per unit.
 */
export function forEachUnit(body: Uint8Array, each: (last: number, end: number) => void): void {
    let prev = -1;
    for (let i = 0; i < body.length; ) {
        if (body[i]! <= PACK_MASKED) {
            prev = packLast(body, i, prev);
            i = packEnd(body, i);
        } else {
            let v = 0;
            for (let shift = 0; ; shift += 7) {
                const b = body[i++]!;
                v += (b & 0x7f) * 2 ** shift;
                if (!(b & 0x80) || i >= body.length) break;
            }
            prev += Math.floor(v / 2);
            if (v % 2 === 1) i += 2;
        }
        each(prev, i);
    }
}

/** The frame of a list's body (see the layout above). */
export function frameList(body: Uint8Array): ListFrame {
    if (body.length <= LIST_BLOCK) return { head: NO_HEAD, blocked: false, crc: crc32(body) };
    const bases: number[] = [0];
    const ends: number[] = [];
    let start = 0;
    forEachUnit(body, (last, end) => {
        if (end - start >= LIST_BLOCK && end < body.length) {
            ends.push(end);
            bases.push(last + 1);
            start = end;
        }
    });
    ends.push(body.length);
    const head = Buffer.alloc(4 + ENTRY * ends.length);
    head.writeUInt32LE(ends.length, 0);
    for (let j = 0; j < ends.length; j++) {
        head.writeUInt32LE(bases[j]!, 4 + ENTRY * j);
        head.writeUInt32LE(ends[j]!, 8 + ENTRY * j);
        head.writeUInt32LE(crc32(body.subarray(j === 0 ? 0 : ends[j - 1]!, ends[j]!)), 12 + ENTRY * j);
    }
    return { head, blocked: true, crc: crc32(head) };
}

/** The length field of a dictionary entry for a list of `bytes` stored bytes. */
export function entryLength(bytes: number, blocked: boolean): number {
    if (bytes >= BLOCKED) throw new Error('posting list above 2 GiB');
    return blocked ? (bytes | BLOCKED) >>> 0 : bytes;
}

/** Stored bytes of a list from its entry's length field. */
export function storedLength(len: number): number {
    return (len & ~BLOCKED) >>> 0;
}

/** Reads `len` bytes of a list's body from body offset `from` into `dst` at `from`. */
export type BodyLoader = (dst: Uint8Array, from: number, len: number) => void;

/** Blocks loaded at most by one read. */
const RUN = 16;
/** A block's state. */
const UNREAD = 0;
const READ = 1;
const CHECKED = 2;

/**
 * A list's body, its blocks read and checked against their CRCs when first decoded
 * ({@link ensure}); a short list is read and checked whole.
 */
export class ListBytes {
    readonly body: Uint8Array;
    readonly blocks: number;
    readonly #bases: Uint32Array;
    readonly #ends: Uint32Array;
    readonly #crcs: Uint32Array;
    readonly #ok: Uint8Array;
    readonly #load: BodyLoader | null;
    readonly #file: string;

    private constructor(body: Uint8Array, bases: Uint32Array, ends: Uint32Array, crcs: Uint32Array, load: BodyLoader | null, file: string) {
        this.body = body;
        this.blocks = ends.length;
        this.#bases = bases;
        this.#ends = ends;
        this.#crcs = crcs;
        this.#ok = new Uint8Array(ends.length).fill(load === null ? CHECKED : UNREAD);
        this.#load = load;
        this.#file = file;
    }

    /** A body already checked, as one block. */
    static whole(body: Uint8Array): ListBytes {
        return new ListBytes(body, new Uint32Array(1), Uint32Array.of(body.length), new Uint32Array(1), null, '');
    }

    /**
     * A blocked list from its table (already checked against the dictionary's CRC), its body read
     * block by block through `load`. @throws IndexFormatError when the table is not one.
     */
    static blocked(head: Uint8Array, bodyLength: number, load: BodyLoader, file: string): ListBytes {
        const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
        const n = view.getUint32(0, true);
        if (n === 0 || head.length !== 4 + ENTRY * n) throw new IndexFormatError(file, 'posting list block table malformed');
        const bases = new Uint32Array(n);
        const ends = new Uint32Array(n);
        const crcs = new Uint32Array(n);
        for (let j = 0; j < n; j++) {
            bases[j] = view.getUint32(4 + ENTRY * j, true);
            ends[j] = view.getUint32(8 + ENTRY * j, true);
            crcs[j] = view.getUint32(12 + ENTRY * j, true);
            if (ends[j]! <= (j === 0 ? 0 : ends[j - 1]!) || (j > 0 && bases[j]! <= bases[j - 1]!)) throw new IndexFormatError(file, 'posting list block table malformed');
        }
        if (ends[n - 1] !== bodyLength) throw new IndexFormatError(file, 'posting list block table malformed');
        // Perf: not zeroed (a long list's body is mostly never read: a query decodes few of its
        // blocks); a block's bytes are decoded only once read and checked (ensure).
        return new ListBytes(Buffer.allocUnsafe(bodyLength), bases, ends, crcs, load, file);
    }

    /** Where block `j` starts in the body. */
    start(j: number): number {
        return j === 0 ? 0 : this.#ends[j - 1]!;
    }

    /** Where block `j` ends in the body. */
    end(j: number): number {
        return this.#ends[j]!;
    }

    /** The local id of the last posting before block `j` (-1 for the first). */
    base(j: number): number {
        return this.#bases[j]! - 1;
    }

    /**
     * Block `j` read (with the blocks after it not yet read, up to {@link RUN} in one read) and
     * checked; each block is checked only when entered, so a corrupt block fails only the decoding
     * that reaches it. @throws IndexFormatError on a mismatch.
     */
    ensure(j: number): void {
        if (this.#ok[j] === CHECKED) return;
        if (this.#ok[j] === UNREAD) {
            let k = j + 1;
            while (k < this.blocks && k - j < RUN && this.#ok[k] === UNREAD) k++;
            const from = this.start(j);
            this.#load!(this.body, from, this.end(k - 1) - from);
            this.#ok.fill(READ, j, k);
        }
        if (crc32(this.body.subarray(this.start(j), this.end(j))) !== this.#crcs[j]) throw new IndexFormatError(this.#file, 'posting list block checksum mismatch');
        this.#ok[j] = CHECKED;
    }

    /** The whole body, every block checked. */
    all(): Uint8Array {
        for (let j = 0; j < this.blocks; j++) this.ensure(j);
        return this.body;
    }
}

/**
 * The body of a list's stored bytes, every block checked (the merge reads every list whole).
 * @throws IndexFormatError on a mismatch.
 */
export function checkedBody(stored: Uint8Array, blocked: boolean, crc: number, file: string): Uint8Array {
    if (!blocked) {
        if (crc32(stored) !== crc) throw new IndexFormatError(file, 'posting list checksum mismatch');
        return stored;
    }
    if (stored.length < 4) throw new IndexFormatError(file, 'posting list block table malformed');
    const headLen = 4 + ENTRY * new DataView(stored.buffer, stored.byteOffset, 4).getUint32(0, true);
    if (headLen > stored.length) throw new IndexFormatError(file, 'posting list block table malformed');
    const head = stored.subarray(0, headLen);
    if (crc32(head) !== crc) throw new IndexFormatError(file, 'posting list checksum mismatch');
    const body = stored.subarray(headLen);
    return ListBytes.blocked(head, body.length, (dst, from, len) => dst.set(body.subarray(from, from + len), from), file).all();
}
