import { forEachPosting, ListBytes } from './posting-list.js';

/**
 * The body of one posting list in a segment file (./posting-list.ts frames it): per file holding
 * the gram, ascending, the varint of `delta * 2 + m`, where `delta` is the step of its local id
 * (from the segment's first id; the first delta is `id + 1`) and `m` tells whether its two mask
 * bytes follow (./masks.ts: the next-byte mask, then the location mask). A posting without mask
 * bytes decodes with {@link NO_MASKS}, which rules nothing out: the build stores masks only for
 * files where they pay (workers/search-index/index-chunk.ts).
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

/** Packed masks of a posting stored without them: every bit set, ruling nothing out. */
export const NO_MASKS = 0xffff;

/** Appends one posting (delta and packed masks, ./masks.ts; 0: none stored) at `at`; returns the new end. */
export function putPosting(buf: Uint8Array, at: number, delta: number, masks: number): number {
    if (masks === 0) return putVarint(buf, at, delta * 2);
    at = putVarint(buf, at, delta * 2 + 1);
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
export function decodePostings(list: ListBytes | Uint8Array, firstId: number): MaskedList {
    return new PostingCursor(list, firstId).range(0, Number.POSITIVE_INFINITY);
}

/** Where the varint read by the last {@link varintAt} ends. */
let after = 0;

/**
 * The varint at `i` (`i` within `buf`); its end goes to {@link after}. A varint cut short by the
 * end of the bytes ends there. The decodings read those of one or two bytes, the rule, in place.
 */
function varintAt(buf: Uint8Array, i: number): number {
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
 * The postings of `among` (absolute ids, ascending) that the list holds, with their masks.
 * Perf: a gram read after a rarer one only narrows the candidates left, so nothing is kept of the
 * list's other postings, and the decoding stops past the last id of `among` (a common gram's list
 * holds a posting for most files of the tree).
 */
export function decodeAmong(list: ListBytes | Uint8Array, firstId: number, among: Uint32Array): MaskedList {
    return new PostingCursor(list, firstId).rangeAmong(0, Number.POSITIVE_INFINITY, among);
}

/**
 * A posting list's body decoded in ascending id ranges, each posting once however many ranges
 * are asked for: a search that stops early decodes the start of a long list only. Blocks of a
 * blocked list (./posting-list.ts) are read and checked as the decoding enters them; blocks whose
 * postings all lie below what is asked for are passed over unread.
 */
export class PostingCursor {
    readonly #list: ListBytes;
    readonly #firstId: number;
    #at = 0;
    /** Local id of the last posting decoded. */
    #prev = -1;
    /** The block `#at` lies in (or at whose end it stands). */
    #j = 0;

    constructor(list: ListBytes | Uint8Array, firstId: number) {
        this.#list = list instanceof Uint8Array ? ListBytes.whole(list) : list;
        this.#firstId = firstId;
    }

    /** The postings with ids in [a, b), from where the last call stopped (ids below `a` passed over). */
    range(a: number, b: number): MaskedList {
        const L = this.#list;
        const buf = L.body;
        const first = this.#firstId;
        const nb = L.blocks;
        const lo = a - first;
        const hi = b - first;
        let n = 0;
        let i = this.#at;
        let prev = this.#prev;
        let j = this.#j;
        if (j + 1 < nb && L.base(j + 1) < lo) {
            while (j + 1 < nb && L.base(j + 1) < lo) j++;
            i = L.start(j);
            prev = L.base(j);
        }
        // Perf: one tight loop per block for the postings passed over, one for those kept (local
        // ids, varints of one or two bytes read in place): 3-4 times the speed of a call per posting.
        blocks: for (let end = L.end(j); ; end = L.end(++j)) {
            if (i < end) {
                L.ensure(j);
                while (i < end) {
                    let v = buf[i]!;
                    let next = i + 1;
                    if (v >= 0x80) {
                        if (next < end && buf[next]! < 0x80) v = (v & 0x7f) | (buf[next++]! << 7);
                        else {
                            v = varintAt(buf, i);
                            next = after;
                        }
                    }
                    const local = prev + (v >>> 1);
                    if (local >= hi) break blocks;
                    prev = local;
                    let m = NO_MASKS;
                    if (v & 1) {
                        m = (buf[next]! << 8) | buf[next + 1]!;
                        next += MASK_BYTES;
                    }
                    i = next;
                    if (local >= lo) {
                        if (n === scratchIds.length) grow();
                        scratchIds[n] = local + first;
                        scratchMasks[n++] = m;
                    }
                }
            }
            if (j + 1 >= nb) break;
        }
        this.#at = i;
        this.#prev = prev;
        this.#j = j;
        return copied(n);
    }

    /**
     * The postings in [a, b) whose ids are in `among` (ascending), the cursor moved past [a, b) as
     * {@link range} moves it. Perf: the window of a gram read after a rarer one keeps only the
     * candidates left, not every posting of a common gram in it, and blocks holding none of them
     * are neither read nor decoded; the postings between two candidates are passed over in a
     * tight loop.
     */
    rangeAmong(a: number, b: number, among: Uint32Array): MaskedList {
        const L = this.#list;
        const buf = L.body;
        const first = this.#firstId;
        const nb = L.blocks;
        const hi = b - first;
        let k = 0;
        while (k < among.length && among[k]! < a) k++;
        const ids = new Uint32Array(among.length - k);
        const masks = new Uint16Array(ids.length);
        let want = k < among.length ? among[k]! : Number.POSITIVE_INFINITY;
        let n = 0;
        let i = this.#at;
        let prev = this.#prev;
        let j = this.#j;
        let end = L.end(j);
        if (i < end) L.ensure(j);
        // The last id of block j: the block holds nothing wanted when it lies below both `want` and `b`.
        let last = j + 1 < nb ? L.base(j + 1) + first : Number.POSITIVE_INFINITY;
        for (;;) {
            if (last < want && last < b) {
                do last = ++j + 1 < nb ? L.base(j + 1) + first : Number.POSITIVE_INFINITY;
                while (last < want && last < b);
                i = L.start(j);
                prev = L.base(j);
                end = L.end(j);
                L.ensure(j);
            }
            if (i >= end) {
                if (j + 1 >= nb) break;
                end = L.end(++j);
                last = j + 1 < nb ? L.base(j + 1) + first : Number.POSITIVE_INFINITY;
                L.ensure(j);
                continue;
            }
            if (want === Number.POSITIVE_INFINITY && b === Number.POSITIVE_INFINITY) break;
            // The postings below the next candidate (and below `b`) are passed over.
            const lim = (want < b ? want : b) - first;
            let v = 0;
            let next = i;
            let local = 0;
            while (i < end) {
                v = buf[i]!;
                next = i + 1;
                if (v >= 0x80) {
                    if (next < end && buf[next]! < 0x80) v = (v & 0x7f) | (buf[next++]! << 7);
                    else {
                        v = varintAt(buf, i);
                        next = after;
                    }
                }
                local = prev + (v >>> 1);
                if (local >= lim) break;
                prev = local;
                i = v & 1 ? next + MASK_BYTES : next;
            }
            if (i >= end) continue;
            if (local >= hi) break;
            prev = local;
            let m = NO_MASKS;
            if (v & 1) {
                m = (buf[next]! << 8) | buf[next + 1]!;
                next += MASK_BYTES;
            }
            i = next;
            const id = local + first;
            while (want < id) want = ++k < among.length ? among[k]! : Number.POSITIVE_INFINITY;
            if (want === id) {
                ids[n] = id;
                masks[n++] = m;
                want = ++k < among.length ? among[k]! : Number.POSITIVE_INFINITY;
            }
        }
        this.#at = i;
        this.#prev = prev;
        this.#j = j;
        return { ids: ids.subarray(0, n), masks: masks.subarray(0, n) };
    }

    /** A cursor standing where this one stands, moved on its own. */
    clone(): PostingCursor {
        const c = new PostingCursor(this.#list, this.#firstId);
        c.#at = this.#at;
        c.#prev = this.#prev;
        c.#j = this.#j;
        return c;
    }
}

/**
 * The first delta of a list's body, whether its masks follow, where the bytes after its varint
 * start, and the sum of all its deltas (the last local id + 1): what a merge needs to re-encode the
 * first posting's varint and copy the rest.
 */
export function listSpan(body: Uint8Array): { first: number; masked: boolean; restAt: number; sum: number } {
    let sum = 0;
    let first = -1;
    let masked = false;
    let restAt = 0;
    forEachPosting(body, (delta, varintEnd, end) => {
        if (first === -1) {
            first = delta;
            masked = end > varintEnd;
            restAt = varintEnd;
        }
        sum += delta;
    });
    return { first: Math.max(0, first), masked, restAt, sum };
}
