import { ListBytes } from './posting-list.js';
import { copied, grow, type MaskedList, scratchIds, scratchMasks } from './posting-scratch.js';
import { after, MASK_BYTES, NO_MASKS, PACK, packEnd, packSpan, unpackIds, unpackMasks, varintAt } from './posting-pack.js';

export { MASK_BYTES, MOST_POSTING_BYTES, NO_MASKS, putPosting, putPostings, putVarint } from './posting-pack.js';
export type { MaskedList } from './posting-scratch.js';
/**
 * The body of one posting list in a segment file (./posting-list.ts frames it): per file holding
 * the gram, ascending, either a single posting, the varint of `delta * 2 + m`, where `delta` is
 * the step of its local id (from the segment's first id; the first delta is `id + 1`) and `m`
 * tells whether its two mask bytes follow (./masks.ts: the next-byte mask, then the location
 * mask), or a pack of 128 postings, their deltas bit-packed (./posting-pack.ts: a run of 128 is
 * packed where that is shorter). A posting without mask bytes decodes with {@link NO_MASKS},
 * which rules nothing out: the build stores masks only for files where they pay
 * (workers/search-index/index-chunk.ts).
 */

/** Decodes a posting list into absolute ids (`firstId` + local id) and their packed masks. */
export function decodePostings(list: ListBytes | Uint8Array, firstId: number): MaskedList {
    return new PostingCursor(list, firstId).range(0, Number.POSITIVE_INFINITY);
}

/** The postings of `among` (absolute ids, ascending) that the list holds, with their masks (Perf: the others are not kept, the decoding stops past the last of `among`). */
export function decodeAmong(list: ListBytes | Uint8Array, firstId: number, among: Uint32Array): MaskedList {
    return new PostingCursor(list, firstId).rangeAmong(0, Number.POSITIVE_INFINITY, among);
}

/** A posting list's body decoded in ascending id ranges, each posting once (a search that stops early decodes the start of a long list only); blocks (./posting-list.ts) are read and checked as the decoding enters them, those wholly below what is asked for passed over unread. */
export class PostingCursor {
    readonly #list: ListBytes;
    readonly #firstId: number;
    #at = 0;
    /** Local id of the last posting decoded; the block `#at` lies in (or at whose end it stands). */
    #prev = -1;
    #j = 0;
    /** The pack last decoded (local ids and masks; made at the first pack), its postings from #u on not yet taken; #at is past it. */
    #packIds: Uint32Array | null = null;
    #packMasks: Uint16Array | null = null;
    #u = 0;
    #ulen = 0;

    constructor(list: ListBytes | Uint8Array, firstId: number) {
        this.#list = list instanceof Uint8Array ? ListBytes.whole(list) : list;
        this.#firstId = firstId;
    }

    /** The postings with ids in [a, b), from where the last call stopped (ids below `a` passed over). */
    range(a: number, b: number): MaskedList {
        return copied(this.fill(a, b));
    }

    /** As {@link range}, left in the scratch room (./posting-scratch.ts, valid until the next decoding): their count. */
    fill(a: number, b: number): number {
        const L = this.#list;
        const buf = L.body;
        const first = this.#firstId;
        const nb = L.blocks;
        let n = 0;
        let i = this.#at;
        let prev = this.#prev;
        let j = this.#j;
        let u = this.#u;
        let ulen = this.#ulen;
        let pIds = this.#packIds;
        let pMasks = this.#packMasks;
        if (j + 1 < nb && L.base(j + 1) + first < a) {
            while (j + 1 < nb && L.base(j + 1) + first < a) j++;
            i = L.start(j);
            prev = L.base(j);
            u = ulen = 0;
        }
        let end = L.end(j);
        if (i < end) L.ensure(j);
        const lo = a - first;
        const hi = b - first;
        postings: for (;;) {
            let id: number;
            let m = NO_MASKS;
            if (u < ulen) {
                const local = pIds![u]!;
                id = local + first;
                if (id >= b) break;
                prev = local;
                m = pMasks![u++]!;
            } else {
                if (i >= end) {
                    if (j + 1 >= nb) break;
                    end = L.end(++j);
                    L.ensure(j);
                }
                if (buf[i]! <= 1) {
                    // Perf: a pack wholly below `a` is passed over undecoded; one wholly within [a, b) goes straight to the scratch room.
                    const last = prev + packSpan(buf, i);
                    if (last + first < a) {
                        prev = last;
                        i = packEnd(buf, i);
                        continue;
                    }
                    while (n + PACK > scratchIds.length) grow();
                    const valuesEnd = unpackIds(buf, i, prev, scratchIds, n, first);
                    if (scratchIds[n]! >= a && scratchIds[n + PACK - 1]! < b) {
                        i = unpackMasks(buf, i, valuesEnd, scratchMasks, n);
                        prev = scratchIds[n + PACK - 1]! - first;
                        n += PACK;
                        continue;
                    }
                    pIds = this.#packIds ??= new Uint32Array(PACK);
                    pMasks = this.#packMasks ??= new Uint16Array(PACK);
                    for (let q = 0; q < PACK; q++) pIds[q] = scratchIds[n + q]! - first;
                    i = unpackMasks(buf, i, valuesEnd, pMasks);
                    u = 0;
                    ulen = PACK;
                    continue;
                }
                // Perf: single postings up to the next pack or the block's end in one tight loop, varints of one or two bytes read in place.
                while (i < end) {
                    let v = buf[i]!;
                    let next = i + 1;
                    let d: number;
                    if (v < 0x80) {
                        if (v <= 1) break;
                        d = v >>> 1;
                    } else if (next < end && buf[next]! < 0x80) {
                        v = (v & 0x7f) | (buf[next++]! << 7);
                        d = v >>> 1;
                    } else {
                        v = varintAt(buf, i);
                        next = after;
                        d = Math.floor(v / 2);
                    }
                    const local = prev + d;
                    if (local >= hi) break postings;
                    prev = local;
                    let mm = NO_MASKS;
                    if (v & 1) {
                        mm = (buf[next]! << 8) | buf[next + 1]!;
                        next += MASK_BYTES;
                    }
                    i = next;
                    if (local >= lo) {
                        if (n === scratchIds.length) grow();
                        scratchIds[n] = local + first;
                        scratchMasks[n++] = mm;
                    }
                }
                continue;
            }
            if (id >= a) {
                if (n === scratchIds.length) grow();
                scratchIds[n] = id;
                scratchMasks[n++] = m;
            }
        }
        this.#save(i, prev, j, u, ulen);
        return n;
    }

    #save(i: number, prev: number, j: number, u: number, ulen: number): void {
        this.#at = i;
        this.#prev = prev;
        this.#j = j;
        this.#u = u;
        this.#ulen = ulen;
    }

    /**
     * The postings in [a, b) whose ids are in `among` (ascending), the cursor moved past [a, b) as
     * {@link range} moves it. Perf: the window of a gram read after a rarer one keeps only the
     * candidates left, not every posting of a common gram in it, and blocks holding none of them
     * are neither read nor decoded.
     */
    rangeAmong(a: number, b: number, among: Uint32Array): MaskedList {
        const L = this.#list;
        const buf = L.body;
        const first = this.#firstId;
        const nb = L.blocks;
        let k = 0;
        while (k < among.length && among[k]! < a) k++;
        const ids = new Uint32Array(among.length - k);
        const masks = new Uint16Array(ids.length);
        let want = k < among.length ? among[k]! : Number.POSITIVE_INFINITY;
        let n = 0;
        let i = this.#at;
        let prev = this.#prev;
        let j = this.#j;
        let u = this.#u;
        let ulen = this.#ulen;
        let pIds = this.#packIds;
        let pMasks = this.#packMasks;
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
                u = ulen = 0;
                L.ensure(j);
            }
            let id: number;
            let m = NO_MASKS;
            if (u < ulen) {
                // Perf: the pack's postings below the next candidate (and below `b`) passed over in one loop.
                const lim = (want < b ? want : b) - first;
                if (pIds![u]! < lim) {
                    while (++u < ulen && pIds![u]! < lim);
                    prev = pIds![u - 1]!;
                    if (u === ulen) continue;
                }
                const local = pIds![u]!;
                id = local + first;
                if (id >= b) break;
                prev = local;
                m = pMasks![u++]!;
            } else {
                if (i >= end) {
                    if (j + 1 >= nb) break;
                    end = L.end(++j);
                    last = j + 1 < nb ? L.base(j + 1) + first : Number.POSITIVE_INFINITY;
                    L.ensure(j);
                    continue;
                }
                if (want === Number.POSITIVE_INFINITY && b === Number.POSITIVE_INFINITY) break;
                if (buf[i]! <= 1) {
                    // Perf: a pack holding no candidate (its last id below `want` and `b`) is passed over undecoded.
                    const last = prev + packSpan(buf, i);
                    if (last + first < want && last + first < b) {
                        prev = last;
                        i = packEnd(buf, i);
                        continue;
                    }
                    pIds = this.#packIds ??= new Uint32Array(PACK);
                    const valuesEnd = unpackIds(buf, i, prev, pIds);
                    pMasks = this.#packMasks ??= new Uint16Array(PACK);
                    i = unpackMasks(buf, i, valuesEnd, pMasks);
                    u = 0;
                    ulen = PACK;
                    continue;
                }
                // Perf: the single postings below the next candidate (and below `b`) passed over in one tight loop, up to a pack or the block's end.
                const lim = (want < b ? want : b) - first;
                let v = 0;
                let next = i;
                let local = 0;
                while (i < end) {
                    v = buf[i]!;
                    if (v <= 1) break;
                    next = i + 1;
                    if (v >= 0x80) {
                        if (next < end && buf[next]! < 0x80) v = (v & 0x7f) | (buf[next++]! << 7);
                        else {
                            v = varintAt(buf, i);
                            next = after;
                        }
                    }
                    local = prev + (v < 0x100000000 ? v >>> 1 : Math.floor(v / 2));
                    if (local >= lim) break;
                    prev = local;
                    i = v & 1 ? next + MASK_BYTES : next;
                }
                if (i >= end || v <= 1) continue;
                id = local + first;
                if (id >= b) break;
                prev = local;
                i = next;
                if (v & 1) {
                    m = (buf[i]! << 8) | buf[i + 1]!;
                    i += MASK_BYTES;
                }
            }
            if (id >= want) {
                while (want < id) want = ++k < among.length ? among[k]! : Number.POSITIVE_INFINITY;
                if (want === id && id >= a) {
                    ids[n] = id;
                    masks[n++] = m;
                    want = ++k < among.length ? among[k]! : Number.POSITIVE_INFINITY;
                }
            }
        }
        this.#save(i, prev, j, u, ulen);
        return { ids: ids.subarray(0, n), masks: masks.subarray(0, n) };
    }

    /** A cursor standing where this one stands, moved on its own. */
    clone(): PostingCursor {
        const c = new PostingCursor(this.#list, this.#firstId);
        c.#save(this.#at, this.#prev, this.#j, this.#u, this.#ulen);
        if (this.#u < this.#ulen) {
            c.#packIds = this.#packIds!.slice();
            c.#packMasks = this.#packMasks!.slice();
        }
        return c;
    }
}
