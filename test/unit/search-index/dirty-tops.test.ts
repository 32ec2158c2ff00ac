/**
 * DirtyTops (src/search-index/watch/dirty-tops.ts), the topmost changed paths, against a plain model:
 * a set of paths, each kept when no other path in it is one of its ancestors.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DirtyTops } from '../../../src/search-index/watch/dirty-tops.js';

const above = (a: string, b: string): boolean => a === '' || b.startsWith(`${a}/`);

function model(paths: readonly string[]): string[] {
    const all = new Set(paths);
    return [...all].filter((p) => ![...all].some((q) => q !== p && above(q, p))).sort();
}

const part = fc.constantFrom('a', 'b', 'ab', '.git', 'é', 'x y');
const rel = fc.array(part, { minLength: 0, maxLength: 4 }).map((ps) => ps.join('/'));

describe('DirtyTops', () => {
    it('keeps the topmost changed paths: below, touches and size agree with the model', () => {
        fc.assert(
            fc.property(fc.array(rel, { maxLength: 40 }), rel, (paths, probe) => {
                const t = new DirtyTops();
                for (const p of paths) t.add(p);
                const tops = model(paths);
                expect(t.size).toBe(tops.length);
                // below(r): the tops strictly below r (r itself or anything above it excluded).
                const under = (r: string): string[] => tops.filter((p) => p !== r && (r === '' ? p !== '' : p.startsWith(`${r}/`))).sort();
                expect(t.below(probe).sort()).toEqual(under(probe));
                const touches = tops.some((p) => p === probe || above(p, probe) || above(probe, p));
                expect(t.touches(probe)).toBe(touches);
            }),
            { numRuns: 2000 },
        );
    });

    it('a removed copy of a tree is one path once its directory is noted, whatever came before', () => {
        const t = new DirtyTops();
        for (let d = 0; d < 50; d++) for (let f = 0; f < 40; f++) t.add(`copy/d${d}/f${f}.c`);
        expect(t.size).toBe(2000);
        t.add('copy');
        expect(t.size).toBe(1);
        expect(t.below('')).toEqual(['copy']);
        t.add('copy/d3/late.c');
        expect(t.below('')).toEqual(['copy']);
        expect(t.touches('copy/d9')).toBe(true);
        expect(t.touches('other')).toBe(false);
        expect(t.touches('')).toBe(true);
        t.clear();
        expect(t.size).toBe(0);
        expect(t.touches('')).toBe(false);
    });
});
