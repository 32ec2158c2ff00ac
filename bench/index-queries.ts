import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine.js';
import { AccessType, SearchEntriesTool, Workspace } from '../src/index.js';
import { SearchIndex } from '../src/search-index/search-index.js';
import { segmentReads } from '../src/search-index/shared/segment.js';
import type { TreeIndex } from '../src/search-index/tree-index.js';
import type { PlannedWalk } from '../src/search/backend.js';
import { benchArgs, fmtMB, fmtMs, intFlag, kernelTree, machine, median, raiseLimits, REPO, rgPattern, runPeer, versionOf, loadAverages } from './common.js';
import { mulberry32 } from './tree.js';

/**
 * Per-query cost of index-answered content searches, for identifiers sampled at random:
 *
 *   npm run bench -- index-queries [--scale N] [--no-merge] [--max-results N] [--reuse] [--queries 100] [--seed 1] [--runs 3] [--compare K] [--work DIR] [--keep]
 *
 * The index is built on the tree (the Linux tree; `--scale N`: N hard-linked copies of it, made
 * with `cp -al` in a temporary folder and removed after), then K identifiers (tokens of 6
 * characters or more, from files picked with a seeded generator: rare and common ones as they
 * come) are searched through the `search_entries` tool with the index ready. Per query: its
 * latency (median of `--runs`), the index's posting lookups (dictionary blocks read) and lists
 * read, the candidate files, the hits; then the same searches by the scan path (index off) and by
 * rg, the first `--compare` of them, each tool output compared with the scan path's (any
 * difference is a bug). Resident memory is read while serving.
 */

const loadLine = (): string => `load average ${loadAverages()}`;

/** Regular files of `dir` below 1 MiB (relative), sorted. */
function filesOf(dir: string): string[] {
    return execFileSync('find', ['.', '-type', 'f', '-size', '-1024k'], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 })
        .split('\n')
        .filter(Boolean)
        .sort();
}

/** `n` distinct identifiers (6+ characters) of text files of `dir`, sampled with `rand`: a file, then a token of it. */
export function sampleIdentifiers(dir: string, n: number, rand: () => number): string[] {
    const files = filesOf(dir);
    const out = new Set<string>();
    for (let tries = 0; out.size < n && tries < n * 100; tries++) {
        const text = fs.readFileSync(path.join(dir, files[Math.floor(rand() * files.length)]!), 'latin1');
        if (text.includes('\0')) continue;
        const words = text.match(/\b[A-Za-z_][A-Za-z0-9_]{5,}\b/g) ?? [];
        if (words.length > 0) out.add(words[Math.floor(rand() * words.length)]!);
    }
    return [...out];
}

export function percentile(xs: readonly number[], p: number): number {
    if (xs.length === 0) return NaN;
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** Lines of a tool output that are hits (what compare.ts counts). */
function hitLines(text: string): number {
    if (text.startsWith('[')) return NaN;
    return text.startsWith('No entries found') ? 0 : text.split('\n').filter((l) => l !== '' && !l.startsWith('[')).length;
}

interface Query {
    pattern: string;
    answered: boolean;
    ms: number[];
    planMs: number;
    lookups: number;
    lists: number;
    candidates: number;
    hits: number;
    text: string;
}

export async function indexQueriesMain(argv: readonly string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const scale = intFlag(flags, 'scale', 1);
    const k = intFlag(flags, 'queries', 100);
    const seed = intFlag(flags, 'seed', 1);
    const runs = intFlag(flags, 'runs', 3);
    const compareCount = intFlag(flags, 'compare', k);
    const kernel = kernelTree(flags);
    const work = path.resolve(flags.get('work') ?? path.join(os.tmpdir(), `lcf-index-queries-x${scale}`));
    const lines: string[] = [];
    const out = (s: string): void => {
        console.log(s);
        lines.push(s);
    };
    // --reuse: the copies and the index a run left in --work (kept, or left by a crash) are used again.
    const reuse = flags.has('reuse') && fs.existsSync(path.join(work, scale > 1 ? 'tree' : 'index'));
    if (!reuse) fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(work, { recursive: true });
    // --max-results N: outputs capped as the tool caps them (both paths stop at the same N hits in walk order).
    if (flags.has('max-results')) process.env['LLM_CHAT_FS_MAX_SEARCH_RESULTS'] = String(intFlag(flags, 'max-results', 1000));
    let root = kernel.root;
    out(`# Index queries, ${scale}× the Linux tree (${machine()})\n`);
    out(`\`npm run bench -- index-queries ${argv.join(' ')}\`; ${versionOf('rg')}\n`);
    if (scale > 1 && reuse) {
        root = fs.realpathSync(path.join(work, 'tree'));
        out(`Tree: ${scale} hard-linked copies of ${kernel.root} in ${root}, made by an earlier run (--reuse).\n`);
    } else if (scale > 1) {
        root = path.join(work, 'tree');
        fs.mkdirSync(root);
        const t0 = performance.now();
        for (let c = 0; c < scale; c++) execFileSync('cp', ['-al', kernel.root, path.join(root, `c${c}`)]);
        root = fs.realpathSync(root);
        out(`Tree: ${scale} hard-linked copies of ${kernel.root} in ${root}, made in ${fmtMs(performance.now() - t0)}.\n`);
    } else out(`Tree: ${root}.\n`);

    const limits = raiseLimits(kernel.largestFile);
    let idx!: SearchIndex;
    const merge = !flags.has('no-merge');
    const indexed = new Engine({ backends: [(e) => (idx = new SearchIndex(e.maxThreads, limits.file.maxFileSize, { dir: path.join(work, 'index'), merge }))] });
    const plain = new Engine();
    const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: root }], skipDirs: [], resolveSymlinks: true });
    const viaIndex = new SearchEntriesTool(ws, { engine: indexed, searchConfig: limits.search, fileConfig: limits.file });
    const viaScan = new SearchEntriesTool(ws, { engine: plain, searchConfig: limits.search, fileConfig: limits.file });
    const run = async (tool: SearchEntriesTool, pattern: string): Promise<{ ms: number; text: string }> => {
        const t0 = performance.now();
        const [res] = await tool.execute({ path: root, content_pattern: pattern });
        const ms = performance.now() - t0;
        // A failure (an output too long for a string) is a result too: both paths must give the same one.
        return { ms, text: res?.status === 'success' ? res.result : `[${res?.status}] ${res?.result}` };
    };

    const b0 = performance.now();
    const tree: TreeIndex = (await idx.warm(root, [], [root]))!;
    const st = tree.status();
    out(`${reuse ? 'Reopen' : 'Build'}: ${fmtMs(performance.now() - b0)} (${loadLine()}), ${st.entries} entries, ${fmtMB(st.diskBytes)} on disk, state ${tree.state}${st.error ? ` (${st.error})` : ''}.`);
    // The merge of the build's segments (unless --no-merge) ends before the queries are timed.
    const m0 = performance.now();
    await tree.settled();
    const merged = tree.status();
    const how = !merge ? ' (--no-merge: as the build wrote them)' : reuse ? ' (as stored)' : `, after a merge of ${fmtMs(performance.now() - m0)} (${fmtMB(merged.diskBytes)} on disk)`;
    out(`Segments served: ${merged.segments}${how}.`);

    const patterns = sampleIdentifiers(scale > 1 ? path.join(root, 'c0') : root, k, mulberry32(seed));
    out(`\n${patterns.length} identifiers sampled with seed ${seed}; each searched ${runs} times through \`search_entries\` with the index ready (${loadLine()}).\n`);

    // Plan time: the host's part of an index-answered search (posting lists and the table walk),
    // every part of it (the later ones are made while the workers scan).
    let planMs = 0;
    const timed = <T>(f: () => T): T => {
        const t0 = performance.now();
        try {
            return f();
        } finally {
            planMs += performance.now() - t0;
        }
    };
    const parts = (w: PlannedWalk | null): PlannedWalk | null => (w === null || w.more === null ? w : { segments: w.segments, more: () => parts(timed(w.more!))! });
    const plan = tree.plan.bind(tree);
    tree.plan = (...a) => parts(timed(() => plan(...a)));
    const qs: Query[] = patterns.map((pattern) => ({ pattern, answered: false, ms: [], planMs: 0, lookups: 0, lists: 0, candidates: 0, hits: 0, text: '' }));
    for (let r = 0; r < runs; r++) {
        for (const q of qs) {
            const before = tree.counts.answered;
            const l0 = segmentReads.lookups;
            const s0 = segmentReads.lists;
            planMs = 0;
            const { ms, text } = await run(viaIndex, q.pattern);
            q.ms.push(ms);
            if (r === 0) {
                q.answered = tree.counts.answered > before;
                q.lookups = segmentReads.lookups - l0;
                q.lists = segmentReads.lists - s0;
                q.candidates = q.answered ? tree.lastPlan.candidates : NaN;
                q.planMs = planMs;
                q.text = text;
                q.hits = hitLines(text);
            }
        }
    }
    const rss = process.memoryUsage().rss;
    const answered = qs.filter((q) => q.answered);
    const lat = answered.map((q) => median(q.ms));
    const first = answered.map((q) => q.ms[0]!);
    const f = (xs: number[]): string => `median ${fmtMs(median(xs))}, p90 ${fmtMs(percentile(xs, 90))}, max ${fmtMs(Math.max(...xs))}`;
    const num = (all: number[]): string => {
        const xs = all.filter((x) => !Number.isNaN(x));
        return `median ${median(xs).toFixed(0)}, p90 ${percentile(xs, 90).toFixed(0)}, max ${Math.max(...xs).toFixed(0)}`;
    };
    out(`## Index-answered searches (${answered.length} of ${qs.length}; the others took the scan path)\n`);
    out(`- latency (median of ${runs} runs per query): ${f(lat)}`);
    out(`- latency of the first run (a pattern not planned before): ${f(first)}`);
    const small = answered.filter((q) => q.hits <= 100);
    out(`- latency of the ${small.length} with at most 100 hit lines: ${f(small.map((q) => median(q.ms)))}`);
    out(`- host's plan (posting lists and table walk, every part), first run: ${f(answered.map((q) => q.planMs))}`);
    out(`- posting lookups (dictionary blocks read) per query: ${num(answered.map((q) => q.lookups))}; lists read: ${num(answered.map((q) => q.lists))}`);
    out(`- candidate files per query: ${num(answered.map((q) => q.candidates))}; hit lines: ${num(answered.map((q) => q.hits))}`);
    out(`- resident memory while serving: ${fmtMB(rss)}`);
    out(`- ${loadLine()}`);

    // The scan path and rg, on the first `compareCount` queries.
    const cmp = qs.slice(0, compareCount);
    let differ = 0;
    const scanMs: number[] = [];
    const rgMs: number[] = [];
    const rgDiffer: string[] = [];
    for (const q of cmp) {
        const s = await run(viaScan, q.pattern);
        scanMs.push(s.ms);
        if (s.text !== q.text) {
            differ++;
            console.error(`DIFFERENT: ${q.pattern}: index ${q.hits} hit lines, scan ${hitLines(s.text)}`);
        }
        const g = await runPeer('rg', ['-uu', '-i', '-n', '-L', rgPattern(q.pattern), root]);
        rgMs.push(g.ms);
        if (g.lines !== hitLines(s.text)) rgDiffer.push(`${q.pattern} (${hitLines(s.text)} / rg ${g.lines})`);
    }
    out(`\n## Against the scan path and rg (${cmp.length} queries, ${loadLine()})\n`);
    out(`- index answers equal to the scan path's (tool output byte for byte): ${cmp.length - differ} of ${cmp.length}${differ > 0 ? ` — ${differ} DIFFER (a bug)` : ''}`);
    out(`- scan path: ${f(scanMs)}`);
    out(`- rg -uu -i -n -L: ${f(rgMs)}`);
    out(`- hit-line counts equal to rg's: ${cmp.length - rgDiffer.length} of ${cmp.length}${rgDiffer.length > 0 ? ` (differ: ${rgDiffer.slice(0, 5).join(', ')})` : ''}`);

    out(`\n## Per query\n\n| pattern | index | candidates | lookups | lists | hit lines |\n| --- | --- | --- | --- | --- | --- |`);
    for (const q of [...qs].sort((a, b) => median(b.ms) - median(a.ms))) out(`| \`${q.pattern}\` | ${q.answered ? fmtMs(median(q.ms)) : `scan path, ${fmtMs(median(q.ms))}`} | ${q.answered ? q.candidates : '-'} | ${q.lookups} | ${q.lists} | ${q.hits} |`);

    await idx.close();
    await indexed.close();
    await plain.close();
    if (!flags.has('keep')) fs.rmSync(work, { recursive: true, force: true });
    // A run capped by --max-results is another suite's result: it does not replace the uncapped one.
    const capped = flags.has('max-results') ? `-max${intFlag(flags, 'max-results', 1000)}` : '';
    const file = path.join(REPO, 'bench', 'results', `index-queries${capped}${scale > 1 ? `-x${scale}` : ''}-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    console.log(`\nwritten to ${path.relative(REPO, file)}`);
}
