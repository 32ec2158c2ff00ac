/**
 * engine/ordered.ts: the ordered merge of a parallel walk. Whatever order jobs are handed out,
 * put back and finished in, the hits, the stop and the entries counted are those of a
 * sequential walk of the same tree. Worked examples at the end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderedWalk, TOO_LARGE_LISTED, type WalkNode } from '../../../src/search/ordered.js';
import type { Segment, WalkJob } from '../../../src/search/shared/protocol.js';
import type { SearchHit } from '../../../src/search/shared/types.js';

/** A directory: entries (`true` for one with a hit) and subdirectories, in walk order. */
interface Dir {
    items: (boolean | Dir)[];
}

const dirArb: fc.Arbitrary<Dir> = fc.letrec<{ dir: Dir }>((tie) => ({
    dir: fc.record({ items: fc.array(fc.oneof({ maxDepth: 3 }, fc.boolean(), tie('dir')), { maxLength: 6 }) }),
})).dir;

const job = (rel: string): WalkJob => ({ real: `/r/${rel}`, rel, jumps: [] });
const hit = (path: string): SearchHit => ({ path, kind: 'file' });

/** Every directory of the tree by its job's `rel`. */
function index(root: Dir): Map<string, Dir> {
    const dirs = new Map<string, Dir>();
    const add = (d: Dir, rel: string): void => {
        dirs.set(rel, d);
        d.items.forEach((item, i) => typeof item !== 'boolean' && add(item, `${rel}/${i}`));
    };
    add(root, '.');
    return dirs;
}

/** What a task returns for the directory `rel`: runs of entries and the subdirectories as jobs. */
function segments(d: Dir, rel: string): Segment[] {
    const out: Segment[] = [];
    let run: Extract<Segment, { t: 'run' }> | undefined;
    d.items.forEach((item, i) => {
        if (typeof item === 'boolean') {
            run ??= { t: 'run', n: 0, hits: [], at: [] };
            if (item) {
                run.hits.push(hit(`${rel}/${i}`));
                run.at.push(run.n);
            }
            run.n++;
        } else {
            if (run) out.push(run);
            run = undefined;
            out.push({ t: 'job', job: job(`${rel}/${i}`) });
        }
    });
    if (run) out.push(run);
    return out;
}

/** The sequential walk, written independently: every entry in order, then where the limits stop it. */
function sequential(root: Dir, maxResults: number, maxTotalEntries: number): { hits: string[]; all: string[]; stop: OrderedWalk['stop']; visited: number } {
    const entries: { path: string; hit: boolean }[] = [];
    const walk = (d: Dir, rel: string): void =>
        d.items.forEach((item, i) => (typeof item === 'boolean' ? entries.push({ path: `${rel}/${i}`, hit: item }) : walk(item, `${rel}/${i}`)));
    walk(root, '.');
    const all = entries.filter((e) => e.hit).map((e) => e.path);
    let found = 0;
    for (let k = 0; k < entries.length && k < maxTotalEntries; k++) {
        if (entries[k]!.hit && ++found === maxResults) return { hits: all.slice(0, maxResults), all, stop: 'max_results', visited: k + 1 };
    }
    if (entries.length > maxTotalEntries) {
        return { hits: entries.slice(0, maxTotalEntries).filter((e) => e.hit).map((e) => e.path), all, stop: 'too_many_entries', visited: maxTotalEntries + 1 };
    }
    return { hits: all, all, stop: null, visited: entries.length };
}

/** True when `sub` appears in `all` in the same order (not necessarily adjacent). */
function isSubsequence(sub: readonly string[], all: readonly string[]): boolean {
    let i = 0;
    for (const x of all) if (i < sub.length && sub[i] === x) i++;
    return i === sub.length;
}

describe('OrderedWalk (property)', () => {
    it('gives the sequential walk’s hits, stop and count for any order of taking, requeueing and finishing jobs', () => {
        let stops = 0;
        fc.assert(
            fc.property(dirArb, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 40 }), fc.array(fc.nat(), { minLength: 1, maxLength: 64 }), (root, maxResults, maxTotalEntries, choices) => {
                const dirs = index(root);
                const expected = sequential(root, maxResults, maxTotalEntries);
                const w = new OrderedWalk(job('.'), maxResults, maxTotalEntries);
                let c = 0;
                const next = (): number => choices[c++ % choices.length]! + c;
                const running: WalkNode[] = [];
                for (let step = 0; w.stop === null && !w.complete; step++) {
                    if (w.pending > 0 && (running.length === 0 || next() % 3 === 0)) {
                        running.push(...w.take(1 + (next() % 3)));
                        continue;
                    }
                    // expect() only on a difference, here and after each step: a call per step was half this test's CPU.
                    if (running.length === 0) expect(running.length).toBeGreaterThan(0); // the cursor waits only on jobs handed out
                    const [node] = running.splice(next() % running.length, 1);
                    if (step < 200 && next() % 5 === 0) {
                        w.requeue(node!);
                        continue;
                    }
                    w.resolve(node!, segments(dirs.get(node!.job.rel)!, node!.job.rel));
                    w.advance();
                    const known = w.knownHits().map((h) => h.path);
                    const emitted = w.emitted.map((h) => h.path);
                    if (!emitted.every((p, i) => known[i] === p) || known.length < emitted.length) expect(known.slice(0, w.emitted.length)).toEqual(emitted);
                    if (!(known.length <= maxResults)) expect(known.length).toBeLessThanOrEqual(maxResults);
                    if (!isSubsequence(known, expected.all)) expect(isSubsequence(known, expected.all)).toBe(true);
                }
                expect(w.emitted.map((h) => h.path)).toEqual(expected.hits);
                expect(w.stop).toBe(expected.stop);
                expect(w.complete).toBe(expected.stop === null);
                expect(w.visited).toBe(expected.visited);
                if (w.stop !== null) stops++;
            }),
            { seed: 9, numRuns: 1000 },
        );
        expect(stops).toBeGreaterThan(100); // the limits were reached in many runs, not only complete walks
    });
});

describe('OrderedWalk bookkeeping', () => {
    it('passes on skipped entries, and lists files too large to search up to TOO_LARGE_LISTED while counting all the cursor passed', () => {
        const w = new OrderedWalk(job('.'), 100, 1000);
        const tooLarge = Array.from({ length: TOO_LARGE_LISTED + 5 }, (_, i) => ({ path: `big${i}`, size: 1e9 + i, at: i }));
        w.resolve(w.take(1)[0]!, [{ t: 'run', n: TOO_LARGE_LISTED + 5, hits: [], at: [], skipped: [{ path: 'locked', reason: 'EACCES' }], tooLarge }]);
        w.advance();
        expect(w.skipped).toEqual([{ path: 'locked', reason: 'EACCES' }]);
        expect(w.tooLargeCount).toBe(TOO_LARGE_LISTED + 5);
        expect(w.tooLarge).toEqual(tooLarge.slice(0, TOO_LARGE_LISTED).map(({ path, size }) => ({ path, size })));
    });

    it('counts only the too-large files before the point where a limit stops the walk', () => {
        const w = new OrderedWalk(job('.'), 1, 1000);
        w.resolve(w.take(1)[0]!, [{ t: 'run', n: 5, hits: [hit('c')], at: [2], tooLarge: [{ path: 'a', size: 9, at: 0 }, { path: 'd', size: 9, at: 3 }] }]);
        w.advance();
        expect(w.stop).toBe('max_results');
        expect(w.tooLarge).toEqual([{ path: 'a', size: 9 }]);
        expect(w.tooLargeCount).toBe(1);
    });

    it('adds the hits a terminated task recorded to the known hits, in walk order, only while its job runs', () => {
        const w = new OrderedWalk(job('.'), 10, 1000);
        w.resolve(w.take(1)[0]!, [{ t: 'run', n: 1, hits: [hit('a')], at: [0] }, { t: 'job', job: job('b') }, { t: 'run', n: 1, hits: [hit('c')], at: [0] }]);
        w.advance();
        const [b] = w.take(1);
        w.partial(b!, [hit('b/1')]);
        expect(w.knownHits().map((h) => h.path)).toEqual(['a', 'b/1', 'c']);
        w.requeue(b!);
        w.partial(b!, [hit('b/2')]); // not running: ignored
        expect(w.knownHits().map((h) => h.path)).toEqual(['a', 'b/1', 'c']);
        expect(w.hitsNeeded).toBe(9);
        expect(w.entriesNeeded).toBe(1000);
    });
});

describe('OrderedWalk (worked examples)', () => {
    const run = (n: number, hits: [string, number][]): Segment => ({ t: 'run', n, hits: hits.map(([p]) => hit(p)), at: hits.map(([, a]) => a) });

    it('emits in walk order whatever order jobs finish in', () => {
        const w = new OrderedWalk(job('.'), 100, 100);
        const [root] = w.take(10);
        w.resolve(root!, [run(1, [['a', 0]]), { t: 'job', job: job('b') }, run(1, [['c', 0]]), { t: 'job', job: job('d') }]);
        w.advance();
        expect(w.emitted.map((h) => h.path)).toEqual(['a']);
        const [b, d] = w.take(10);
        w.resolve(d!, [run(2, [['d/x', 1]])]);
        w.advance();
        expect(w.emitted.map((h) => h.path)).toEqual(['a']); // b blocks the cursor
        expect(w.knownHits().map((h) => h.path)).toEqual(['a', 'c', 'd/x']);
        w.resolve(b!, [run(1, [['b/y', 0]])]);
        w.advance();
        expect(w.emitted.map((h) => h.path)).toEqual(['a', 'b/y', 'c', 'd/x']);
        expect(w.complete).toBe(true);
        expect(w.visited).toBe(5);
    });

    it('stops exactly where a sequential walk would', () => {
        const byResults = new OrderedWalk(job('.'), 2, 100);
        byResults.resolve(byResults.take(1)[0]!, [run(3, [['a', 0], ['b', 1], ['c', 2]])]);
        byResults.advance();
        expect(byResults.stop).toBe('max_results');
        expect(byResults.emitted.map((h) => h.path)).toEqual(['a', 'b']);
        const byEntries = new OrderedWalk(job('.'), 100, 2);
        byEntries.resolve(byEntries.take(1)[0]!, [run(4, [['a', 0], ['b', 1], ['c', 2]])]);
        byEntries.advance();
        expect(byEntries.stop).toBe('too_many_entries');
        expect(byEntries.emitted.map((h) => h.path)).toEqual(['a', 'b']);
    });

    it('hands out jobs in walk order', () => {
        const w = new OrderedWalk(job('.'), 100, 100);
        w.resolve(w.take(1)[0]!, [{ t: 'job', job: job('a') }, { t: 'job', job: job('b') }, { t: 'job', job: job('c') }]);
        const [a] = w.take(1);
        w.resolve(a!, [{ t: 'job', job: job('a/1') }]);
        expect(w.take(3).map((n) => n.job.rel)).toEqual(['a/1', 'b', 'c']);
    });
});
