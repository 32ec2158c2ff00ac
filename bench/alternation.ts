import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine.js';
import {
    alternate,
    benchArgs,
    fmtMs,
    fmtRatio,
    intFlag,
    kernelTree,
    machine,
    median,
    peerSample,
    raiseLimits,
    REPO,
    request,
    rgPattern,
    versionOf,
    workerNiceFlag,
    type Sample,
} from './common.js';
import { mulberry32 } from './tree.js';

/**
 * Alternations of identifiers on the scan path, side by side with ripgrep: patterns `a|b` (and
 * wider with `--width`) of identifiers sampled with a fixed seed from the kernel tree's C files,
 * each searched by our engine (checks on, the tool's default) and `rg -uu -i -n -L` in
 * alternating runs; medians per pattern, and the sum of the medians against rg's (target ≤ 1.2×).
 *
 *   node dist/bench/run.js alternation [--runs 7] [--patterns 8] [--seed 1] [--width 2] [--threads N] [--out bench/results]
 */

/** Identifiers sampled: C-like words of 4 to 40 characters. */
const IDENT = /\b[A-Za-z_][A-Za-z0-9_]{3,39}\b/g;
const TARGET = 1.2;

/** rg's arguments: everything searched (-uu), case-insensitive and numbered like the tool; links not followed (see the Peer line of the result). */
const RG_ARGS = (pattern: string, root: string): string[] => ['-uu', '-i', '-n', rgPattern(pattern), root];

/**
 * One rg run, with its CPU time (user and system, from GNU time's report) where /usr/bin/time
 * exists: on a shared machine CPU time holds steadier than wall time.
 */
async function rgSample(args: string[]): Promise<Sample & { cpuMs?: number }> {
    if (!fs.existsSync(TIME)) return peerSample('rg', args);
    const report = path.join(os.tmpdir(), `lcf-alternation-time-${process.pid}`);
    const sample = await peerSample(TIME, ['-f', '%U %S', '-o', report, 'rg', ...args]);
    const [user, system] = fs.readFileSync(report, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    fs.rmSync(report, { force: true });
    return { ...sample, cpuMs: (user! + system!) * 1000 };
}

const TIME = '/usr/bin/time';

/** Links to regular files under `root` (the library searches them under their own name; rg without -L walks past them). */
function fileLinks(root: string): string[] {
    return entriesUnder(root, (d, p) => d.isSymbolicLink() && fs.statSync(p, { throwIfNoEntry: false })?.isFile() === true);
}

/** Lines matching `pattern` in `files` by rg (a path given to rg is followed when it is a link). */
function rgLinkHits(pattern: string, files: readonly string[]): number {
    if (files.length === 0) return 0;
    const r = spawnSync('rg', ['-uu', '-i', '-c', '--no-filename', rgPattern(pattern), ...files], { encoding: 'utf8' });
    return r.stdout.split('\n').reduce((n, l) => n + (Number(l) || 0), 0);
}

/** Regular C source and header files under `root` in sorted walk order (no links followed). */
function cFiles(root: string): string[] {
    return entriesUnder(root, (d) => d.isFile() && /\.[ch]$/.test(d.name));
}

/** The paths under `root` that `keep` keeps, in sorted walk order (directories entered, links not followed). */
function entriesUnder(root: string, keep: (d: fs.Dirent, p: string) => boolean): string[] {
    const out: string[] = [];
    const walk = (dir: string): void => {
        for (const d of fs.readdirSync(dir, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))) {
            const p = path.join(dir, d.name);
            if (d.isDirectory()) walk(p);
            else if (keep(d, p)) out.push(p);
        }
    };
    walk(root);
    return out;
}

/**
 * `count` patterns of `width` identifiers joined by `|`: each identifier a distinct word of a file
 * drawn uniformly, the word drawn uniformly among the file's distinct identifiers.
 */
export function sampleAlternations(root: string, count: number, width: number, seed: number): string[] {
    const files = cFiles(root);
    const rnd = mulberry32(seed);
    const pick = (): string => {
        for (;;) {
            const file = files[Math.floor(rnd() * files.length)]!;
            const words = [...new Set(fs.readFileSync(file, 'latin1').match(IDENT) ?? [])];
            if (words.length > 0) return words[Math.floor(rnd() * words.length)]!;
        }
    };
    const out: string[] = [];
    while (out.length < count) {
        const words = new Set<string>();
        while (words.size < width) words.add(pick());
        out.push([...words].join('|'));
    }
    return out;
}

async function main(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const runs = intFlag(flags, 'runs', 7);
    const count = intFlag(flags, 'patterns', 8);
    const seed = intFlag(flags, 'seed', 1);
    const width = intFlag(flags, 'width', 2);
    const tree = kernelTree(flags);
    const limits = raiseLimits(tree.largestFile);
    const threads = flags.has('threads') ? intFlag(flags, 'threads', 1) : undefined;
    const engine = new Engine({ ...(threads !== undefined ? { maxThreads: threads } : {}), ...workerNiceFlag(flags) });
    const patterns = sampleAlternations(tree.root, count, width, seed);
    const loadBefore = machine();
    console.error(`${tree.description}\n${loadBefore}\npatterns: ${patterns.join('  ')}`);

    const ours = async (pattern: string): Promise<Sample & { cpuMs: number }> => {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const out = await engine.search(request(tree, limits, 'on', { contentPattern: pattern }), { timeoutMs: limits.search.timeoutMs });
        const ms = performance.now() - t0;
        if (out.stop !== 'done') throw new Error(`search stopped early: ${out.stop}`);
        const cpu = process.cpuUsage(c0);
        return { ms, count: out.hits.length, cpuMs: (cpu.user + cpu.system) / 1000 };
    };
    const links = fileLinks(tree.root);
    const rows: { pattern: string; ours: (Sample & { cpuMs?: number })[]; rg: (Sample & { cpuMs?: number })[]; linkHits: number }[] = [];
    for (const p of patterns) {
        const res = await alternate({ ours: () => ours(p), rg: () => rgSample(RG_ARGS(p, tree.root)) }, runs);
        rows.push({ pattern: p, ours: res['ours']!, rg: res['rg']!, linkHits: rgLinkHits(p, links) });
        const m = (xs: Sample[]): string => fmtMs(median(xs.map((x) => x.ms)));
        console.error(`${p}: ours ${m(res['ours']!)} [${res['ours']!.map((x) => x.ms.toFixed(0)).join(' ')}], rg ${m(res['rg']!)} [${res['rg']!.map((x) => x.ms.toFixed(0)).join(' ')}]; counts ${res['ours']![0]!.count}/${res['rg']![0]!.count}`);
    }
    await engine.close();

    const lines: string[] = [];
    const argLine = argv.join(' ');
    lines.push(`## Alternations of identifiers: kernel tree (${new Date().toISOString().replace(/\.\d+Z$/, 'Z')})`);
    lines.push('');
    lines.push(`- Tree: ${tree.description}`);
    lines.push(`- Machine: ${loadBefore} (before); ${machine().replace(/.*load average/, 'load average')} (after)`);
    lines.push(`- Peer: ${versionOf('rg')}, run as \`rg -uu -i -n <pattern> <root>\` (no -L: the library lists a link to a directory inside the tree and does not enter it, so each file is searched once under one name; rg -L would search the kernel's scripts/dtc/include-prefixes/ links to arch/*/boot/dts a second time)`);
    lines.push(`- Patterns: ${count} alternations of ${width} identifiers (\`${IDENT.source}\`, distinct words of a uniformly drawn \`.c\`/\`.h\` file), seed ${seed}`);
    lines.push(`- Method: one process, one warm Engine (${threads ?? 'default'} worker threads, checks on), one warm-up run of each, then ${runs} alternating runs (rotating order) per pattern; medians.`);
    lines.push(`- Command: \`${`node dist/bench/run.js alternation ${argLine}`.trim()}\` (or \`${`npm run bench -- alternation ${argLine}`.trim()}\`)`);
    lines.push('');
    lines.push(`- Counts: rg's lines plus its lines in the tree's ${links.length} links to files, which the library searches and rg without -L walks past.`);
    lines.push('');
    lines.push('| pattern | ours (median) | rg (median) | ratio | ours CPU | rg CPU | CPU ratio | our count | rg count | counts |');
    lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
    let sumOurs = 0;
    let cpuOurs = 0;
    let cpuRg = 0;
    let sumRg = 0;
    let allEqual = true;
    const ratios: number[] = [];
    for (const r of rows) {
        const o = median(r.ours.map((x) => x.ms));
        const g = median(r.rg.map((x) => x.ms));
        const oCpu = median(r.ours.map((x) => x.cpuMs ?? NaN));
        const gCpu = median(r.rg.map((x) => x.cpuMs ?? NaN));
        cpuOurs += oCpu;
        cpuRg += gCpu;
        sumOurs += o;
        sumRg += g;
        ratios.push(o / g);
        const oc = [...new Set(r.ours.map((x) => x.count))];
        const gc = [...new Set(r.rg.map((x) => x.count + r.linkHits))];
        const equal = oc.length === 1 && gc.length === 1 && oc[0] === gc[0];
        allEqual &&= equal;
        // A table cell's `|` is escaped, also inside a code span (GitHub's tables).
        lines.push(`| \`${r.pattern.replace(/\|/g, '\\|')}\` | ${fmtMs(o)} | ${fmtMs(g)} | ${fmtRatio(o, g)} | ${fmtMs(oCpu)} | ${fmtMs(gCpu)} | ${fmtRatio(oCpu, gCpu)} | ${oc.join('/')} | ${gc.join('/')} | ${equal ? 'equal' : 'DIFFER'} |`);
    }
    const pass = sumOurs <= TARGET * sumRg;
    lines.push(`| **all ${rows.length} (sum of medians)** | ${fmtMs(sumOurs)} | ${fmtMs(sumRg)} | ${fmtRatio(sumOurs, sumRg)} | ${fmtMs(cpuOurs)} | ${fmtMs(cpuRg)} | ${fmtRatio(cpuOurs, cpuRg)} | – | – | ${allEqual ? 'equal' : 'DIFFER'} |`);
    lines.push('');
    lines.push(`Targets: sum of medians ≤ ${TARGET}× rg: ${pass ? 'PASS' : 'FAIL'} (${fmtRatio(sumOurs, sumRg)}); counts equal: ${allEqual ? 'PASS' : 'FAIL'}. Median of the per-pattern ratios: ${median(ratios).toFixed(2)}×. CPU time (ours: the whole process, user and system; rg: GNU time's): ${fmtRatio(cpuOurs, cpuRg)}.`);
    lines.push('');
    const md = lines.join('\n');
    console.log(md);
    const outDir = path.resolve(flags.get('out') ?? path.join(REPO, 'bench', 'results'));
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `alternation-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, md);
    console.error(`written to ${path.relative(process.cwd(), file) || file}`);
}

export { main as alternationMain };
