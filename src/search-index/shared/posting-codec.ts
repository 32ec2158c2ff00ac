/**
 * The bytes of one posting list in a segment file: per file holding the gram, ascending, the
 * varint-encoded delta of its local id (from the segment's first id; the first delta is
 * `id + 1`), then its two mask bytes (./masks.ts: the next-byte mask, then the location mask).
 */

/** Bytes of a posting after its varint: the next-byte mask and the location mask. */
export const MASK_BYTES = 2;

/** Appends the varint of `v` (non-negative, < 2^32) at `at`; returns the new end. */
export function putVarint(buf: Uint8Array, at: number, v: number): number {
    while (v >= 0x80) {
        buf[at++] = (v & 0x7f) | 0x80;
        v >>>= 7;
    }
    buf[at++] = v;
    return at;
}

/** Appends one posting (delta and packed masks, ./masks.ts) at `at`; returns the new end. */
export function putPosting(buf: Uint8Array, at: number, delta: number, masks: number): number {
    at = putVarint(buf, at, delta);
    buf[at++] = masks >>> 8;
    buf[at++] = masks & 0xff;
    return at;
}

/** A decoded posting list: absolute ids ascending, and each one's packed masks. */
export interface MaskedList {
    ids: Uint32Array;
    masks: Uint16Array;
}

/** Decodes a posting list into absolute ids (`firstId` + local id) and their packed masks. */
export function decodePostings(buf: Uint8Array, firstId: number): MaskedList {
    return new PostingCursor(buf, firstId).range(0, Number.POSITIVE_INFINITY);
}

/** Where the varint read by the last {@link varintAt} ends. */
let after = 0;

/**
 * The varint at `i` (`i` within `buf`); its end goes to {@link after}. A varint cut short by the
 * end of the bytes ends there. Perf: deltas of one or two bytes, the rule, take no loop.
 */
function varintAt(buf: Uint8Array, i: number): number {
    const c0 = buf[i]!;
    if (c0 < 0x80) {
        after = i + 1;
        return c0;
    }
    if (i + 1 < buf.length && buf[i + 1]! < 0x80) {
        after = i + 2;
        return (c0 & 0x7f) | (buf[i + 1]! << 7);
    }
    let v = 0;
    let shift = 0;
    let c: number;
    do {
        c = buf[i++]!;
        v += (c & 0x7f) * 2 ** shift;
        shift += 7;
    } while (c & 0x80 && i < buf.length);
    after = i;
    return v;
}

/**
 * Reusable room for the postings of one decoding, copied out at its end. Perf: how many postings
 * a range holds is known only once decoded; arrays sized for the most its bytes could hold cost
 * more to allocate and collect than the decoding (the windows of a common gram's list).
 */
const SCRATCH = 4096;
let scratchIds = new Uint32Array(SCRATCH);
let scratchMasks = new Uint16Array(SCRATCH);

function grow(): void {
    const ids = new Uint32Array(scratchIds.length * 2);
    ids.set(scratchIds);
    const masks = new Uint16Array(scratchMasks.length * 2);
    masks.set(scratchMasks);
    scratchIds = ids;
    scratchMasks = masks;
}

/** The first `n` postings of the scratch room, copied; a room grown for a long list is let go. */
function copied(n: number): MaskedList {
    const out = { ids: scratchIds.slice(0, n), masks: scratchMasks.slice(0, n) };
    if (scratchIds.length > 64 * SCRATCH) {
        scratchIds = new Uint32Array(SCRATCH);
        scratchMasks = new Uint16Array(SCRATCH);
    }
    return out;
}

/**
 * The postings of `among` (absolute ids, ascending) that the list's bytes hold, with their masks.
 * Perf: a gram read after a rarer one only narrows the candidates left, so nothing is kept of the
 * list's other postings, and the decoding stops past the last id of `among` (a common gram's list
 * holds a posting for most files of the tree).
 */
export function decodeAmong(buf: Uint8Array, firstId: number, among: Uint32Array): MaskedList {
    const ids = new Uint32Array(among.length);
    const masks = new Uint16Array(among.length);
    let n = 0;
    let k = 0;
    let want = among.length > 0 ? among[0]! - firstId : -1;
    let prev = -1;
    for (let i = 0; i < buf.length && k < among.length; i += MASK_BYTES) {
        prev += varintAt(buf, i);
        i = after;
        while (want < prev && ++k < among.length) want = among[k]! - firstId;
        if (want === prev) {
            ids[n] = among[k]!;
            masks[n++] = (buf[i]! << 8) | buf[i + 1]!;
            if (++k < among.length) want = among[k]! - firstId;
        }
    }
    return { ids: ids.subarray(0, n), masks: masks.subarray(0, n) };
}

/**
 * A posting list's bytes decoded in ascending id ranges, each posting once however many ranges
 * are asked for: a search that stops early decodes the start of a long list only.
 */
export class PostingCursor {
    readonly #buf: Uint8Array;
    readonly #firstId: number;
    #at = 0;
    /** Local id of the last posting decoded. */
    #prev = -1;

    constructor(buf: Uint8Array, firstId: number) {
        this.#buf = buf;
        this.#firstId = firstId;
    }

    /** The postings with ids in [a, b), from where the last call stopped (ids below `a` passed over). */
    range(a: number, b: number): MaskedList {
        const buf = this.#buf;
        const first = this.#firstId;
        let n = 0;
        let i = this.#at;
        let prev = this.#prev;
        while (i < buf.length) {
            const v = varintAt(buf, i);
            const id = prev + v + first;
            if (id >= b) break;
            prev += v;
            i = after;
            if (id >= a) {
                if (n === scratchIds.length) grow();
                scratchIds[n] = id;
                scratchMasks[n++] = (buf[i]! << 8) | buf[i + 1]!;
            }
            i += MASK_BYTES;
        }
        this.#at = i;
        this.#prev = prev;
        return copied(n);
    }

    /**
     * The postings in [a, b) whose ids are in `among` (ascending), the cursor moved past [a, b) as
     * {@link range} moves it. Perf: the window of a gram read after a rarer one keeps only the
     * candidates left, not every posting of a common gram in it.
     */
    rangeAmong(a: number, b: number, among: Uint32Array): MaskedList {
        const buf = this.#buf;
        const first = this.#firstId;
        let k = 0;
        while (k < among.length && among[k]! < a) k++;
        const ids = new Uint32Array(among.length - k);
        const masks = new Uint16Array(ids.length);
        let want = k < among.length ? among[k]! : Number.POSITIVE_INFINITY;
        let n = 0;
        let i = this.#at;
        let prev = this.#prev;
        while (i < buf.length) {
            const v = varintAt(buf, i);
            const id = prev + v + first;
            if (id >= b) break;
            prev += v;
            i = after;
            if (id >= want) {
                while (want < id) want = ++k < among.length ? among[k]! : Number.POSITIVE_INFINITY;
                if (want === id && id >= a) {
                    ids[n] = id;
                    masks[n++] = (buf[i]! << 8) | buf[i + 1]!;
                    want = ++k < among.length ? among[k]! : Number.POSITIVE_INFINITY;
                }
            }
            i += MASK_BYTES;
        }
        this.#at = i;
        this.#prev = prev;
        return { ids: ids.subarray(0, n), masks: masks.subarray(0, n) };
    }

    /** A cursor standing where this one stands, moved on its own. */
    clone(): PostingCursor {
        const c = new PostingCursor(this.#buf, this.#firstId);
        c.#at = this.#at;
        c.#prev = this.#prev;
        return c;
    }
}

/**
 * The first delta of a list's bytes, where the bytes after it start, and the sum of all its
 * deltas (the last local id + 1): what a merge needs to re-encode the first delta and copy the rest.
 */
export function listSpan(bytes: Uint8Array): { first: number; restAt: number; sum: number } {
    let p = 0;
    let first = 0;
    for (let shift = 0; ; shift += 7) {
        const b = bytes[p++]!;
        first += (b & 0x7f) * 2 ** shift;
        if (!(b & 0x80) || p >= bytes.length) break;
    }
    let sum = first;
    for (let q = p + MASK_BYTES; q < bytes.length; q += MASK_BYTES) {
        let v = 0;
        for (let shift = 0; ; shift += 7) {
            const b = bytes[q++]!;
            v += (b & 0x7f) * 2 ** shift;
            if (!(b & 0x80) || q >= bytes.length) break;
        }
        sum += v;
    }
    return { first, restAt: p, sum };
}
