/**
 * Packs of a posting list's body (./posting-codec.ts): {@link PACK} postings whose deltas, less
 * one, are bit-packed at the smallest width that holds the largest of them, as in PForDelta and
 * Lucene's postings. A body mixes packs and single postings (the varint of `delta * 2 + m`, then
 * its mask bytes when `m` is 1): a pack starts with a byte no single posting starts with, the
 * varint of a delta of 0 ({@link PACK_PLAIN}, or {@link PACK_MASKED} when masks follow).
 *
 * A pack's bytes: that first byte, the width `w` (0-32), the varint of its span less 128 (its last local
 * id less the one before it, at least 128), `16 * w` bytes of values (value `k` at bits `k * w` to `k * w + w - 1`,
 * little-endian); for a masked pack, a bitmap of the postings
 * that carry masks (16 bytes, bit `k % 8` of byte `k / 8`), then their two mask bytes each, in
 * order. Why: in a tree of small files most postings are in long lists of common grams, whose
 * deltas are small; their varints take a byte where 2 to 6 bits hold the delta.
 */

/** Postings of a pack. */
export const PACK = 128;
/** First byte of a pack without masks. */
export const PACK_PLAIN = 0;
/** First byte of a pack with its bitmap of masked postings. */
export const PACK_MASKED = 1;
/** Bytes of a pack's bitmap. */
const BITMAP = PACK / 8;
/** Packed masks of a posting stored without them: every bit set, ruling nothing out. */
export const NO_MASKS = 0xffff;
/** Bytes of a single posting after its varint when it carries masks: the next-byte mask and the location mask. */
export const MASK_BYTES = 2;
/** Worst case bytes of one encoded posting: a 5-byte varint and its masks. */
export const MOST_POSTING_BYTES = 5 + MASK_BYTES;

/** Bits of `v`'s binary form (0 for 0). */
function widthOf(v: number): number {
    return 32 - Math.clz32(v);
}

/** Bytes of the varint of `v`. */
export function varintBytes(v: number): number {
    return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Appends the varint of `v` (an integer 0..2^53: no 32-bit operator touches it) at `at`; returns the new end. */
export function putVarint(buf: Uint8Array, at: number, v: number): number {
    while (v >= 0x80) {
        buf[at++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
    }
    buf[at++] = v;
    return at;
}

/** Where the varint read by the last {@link varintAt} ends. */
export let after = 0;
/** The varint at `i` (within `buf`; one cut short ends there), its end to {@link after}. Perf: one or two bytes, the rule, take no loop. */
export function varintAt(buf: Uint8Array, i: number): number {
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

/** Appends one single posting (delta and packed masks, ./masks.ts; 0: none stored) at `at`; returns the new end. */
export function putPosting(buf: Uint8Array, at: number, delta: number, masks: number): number {
    if (masks === 0) return putVarint(buf, at, delta * 2);
    at = putVarint(buf, at, delta * 2 + 1);
    buf[at++] = masks >>> 8;
    buf[at++] = masks & 0xff;
    return at;
}

/**
 * Appends the postings `ids[from..to)` (local ids minus `sub`, ascending, after local id `prev`)
 * with their packed masks (0: stored without them) at `at`; returns the new end. Each run of
 * {@link PACK} postings from `from` without masks is a pack when that is no longer than its
 * single postings, the rest single postings (the decoders read masked packs too). At most 7 bytes a posting (a pack is never longer than its singles).
 */
export function putPostings(buf: Uint8Array, at: number, ids: ArrayLike<number>, masks: ArrayLike<number>, from: number, to: number, prev: number, sub = 0): number {
    let k = from;
    for (; k + PACK <= to; k += PACK) {
        let most = 0;
        let masked = 0;
        let singles = 0;
        let p = prev;
        for (let q = k; q < k + PACK; q++) {
            const id = ids[q]! - sub;
            const d = id - p;
            p = id;
            if (d - 1 > most) most = d - 1;
            const m = masks[q]!;
            if (m !== 0) masked++;
            singles += varintBytes(d * 2 + (m !== 0 ? 1 : 0)) + (m !== 0 ? 2 : 0);
        }
        const w = widthOf(most);
        // Runs with masks (files of 4 KiB or more) stay single postings: their mask bytes outweigh the deltas (packing them
        // saved 6% of the Linux tree's index), and a masked pack holding one candidate decodes 128 masks for it.
        if (masked > 0 || 2 + varintBytes(p - prev - PACK) + 16 * w > singles) {
            for (let q = k; q < k + PACK; q++) {
                const id = ids[q]! - sub;
                at = putPosting(buf, at, id - prev, masks[q]!);
                prev = id;
            }
            continue;
        }
        at = putPack(buf, at, ids, masks, k, prev, sub, w, masked > 0);
        prev = p;
    }
    for (; k < to; k++) {
        const id = ids[k]! - sub;
        at = putPosting(buf, at, id - prev, masks[k]!);
        prev = id;
    }
    return at;
}

/**
 * Writes the pack of `ids[k..k + PACK)` (see {@link putPostings}) at width `w` (at least the
 * width of each delta less one), with its bitmap and masks when `masked`; returns its end.
 */
export function putPack(buf: Uint8Array, at: number, ids: ArrayLike<number>, masks: ArrayLike<number>, k: number, prev: number, sub: number, w: number, masked: boolean): number {
    buf[at++] = masked ? PACK_MASKED : PACK_PLAIN;
    buf[at++] = w;
    at = putVarint(buf, at, ids[k + PACK - 1]! - sub - prev - PACK);
    // Values of more than 24 bits go in two pieces (16 bits, then the rest): the accumulator stays within 32 bits.
    const split = w > 24;
    let acc = 0;
    let have = 0;
    const put = (v: number, bits: number): void => {
        acc |= v << have;
        have += bits;
        while (have >= 8) {
            buf[at++] = acc & 0xff;
            acc >>>= 8;
            have -= 8;
        }
    };
    for (let q = k; q < k + PACK; q++) {
        const id = ids[q]! - sub;
        const v = id - prev - 1;
        prev = id;
        if (split) {
            put(v & 0xffff, 16);
            put(Math.floor(v / 0x10000), w - 16);
        } else if (w > 0) {
            put(v, w);
        }
    }
    if (!masked) return at;
    const bitmap = at;
    buf.fill(0, bitmap, bitmap + BITMAP);
    at += BITMAP;
    for (let q = 0; q < PACK; q++) {
        const m = masks[k + q]!;
        if (m === 0) continue;
        buf[bitmap + (q >>> 3)] = buf[bitmap + (q >>> 3)]! | (1 << (q & 7));
        buf[at++] = m >>> 8;
        buf[at++] = m & 0xff;
    }
    return at;
}

/**
 * Decodes the pack at `i` (its first byte {@link PACK_PLAIN} or {@link PACK_MASKED}), the
 * postings after local id `prev`: their local ids into `ids`, their masks into `masks`
 * ({@link NO_MASKS} for a posting without); returns the pack's end. Bytes past the body's end
 * read as 0 (a body is checked against its CRC before it is decoded).
 */
export function unpack(buf: Uint8Array, i: number, prev: number, ids: Uint32Array, masks: Uint16Array): number {
    return unpackMasks(buf, i, unpackIds(buf, i, prev, ids), masks);
}

/** The local ids of the pack at `i` (see {@link unpack}) plus `add` into `ids` from `at` on; returns where its values end. */
export function unpackIds(buf: Uint8Array, i: number, prev: number, ids: Uint32Array, at = 0, add = 0): number {
    const w = buf[i + 1]! & 0x3f;
    let p = valuesAt(buf, i);
    const valuesEnd = p + 16 * w;
    prev += add;
    if (w === 0) {
        for (let k = at; k < at + PACK; k++) ids[k] = ++prev;
    } else if (w <= 24) {
        // Perf: one 32-bit accumulator, a byte added while fewer than `w` bits are held.
        const mask = (1 << w) - 1;
        let acc = 0;
        let have = 0;
        for (let k = at; k < at + PACK; k++) {
            while (have < w) {
                acc |= (buf[p++]! | 0) << have;
                have += 8;
            }
            prev += (acc & mask) + 1;
            ids[k] = prev;
            acc >>>= w;
            have -= w;
        }
    } else {
        const hi = w - 16;
        const hiMask = 2 ** hi - 1;
        let acc = 0;
        let have = 0;
        for (let k = at; k < at + PACK; k++) {
            while (have < 16) {
                acc |= (buf[p++]! | 0) << have;
                have += 8;
            }
            const lo = acc & 0xffff;
            acc >>>= 16;
            have -= 16;
            while (have < hi) {
                acc |= (buf[p++]! | 0) << have;
                have += 8;
            }
            prev += lo + ((acc & hiMask) >>> 0) * 0x10000 + 1;
            ids[k] = prev;
            acc >>>= hi;
            have -= hi;
        }
    }
    return valuesEnd;
}

/** The masks of the pack at `i`, whose values end at `p` (see {@link unpack}), into `masks` from `at` on; returns the pack's end. */
export function unpackMasks(buf: Uint8Array, i: number, p: number, masks: Uint16Array, at = 0): number {
    if (buf[i] !== PACK_MASKED) {
        masks.fill(NO_MASKS, at, at + PACK);
        return p;
    }
    const bitmap = p;
    p += BITMAP;
    for (let k = 0; k < PACK; k++) {
        if (buf[bitmap + (k >>> 3)]! & (1 << (k & 7))) {
            masks[at + k] = ((buf[p]! | 0) << 8) | (buf[p + 1]! | 0);
            p += 2;
        } else {
            masks[at + k] = NO_MASKS;
        }
    }
    return p;
}

/** Set bits of each byte value. */
const ONES = new Uint8Array(256).map((_, x) => x.toString(2).replace(/0/g, '').length);

/** Where the pack at `i` ends, without decoding its values (the masks' bitmap counted). */
export function packEnd(buf: Uint8Array, i: number): number {
    const w = buf[i + 1]! & 0x3f;
    const p = valuesAt(buf, i) + 16 * w;
    if (buf[i] !== PACK_MASKED) return p;
    let masked = 0;
    for (let b = 0; b < BITMAP; b++) masked += ONES[buf[p + b]! | 0]!;
    return p + BITMAP + 2 * masked;
}

/** The last local id of the pack at `i` less the one before it: what a decoding passing over the pack adds to its last id. */
export function packSpan(buf: Uint8Array, i: number): number {
    let v = 0;
    for (let p = i + 2, shift = 0; ; shift += 7) {
        const c = buf[p++]! | 0;
        v += (c & 0x7f) * 2 ** shift;
        if (c < 0x80 || p >= buf.length) return v + PACK;
    }
}

/** The last local id of the pack at `i`, its postings following local id `prev`. */
export function packLast(buf: Uint8Array, i: number, prev: number): number {
    return prev + packSpan(buf, i);
}

/** Where the values of the pack at `i` start, past its span's varint. */
function valuesAt(buf: Uint8Array, i: number): number {
    let p = i + 2;
    while ((buf[p++]! | 0) >= 0x80 && p < buf.length);
    return p;
}
