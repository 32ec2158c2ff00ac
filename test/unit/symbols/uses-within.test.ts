/**
 * Which definition holds each use (workers/symbols/uses.ts, `withinDefinitions`): the one of fewest
 * characters holding it, as a look at every definition per use finds it, over seeded random spans
 * nested, side by side and overlapping, and uses before, between and after them.
 */
import { describe, expect, it } from 'vitest';
import { withinDefinitions } from '../../../workers/symbols/uses.js';
import { mulberry32 } from '../../../bench/tree.js';

function everyDefinition(at: readonly number[], ranges: readonly number[]): number[] {
    return at.map((i) => {
        let best = -1;
        for (let d = 0; d < ranges.length; d += 2) {
            if (ranges[d]! <= i && i < ranges[d + 1]! && (best === -1 || ranges[d + 1]! - ranges[d]! < ranges[best + 1]! - ranges[best]!)) best = d;
        }
        return best === -1 ? -1 : best / 2;
    });
}

describe('the definition holding each use', () => {
    it('is the smallest that holds it: two on one line, nested, none', () => {
        // `int one(void) { return 1; } int two(void) { return one(); }`: one 0-27, two 28-60.
        expect(withinDefinitions([4, 50, 70], [0, 27, 28, 60])).toEqual([0, 1, -1]);
        // A class 0-100 holding a method 10-40 and another 50-90.
        expect(withinDefinitions([5, 10, 39, 40, 60, 95], [0, 100, 10, 40, 50, 90])).toEqual([0, 1, 1, 0, 2, 0]);
        expect(withinDefinitions([], [0, 10])).toEqual([]);
        expect(withinDefinitions([3], [])).toEqual([-1]);
    });

    it('equals a look at every definition per use over random spans (seeds 1-200)', () => {
        for (let seed = 1; seed <= 200; seed++) {
            const rnd = mulberry32(seed);
            const spans: [number, number][] = [];
            for (let n = Math.floor(rnd() * 12); n > 0; n--) {
                const start = Math.floor(rnd() * 200);
                spans.push([start, start + 1 + Math.floor(rnd() * (rnd() < 0.5 ? 10 : 120))]);
            }
            // In order of start, the longer first on a tie, as the definitions come.
            spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
            const ranges = spans.flat();
            const at = Array.from({ length: Math.floor(rnd() * 30) }, () => Math.floor(rnd() * 340)).sort((a, b) => a - b);
            expect(withinDefinitions(at, ranges), `seed ${seed}`).toEqual(everyDefinition(at, ranges));
        }
    });
});
