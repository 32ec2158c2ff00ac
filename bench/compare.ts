import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccessType, SearchEntriesTool, Workspace } from '../src/index.js';
import { Engine } from '../src/internals.js';
import type { SearchRequest } from '../src/search/shared/types.js';
import { searchRootAt } from '../src/search/prepare.js';
import {
    fmtMB,
    fmtMs,
    fmtRatio,
    have,
    intFlag,
    machine,
    median,
    benchArgs,
    pickTree,
    raiseLimits,
    REPO,
    request,
    runPeer,
    versionOf,
    workerNiceFlag,
    type BenchTree,
    type Checks,
} from './common.js';

/**
 * Side-by-side: the same searches with our engine and with ripgrep / fd, in one process with a
 * warm pool (one Engine reused, one warm-up run of each), alternating runs, medians, the ratio
 * per scenario and both match counts, for symlink checks on (the tool's default) and off.
 *
 *   node dist/bench/compare.js --tree kernel|synthetic [--runs 7] [--files 200000] [--seed 1]
 *        [--only full-scan,name,...,peak-rss] [--no-follow] [--threads N] [--worker-nice N] [--out bench/results]
 *        [--cold-runs 3] [--rss-threads 2,16]
 *
 * Peers follow symlinks (`-L`) by default because our search does (to targets inside the
 * accesses), so both do the same work and find the same entries; `--no-follow` runs the peers
 * exactly as `rg -uu -i -n` / `fdfind -u -i`.
 *
 * Cold page cache: the scenarios marked `cold` run again `--cold-runs` times (0: not at all) with
 * the caches dropped before every run of every contender (`sync; echo 3 >
 * /proc/sys/vm/drop_caches`, needs root), alternating as the warm runs do.
 *
 * Peak memory: a fresh child process per symlink mode and per core count of `--rss-threads`
 * (default: this machine's core count and 16) runs the heavy searches once with the default
 * `new Engine()` on a host reporting that many cores (`os.availableParallelism()` replaced in the
 * child, so the engine sizes its pool as it would there); the target holds only when every one of
 * them stays under 250 MB, so memory does not grow with the number of cores.
 */

const RG = 'rg';
const FD = have('fdfind') ? 'fdfind' : 'fd';

/** What a scenario's measurement returns. */
interface Sample {
    ms: number;
    count: number;
    note?: string;
}

type Target =
    | { kind: 'ratio'; max: number; label: string }
    | { kind: 'ms'; max: number; label: string }
    | { kind: 'none' };

interface Scenario {
    key: string;
    title: string;
    ours: (checks: Checks) => Promise<Sample>;
    /** Also measured with a cold page cache (caches dropped before each run of each contender). */
    cold?: boolean;
    /** Peer command (binary, args) and how many lines end it early. */
    peer?: { cmd: string; args: string[]; stopAfter?: number };
    target: Target;
    /** Counts must be equal (a target of their own). */
    countsEqual: boolean;
    /** Runs of this scenario (default: --runs). */
    runs?: number;
    /** Extra text after the table. */
    after?: () => string;
}

interface Row {
    scenario: Scenario;
    ours: Record<Checks, Sample[]>;
    peer: Sample[];
}

const CHECKS: Checks[] = ['on', 'off'];

async function main(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    if (flags.has('child-rss')) return childRss();
    const runs = intFlag(flags, 'runs', 7);
    const follow = !flags.has('no-follow');
    const tree = await pickTree(flags);
    const limits = raiseLimits(tree.largestFile);
    const threads = flags.has('threads') ? intFlag(flags, 'threads', 1) : undefined;
    if (threads !== undefined) process.env['BENCH_THREADS'] = String(threads);
    const engine = new Engine({ ...(threads !== undefined ? { maxThreads: threads } : {}), ...workerNiceFlag(flags) });
    const only = flags.get('only')?.split(',');
    const L = follow ? ['-L'] : [];
    const iso = tree.modifiedAfter.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const req = (checks: Checks, extra: Partial<SearchRequest>): SearchRequest => request(tree, limits, checks, extra);

    const search = async (checks: Checks, extra: Partial<SearchRequest>): Promise<Sample> => {
        const t0 = performance.now();
        const out = await engine.search(req(checks, extra), { timeoutMs: limits.search.timeoutMs });
        const ms = performance.now() - t0;
        if (out.stop !== 'done' && out.stop !== 'max_results') throw new Error(`search stopped early: ${out.stop}`);
        return { ms, count: out.hits.length };
    };

    const tools: Record<Checks, SearchEntriesTool> = {
        on: toolFor(tree.root, true, engine, limits),
        off: toolFor(tree.root, false, engine, limits),
    };
    const viaTool = async (checks: Checks, args: Record<string, unknown>): Promise<Sample> => {
        const t0 = performance.now();
        const [res] = await tools[checks].execute(args);
        const ms = performance.now() - t0;
        if (!res || res.status !== 'success') throw new Error(`search_entries failed: ${res?.result}`);
        const text = res.result;
        const count = text.startsWith('No entries found') ? 0 : text.split('\n').filter((l) => l !== '' && !l.startsWith('[')).length;
        return { ms, count };
    };

    const evil = makeCatastrophicDir();
    const all: Scenario[] = [
        {
            key: 'full-scan',
            title: `Full scan: literal found nowhere (\`${tree.absent}\`)`,
            ours: (c) => search(c, { contentPattern: tree.absent }),
            peer: { cmd: RG, args: ['-uu', '-i', '-n', ...L, tree.absent, tree.root] },
            target: { kind: 'ratio', max: 1.5, label: '≤ 1.5× rg' },
            countsEqual: true,
            cold: true,
        },
        {
            key: 'regex',
            title: `Full scan: regex, many matches (\`${tree.manyRegex}\`)`,
            ours: (c) => search(c, { contentPattern: tree.manyRegex }),
            peer: { cmd: RG, args: ['-uu', '-i', '-n', ...L, tree.manyRegex, tree.root] },
            target: { kind: 'ratio', max: 1.5, label: '≤ 1.5× rg' },
            countsEqual: true,
        },
        {
            key: 'name',
            title: `Name search (\`${tree.name}\`)`,
            ours: (c) => search(c, { namePattern: tree.name }),
            peer: { cmd: FD, args: ['-u', '-i', ...L, tree.name, tree.root] },
            target: { kind: 'ratio', max: 1.2, label: '≤ 1.2× fd' },
            countsEqual: true,
            cold: true,
        },
        {
            key: 'walk',
            title: 'Every entry, no filter',
            ours: (c) => search(c, {}),
            peer: { cmd: FD, args: ['-u', ...L, '.', tree.root] },
            target: { kind: 'ratio', max: 1.2, label: '≤ 1.2× fd' },
            countsEqual: true,
        },
        {
            key: 'mtime',
            title: `Timestamp filter: files modified after ${iso}`,
            ours: (c) => search(c, { type: 'file', modifiedAfter: tree.modifiedAfter.getTime() }),
            peer: { cmd: FD, args: ['-u', ...L, '-t', 'f', '--changed-after', iso, '.', tree.root] },
            target: { kind: 'none' },
            countsEqual: true,
        },
        {
            key: 'max-results',
            title: `Stopped by max_results 50 (\`${tree.common}\`; ours: the first 50 in path order; rg: its first 50 lines, unordered)`,
            ours: (c) => search(c, { contentPattern: tree.common, maxResults: 50 }),
            peer: { cmd: RG, args: ['-uu', '-i', '-n', ...L, tree.common, tree.root], stopAfter: 50 },
            target: { kind: 'ratio', max: 1.5, label: '≤ 1.5× rg' },
            countsEqual: true,
        },
        {
            key: 'max-results-sorted',
            title: `Stopped by max_results 50 (\`${tree.common}\`), against rg's first 50 in path order (\`--sort path\`, one thread): the floor of an ordered stop`,
            ours: (c) => search(c, { contentPattern: tree.common, maxResults: 50 }),
            peer: { cmd: RG, args: ['-uu', '-i', '-n', '--sort', 'path', ...L, tree.common, tree.root], stopAfter: 50 },
            target: { kind: 'none' },
            countsEqual: true,
        },
        {
            key: 'first-match',
            title: `First streamed match (\`${tree.common}\`, Engine.stream; rg: its first line)`,
            ours: async (c) => {
                const t0 = performance.now();
                const it = engine.stream(req(c, { contentPattern: tree.common }), { timeoutMs: limits.search.timeoutMs });
                const first = await it.next();
                const ms = performance.now() - t0;
                await it.return(undefined); // stops the search; resolves when no work is left
                const stopMs = performance.now() - t0 - ms;
                return { ms, count: first.done ? 0 : 1, note: `stopped ${stopMs.toFixed(0)} ms later` };
            },
            peer: { cmd: RG, args: ['-uu', '-i', '-n', ...L, tree.common, tree.root], stopAfter: 1 },
            target: { kind: 'ms', max: 50, label: '< 50 ms' },
            countsEqual: true,
        },
        {
            key: 'tool-full-scan',
            title: 'search_entries tool (full scan, limits from LLM_CHAT_FS_*)',
            ours: (c) => viaTool(c, { content_pattern: tree.absent }),
            peer: { cmd: RG, args: ['-uu', '-i', '-n', ...L, tree.absent, tree.root] },
            target: { kind: 'ratio', max: 1.5, label: '≤ 1.5× rg' },
            countsEqual: true,
        },
        {
            key: 'tool-name',
            title: 'search_entries tool (name search, every hit listed)',
            ours: (c) => viaTool(c, { name_pattern: tree.name }),
            peer: { cmd: FD, args: ['-u', '-i', ...L, tree.name, tree.root] },
            target: { kind: 'none' },
            countsEqual: true,
        },
        {
            key: 'catastrophic',
            title: `Catastrophic regex \`(a+)+$\`, timeoutMs 1000 (a ${evil.lineLength}-char 'aaa…!' line; time until the call returns)`,
            ours: async (c) => {
                const t0 = performance.now();
                const out = await engine.search(
                    { root: searchRootAt(evil.dir, c === 'on' ? [evil.dir] : null), type: 'both', contentPattern: '(a+)+$', maxResults: 1e9, maxFileSize: 1 << 26, maxTotalEntries: 1e9, skipDirs: [] },
                    { timeoutMs: 1000 },
                );
                const ms = performance.now() - t0;
                // The next call works normally (the stuck worker was replaced).
                const t1 = performance.now();
                const next = await engine.search(
                    { root: searchRootAt(evil.dir), type: 'both', contentPattern: 'hello', maxResults: 1e9, maxFileSize: 1 << 26, maxTotalEntries: 1e9, skipDirs: [] },
                    { timeoutMs: 10_000 },
                );
                const ok = next.stop === 'done' && next.hits.length === evil.helloLines;
                return { ms, count: out.hits.length, note: `stop: ${out.stop}; next call ${ok ? 'OK' : 'WRONG'} (${next.hits.length} hits in ${(performance.now() - t1).toFixed(0)} ms)` };
            },
            peer: { cmd: RG, args: ['-uu', '-i', '-n', '(a+)+$', evil.dir] },
            target: { kind: 'ms', max: 2000, label: '< 2 s' },
            countsEqual: false,
            runs: Math.min(runs, 3),
        },
    ];
    const coldRuns = flags.has('cold-runs') ? Number(flags.get('cold-runs')) : 3;
    if (!Number.isSafeInteger(coldRuns) || coldRuns < 0) throw new Error(`Invalid --cold-runs ${flags.get('cold-runs')}: expected 0 or a positive whole number.`);
    // The cold-cache variants follow all warm scenarios, so that the warm ones run on a warm cache.
    const cold: Scenario[] = coldRuns === 0 ? [] : all.filter((s) => s.cold).map((s) => ({ ...s, key: `${s.key}-cold`, title: `${s.title}, cold page cache`, runs: coldRuns }));
    const scenarios = [...all, ...cold].filter((s) => !only || only.includes(s.key) || (s.key.endsWith('-cold') && only.includes('cold')));

    const rows: Row[] = [];
    console.error(`${tree.description}\n${machine()}\nlimits: ${JSON.stringify(limits.env)}`);
    for (const s of scenarios) {
        const row: Row = { scenario: s, ours: { on: [], off: [] }, peer: [] };
        const peer = async (): Promise<Sample> => {
            const r = await runPeer(s.peer!.cmd, s.peer!.args, s.peer!.stopAfter);
            return { ms: r.ms, count: r.lines };
        };
        const isCold = s.key.endsWith('-cold');
        if (!isCold) {
            // Warm-up: one run of each, not counted.
            for (const c of CHECKS) await s.ours(c);
            if (s.peer) await peer();
        }
        const n = s.runs ?? runs;
        for (let i = 0; i < n; i++) {
            // Alternating, in a rotating order so that no side always runs right after the other.
            const order: ('on' | 'off' | 'peer')[] = (['on', 'peer', 'off'] as const).map((_, k, a) => a[(k + i) % a.length]!);
            for (const who of order) {
                if (isCold) dropCaches();
                if (who === 'peer') {
                    if (s.peer) row.peer.push(await peer());
                } else {
                    row.ours[who].push(await s.ours(who));
                }
            }
        }
        rows.push(row);
        const m = (xs: Sample[]): string => fmtMs(median(xs.map((x) => x.ms)));
        console.error(
            `${s.key}: on ${m(row.ours.on)} [${row.ours.on.map((x) => x.ms.toFixed(0)).join(' ')}], off ${m(row.ours.off)} [${row.ours.off.map((x) => x.ms.toFixed(0)).join(' ')}], ` +
                `peer ${m(row.peer)} [${row.peer.map((x) => x.ms.toFixed(0)).join(' ')}]; counts ${row.ours.on[0]?.count}/${row.ours.off[0]?.count}/${row.peer[0]?.count ?? '-'}`,
        );
    }

    const rssThreads = (flags.get('rss-threads') ?? `${threads ?? os.availableParallelism()},16`).split(',').map(Number);
    if (rssThreads.some((t) => !Number.isSafeInteger(t) || t < 1)) throw new Error(`Invalid --rss-threads ${flags.get('rss-threads')}: expected core counts such as 2,16.`);
    const rss = only && !only.includes('peak-rss') ? null : await peakRss(tree, limits.env, follow, rssThreads);
    await engine.close();
    fs.rmSync(evil.dir, { recursive: true, force: true });

    const md = report(tree, rows, rss, { runs, coldRuns, follow, limits: limits.env, argv });
    console.log(md);
    const outDir = path.resolve(flags.get('out') ?? path.join(REPO, 'bench', 'results'));
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${tree.id}-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, md);
    console.error(`written to ${path.relative(process.cwd(), file) || file}`);
}

function toolFor(root: string, resolveSymlinks: boolean, engine: Engine, limits: ReturnType<typeof raiseLimits>): SearchEntriesTool {
    const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: root }], skipDirs: [], resolveSymlinks });
    return new SearchEntriesTool(ws, { engine, searchConfig: limits.search, fileConfig: limits.file });
}

/** A temp directory with one runaway line for `(a+)+$` and a few ordinary lines. */
function makeCatastrophicDir(): { dir: string; lineLength: number; helloLines: number } {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'llm-chat-file-bench-evil-'));
    const lineLength = 50_000;
    fs.writeFileSync(path.join(dir, 'evil.txt'), 'hello\n' + 'a'.repeat(lineLength - 1) + '!\n');
    fs.writeFileSync(path.join(dir, 'ok.txt'), 'hello aaa\nbbb\nhello\n');
    return { dir, lineLength, helloLines: 3 };
}

interface RssSample {
    /** Cores the child's host reports. */
    cores: number;
    /** Worker threads the default engine chose for them. */
    threads: number;
    maxRssKB: number;
    sampledKB: number;
    ms: number;
}

interface RssResult {
    checks: Record<Checks, RssSample[]>;
    peerKB: number | null;
    peerWhat: string;
}

/** Peak resident memory target of the benchmark process, per thread count. */
const RSS_LIMIT_MB = 250;

/** Drops the page, dentry and inode caches (root only), after writing dirty pages back. */
function dropCaches(): void {
    try {
        execFileSync('sh', ['-c', 'sync; echo 3 > /proc/sys/vm/drop_caches'], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
        throw new Error(`Could not drop the page cache (needs root): ${err instanceof Error ? err.message : String(err)}; run with --cold-runs 0 to skip the cold-cache runs.`);
    }
}

/**
 * Peak resident memory: a fresh child process per mode and thread count runs the heavy
 * scenarios (full scan, many-match regex, name search, every entry, max_results, first streamed
 * match) and reports its `process.resourceUsage().maxRSS` (worker threads included) and a 10 ms
 * sample of `rss`.
 */
async function peakRss(tree: BenchTree, env: Record<string, string>, follow: boolean, threadCounts: number[]): Promise<RssResult> {
    const self = fileURLToPath(import.meta.url);
    const checks: RssResult['checks'] = { on: [], off: [] };
    for (const c of CHECKS) {
        for (const cores of threadCounts) {
            const job = { root: tree.root, checks: c, absent: tree.absent, manyRegex: tree.manyRegex, name: tree.name, common: tree.common };
            const out = await new Promise<string>((resolve, reject) => {
                const child = spawn(process.execPath, [self, '--child-rss'], {
                    env: { ...process.env, ...env, BENCH_RSS_JOB: JSON.stringify(job), BENCH_CORES: String(cores) },
                    stdio: ['ignore', 'pipe', 'inherit'],
                });
                let buf = '';
                child.stdout.on('data', (d: Buffer) => (buf += d.toString()));
                child.on('error', reject);
                child.on('close', (code) => (code === 0 ? resolve(buf) : reject(new Error(`peak-rss child exited with ${code}`))));
            });
            checks[c].push({ cores, ...(JSON.parse(out) as Omit<RssSample, 'cores'>) });
        }
    }
    let peerKB: number | null = null;
    const what = `rg -uu -i -n${follow ? ' -L' : ''} '${tree.manyRegex}'`;
    try {
        peerKB = spawnTime(['-f', '%M', RG, '-uu', '-i', '-n', ...(follow ? ['-L'] : []), tree.manyRegex, tree.root]);
    } catch {
        peerKB = null;
    }
    return { checks, peerKB, peerWhat: what };
}

/** Runs GNU time on a command (stdout discarded), returns the max RSS in KB it prints. */
function spawnTime(args: string[]): number | null {
    if (!fs.existsSync('/usr/bin/time')) return null;
    const out = execFileSync('sh', ['-c', `/usr/bin/time ${args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')} 2>&1 >/dev/null | tail -n 1`], { encoding: 'utf8' });
    const kb = Number(out.trim());
    return Number.isFinite(kb) ? kb : null;
}

/** The child side of {@link peakRss}. */
async function childRss(): Promise<void> {
    const job = JSON.parse(process.env['BENCH_RSS_JOB']!) as { root: string; checks: Checks; absent: string; manyRegex: string; name: string; common: string };
    let sampled = process.memoryUsage.rss();
    const timer = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage.rss())), 10);
    const limits = raiseLimits(0);
    const tree = { root: job.root } as BenchTree;
    // The host's core count as the engine sees it: the default pool is sized from it.
    const cores = Number(process.env['BENCH_CORES']);
    if (Number.isSafeInteger(cores) && cores > 0) os.availableParallelism = () => cores;
    const engine = new Engine();
    const t0 = performance.now();
    const run = (extra: Partial<SearchRequest>): Promise<unknown> => engine.search(request(tree, limits, job.checks, extra), { timeoutMs: limits.search.timeoutMs });
    await run({ contentPattern: job.absent });
    await run({ contentPattern: job.manyRegex });
    await run({ namePattern: job.name });
    await run({});
    await run({ contentPattern: job.common, maxResults: 50 });
    for await (const _ of engine.stream(request(tree, limits, job.checks, { contentPattern: job.common }))) break;
    const ms = performance.now() - t0;
    await engine.close();
    clearInterval(timer);
    sampled = Math.max(sampled, process.memoryUsage.rss());
    process.stdout.write(JSON.stringify({ threads: engine.maxThreads, maxRssKB: process.resourceUsage().maxRSS, sampledKB: Math.round(sampled / 1024), ms }));
}

function report(tree: BenchTree, rows: Row[], rss: RssResult | null, opts: { runs: number; coldRuns: number; follow: boolean; limits: Record<string, string>; argv: string[] }): string {
    const lines: string[] = [];
    const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const cmd = `node dist/bench/compare.js ${opts.argv.join(' ')}`.trim();
    lines.push(`## Search benchmark: ${tree.id} tree (${date})`);
    lines.push('');
    lines.push(`- Tree: ${tree.description}`);
    lines.push(`- Machine: ${machine()}`);
    lines.push(`- Peers: ${versionOf(RG)}, ${versionOf(FD)}${opts.follow ? ', run with `-L` (follow symlinks, as our search does)' : ', run without `-L`'}`);
    lines.push(`- Method: one process, one warm Engine (${process.env['BENCH_THREADS'] ?? os.availableParallelism()} worker threads), one warm-up run of each, then ${opts.runs} alternating runs (rotating order) of ours (checks on), the peer and ours (checks off); medians. Peers are spawned and their output lines counted. Cold-cache rows: ${opts.coldRuns} alternating runs, no warm-up, with \`sync; echo 3 > /proc/sys/vm/drop_caches\` before every run of every contender.`);
    lines.push(`- Limits raised through the environment: ${Object.entries(opts.limits).map(([k, v]) => `\`${k}=${v}\``).join(', ')}; skipDirs empty (the peers skip nothing either).`);
    lines.push(`- Command: \`${cmd}\` (or \`npm run bench -- compare ${opts.argv.join(' ')}\`)`);
    lines.push('');
    const verdicts: { target: string; mode: string; measured: string; pass: boolean }[] = [];
    for (const c of CHECKS) {
        lines.push(c === 'on' ? '### Symlink checks on (the tool default: `realRoots` = the tree, directories pinned)' : '### Symlink checks off (`realRoots: null`)');
        lines.push('');
        lines.push('| scenario | ours (median) | peer (median) | ratio | our count | peer count | target | result |');
        lines.push('| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |');
        for (const r of rows) {
            const s = r.scenario;
            const ours = median(r.ours[c].map((x) => x.ms));
            const peer = r.peer.length > 0 ? median(r.peer.map((x) => x.ms)) : NaN;
            const ourCounts = [...new Set(r.ours[c].map((x) => x.count))];
            const peerCounts = [...new Set(r.peer.map((x) => x.count))];
            const ourCount = ourCounts.join('/');
            const peerCount = peerCounts.length > 0 ? peerCounts.join('/') : '–';
            const results: string[] = [];
            const targets: string[] = [];
            if (s.target.kind === 'ratio') {
                const pass = ours <= s.target.max * peer;
                targets.push(s.target.label);
                results.push(pass ? 'PASS' : 'FAIL');
                verdicts.push({ target: `${s.key} ${s.target.label}`, mode: c, measured: fmtRatio(ours, peer), pass });
            } else if (s.target.kind === 'ms') {
                const pass = ours < s.target.max;
                targets.push(s.target.label);
                results.push(pass ? 'PASS' : 'FAIL');
                verdicts.push({ target: `${s.key} ${s.target.label}`, mode: c, measured: fmtMs(ours), pass });
            }
            if (s.countsEqual && r.peer.length > 0) {
                const pass = ourCounts.length === 1 && peerCounts.length === 1 && ourCounts[0] === peerCounts[0];
                targets.push('counts equal');
                results.push(pass ? 'PASS' : 'FAIL');
                verdicts.push({ target: `${s.key} counts equal`, mode: c, measured: `${ourCount} vs ${peerCount}`, pass });
            }
            const notes = [...new Set(r.ours[c].map((x) => x.note).filter((x): x is string => x !== undefined))];
            const title = notes.length > 0 ? `${s.title}; ${notes[0]}` : s.title;
            lines.push(`| ${title} | ${fmtMs(ours)} | ${fmtMs(peer)} | ${fmtRatio(ours, peer)} | ${ourCount} | ${peerCount} | ${targets.join(', ') || '–'} | ${results.join(', ') || '–'} |`);
        }
        for (const x of rss?.checks[c] ?? []) {
            const pass = x.maxRssKB * 1024 < RSS_LIMIT_MB * 1024 * 1024;
            verdicts.push({ target: `peak RSS < ${RSS_LIMIT_MB} MB, ${x.cores} cores`, mode: c, measured: fmtMB(x.maxRssKB * 1024), pass });
            lines.push(
                `| Peak RSS of a fresh process on a host with ${x.cores} cores (default Engine: ${x.threads} worker threads) running the searches above once (maxRSS; sampled rss peak ${fmtMB(x.sampledKB * 1024)}; peer: ${rss!.peerWhat}) | ${fmtMB(x.maxRssKB * 1024)} | ${rss!.peerKB === null ? 'n/a' : fmtMB(rss!.peerKB * 1024)} | ${rss!.peerKB === null ? 'n/a' : fmtRatio(x.maxRssKB, rss!.peerKB)} | – | – | < ${RSS_LIMIT_MB} MB | ${pass ? 'PASS' : 'FAIL'} |`,
            );
        }
        lines.push('');
    }
    lines.push('### Targets');
    lines.push('');
    lines.push('| target | checks | measured | result |');
    lines.push('| --- | --- | --- | --- |');
    for (const v of verdicts) lines.push(`| ${v.target} | ${v.mode} | ${v.measured} | ${v.pass ? 'PASS' : 'FAIL'} |`);
    lines.push('');
    lines.push('Peer commands (`<root>` = the tree):');
    lines.push('');
    for (const r of rows) {
        if (r.scenario.peer && !r.scenario.key.endsWith('-cold')) {
            const p = r.scenario.peer;
            const shown = p.args.map((a) => (a === tree.root ? '<root>' : a.includes('llm-chat-file-bench-evil-') ? '<temp dir>' : /[^\w./=-]/.test(a) ? `'${a}'` : a));
            lines.push(`- ${r.scenario.key}: \`${p.cmd} ${shown.join(' ')}\`${p.stopAfter ? ` (killed after ${p.stopAfter} line${p.stopAfter > 1 ? 's' : ''})` : ''}`);
        }
    }
    if (tree.manifest) {
        const e = tree.manifest.expected;
        lines.push('');
        lines.push(`Known answers of the synthetic tree (counted by the generator): \`${tree.manyRegex}\` ${e.manyRegexLines} lines, \`${tree.common}\` ${e.commonLines} lines, names with \`${tree.name}\` ${e.nameEntries}, files modified after ${tree.manifest.recentAfter} ${e.recentFiles}.`);
    }
    lines.push('');
    return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
    main(process.argv.slice(2)).catch((err: unknown) => {
        console.error(err instanceof Error ? (err.stack ?? err.message) : err);
        process.exitCode = 1;
    });
}

export { main as compareMain };
