/**
 * Packs of 128 postings (posting-pack.ts): every width from 0 to 32 packs and unpacks to the same
 * ids and masks, in the documented bit layout; a list encodes as packs only where they are
 * shorter, mixes them with single postings, and decodes back whole, by ranges and among
 * candidates, at the edges (empty, one posting, the largest local ids, 127 to 257 postings).
 */
import { describe, expect, it } from 'vitest';
import { decodeAmong, decodePostings, NO_MASKS, PostingCursor, putPostings } from '../../../src/search-index/shared/posting-codec.js';
import { PACK, PACK_MASKED, PACK_PLAIN, packEnd, packLast, packSpan, putPack, unpack } from '../../../src/search-index/shared/posting-pack.js';
import { forEachUnit, frameList } from '../../../src/search-index/shared/posting-list.js';
import { mulberry32 } from '../../../bench/tree.js';
import { expectSameItems } from '../../support/same-items.js';

/** The `k`-th value of `w` bits of a pack's values, read bit by bit from the layout the format documents (value k at bits k*w.., little-endian). */
function valueAt(bytes: Uint8Array, k: number, w: number): number {
    let v = 0;
    for (let b = 0; b < w; b++) {
        const bit = k * w + b;
        if (bytes[bit >> 3]! & (1 << (bit & 7))) v += 2 ** b;
    }
    return v;
}

/** `deltas` (each at least 1) as local ids after local id -1. */
function idsOf(deltas: readonly number[]): number[] {
    let prev = -1;
    return deltas.map((d) => (prev += d));
}

/** A list encoded with putPostings, masks given per posting (0: none). */
function encode(ids: readonly number[], masks: readonly number[]): Uint8Array {
    const buf = new Uint8Array(ids.length * 7 + 8);
    return buf.subarray(0, putPostings(buf, 0, ids, masks, 0, ids.length, -1));
}

describe('posting packs', () => {
    it('packs and unpacks 128 postings at every width from 0 to 32, in the documented layout', () => {
        const rand = mulberry32(23);
        for (let w = 0; w <= 32; w++) {
            for (const masked of [false, true]) {
                // The first value has exactly w bits; the others fewer, their sum kept below 2^32.
                const values = Array.from({ length: PACK }, (_, k) => {
                    if (w === 0) return 0;
                    if (k === 0) return 2 ** (w - 1) + Math.floor(rand() * (2 ** (w - 1) - (w === 32 ? 2 ** 30 : 0)));
                    return Math.floor(rand() * Math.min(2 ** w, 2 ** 22));
                });
                const ids = idsOf(values.map((v) => v + 1));
                expect(ids[PACK - 1]!).toBeLessThan(2 ** 32);
                const masks = ids.map((_, k) => (masked && k % 5 !== 0 ? (k * 40_503) & 0xffff || 1 : 0));
                const buf = new Uint8Array(2 + 5 + 16 * 32 + 16 + 2 * PACK + 3).fill(0xee);
                const end = putPack(buf, 3, ids, masks, 0, -1, 0, w, masked);
                const maskedCount = masks.filter((m) => m !== 0).length;
                // The span (last id less the id before the pack, -1) less 128 as a varint after the width.
                const span = ids[PACK - 1]! + 1;
                const stored = span - PACK;
                const spanBytes = stored < 2 ** 7 ? 1 : stored < 2 ** 14 ? 2 : stored < 2 ** 21 ? 3 : stored < 2 ** 28 ? 4 : 5;
                expect(end - 3).toBe(2 + spanBytes + 16 * w + (masked ? 16 + 2 * maskedCount : 0));
                expect(buf[3]).toBe(masked ? PACK_MASKED : PACK_PLAIN);
                expect(buf[4]).toBe(w);
                expect(packSpan(buf, 3)).toBe(span);
                const packed = buf.subarray(5 + spanBytes, 5 + spanBytes + 16 * w);
                expectSameItems(Array.from({ length: PACK }, (_, k) => valueAt(packed, k, w)), values, `width ${w}, values`);
                const got = new Uint32Array(PACK);
                const gotMasks = new Uint16Array(PACK);
                expect(unpack(buf, 3, -1, got, gotMasks)).toBe(end);
                expectSameItems(got, ids, `width ${w}`);
                expectSameItems(gotMasks, masks.map((m) => m || NO_MASKS), `width ${w}, masks`);
                expect(packEnd(buf, 3)).toBe(end);
                expect(packLast(buf, 3, -1)).toBe(ids[PACK - 1]);
            }
        }
    });

    it('encodes an empty list as no bytes, and one posting as a single posting, up to the largest local id', () => {
        expect(encode([], []).length).toBe(0);
        expect(decodePostings(encode([], []), 7).ids.length).toBe(0);
        for (const id of [0, 1, 127, 2 ** 31 - 1, 2 ** 32 - 6]) {
            for (const m of [0, 0xffff, 0x1234]) {
                const bytes = encode([id], [m]);
                expect(bytes).toEqual(postingBytesOf([id], [m]));
                const d = decodePostings(bytes, 5);
                expect([...d.ids]).toEqual([id + 5]);
                expect([...d.masks]).toEqual([m || NO_MASKS]);
            }
        }
    });

    it('packs each full run of 128 only where that is shorter than its single postings, and decodes every mix back', () => {
        const rand = mulberry32(29);
        const shapes: [string, () => number[]][] = [
            ['consecutive', () => Array.from({ length: 1 + Math.floor(rand() * 600) }, () => 1)],
            ['dense', () => Array.from({ length: 1 + Math.floor(rand() * 1500) }, () => 1 + Math.floor(rand() * 6))],
            ['sparse', () => Array.from({ length: 1 + Math.floor(rand() * 600) }, () => 1 + Math.floor(rand() * 5000))],
            ['outliers', () => Array.from({ length: 1 + Math.floor(rand() * 600) }, () => (rand() < 0.01 ? 1 + Math.floor(rand() * 2 ** 24) : 1))],
            ['edges', () => Array.from({ length: [127, 128, 129, 255, 256, 257][Math.floor(rand() * 6)]! }, () => 1 + Math.floor(rand() * 3))],
        ];
        for (let round = 0; round < 300; round++) {
            const [shape, deltas] = shapes[round % shapes.length]!;
            const ids = idsOf(deltas());
            // The last id near the largest (absolute ids below 2^32) in some rounds (ids shifted up).
            const top = round % 7 === 0 ? 2 ** 32 - 1001 - ids[ids.length - 1]! : 0;
            const local = ids.map((id) => id + top);
            const masks = local.map((id) => (round % 3 === 0 ? 0 : rand() < 0.5 ? 0 : (id * 7919) & 0xffff || 1));
            const bytes = encode(local, masks);
            const singles = postingBytesOf(local, masks);
            // Never longer than single postings; shorter wherever a full run packs.
            expect(bytes.length, shape).toBeLessThanOrEqual(singles.length);
            // Consecutive ids from 0 without masks: a pack of width 0 (3 bytes with its span, 0) per full run, a byte per posting after them.
            if (shape === 'consecutive' && top === 0 && round % 3 === 0) expect(bytes.length).toBe(3 * Math.floor(local.length / PACK) + (local.length % PACK));
            const firstId = Math.floor(rand() * 1000);
            const want = { ids: local.map((id) => id + firstId), masks: masks.map((m) => m || NO_MASKS) };
            const whole = decodePostings(bytes, firstId);
            expectSameItems(whole.ids, want.ids, shape);
            expectSameItems(whole.masks, want.masks, shape);
            // Units' last ids, as the framing sees them, end at the list's last id. The units that
            // break the order are collected: an expect() per unit was most of this test's time.
            let last = -2;
            let units = 0;
            const unordered: string[] = [];
            forEachUnit(bytes, (l, end) => {
                if (!(l > last) || !(end <= bytes.length)) unordered.push(`unit ${units}: last id ${l} after ${last}, end ${end} of ${bytes.length}`);
                last = l;
                units++;
            });
            expect(unordered, shape).toEqual([]);
            if (local.length > 0) expect(last).toBe(local[local.length - 1]);
            expect(units).toBeLessThanOrEqual(local.length);
            // Ranges, stopping inside packs, and candidates, from a cursor and its clones.
            const cursor = new PostingCursor(bytes, firstId);
            const got: number[] = [];
            const lo = want.ids[0]! - 3;
            const span = want.ids[want.ids.length - 1]! - lo;
            for (let a = lo; a <= lo + span + 1; ) {
                const b = a + 1 + Math.floor(rand() ** 3 * (span / 20));
                const clone = cursor.clone();
                const r = cursor.range(a, b);
                expectSameItems(clone.range(a, b).ids, r.ids, `${shape}: a clone's range ${a}..${b}`);
                got.push(...r.ids);
                a = b;
            }
            expectSameItems(got, want.ids, shape);
            const among = Uint32Array.from([...new Set(Array.from({ length: 40 }, () => (rand() < 0.5 ? want.ids[Math.floor(rand() * want.ids.length)]! : Math.floor(rand() * (want.ids[want.ids.length - 1]! + 10)))))].sort((x, y) => x - y));
            const keep = new Set(among);
            expectSameItems(decodeAmong(bytes, firstId, among).ids, want.ids.filter((id) => keep.has(id)), shape);
            expectSameItems(decodeAmong(bytes, firstId, among).masks, want.masks.filter((_, k) => keep.has(want.ids[k]!)), shape);
        }
    });

    it('cuts a packed list into blocks between units, each block decoding from its base', () => {
        const ids = idsOf(Array.from({ length: 40_000 }, (_, k) => 1 + (k % 13)));
        const masks = ids.map((id) => (id % 2 === 0 ? 0 : (id * 31) & 0xffff || 1));
        const body = encode(ids, masks);
        const frame = frameList(body);
        expect(frame.blocked).toBe(true);
        const ends: number[] = [];
        forEachUnit(body, (_last, end) => ends.push(end));
        const n = new DataView(frame.head.buffer, frame.head.byteOffset).getUint32(0, true);
        expect(n).toBeGreaterThan(5);
        const unitEnds = new Set(ends);
        const notAtUnit = Array.from({ length: n }, (_, j) => new DataView(frame.head.buffer, frame.head.byteOffset).getUint32(8 + 12 * j, true)).filter((at) => !unitEnds.has(at));
        expect(notAtUnit).toEqual([]);
    });
});

/** Single postings of `ids` with `masks` (putPosting through the test helper's varint form). */
function postingBytesOf(ids: readonly number[], masks: readonly number[]): Uint8Array {
    const buf = new Uint8Array(ids.length * 7 + 8);
    let at = 0;
    let prev = -1;
    ids.forEach((id, k) => {
        const d = id - prev;
        prev = id;
        const v = d * 2 + (masks[k] !== 0 ? 1 : 0);
        for (let x = v; ; ) {
            if (x < 0x80) {
                buf[at++] = x;
                break;
            }
            buf[at++] = (x % 0x80) | 0x80;
            x = Math.floor(x / 0x80);
        }
        if (masks[k] !== 0) {
            buf[at++] = masks[k]! >>> 8;
            buf[at++] = masks[k]! & 0xff;
        }
    });
    return buf.subarray(0, at);
}
