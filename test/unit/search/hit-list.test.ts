import { describe, expect, it } from 'vitest';
import { HitList, hitListOf, outcomeWithHitList, runHit, runSize } from '../../../src/search/shared/hit-list.js';
import { packRun, unpackRun } from '../../../src/search/shared/pack-runs.js';
import type { Segment } from '../../../src/search/shared/protocol.js';
import type { SearchHit, SearchOutcome } from '../../../src/search/shared/types.js';

type Run = Extract<Segment, { t: 'run' }>;

const content = (path: string, line: number, text: string): SearchHit => ({ path, kind: 'file', line, text });

function packed(hits: SearchHit[]): Run {
    const run: Run = { t: 'run', n: hits.length, hits: hits.map((h) => ({ ...h })), at: hits.map((_, i) => i) };
    packRun(run);
    return run;
}

describe('packed runs', () => {
    const hits = [content('a.txt', 1, 'héllo'), content('a.txt', 7, ''), content('b/c.txt', 2, '日本語 😀 x'), content('b/c.txt', 3, 'tail')];

    it('keep a lone surrogate (a long line cut inside a pair) exactly', () => {
        const odd = [content('a', 1, 'x\ud83d'), content('a', 2, '\ude00y'), content('a', 3, '\u0000é')];
        const run = structuredClone(packed(odd));
        expect(Array.from({ length: 3 }, (_, j) => runHit(run, j))).toEqual(odd);
    });

    it('send content texts as one string with ends, and give every hit back unchanged', () => {
        const run = packed(hits);
        expect(run.hits).toEqual([]);
        expect(Buffer.from(run.packed!.text).toString('utf16le')).toBe('héllo日本語 😀 xtail');
        expect([...run.packed!.ends]).toEqual([5, 5, 13, 17]);
        expect(runSize(run)).toBe(4);
        expect(Array.from({ length: 4 }, (_, j) => runHit(run, j))).toEqual(hits);
        const copy = structuredClone(run);
        unpackRun(copy);
        expect(copy.hits).toEqual(hits);
    });

    it('pack entry hits as paths and directory flags', () => {
        const entries: SearchHit[] = [
            { path: 'a', kind: 'directory' },
            { path: 'a/b.txt', kind: 'file' },
        ];
        const run = packed(entries);
        expect(runSize(run)).toBe(2);
        expect([runHit(run, 0), runHit(run, 1)]).toEqual(entries);
    });

    it('leave hits with more fields (context lines, times) as objects', () => {
        const withContext = [{ ...content('a', 1, 'x'), before: ['w'] }, content('a', 2, 'y')];
        const run = packed(withContext);
        expect(run.packed).toBeUndefined();
        expect(runSize(run)).toBe(2);
        expect(runHit(run, 0)).toEqual(withContext[0]);
    });
});

describe('HitList', () => {
    const r1 = packed([content('a', 1, 'one'), content('a', 2, 'two'), content('a', 3, 'three')]);
    const r2 = packed([content('b', 1, 'four'), content('b', 5, 'five')]);

    it('keeps ranges of runs in order, merging adjacent ranges of one run', () => {
        const list = new HitList();
        list.add(r1, 0, 1);
        list.add(r1, 1, 3);
        list.add(r2, 1, 2);
        list.add(r2, 1, 1); // empty: ignored
        list.addHits([content('c', 9, 'partial')]);
        expect(list.length).toBe(5);
        expect(list.toArray().map((h) => h.text)).toEqual(['one', 'two', 'three', 'five', 'partial']);
        expect([...list.hits(2)].map((h) => h.text)).toEqual(['three', 'five', 'partial']);
        expect([...list.hits(3)].map((h) => `${h.path}:${h.line}`)).toEqual(['b:5', 'c:9']);
        expect([...list.hits(5)]).toEqual([]);
        expect(list.toArray(1, 2).map((h) => h.text)).toEqual(['two', 'three']);
    });
});

describe('outcomeWithHitList', () => {
    const base = (): SearchOutcome => ({ hits: [], visited: 3, scanned: 2, stop: 'done', skipped: [], tooLarge: [], tooLargeCount: 0, elapsedMs: 1 });

    it('makes hits on first read, then keeps them as a plain property', () => {
        const list = new HitList();
        list.add(packed([content('a', 1, 'x'), content('a', 2, 'y')]), 0, 2);
        const outcome = outcomeWithHitList(base(), list);
        expect(hitListOf(outcome)).toBe(list);
        const hits = outcome.hits;
        expect(hits).toEqual([content('a', 1, 'x'), content('a', 2, 'y')]);
        expect(outcome.hits).toBe(hits);
        expect(hitListOf(outcome)).toBeUndefined();
        expect({ ...outcome }.hits).toBe(hits);
    });

    it('shows the hits to equality, spread and JSON like a plain outcome', () => {
        const list = new HitList();
        list.add(packed([content('a', 1, 'x'), content('b', 2, 'y')]), 0, 2);
        const outcome = outcomeWithHitList(base(), list);
        expect(JSON.parse(JSON.stringify(outcome)).hits).toEqual([content('a', 1, 'x'), content('b', 2, 'y')]);
        const again = outcomeWithHitList(base(), list);
        again.hits = [];
        expect(again.hits).toEqual([]);
        expect(hitListOf(again)).toBeUndefined();
        expect(hitListOf(base())).toBeUndefined();
    });
});
