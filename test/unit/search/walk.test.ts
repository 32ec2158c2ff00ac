/**
 * The walk's entry hits as shared columns (pack-runs.ts EntryPacker), the ordered stop across
 * task, chunk and column boundaries, and the task sizes of a search stopped by max_results, on
 * real temporary trees with symbolic links inside and outside the searched root.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { OrderedWalk } from '../../../src/search/ordered.js';
import { prepareSearch, searchRootAt } from '../../../src/search/prepare.js';
import { expectedEntries, MAX_JOBS_PER_TASK, NEAR_BUDGET, SMALL_BUDGET, taskShape } from '../../../src/search/task-shape.js';
import { runAt, runHit, runSize } from '../../../src/search/shared/hit-list.js';
import { coalesceRuns, EntryPacker, packRun, unpackRun } from '../../../src/search/shared/pack-runs.js';
import { SPLIT_MIN_UNITS, type Segment } from '../../../src/search/shared/protocol.js';
import type { SearchHit, SearchRequest } from '../../../src/search/shared/types.js';
import { runSearchTask } from '../../../workers/search/walk.js';
import { writeTree } from '../../support/helpers.js';

type Run = Extract<Segment, { t: 'run' }>;

/** Directories that live as long as this file's suites (helpers.ts's tempDir lasts one test). */
const dirs: string[] = [];
function suiteDir(prefix: string): string {
    const d = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), prefix));
    dirs.push(d);
    return d;
}

const engine = new Engine({ maxThreads: 2 });

afterAll(async () => {
    await engine.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function request(root: string, realRoots: readonly string[] | null, over: Partial<SearchRequest> = {}): SearchRequest {
    return { root: searchRootAt(root, realRoots), type: 'both', maxResults: 1_000_000, maxFileSize: 1 << 20, maxTotalEntries: 1_000_000, skipDirs: [], ...over };
}

const show = (hits: readonly SearchHit[]): string[] => hits.map((h) => `${h.path}${h.kind === 'directory' ? '/' : ''}${h.line ? `:${h.line}` : ''}`);

/**
 * The reference: a sequential walk, depth-first, children sorted by UTF-16 code units, symbolic
 * links followed only to targets inside `root` (when `inside`) and never into a loop; a link to
 * a directory inside `root` is listed, not entered (its files are listed under their own names).
 */
function sequential(root: string, opts: { name?: RegExp; content?: RegExp; inside: boolean }): SearchHit[] {
    const out: SearchHit[] = [];
    const walk = (dir: string, rel: string, chain: string[]): void => {
        const names = fs.readdirSync(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        for (const name of names) {
            const p = path.join(dir, name);
            const r = rel ? `${rel}/${name}` : name;
            let real = p;
            const viaLink = fs.lstatSync(p).isSymbolicLink();
            if (viaLink) {
                try {
                    real = fs.realpathSync(p);
                } catch {
                    continue; // broken: reported as skipped, not a hit
                }
                if (opts.inside && real !== root && !real.startsWith(root + path.sep)) continue;
            }
            const isDir = fs.statSync(real).isDirectory();
            if (isDir && chain.some((c) => c === real || c.startsWith(real + path.sep))) continue;
            const nameOk = !opts.name || opts.name.test(name);
            if (isDir) {
                if (nameOk && !opts.content) out.push({ path: r, kind: 'directory' });
                if (viaLink && (real === root || real.startsWith(root + path.sep))) continue;
                walk(real, r, [...chain, real]);
            } else if (nameOk) {
                if (!opts.content) out.push({ path: r, kind: 'file' });
                else
                    fs.readFileSync(real, 'utf8')
                        .split('\n')
                        .forEach((l, i) => {
                            if (opts.content!.test(l)) out.push({ path: r, kind: 'file', line: i + 1, text: l });
                        });
            }
        }
    };
    walk(root, '', [root]);
    return out;
}

describe('EntryPacker (entry hits as shared columns)', () => {
    const run = (hits: SearchHit[], at?: number[]): Run => ({ t: 'run', n: (at ? Math.max(...at) : hits.length - 1) + 1, hits: hits.map((h) => ({ ...h })), at: at ?? hits.map((_, i) => i) });

    it('gives every hit and its entry index back after a clone, the runs sharing one set of columns', () => {
        const a = run(
            [
                { path: 'src/b', kind: 'directory' },
                { path: 'src/é日本.txt', kind: 'file' },
            ],
            [1, 4],
        );
        const b = run([{ path: 'src/b/x\ud83d', kind: 'file' }]);
        const c = run([{ path: 'top', kind: 'file' }]);
        const packer = new EntryPacker();
        for (const r of [a, b, c]) packRun(r, packer);
        packer.finish();
        expect([a.entries?.prefix, b.entries?.prefix, c.entries?.prefix]).toEqual(['src/', 'src/b/', '']);
        expect(a.entries!.cols).toBe(c.entries!.cols);
        const [a2, b2, c2] = structuredClone([a, b, c]);
        expect(a2!.entries!.cols).toBe(c2!.entries!.cols);
        expect(Array.from({ length: runSize(a2!) }, (_, j) => runHit(a2!, j))).toEqual([
            { path: 'src/b', kind: 'directory' },
            { path: 'src/é日本.txt', kind: 'file' },
        ]);
        expect([runAt(a2!, 0), runAt(a2!, 1)]).toEqual([1, 4]);
        expect(runHit(b2!, 0)).toEqual({ path: 'src/b/x\ud83d', kind: 'file' });
        expect(runHit(c2!, 0)).toEqual({ path: 'top', kind: 'file' });
        unpackRun(a2!);
        expect(a2!.entries).toBeUndefined();
        expect(a2!.at).toEqual([1, 4]);
        expect(show(a2!.hits)).toEqual(['src/b/', 'src/é日本.txt']);
    });

    it('keeps whole paths when a run has no common directory, and leaves hits with more fields as objects', () => {
        const mixed = run([
            { path: '/', kind: 'directory' },
            { path: '/etc', kind: 'directory' },
            { path: 'a/b', kind: 'file' },
        ]);
        const packer = new EntryPacker();
        packRun(mixed, packer);
        const timed = run([{ path: 'a/t', kind: 'file', mtimeMs: 1, birthtimeMs: 2 }]);
        packRun(timed, packer);
        packer.finish();
        expect(mixed.entries?.prefix).toBe('');
        expect(Array.from({ length: 3 }, (_, j) => runHit(mixed, j).path)).toEqual(['/', '/etc', 'a/b']);
        expect(timed.entries).toBeUndefined();
        expect(timed.hits).toEqual([{ path: 'a/t', kind: 'file', mtimeMs: 1, birthtimeMs: 2 }]);
    });
});

describe('coalesceRuns (a job\'s consecutive runs joined)', () => {
    const job: Segment = { t: 'job', job: { real: '/r/d', rel: 'd', jumps: [] } };
    const hit = (path: string, line: number): SearchHit => ({ path, kind: 'file', line, text: `t${line}` });

    it('joins runs between jobs, shifting hit, skip and too-large positions by the entries before them', () => {
        const out: Segment[] = [
            { t: 'run', n: 3, hits: [hit('a/x', 1)], at: [2], tooLarge: [{ path: 'a/big', size: 9, at: 1 }] },
            { t: 'run', n: 2, hits: [], at: [], skipped: [{ path: 'a/b/u', reason: 'permission denied' }] },
            { t: 'run', n: 4, hits: [hit('a/c/y', 5), hit('a/c/y', 7)], at: [0, 0], tooLarge: [{ path: 'a/c/huge', size: 10, at: 3 }] },
            job,
            { t: 'run', n: 1, hits: [hit('e/z', 2)], at: [0] },
        ];
        const joined = coalesceRuns(out);
        expect(joined).toBe(out);
        expect(joined.map((s) => s.t)).toEqual(['run', 'job', 'run']);
        const first = joined[0] as Run;
        expect(first.n).toBe(9);
        expect(first.hits.map((h) => h.line)).toEqual([1, 5, 7]);
        expect(first.at).toEqual([2, 5, 5]);
        expect(first.skipped).toEqual([{ path: 'a/b/u', reason: 'permission denied' }]);
        expect(first.tooLarge).toEqual([
            { path: 'a/big', size: 9, at: 1 },
            { path: 'a/c/huge', size: 10, at: 8 },
        ]);
        // The ordered merge stops at the same hit and entry as over the runs apart.
        const walk = new OrderedWalk({ real: '/r', rel: '.', jumps: [] }, 2, 1e9);
        walk.resolve(walk.take(1)[0]!, joined);
        walk.advance();
        expect(walk.stop).toBe('max_results');
        expect(show(walk.emitted)).toEqual(['a/x:1', 'a/c/y:5']);
        expect(walk.visited).toBe(6);
    });

    it('keeps a run of packed entries apart from runs with hits before or after it, and takes in the empty ones after it', () => {
        const packer = new EntryPacker();
        const before: Run = { t: 'run', n: 1, hits: [], at: [] };
        const entries: Run = { t: 'run', n: 2, hits: [], at: [] };
        packer.push('f', false, 1);
        entries.entries = packer.since(0, 'd/');
        const empty: Run = { t: 'run', n: 5, hits: [], at: [] };
        const after: Run = { t: 'run', n: 1, hits: [{ path: 'e/g', kind: 'file' }], at: [0] };
        const joined = coalesceRuns([before, entries, empty, after]);
        packer.finish();
        expect(joined).toEqual([before, entries, after]);
        expect(entries.n).toBe(7);
        expect(runAt(entries, 0)).toBe(1);
    });
});

describe('the walk across task, chunk and column boundaries', () => {
    let root: string;
    let outside: string;
    beforeAll(() => {
        root = suiteDir('lcf-walk-columns-');
        outside = suiteDir('lcf-walk-columns-out-');
        // A directory larger than a deferred chunk (256 entries), nested directories, names that
        // sort differently by code unit than by locale, and hits spread over all of them.
        const files: Record<string, string> = { 'target/inner.txt': 'hit inside\n' };
        for (let i = 0; i < 700; i++) files[`wide/f${String(i).padStart(4, '0')}.txt`] = i % 3 === 0 ? 'hit here\n' : 'miss\n';
        for (let a = 0; a < 6; a++) for (let b = 0; b < 6; b++) for (let f = 0; f < 8; f++) files[`deep/d${a}/e${b}/g${f}.txt`] = f % 2 === 0 ? 'x\nhit\n' : 'none\n';
        for (const n of ['B', 'a', 'a-b', 'a.b', 'a_b', 'é', 'Z', 'ö', '日本']) files[`names/${n}/${n}.txt`] = 'hit\n';
        writeTree(root, files);
        writeTree(outside, { 'secret.txt': 'hit outside\n' });
        fs.symlinkSync(path.join(root, 'target'), path.join(root, 'names', 'link-in'));
        fs.symlinkSync(outside, path.join(root, 'names', 'link-out'));
        fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'names', 'link-out-file'));
        fs.symlinkSync('..', path.join(root, 'names', 'loop'));
    });

    /** Runs the walk as tasks of `budget` units over an OrderedWalk, and returns what its cursor emitted. */
    async function tasks(req: SearchRequest, budget: number, hunger = 0): Promise<{ hits: SearchHit[]; tasks: number; stop: string | null }> {
        const search = await prepareSearch(req);
        const walk = new OrderedWalk({ real: search.root.real, rel: search.root.display, jumps: [] }, req.maxResults, req.maxTotalEntries);
        let count = 0;
        while (walk.pending > 0 && walk.stop === null) {
            // Two tasks at a time, resolved in reverse order, as two threads may finish.
            const batch = [walk.take(3), walk.take(2)];
            const results = batch.map((nodes) =>
                structuredClone(
                    runSearchTask({
                        op: 'search',
                        search,
                        deadline: Number.MAX_SAFE_INTEGER,
                        jobs: nodes.map((n) => n.job),
                        budget,
                        sliceMs: 1e9,
                        capHits: walk.hitsNeeded,
                        capEntries: walk.entriesNeeded,
                        cancel: new SharedArrayBuffer(4),
                        // Threads waiting for work: each such task hands back part of its own after SPLIT_MIN_UNITS.
                        hunger: new Int32Array(new SharedArrayBuffer(4)).fill(hunger).buffer as SharedArrayBuffer,
                    }),
                ),
            );
            for (let k = batch.length - 1; k >= 0; k--) {
                const res = results[k]!;
                if (!res.ok) throw new Error(res.message);
                count++;
                batch[k]!.forEach((node, i) => {
                    const segs = res.results[i];
                    if (segs === null || segs === undefined) {
                        if (res.capped) walk.resolve(node, []);
                        else walk.requeue(node);
                    } else walk.resolve(node, segs);
                });
            }
            walk.advance();
        }
        return { hits: walk.emitted, tasks: count, stop: walk.stop };
    }

    for (const checks of ['on', 'off'] as const) {
        const realRoots = (): string[] | null => (checks === 'on' ? [root] : null);

        it(`gives every entry in sequential path order with tiny tasks (checks ${checks})`, async () => {
            const expected = show(sequential(root, { inside: checks === 'on' }));
            for (const budget of [1, 7, 300]) {
                const got = await tasks(request(root, realRoots()), budget);
                expect(show(got.hits)).toEqual(expected);
                if (budget === 1) expect(got.tasks).toBeGreaterThan(100);
            }
            if (checks === 'on') {
                // A link to a directory of the searched tree is listed; its files are listed once, under their own names.
                expect(expected).toContain('names/link-in/');
                expect(expected).not.toContain('names/link-in/inner.txt');
                expect(expected).toContain('target/inner.txt');
                expect(expected.some((p) => p.includes('secret') || p.startsWith('names/link-out'))).toBe(false);
            } else {
                expect(expected).toContain('names/link-out/secret.txt');
                expect(expected).toContain('names/link-out-file');
            }
        });

        it(`stops at exactly max_results with the sequential walk's first hits (checks ${checks})`, async () => {
            const names = sequential(root, { inside: checks === 'on' });
            const content = sequential(root, { content: /hit/, inside: checks === 'on' });
            for (const max of [1, 2, 255, 256, 257, 600, 733]) {
                const byName = await engine.search(request(root, realRoots(), { maxResults: max }), { timeoutMs: 60_000 });
                expect(byName.stop).toBe('max_results');
                expect(show(byName.hits)).toEqual(show(names.slice(0, max)));
                const byContent = await engine.search(request(root, realRoots(), { contentPattern: 'hit', maxResults: Math.min(max, content.length - 1) }), { timeoutMs: 60_000 });
                expect(byContent.stop).toBe('max_results');
                expect(show(byContent.hits)).toEqual(show(content.slice(0, Math.min(max, content.length - 1))));
            }
            const sliced = await tasks(request(root, realRoots(), { maxResults: 257 }), 5);
            expect(sliced.stop).toBe('max_results');
            expect(show(sliced.hits)).toEqual(show(names.slice(0, 257)));
        });

        it(`gives the same hits when every task hands back part of its work to a waiting thread (checks ${checks})`, async () => {
            const content = await tasks(request(root, realRoots(), { contentPattern: 'hit' }), 1e9, 1);
            expect(show(content.hits)).toEqual(show(sequential(root, { content: /hit/, inside: checks === 'on' })));
            const names = await tasks(request(root, realRoots(), {}), 1e9, 1);
            expect(show(names.hits)).toEqual(show(sequential(root, { inside: checks === 'on' })));
            // Split at every task: many more tasks than the one a budget of 1e9 needs.
            expect(names.tasks).toBeGreaterThan(5);
            const stopped = await tasks(request(root, realRoots(), { contentPattern: 'hit', maxResults: 100 }), 1e9, 1);
            expect(show(stopped.hits)).toEqual(show(sequential(root, { content: /hit/, inside: checks === 'on' }).slice(0, 100)));
        });

        it(`hands back what is left once it answers a waiting thread, after ${SPLIT_MIN_UNITS} units, and takes one waiter only (checks ${checks})`, async () => {
            const search = await prepareSearch(request(root, realRoots(), {}));
            const run = (waiting: number): { res: ReturnType<typeof runSearchTask>; left: number } => {
                const hunger = new Int32Array(new SharedArrayBuffer(4)).fill(waiting);
                const res = runSearchTask({ op: 'search', search, deadline: Number.MAX_SAFE_INTEGER, jobs: [{ real: search.root.real, rel: search.root.display, jumps: [] }], budget: 1e9, sliceMs: 1e9, capHits: 1e9, capEntries: 1e9, cancel: new SharedArrayBuffer(4), hunger: hunger.buffer as SharedArrayBuffer });
                return { res, left: Atomics.load(hunger, 0) };
            };
            const all = sequential(root, { inside: checks === 'on' }).length;
            const whole = run(0);
            if (!whole.res.ok) throw new Error(whole.res.message);
            expect(whole.left).toBe(0);
            expect(whole.res.visited).toBeGreaterThanOrEqual(all);
            expect(whole.res.results[0]!.some((seg) => seg.t === 'job')).toBe(false);
            const split = run(3);
            if (!split.res.ok) throw new Error(split.res.message);
            expect(split.left).toBe(2);
            expect(split.res.visited).toBeGreaterThanOrEqual(SPLIT_MIN_UNITS);
            expect(split.res.visited).toBeLessThan(all);
            expect(split.res.results[0]!.some((seg) => seg.t === 'job')).toBe(true);
        });

        it(`stops at maxTotalEntries inside a run of packed entries (checks ${checks})`, async () => {
            const names = sequential(root, { inside: checks === 'on' });
            const res = await engine.search(request(root, realRoots(), { maxTotalEntries: 300 }), { timeoutMs: 60_000 });
            expect(res.stop).toBe('too_many_entries');
            expect(res.visited).toBe(301);
            expect(show(res.hits)).toEqual(show(names.slice(0, 300)));
        });

        it(`sends each job's output as few runs, those without hit objects sharing one empty hits and at, kept through a clone (checks ${checks})`, async () => {
            const search = await prepareSearch(request(root, realRoots(), { contentPattern: 'hit' }));
            const res = structuredClone(
                runSearchTask({ op: 'search', search, deadline: Number.MAX_SAFE_INTEGER, jobs: [{ real: search.root.real, rel: search.root.display, jumps: [] }], budget: 1e9, sliceMs: 1e9, capHits: 1e9, capEntries: 1e9, cancel: new SharedArrayBuffer(4) }),
            );
            if (!res.ok) throw new Error(res.message);
            const segs = res.results.flatMap((s) => s ?? []);
            const runs = segs.filter((s): s is Run => s.t === 'run');
            // The tree has more than 40 directories; their runs are joined between the jobs left for later.
            expect(sequential(root, { inside: checks === 'on' }).filter((h) => h.kind === 'directory').length).toBeGreaterThan(40);
            expect(runs.length).toBeLessThanOrEqual(segs.length - runs.length + 1);
            for (let i = 1; i < segs.length; i++) expect(segs[i - 1]!.t === 'run' && segs[i]!.t === 'run').toBe(false);
            const empty = runs.filter((r) => r.hits.length === 0);
            expect(empty.length).toBeGreaterThan(0);
            expect(new Set(empty.map((r) => r.hits)).size).toBe(1);
            expect(new Set(runs.filter((r) => r.at.length === 0).map((r) => r.at)).size).toBe(1);
            // Every hit is still there: as many as the sequential walk's lines with a match.
            expect(runs.reduce((n, r) => n + runSize(r), 0)).toBe(sequential(root, { content: /hit/, inside: checks === 'on' }).length);
        });

        it(`gives name-pattern hits in order with the engine (checks ${checks})`, async () => {
            const res = await engine.search(request(root, realRoots(), { namePattern: '^(f0.*7|g[02]|é|日本|inner)' }), { timeoutMs: 60_000 });
            expect(show(res.hits)).toEqual(show(sequential(root, { name: /^(f0.*7|g[02]|é|日本|inner)/i, inside: checks === 'on' })));
            expect(res.hits.length).toBeGreaterThan(50);
        });
    }
});

describe('task sizes of a search stopped by max_results', () => {
    it('are small without an estimate, as large as the expected work left when there is one', () => {
        expect(taskShape(1000, 2, 2, 50, false)).toEqual({ jobs: 1, budget: SMALL_BUDGET });
        expect(taskShape(1000, 2, 2, 50, false, 0)).toEqual({ jobs: MAX_JOBS_PER_TASK, budget: SMALL_BUDGET });
        expect(taskShape(10, 2, 2, 50, false, 3000)).toEqual({ jobs: 5, budget: 1500 });
        expect(taskShape(10, 2, 2, 50, false, 1e9)).toEqual({ jobs: 5, budget: NEAR_BUDGET });
        // The first task lists the root only, whatever the estimate.
        expect(taskShape(1, 2, 2, 50, true, 1e9).budget).toBeLessThan(SMALL_BUDGET);
    });

    it('expect the work left from the density of hits found, doubling while none is found', () => {
        expect(expectedEntries(50, 0, 0)).toBe(0);
        expect(expectedEntries(50, 1000, 0)).toBe(1000);
        expect(expectedEntries(40, 1000, 10)).toBe(4000);
        expect(expectedEntries(1, 3, 2)).toBe(2);
    });
});

/**
 * The deadline of a task still stops it when the walk reads the clock only every so many entries
 * without a system call (workers/search/walk.ts, Walker #check): the clock here is a counter that passes
 * the deadline at its 5th read, so a task that read it once per entry would stop within 5 entries
 * and one that never read it again would list all 2,000.
 */
describe('deadline of a walk task', () => {
    /** Runs one task over a directory of 2,000 files on this thread, with the counter as the clock. */
    let tree: string | undefined;
    const run = async (over: Partial<SearchRequest>): Promise<ReturnType<typeof runSearchTask>> => {
        // One tree for the file's tasks: they only read it.
        if (tree === undefined) {
            tree = suiteDir('lcf-walk-deadline-');
            const files: Record<string, string> = {};
            for (let i = 0; i < 2000; i++) files[`f${String(i).padStart(4, '0')}.txt`] = 'hay\n';
            writeTree(tree, files);
        }
        const root = tree;
        const search = await prepareSearch(request(root, [root], over));
        const base = Date.now();
        let reads = 0;
        vi.spyOn(Date, 'now').mockImplementation(() => base + reads++);
        try {
            return runSearchTask({ op: 'search', search, deadline: base + 4, jobs: [{ real: search.root.real, rel: search.root.display, jumps: [] }], budget: 1e9, sliceMs: 1e9, capHits: 1e9, capEntries: 1e9, cancel: new SharedArrayBuffer(4) });
        } finally {
            vi.restoreAllMocks();
        }
    };

    it('stops a walk of plain file entries within a few hundred entries of the deadline', async () => {
        const res = await run({});
        if (!res.ok) throw new Error(res.message);
        expect(res.timedOut).toBe(true);
        expect(res.visited).toBeGreaterThan(0);
        expect(res.visited).toBeLessThanOrEqual(5 * 32);
    });

    it('reads the clock at every entry of a content search', async () => {
        const res = await run({ contentPattern: 'needle' });
        if (!res.ok) throw new Error(res.message);
        expect(res.timedOut).toBe(true);
        expect(res.visited).toBeLessThanOrEqual(5);
    });
});
