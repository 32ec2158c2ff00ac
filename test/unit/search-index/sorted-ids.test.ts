/**
 * Unions of sorted id lists (sorted-ids.ts): the id-by-id merge and the placement of a few ids
 * into a long list by binary search give the same list (ascending, each id once), whatever the
 * lengths, overlaps and ends; `mergeIds` takes the middle list's ids within its range only.
 */
import { describe, expect, it } from 'vitest';
import { mergeIds, union } from '../../../src/search-index/sorted-ids.js';
import { expectSameItems } from '../../support/same-items.js';

/** A seeded generator (mulberry32). */
function rng(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** `n` distinct ids below `max`, ascending. */
function ids(rand: () => number, n: number, max: number): Uint32Array {
    const set = new Set<number>();
    while (set.size < Math.min(n, max)) set.add(Math.floor(rand() * max));
    return Uint32Array.from([...set].sort((x, y) => x - y));
}

/** The reference: every id of the lists, ascending, once. */
function expected(...lists: ArrayLike<number>[]): Uint32Array {
    const all = new Set<number>();
    for (const l of lists) for (let i = 0; i < l.length; i++) all.add(l[i]!);
    // A typed array sorts its numbers by value.
    return Uint32Array.from(all).sort();
}

describe('union of sorted id lists', () => {
    it('gives every id of both, ascending, once, for short and long lists alike', () => {
        const rand = rng(7);
        for (let round = 0; round < 400; round++) {
            const max = 1 + Math.floor(rand() * 5000);
            const a = ids(rand, Math.floor(rand() * (round % 4 === 0 ? 2000 : 40)), max);
            const b = ids(rand, Math.floor(rand() * 3000), max);
            const both = expected(a, b);
            expectSameItems(union(a, b), both, `round ${round}`);
            expectSameItems(union(b, a), both, `round ${round}`);
        }
    });

    it('handles empty lists, ids at both ends, and lists holding the same ids', () => {
        const long = Uint32Array.from({ length: 1000 }, (_, i) => i * 2 + 1);
        const cases: [number[], Uint32Array][] = [
            [[], long],
            [[0], long],
            [[1], long],
            [[2000, 2001, 5000], long],
            [[0, 1, 3, 1999, 2000], long],
            [[], new Uint32Array(0)],
        ];
        for (const [few, many] of cases) {
            const a = Uint32Array.from(few);
            expectSameItems(union(a, many), expected(a, many));
            expectSameItems(union(many, a), expected(a, many));
        }
        expect([...union(long, long)]).toEqual([...long]);
    });

    it('returns a new list: writing to it leaves the inputs as they were', () => {
        const a = Uint32Array.of(5);
        const b = Uint32Array.from({ length: 100 }, (_, i) => i * 10);
        const out = union(a, b);
        out.fill(0);
        expect(a[0]).toBe(5);
        expect(b[99]).toBe(990);
        const alone = union(new Uint32Array(0), b);
        alone.fill(0);
        expect(b[1]).toBe(10);
    });

    it('mergeIds: the candidates, the always-decided ids within [lo, hi), and the large files', () => {
        const rand = rng(11);
        for (let round = 0; round < 200; round++) {
            const a = ids(rand, Math.floor(rand() * 50), 3000);
            const b = ids(rand, Math.floor(rand() * 2000), 3000);
            const c = round % 3 === 0 ? null : ids(rand, Math.floor(rand() * 20), 3000);
            const lo = Math.floor(rand() * 1500);
            const hi = lo + Math.floor(rand() * 1500);
            const inRange = [...b].filter((x) => x >= lo && x < hi);
            expectSameItems(mergeIds(a, b, lo, hi, c), expected(a, inRange, c ?? []), `round ${round}`);
        }
    });
});
