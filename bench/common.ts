import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AccessType, FileConfiguration, SearchConfiguration, type Access } from '../src/index.js';
import type { SearchRequest } from '../src/search/shared/types.js';
import { searchRootAt } from '../src/search/prepare.js';
import { ensureTree, type TreeManifest } from './tree.js';
import { RegExpParser, visitRegExpAST, type AST } from '@eslint-community/regexpp';

/**
 * Shared pieces of the benchmarks: the trees, the limits (raised through `LLM_CHAT_FS_*`), the
 * request builder, running a native peer (ripgrep, fd) and the statistics.
 */

/** The repository root (bench files run from dist/bench/). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every flag of the benchmark commands (see run.ts): `--name value` options and `--flag` switches. */
const BENCH_OPTIONS = {
    tree: { type: 'string' },
    dir: { type: 'string' },
    files: { type: 'string' },
    seed: { type: 'string' },
    runs: { type: 'string' },
    iterations: { type: 'string' },
    threads: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string' },
    'read-files': { type: 'string' },
    'modified-after': { type: 'string' },
    force: { type: 'boolean' },
    'no-follow': { type: 'boolean' },
    'child-rss': { type: 'boolean' },
    cli: { type: 'string' },
    calls: { type: 'string' },
    rounds: { type: 'string' },
    // index (bench/index.ts) and planner (bench/planner.ts)
    'index-dir': { type: 'string' },
    reuse: { type: 'boolean' },
    'corpus-only': { type: 'boolean' },
    'no-corpus': { type: 'boolean' },
    'build-only': { type: 'boolean' },
    'corpus-from': { type: 'string' },
    progress: { type: 'boolean' },
    text: { type: 'string' },
    'cold-runs': { type: 'string' },
    'rss-threads': { type: 'string' },
    pattern: { type: 'string' },
    checks: { type: 'string' },
    repeat: { type: 'string' },
    // alternation (bench/alternation.ts)
    patterns: { type: 'string' },
    width: { type: 'string' },
    // symbols (bench/symbols.ts)
    corpora: { type: 'string' },
    langs: { type: 'string' },
    // encodings (bench/encodings.ts)
    seeds: { type: 'string' },
    // churn (bench/churn.ts)
    scale: { type: 'string' },
    searches: { type: 'string' },
    work: { type: 'string' },
    keep: { type: 'boolean' },
    // index-queries (bench/index-queries.ts)
    queries: { type: 'string' },
    compare: { type: 'string' },
    'no-merge': { type: 'boolean' },
    'max-results': { type: 'string' },
    // serving-memory (bench/serving-memory.ts), reopen (bench/reopen.ts): a run in a fresh process
    child: { type: 'boolean' },
    // symbols-index (bench/symbols-index.ts): the symbol table made again
    rebuild: { type: 'boolean' },
    // sched-group (bench/sched-group.ts)
    seconds: { type: 'string' },
    // reopen (bench/reopen.ts): files changed while no process watched
    changed: { type: 'string' },
    // mcp-memory (bench/mcp-memory.ts): milliseconds left for a background merge
    settle: { type: 'string' },
    // compare and event-loop: the engine's pool threads' nice value (src/engine/engine.ts workerNice)
    'worker-nice': { type: 'string' },
    // monorepo (bench/monorepo.ts)
    scales: { type: 'string' },
    skip: { type: 'string' },
    'small-files': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/**
 * The benchmark commands' arguments, parsed by `node:util` `parseArgs`: flags by name (a switch
 * as `'true'`) and positional words. Throws on an unknown flag or a missing value.
 */
export function benchArgs(argv: readonly string[]): { flags: Map<string, string>; words: string[] } {
    const { values, positionals } = parseArgs({ args: [...argv], options: BENCH_OPTIONS, allowPositionals: true, strict: true });
    const flags = new Map<string, string>();
    for (const [name, value] of Object.entries(values)) if (value !== undefined) flags.set(name, String(value));
    return { flags, words: positionals };
}

export function intFlag(flags: Map<string, string>, name: string, fallback: number): number {
    const raw = flags.get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw.replace(/_/g, '').replace(/k$/i, '000'));
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`Invalid --${name} ${raw}: expected a positive whole number (e.g. 200000 or 200k).`);
    return n;
}

/** `--worker-nice N` as an Engine option (a whole number written in decimal; the Engine checks 0 to 19); none: the Engine's default. */
export function workerNiceFlag(flags: Map<string, string>): { workerNice?: number } {
    const raw = flags.get('worker-nice');
    if (raw === undefined) return {};
    if (!/^\d+$/.test(raw)) throw new Error(`Invalid --worker-nice ${JSON.stringify(raw)}: expected a whole number from 0 to 19.`);
    return { workerNice: Number(raw) };
}

/** A tree to benchmark on, with the patterns each scenario uses there. */
export interface BenchTree {
    id: 'kernel' | 'synthetic';
    root: string;
    /** What the tree is, for the report. */
    description: string;
    /** A literal found nowhere: the content search reads every file. */
    absent: string;
    /** A regex with thousands of matching lines. */
    manyRegex: string;
    /** A common literal, for `max_results` and the first streamed match. */
    common: string;
    /** A name pattern. */
    name: string;
    /** Timestamp filter: files modified after this instant. */
    modifiedAfter: Date;
    /** Largest file in bytes (limits are raised above it). */
    largestFile: number;
    manifest?: TreeManifest;
}

/** The Linux 6.1 tree from ../shared/tools/kernel-corpus.sh (or `$KERNEL_TREE`). */
export function kernelTree(flags: Map<string, string>): BenchTree {
    let root = flags.get('dir') ?? process.env['KERNEL_TREE'];
    if (root === undefined) {
        const script = path.resolve(REPO, '..', 'shared', 'tools', 'kernel-corpus.sh');
        root = execFileSync(script, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop()!;
    }
    root = fs.realpathSync(root);
    const after = flags.get('modified-after');
    return {
        id: 'kernel',
        root,
        description: `Linux 6.1 source tree (${root})`,
        absent: 'xyzzy_no_such_token_42',
        manyRegex: '[a-z]+_lock\\(',
        common: 'mutex_lock',
        name: 'kconfig',
        // The unpacked tree's times depend on when it was unpacked; a week back splits it on most machines.
        modifiedAfter: after ? new Date(after) : new Date(Date.now() - 7 * 86_400_000),
        largestFile: largestFile(root),
    };
}

/** The folder an index-queries run kept (`--work`, required) and the tree its index is of: `--tree`, else its `tree/`, else the Linux tree. */
export function keptWork(flags: Map<string, string>): { work: string; root: string } {
    const work = flags.get('work');
    if (work === undefined) throw new Error('--work DIR: the folder an index-queries run kept (--keep)');
    const treeDir = path.join(work, 'tree');
    return { work: path.resolve(work), root: fs.realpathSync(flags.get('tree') ?? (fs.existsSync(treeDir) ? treeDir : kernelTree(flags).root)) };
}

/** The deterministic synthetic tree (generated once, then reused from the cache). */
export async function syntheticTree(flags: Map<string, string>): Promise<BenchTree> {
    const { root, manifest } = await ensureTree({
        files: intFlag(flags, 'files', 200_000),
        seed: intFlag(flags, 'seed', 1),
        ...(flags.has('dir') && { dir: flags.get('dir')! }),
        log: (s) => console.error(s),
    });
    return {
        id: 'synthetic',
        root,
        description: `synthetic tree: ${manifest.files} files (${manifest.binaryFiles} binary), ${manifest.dirs} directories, ${(manifest.bytes / 1e6).toFixed(0)} MB, max depth ${manifest.maxDepth}, seed ${manifest.seed} (${root})`,
        absent: manifest.tokens.absent,
        manyRegex: manifest.tokens.manyRegex,
        common: manifest.tokens.common,
        name: manifest.tokens.name,
        modifiedAfter: new Date(flags.get('modified-after') ?? manifest.recentAfter),
        largestFile: manifest.largestFile,
        manifest,
    };
}

export async function pickTree(flags: Map<string, string>): Promise<BenchTree> {
    const which = flags.get('tree') ?? 'synthetic';
    if (which === 'kernel') return kernelTree(flags);
    if (which === 'synthetic') return syntheticTree(flags);
    throw new Error(`Invalid --tree ${which}: expected kernel or synthetic.`);
}

/** Size of the largest regular file under `root` (no symlinks followed). */
export function largestFile(root: string): number {
    let max = 0;
    const stack = [root];
    while (stack.length > 0) {
        const dir = stack.pop()!;
        for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
            const p = path.join(dir, d.name);
            if (d.isDirectory()) stack.push(p);
            else if (d.isFile()) max = Math.max(max, fs.statSync(p).size);
        }
    }
    return max;
}

/**
 * The library's limits with the defaults raised through `LLM_CHAT_FS_*` so that the whole tree is
 * searched: unless the caller's environment already sets them, no result cap, no entry cap, no
 * timeout and a file size cap above the tree's largest file (ripgrep searches every file).
 */
export function raiseLimits(largest: number): { search: SearchConfiguration; file: FileConfiguration; env: Record<string, string> } {
    const env: Record<string, string> = {
        LLM_CHAT_FS_MAX_SEARCH_RESULTS: String(1e9),
        // The tool lists every hit instead of a count summary, so its count can be compared.
        LLM_CHAT_FS_MAX_DISPLAY_ENTRIES: String(1e9),
        LLM_CHAT_FS_MAX_TOTAL_ENTRIES: String(1e9),
        LLM_CHAT_FS_SEARCH_TIMEOUT: String(3_600_000),
        LLM_CHAT_FS_MAX_FILE_SIZE: String(Math.max(64 * 1024 * 1024, 2 ** Math.ceil(Math.log2(largest + 1)))),
    };
    for (const [k, v] of Object.entries(env)) process.env[k] ??= v;
    const used = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]!]));
    return { search: new SearchConfiguration(), file: new FileConfiguration(), env: used };
}

/** Symlink checks: `off` = `realRoots: null`; `on` = the tool's default, the tree as the one write access. */
export type Checks = 'off' | 'on';

export function realRootsFor(root: string, checks: Checks): Access[] | null {
    return checks === 'off' ? null : [{ type: AccessType.Write, path: root }];
}

/** A search request over the whole tree with the raised limits. */
export function request(tree: BenchTree, limits: ReturnType<typeof raiseLimits>, checks: Checks, extra: Partial<SearchRequest>): SearchRequest {
    return {
        root: searchRootAt(tree.root, checks === 'off' ? null : [tree.root]),
        type: 'both',
        maxResults: limits.search.maxSearchResults,
        maxFileSize: limits.file.maxFileSize,
        maxTotalEntries: limits.search.maxTotalEntries,
        // ripgrep -uu and fd -u skip nothing either.
        skipDirs: [],
        ...extra,
    };
}

/** One run of a native tool. */
export interface PeerRun {
    ms: number;
    /** Output lines (one per matching line for `rg -n`, one per entry for fd). */
    lines: number;
}

/**
 * Runs a command, counting its output lines without keeping them. With `stopAfter`, the time is
 * taken when that many lines have arrived and the process is then killed (like `| head -n`).
 */
export function runPeer(cmd: string, args: readonly string[], stopAfter = Infinity): Promise<PeerRun> {
    return new Promise((resolve, reject) => {
        const t0 = performance.now();
        const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] });
        let lines = 0;
        let stoppedAt: number | undefined;
        child.stdout.on('data', (chunk: Buffer) => {
            if (stoppedAt !== undefined) return;
            for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
                if (++lines >= stopAfter) {
                    stoppedAt = performance.now();
                    child.kill('SIGKILL');
                    break;
                }
            }
        });
        child.on('error', reject);
        child.on('close', () => resolve({ ms: (stoppedAt ?? performance.now()) - t0, lines }));
    });
}

/**
 * A JavaScript pattern as ripgrep must read it to mean the same: JavaScript's `\\b`, `\\B`, `\\w`,
 * `\\W`, `\\d` and `\\D` are ASCII, ripgrep's are Unicode (so `GFP_KERNEL\\b` before a CJK letter
 * matches in JavaScript and not in rg). Outside character classes they become ripgrep's ASCII forms,
 * `(?-u:\\b)`; the pattern is parsed by regexpp as JavaScript reads it (no `u` flag), so escaped
 * backslashes and classes are never misread. Patterns regexpp rejects are returned unchanged.
 */
export function rgPattern(pattern: string): string {
    let ast: AST.Pattern;
    try {
        ast = new RegExpParser().parsePattern(pattern, 0, pattern.length, { unicode: false });
    } catch {
        return pattern;
    }
    const ranges: [number, number][] = [];
    visitRegExpAST(ast, {
        onAssertionEnter: (n) => {
            if (n.kind === 'word') ranges.push([n.start, n.end]);
        },
        onCharacterSetEnter: (n) => {
            if ((n.kind === 'word' || n.kind === 'digit') && n.parent.type !== 'CharacterClass') ranges.push([n.start, n.end]);
        },
    });
    let out = pattern;
    for (const [start, end] of ranges.sort((a, b) => b[0] - a[0])) out = `${out.slice(0, start)}(?-u:${out.slice(start, end)})${out.slice(end)}`;
    return out;
}

/** True when `cmd --version` runs. */
export function have(cmd: string): boolean {
    try {
        execFileSync(cmd, ['--version'], { stdio: 'ignore' });
        return true;
    } catch {
        return false;
    }
}

export function median(xs: readonly number[]): number {
    if (xs.length === 0) return NaN;
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function fmtMs(ms: number): string {
    if (!Number.isFinite(ms)) return 'n/a';
    return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}

export function fmtRatio(ours: number, peer: number): string {
    if (!Number.isFinite(ours) || !Number.isFinite(peer) || peer <= 0) return 'n/a';
    return `${(ours / peer).toFixed(2)}×`;
}

export function fmtMB(bytes: number): string {
    return Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(0)} MB` : 'n/a';
}

/** Machine facts printed with every result. */
/** The load averages over 1, 5 and 15 minutes, as `0.52 0.61 0.70`. */
export function loadAverages(): string {
    return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}

/** The identifiers the memory benches search (serving-memory, mcp-memory), from rare to common in the kernel tree. */
export const MEMORY_PATTERNS = ['Tronnes', 'filt_num', 'kvm_vcpu_ioctl', 'mutex_destroy'];

export function machine(): string {
    const load = fs.existsSync('/proc/loadavg') ? fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') : 'n/a';
    return `Node ${process.version}, ${process.platform}/${process.arch}, ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${load}`;
}

/** Version line of a tool (`rg --version` first line), for the report. */
export function versionOf(cmd: string): string {
    try {
        return execFileSync(cmd, ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
    } catch {
        return `${cmd} (not found)`;
    }
}

/** One measured run: wall time and what it found. */
export interface Sample {
    ms: number;
    count: number;
    note?: string;
}

/**
 * Runs contenders alternately: one warm-up run each, then `runs` rounds in a rotating order, so
 * that load changes on a shared machine hit every contender alike. Returns the samples per name.
 */
export async function alternate(contenders: Record<string, () => Promise<Sample>>, runs: number): Promise<Record<string, Sample[]>> {
    const names = Object.keys(contenders);
    const out: Record<string, Sample[]> = Object.fromEntries(names.map((n) => [n, []]));
    for (const n of names) await contenders[n]!();
    for (let i = 0; i < runs; i++) {
        for (let k = 0; k < names.length; k++) {
            const n = names[(k + i) % names.length]!;
            out[n]!.push(await contenders[n]!());
        }
    }
    return out;
}

/** A peer run as a {@link Sample}. */
export async function peerSample(cmd: string, args: readonly string[], stopAfter?: number): Promise<Sample> {
    const r = await runPeer(cmd, args, stopAfter);
    return { ms: r.ms, count: r.lines };
}
