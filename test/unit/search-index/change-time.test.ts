/**
 * src/search-index/shared/change-time.ts: the change time folded to 32 bits for the file table.
 * Only equality is asked of it: the same time folds alike, and distinct times near one another
 * (as a file's change times before and after a write are) never fold alike.
 */
import { describe, expect, it } from 'vitest';
import { foldChangeTime } from '../../../src/search-index/shared/change-time.js';

describe('foldChangeTime', () => {
    it('is 0 for no time, a 32-bit unsigned integer otherwise, and the same for the same time', () => {
        expect(foldChangeTime(0)).toBe(0);
        for (const ms of [1, 1_700_000_000_000.123, 1_764_892_800_123.4567, 4_102_444_800_000]) {
            const f = foldChangeTime(ms);
            expect(Number.isInteger(f) && f >= 0 && f < 2 ** 32, String(ms)).toBe(true);
            expect(foldChangeTime(ms)).toBe(f);
        }
    });

    it('folds distinct nearby times apart: every representable time of a stretch, and times nanoseconds to days apart', () => {
        const base = 1_764_892_800_000 + 0.000123;
        // 200,000 consecutive doubles (about 49 ms of representable times at this epoch).
        const seen = new Set<number>();
        let ms = base;
        for (let i = 0; i < 200_000; i++) {
            seen.add(foldChangeTime(ms));
            ms += 2 ** -12;
        }
        expect(seen.size).toBe(200_000);
        // Node's arithmetic on second and nanosecond pairs, steps from 1 ns to days.
        const folds = new Set<number>();
        const times = new Set<number>();
        for (const step of [1, 4_000_000, 1_000_000_000, 4_294_967_296, 86_400_000_000_000]) {
            for (let k = 0; k < 2000; k++) {
                const ns = k * step;
                const t = (1_764_892_800 + Math.floor(ns / 1e9)) * 1e3 + (ns % 1e9) / 1e6;
                if (times.has(t)) continue;
                times.add(t);
                folds.add(foldChangeTime(t));
            }
        }
        expect(folds.size).toBe(times.size);
    });
});
