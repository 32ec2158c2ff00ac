import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinParts, sortInTurns, Turns } from '../../../src/engine/turns.js';

const byValue = (a: { v: number }, b: { v: number }): number => a.v - b.v;

describe('sortInTurns', () => {
    it('sorts as a stable Array#sort does, at sizes around the run length', async () => {
        for (const n of [0, 1, 2047, 2048, 2049, 4096, 5000, 20_001]) {
            // Few distinct values: many ties, so stability shows.
            const items = Array.from({ length: n }, (_, i) => ({ v: (i * 7919) % 97, i }));
            const expected = [...items].sort(byValue);
            await sortInTurns(items, byValue, new Turns());
            expect(items).toEqual(expected);
        }
    });

    it('agrees with Array#sort on arbitrary strings (code-unit order)', async () => {
        await fc.assert(
            fc.asyncProperty(fc.array(fc.string(), { maxLength: 5000 }), async (xs) => {
                const items = [...xs];
                await sortInTurns(items, (a, b) => (a < b ? -1 : a > b ? 1 : 0), new Turns());
                expect(items).toEqual([...xs].sort());
            }),
            { numRuns: 30 },
        );
    });

    it('gives the event loop turns while sorting a large array', async () => {
        const items = Array.from({ length: 50_000 }, (_, i) => (i * 104_729) % 50_000);
        let ran = 0;
        let stop = false;
        const tick = (): void => {
            ran++;
            if (!stop) setImmediate(tick);
        };
        setImmediate(tick);
        // A zero slice: every check is due, so every bounded step yields.
        await sortInTurns(items, (a, b) => a - b, new Turns(0));
        const during = ran;
        stop = true;
        expect(items).toEqual(Array.from({ length: 50_000 }, (_, i) => i));
        // 25 runs of 2,048, then merge steps of 4,096: a callback scheduled before the sort ran at each step.
        expect(during).toBeGreaterThanOrEqual(25);
    });
});

describe('joinParts', () => {
    it('joins as Array#join does', () => {
        fc.assert(
            fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 50 }), fc.string(), (parts, sep) => {
                expect(joinParts(parts, sep)).toBe(parts.join(sep));
            }),
        );
        expect(joinParts([], '\n')).toBe('');
        expect(joinParts(['a'.repeat(20), 'b'.repeat(20)], '\n')).toBe(`${'a'.repeat(20)}\n${'b'.repeat(20)}`);
    });
});
