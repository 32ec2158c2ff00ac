import { describe, expect, it } from 'vitest';
import { decodePostings, PostingCursor, putPosting } from '../../../src/search-index/shared/posting-codec.js';

/** The bytes of a posting list of `ids` (ascending, local to `firstId`), each with masks made from its id. */
function listOf(ids: readonly number[]): Uint8Array {
    const buf = new Uint8Array(ids.length * 8);
    let at = 0;
    let prev = -1;
    for (const id of ids) {
        at = putPosting(buf, at, id - prev, (id * 7919) & 0xffff || 1);
        prev = id;
    }
    return buf.subarray(0, at);
}

describe('posting cursor', () => {
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
