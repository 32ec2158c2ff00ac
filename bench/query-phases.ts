import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine.js';
import { AccessType, SearchEntriesTool, Workspace } from '../src/index.js';
import { SearchIndex } from '../src/search-index/search-index.js';
import type { PlannedWalk } from '../src/search/backend.js';
import type { PreparedSearch } from '../src/search/shared/protocol.js';
import type { RunOptions } from '../src/search/task-runner.js';
import { benchArgs, fmtMs, intFlag, kernelTree, loadAverages, machine, median, raiseLimits, REPO } from './common.js';
import { percentile, sampleIdentifiers } from './index-queries.js';
import { mulberry32 } from './tree.js';

/**
 * Where the time of one index-answered search goes, phase by phase, timed from outside the
 * library (its methods wrapped here, no timer in src/):
 *
 *   npm run bench -- query-phases --work DIR [--max-results 50] [--queries 100] [--seed 1] [--runs 3]
 *
 * DIR holds an index an `index-queries --keep` run left (`DIR/index`, and `DIR/tree` for a scaled
 * tree). Per query, the median over `--runs`: the tool call; before the plan (the tool's checks,
 * the request prepared, the root's real path); the plan's first part (posting lists, the table
 * walk to the first candidates); its later parts; the pool's tasks (their count, the sum of their
 * times from post to answer); after the search (the output written). The floor: a search of a
 * folder holding one small file by the scan path, and the same by the index.
 */

/** Replays of each query's plan for its CPU time. */
const REPLAYS = 5;

interface Phases {
    total: number;
    before: number;
    plan: number;
    parts: number;
    tasks: number;
    taskMs: number;
    after: number;
    /** The plan's first part replayed alone on the host: its CPU time, mean of {@link REPLAYS} (no pool, no wait for a core). */
    replay: number;
    answered: boolean;
    candidates: number;
    handedOut: number;
}

export async function queryPhasesMain(argv: readonly string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const k = intFlag(flags, 'queries', 100);
    const seed = intFlag(flags, 'seed', 1);
    const runs = intFlag(flags, 'runs', 3);
    const kernel = kernelTree(flags);
    const work = path.resolve(flags.get('work') ?? path.join(os.tmpdir(), 'lcf-index-queries-x1'));
    if (!fs.existsSync(path.join(work, 'index'))) throw new Error(`no index in ${work}: run index-queries --keep --work ${work} first`);
    if (flags.has('max-results')) process.env['LLM_CHAT_FS_MAX_SEARCH_RESULTS'] = String(intFlag(flags, 'max-results', 1000));
    const scaled = fs.existsSync(path.join(work, 'tree'));
    const root = scaled ? fs.realpathSync(path.join(work, 'tree')) : kernel.root;
    const lines: string[] = [];
    const out = (s: string): void => {
        console.log(s);
        lines.push(s);
    };
    out(`# Query phases (${machine()})\n\n\`npm run bench -- query-phases ${argv.join(' ')}\`; tree ${root}\n`);

    const limits = raiseLimits(kernel.largestFile);
    let idx!: SearchIndex;
    const engine = new Engine({ backends: [(e) => (idx = new SearchIndex(e.maxThreads, limits.file.maxFileSize, { dir: path.join(work, 'index') }))] });
    const plain = new Engine();
    const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Write, path: os.tmpdir() }], skipDirs: [], resolveSymlinks: true });
    const tool = new SearchEntriesTool(ws, { engine, searchConfig: limits.search, fileConfig: limits.file });
    const scanTool = new SearchEntriesTool(ws, { engine: plain, searchConfig: limits.search, fileConfig: limits.file });
    const tree = (await idx.warm(root, [], [root]))!;
    await tree.settled();
    out(`Index state ${tree.state}, ${tree.status().entries} entries; ${loadAverages()}.\n`);

    // The wrapped methods: each phase's clock.
    let cur: Phases = blank();
    let t0 = 0;
    let searchEnd = 0;
    let prepared: PreparedSearch | null = null;
    const planSearch = engine.planSearch.bind(engine);
    engine.planSearch = async (search, rootReal) => {
        const p0 = performance.now();
        cur.before = p0 - t0;
        prepared = search;
        const walk = await planSearch(search, rootReal);
        cur.plan = performance.now() - p0;
        return walk === null ? null : timedParts(walk);
    };
    // The part's `work` kept: without it every part would take every thread (task-shape.ts plannedSlots).
    const timedParts = (w: PlannedWalk): PlannedWalk =>
        w.more === null
            ? w
            : {
                  ...w,
                  more: () => {
                      const p0 = performance.now();
                      const next = w.more!();
                      cur.parts += performance.now() - p0;
                      return timedParts(next);
                  },
              };
    const run = engine.run.bind(engine);
    engine.run = <T>(task: object, options?: RunOptions): Promise<T> => {
        const p0 = performance.now();
        cur.tasks++;
        return run<T>(task, options).finally(() => {
            cur.taskMs += performance.now() - p0;
        });
    };
    const search = engine.search.bind(engine);
    engine.search = async (...a) => {
        try {
            return await search(...a);
        } finally {
            searchEnd = performance.now();
        }
    };
    const once = async (pattern: string, dir = root, t = tool): Promise<Phases> => {
        cur = blank();
        const answeredBefore = tree.counts.answered;
        t0 = performance.now();
        await t.execute({ path: dir, content_pattern: pattern });
        const end = performance.now();
        cur.total = end - t0;
        cur.after = end - searchEnd;
        cur.candidates = tree.lastPlan.candidates;
        cur.handedOut = tree.lastPlan.handedOut;
        cur.answered = tree.counts.answered > answeredBefore;
        // CPU time rather than wall time: what other processes take of the cores does not count.
        const c0 = process.cpuUsage();
        for (let r = 0; prepared !== null && r < REPLAYS; r++) tree.plan(prepared, dir);
        const c = process.cpuUsage(c0);
        cur.replay = prepared === null ? NaN : (c.user + c.system) / 1000 / REPLAYS;
        prepared = null;
        return cur;
    };

    // The floor: one small file, by the scan path and by the index (its folder is outside the indexed tree: scan path too).
    const tiny = fs.mkdtempSync(path.join(os.tmpdir(), 'lcf-phases-'));
    fs.writeFileSync(path.join(tiny, 'a.txt'), 'one line with floor_word\n');
    const floorScan: number[] = [];
    for (let r = 0; r < 20; r++) floorScan.push((await once('floor_word', tiny, scanTool)).total);
    fs.rmSync(tiny, { recursive: true, force: true });
    out(`Floor: a search of a folder of one small file by the scan path, median of 20: ${fmtMs(median(floorScan))} (min ${fmtMs(Math.min(...floorScan))}).\n`);

    const patterns = sampleIdentifiers(root.endsWith('/tree') ? path.join(root, 'c0') : root, k, mulberry32(seed));
    const per = new Map<string, Phases[]>();
    for (let r = 0; r < runs; r++) {
        for (const p of patterns) {
            const ph = await once(p);
            if (ph.answered) (per.get(p) ?? per.set(p, []).get(p)!).push(ph);
        }
    }
    const rows = [...per.entries()].map(([p, xs]) => ({ p, m: medianPhases(xs) }));
    const col = (f: (x: Phases) => number): string => {
        const xs = rows.map((r) => f(r.m));
        return `${fmtMs(median(xs))} / ${fmtMs(percentile(xs, 90))}`;
    };
    out(`${rows.length} of ${patterns.length} identifiers answered by the index (seed ${seed}, ${runs} runs each, the median per phase); ${loadAverages()}.\n`);
    out('| phase | median / p90 over queries |\n| --- | --- |');
    out(`| tool call | ${col((x) => x.total)} |`);
    out(`| before the plan | ${col((x) => x.before)} |`);
    out(`| plan, first part | ${col((x) => x.plan)} |`);
    out(`| plan, later parts | ${col((x) => x.parts)} |`);
    out(`| pool tasks, post to answer (summed) | ${col((x) => x.taskMs)} |`);
    out(`| after the search (output) | ${col((x) => x.after)} |`);
    out(`| plan's first part replayed alone, CPU time (mean of ${REPLAYS}) | ${col((x) => x.replay)} |`);
    out(`| pool tasks per search | ${median(rows.map((r) => r.m.tasks))} |`);
    out(`| candidates / handed out | ${median(rows.map((r) => r.m.candidates))} / ${median(rows.map((r) => r.m.handedOut))} |`);
    out('\n| pattern | total | before | plan | replayed | parts | tasks (ms) | after | candidates | handed out |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const { p, m } of rows.sort((a, b) => b.m.total - a.m.total)) {
        out(`| \`${p}\` | ${fmtMs(m.total)} | ${fmtMs(m.before)} | ${fmtMs(m.plan)} | ${fmtMs(m.replay)} | ${fmtMs(m.parts)} | ${m.tasks} (${fmtMs(m.taskMs)}) | ${fmtMs(m.after)} | ${m.candidates} | ${m.handedOut} |`);
    }
    await idx.close();
    await engine.close();
    await plain.close();
    const file = path.join(REPO, 'bench', 'results', `query-phases${scaled ? '-scaled' : ''}-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    console.log(`\nwritten to ${path.relative(REPO, file)}`);
}

function blank(): Phases {
    return { total: 0, before: 0, plan: 0, parts: 0, tasks: 0, taskMs: 0, after: 0, replay: 0, answered: false, candidates: 0, handedOut: 0 };
}

/** Each phase's median over the runs of one query. */
function medianPhases(xs: readonly Phases[]): Phases {
    const m = blank();
    for (const key of Object.keys(m) as (keyof Phases)[]) if (key !== 'answered') m[key] = median(xs.map((x) => x[key] as number));
    m.answered = true;
    return m;
}
