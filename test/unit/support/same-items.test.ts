/** test/support/same-items.ts: the cheap comparison of long arrays fails wherever toEqual would. */
import { describe, expect, it } from 'vitest';
import { expectSameItems, firstDifference } from '../../support/same-items.js';

describe('expectSameItems', () => {
    it('passes on the same elements, typed or plain, and fails on a changed element, a missing one and an extra one', () => {
        const long = Uint32Array.from({ length: 200_000 }, (_, i) => i * 3);
        expectSameItems(long, Array.from(long));
        expectSameItems(new Uint8Array(0), []);
        expect(firstDifference([1, 2, 3], [1, 2, 3])).toBe(-1);
        const changed = Uint32Array.from(long);
        changed[150_000] = 1;
        expect(firstDifference(changed, long)).toBe(150_000);
        expect(() => expectSameItems(changed, long, 'ids')).toThrow(/ids/);
        expect(() => expectSameItems(long.subarray(0, 10), long)).toThrow();
        expect(firstDifference(long.subarray(0, 10), long)).toBe(10);
        expect(() => expectSameItems(long, long.subarray(0, 10))).toThrow();
        // Numbers compared as toEqual compares them.
        expect(() => expectSameItems([0], [-0])).toThrow();
        expect(() => expect([0]).toEqual([-0])).toThrow();
        expectSameItems([Number.NaN], [Number.NaN]);
    });
});
