import { describe, expect, it } from 'vitest';
import { maskedAmong } from '../../../src/search-index/postings.js';
import { decodeAmong, decodePostings, PostingCursor } from '../../../src/search-index/shared/posting-codec.js';
import { ENCODINGS, postingBytes } from '../../support/postings.js';
import { mulberry32 } from '../../../bench/tree.js';
import { expectSameItems } from '../../support/same-items.js';

/** The list's bytes as single postings, masks made with the file's own factor. */
const singlesOf = (ids: readonly number[]): Uint8Array => postingBytes(ids, 7919);

describe.each(ENCODINGS)('posting cursor (%s)', (_encoding, encode) => {
    const listOf = (ids: readonly number[]): Uint8Array => encode(ids, 7919);
    it('decodes ascending id ranges as the whole list decodes them, ids below a range passed over', () => {
        const local = [0, 1, 5, 127, 128, 300, 16_383, 16_384, 16_385, 70_000, 2_000_000];
        const bytes = listOf(local);
        const firstId = 1000;
        const whole = decodePostings(bytes, firstId);
        const cursor = new PostingCursor(bytes, firstId);
        const bounds = [1000, 1001, 1006, 1300, 17_384, 17_386, 71_000, 3_000_000];
        const ids: number[] = [];
        const masks: number[] = [];
        // Every range from one bound to the next, but one skipped: its ids are passed over.
        for (let k = 0; k + 1 < bounds.length; k++) {
            const r = cursor.range(bounds[k]!, bounds[k + 1]!);
            if (k === 3) continue;
            ids.push(...r.ids);
            masks.push(...r.masks);
            for (const id of r.ids) expect(id >= bounds[k]! && id < bounds[k + 1]!).toBe(true);
        }
        const kept = [...whole.ids].map((id, i) => ({ id, m: whole.masks[i]! })).filter(({ id }) => !(id >= 1300 && id < 17_384));
        expect(ids).toEqual(kept.map((x) => x.id));
        expect(masks).toEqual(kept.map((x) => x.m));
        expect(cursor.range(3_000_000, 4_000_000).ids.length).toBe(0);
    });
});

describe.each(ENCODINGS)('postings among candidates (%s)', (_encoding, encode) => {
    const listOf = (ids: readonly number[]): Uint8Array => encode(ids, 7919);
    it('keeps exactly the postings of the candidates, with their masks, from the bytes and from a decoded list', () => {
        const rand = mulberry32(7);
        for (let round = 0; round < 200; round++) {
            const firstId = Math.floor(rand() * 50);
            const local = [...new Set(Array.from({ length: Math.floor(rand() * 300) }, () => Math.floor(rand() * (rand() < 0.5 ? 400 : 3_000_000))))].sort((a, b) => a - b);
            const bytes = listOf(local);
            const whole = decodePostings(bytes, firstId);
            // Candidates: some of the list's ids, some not in it, some below the segment's first id.
            const among = [...new Set(Array.from({ length: Math.floor(rand() * 80) }, () => (rand() < 0.5 && local.length > 0 ? local[Math.floor(rand() * local.length)]! + firstId : Math.floor(rand() * 3_000_050))))].sort((a, b) => a - b);
            const want = filtered(whole, among);
            const fromBytes = decodeAmong(bytes, firstId, Uint32Array.from(among));
            expectSameItems(fromBytes.ids, want.ids);
            expectSameItems(fromBytes.masks, want.masks);
            const fromList = maskedAmong(whole, Uint32Array.from(among));
            expectSameItems(fromList.ids, want.ids);
            expectSameItems(fromList.masks, want.masks);
        }
    });

    it('finds nothing among no candidates, nor in an empty list', () => {
        const bytes = listOf([3, 9, 200_000]);
        expect(decodeAmong(bytes, 0, new Uint32Array(0)).ids.length).toBe(0);
        expect(decodeAmong(new Uint8Array(0), 0, Uint32Array.from([1, 2])).ids.length).toBe(0);
        expect([...decodeAmong(bytes, 0, Uint32Array.from([9, 10, 200_000, 200_001])).ids]).toEqual([9, 200_000]);
    });
});

describe('posting decoding', () => {
    /** A plain decoder: varints byte by byte (the delta twice, plus 1 when mask bytes follow), then the two mask bytes, if any. */
    function reference(buf: Uint8Array, firstId: number): { ids: number[]; masks: number[] } {
        const ids: number[] = [];
        const masks: number[] = [];
        let prev = -1;
        for (let i = 0; i < buf.length; ) {
            let v = 0;
            for (let shift = 0; ; shift += 7) {
                const c = buf[i++]!;
                v += (c & 0x7f) * 2 ** shift;
                if (!(c & 0x80)) break;
            }
            prev += Math.floor(v / 2);
            ids.push(prev + firstId);
            if (v % 2 === 1) {
                masks.push((buf[i]! << 8) | buf[i + 1]!);
                i += 2;
            } else {
                masks.push(0xffff);
            }
        }
        return { ids, masks };
    }

    it('decodes deltas of one to five bytes, whole and in ranges, as a plain decoder does', () => {
        const rand = mulberry32(3);
        for (let round = 0; round < 100; round++) {
            // Gaps from 1 to about 2^30 (local ids of a segment stay below 2^31): every varint length.
            const local: number[] = [];
            const ids: number[] = [];
            for (let v = -1, k = 0; k < Math.floor(rand() * 3000); k++) {
                v += 1 + Math.floor(rand() ** 6 * 2 ** [7, 14, 21, 28, 30][Math.floor(rand() * 5)]!);
                if (v >= 2 ** 31 - 1) break;
                ids.push(v);
            }
            local.push(...ids);
            const bytes = singlesOf(local);
            const firstId = Math.floor(rand() * 1000);
            const want = reference(bytes, firstId);
            const whole = decodePostings(bytes, firstId);
            expect([...whole.ids]).toEqual(want.ids);
            expect([...whole.masks]).toEqual(want.masks);
            // Ascending ranges with random bounds, some skipped.
            const cursor = new PostingCursor(bytes, firstId);
            const got: number[] = [];
            const kept: number[] = [];
            let a = 0;
            while (a < 2 ** 33) {
                const b = a + Math.floor(rand() ** 4 * 2 ** 33) + 1;
                const r = cursor.range(a, b);
                const skip = rand() < 0.2;
                if (!skip) got.push(...r.ids);
                for (const x of want.ids) if (x >= a && x < b && !skip) kept.push(x);
                a = b;
            }
            expect(got).toEqual(kept);
        }
    });
});

describe.each(ENCODINGS)('posting ranges among candidates (%s)', (_encoding, encode) => {
    const listOf = (ids: readonly number[]): Uint8Array => encode(ids, 7919);
    it('keeps the candidates of each range, moves past the range as a whole range does, and a clone decodes it again', () => {
        const rand = mulberry32(5);
        for (let round = 0; round < 100; round++) {
            const local = [...new Set(Array.from({ length: Math.floor(rand() * 2000) }, () => Math.floor(rand() * 50_000)))].sort((a, b) => a - b);
            const firstId = Math.floor(rand() * 100);
            const bytes = listOf(local);
            const whole = decodePostings(bytes, firstId);
            const cursor = new PostingCursor(bytes, firstId);
            const wholeIds = [...whole.ids];
            for (let a = 0; a < 60_000; ) {
                const b = a + 1 + Math.floor(rand() * 8000);
                // Candidates below, within and past the range, some in the list.
                const among = Uint32Array.from([...new Set(Array.from({ length: Math.floor(rand() * 60) }, () => (rand() < 0.5 && whole.ids.length > 0 ? whole.ids[Math.floor(rand() * whole.ids.length)]! : Math.floor(rand() * 60_000))))].sort((x, y) => x - y));
                const inRange = [...among].filter((x) => x >= a && x < b);
                const want = filtered(whole, inRange);
                const start = cursor.clone();
                const mode = rand();
                // expectSameItems, not toEqual: the deep comparison of each window was most of this test's CPU.
                if (mode < 0.4) {
                    const got = cursor.rangeAmong(a, b, among);
                    expectSameItems(got.ids, want.ids);
                    expectSameItems(got.masks, want.masks);
                    // The range again from where it started: whole, as range() gives it.
                    const again = start.range(a, b);
                    expectSameItems(again.ids, wholeIds.filter((x) => x >= a && x < b));
                } else if (mode < 0.7) {
                    const got = cursor.range(a, b);
                    expectSameItems(got.ids, wholeIds.filter((x) => x >= a && x < b));
                    expectSameItems(start.rangeAmong(a, b, among).ids, want.ids);
                } else {
                    // Skipped: the next range starts past it either way.
                    cursor.rangeAmong(a, b, new Uint32Array(0));
                }
                a = b;
            }
            expect(cursor.range(0, Number.POSITIVE_INFINITY).ids.length).toBe(0);
        }
    });
});

/** `whole`'s postings whose ids are in `among`, by a plain filter. */
function filtered(whole: { ids: Uint32Array; masks: Uint16Array }, among: readonly number[]): { ids: number[]; masks: number[] } {
    const keep = new Set(among);
    const ids: number[] = [];
    const masks: number[] = [];
    whole.ids.forEach((id, i) => {
        if (keep.has(id)) {
            ids.push(id);
            masks.push(whole.masks[i]!);
        }
    });
    return { ids, masks };
}
