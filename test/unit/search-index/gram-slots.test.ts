import { describe, expect, it } from 'vitest';
import { GramSlots } from '../../../src/search-index/shared/gram-slots.js';

/** A seeded generator (mulberry32): the same grams on every run. */
function rng(seed: number): () => number {
    return () => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    };
}

describe('gram slots', () => {
    it('counts as a Map does, across growth, gram 0 and the largest gram, and empties for the next use', () => {
        const m = new GramSlots();
        const next = rng(7);
        for (const round of [0, 1, 2]) {
            const expected = new Map<number, number>();
            let wrongAdded = 0;
            // Round 1 holds many distinct grams (the map grows several times), the others few, many times each.
            const distinct = round === 1 ? 200_000 : 300;
            for (let i = 0; i < 400_000; i++) {
                const g = i === 0 ? 0 : i === 1 ? 0xffffff : Math.floor(next() * distinct) * 53 % 0x1000000;
                const s = m.slot(g);
                if (m.added === expected.has(g)) wrongAdded++;
                m.values[s]!++;
                expected.set(g, (expected.get(g) ?? 0) + 1);
            }
            expect(wrongAdded).toBe(0);
            expect(m.size).toBe(expected.size);
            // The grams whose count differs, collected (toEqual of two 200,000-entry maps took most of the file's CPU).
            const differ = [...expected].flatMap(([g, n]) => (m.values[m.slot(g)] === n ? [] : [[g, m.values[m.slot(g)], n]]));
            expect(m.size).toBe(expected.size);
            expect(differ).toEqual([]);
            m.clear();
            expect(m.size).toBe(0);
            // Nothing of the round is left: each gram comes back new, with 0.
            for (const g of [...expected.keys()].slice(0, 100)) {
                expect(m.values[m.slot(g)]).toBe(0);
                expect(m.added).toBe(true);
            }
            m.clear();
        }
    });

    it('a map grown past the size it keeps is made small again when emptied, and still answers', () => {
        const m = new GramSlots();
        for (let g = 0; g < 5000; g++) m.values[m.slot(g)] = g + 1;
        const moves = m.moves;
        m.clear(1 << 12);
        expect(m.moves).toBeGreaterThan(moves);
        const left: number[] = [];
        for (let g = 4999; g >= 0; g--) if (!Object.is(m.values[m.slot(g)], 0)) left.push(g);
        for (let g = 0; g < 5000; g++) if (!Object.is(m.values[m.slot(g)], 0)) left.push(g);
        expect(left).toEqual([]);
        expect(m.size).toBe(5000);
    });
});
