import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, intFlag, kernelTree, loadAverages, machine, REPO } from './common.js';
import { cell, first, runStep as runSuite, type Figure as StepFigure, type StepRun as Run } from './steps.js';

/**
 * The index's monorepo figures in one run, on the Linux tree and on `--scales` hard-linked copies
 * of it: each figure comes from the suite that measures it (each in its own process, so one
 * suite's memory does not count in the next), and a table at the top puts them side by side with
 * their targets. Every suite's own output follows the table.
 *
 *   npm run bench -- monorepo [--scales 1,10] [--work DIR] [--queries 100] [--skip churn,rebuild,...]
 *        [--small-files 1000000]
 *
 * Steps per scale, in `DIR/xN` (made anew; the suites' trees are hard links, never written in place):
 * queries (index-queries: build, selective latency, answers against the scan path), build (a second
 * build: peak memory, event loop, disk), serving (serving-memory), mcp (mcp-memory), reopen,
 * rebuild, churn. A step that fails is reported in the table and the run goes on. Then once, unless
 * skipped (`--skip small`): a build on a tree of `--small-files` small files (hard links to the
 * Linux tree's files under 4 KB), for the index's size on disk against the text.
 */

const STEPS = ['queries', 'build', 'serving', 'mcp', 'reopen', 'rebuild', 'churn'] as const;
/** The step run once, not per scale: an index of `--small-files` small files (the file table's share of the disk). */
const SMALL = 'small';
type StepName = (typeof STEPS)[number];

type StepRun = Run<StepName | typeof SMALL>;
type Figure = StepFigure<StepName>;

/** The median of a Markdown table's column (by header text), over the rows that have it, in MB. */
const tableMedianMb = (header: string) => (out: string): string | undefined => {
    const lines = out.split('\n').filter((l) => l.startsWith('|'));
    const head = lines.find((l) => l.includes(header));
    if (!head) return undefined;
    const col = head.split('|').findIndex((c) => c.trim() === header);
    const values = lines
        .map((l) => /^(\d+) MB$/.exec(l.split('|')[col]?.trim() ?? '')?.[1])
        .filter((v): v is string => v !== undefined)
        .map(Number)
        .sort((a, b) => a - b);
    return values.length === 0 ? undefined : `${values[Math.floor((values.length - 1) / 2)]} MB (median of ${values.length})`;
};

/** The "ratio to idle" of the rebuild table's row starting with `label`. */
const rebuildRatio = (label: string) => (out: string): string | undefined => {
    const row = out.split('\n').find((l) => l.startsWith(`| ${label}`));
    return row?.split('|')[3]?.trim();
};

export const FIGURES: readonly Figure[] = [
    { label: 'Stale answers in the churn bench', step: 'churn', read: first(/^(\d+ stale answers in \d+ searches)/m), target: 'zero' },
    { label: 'Index answers equal to the scan path (sampled identifiers)', step: 'queries', read: first(/byte for byte\): (\d+ of \d+)/), target: 'all' },
    { label: 'Selective search, median / p90 (random identifiers, seed 1)', step: 'queries', read: first(/latency \(median of \d+ runs per query\): (median [^,]+, p90 [^,]+)/), target: '≤ 20 ms at ×10, ≤ 5 ms / p90 ≤ 30 ms on the kernel' },
    { label: 'Candidate files per query', step: 'queries', read: first(/candidate files per query: (median \d+, p90 \d+)/), target: 'grows with the result' },
    { label: 'Resident memory while serving (fresh process, 3 s idle)', step: 'serving', read: tableMedianMb('after 3 s idle'), target: '≤ 250 MB' },
    { label: 'MCP server resident memory (3 s idle after searches) during its merge', step: 'mcp', read: first(/after 3 s idle, during the merge: (\d+ MB)/), target: '≤ 250 MB' },
    { label: 'MCP server resident memory (3 s idle after searches) after its merge', step: 'mcp', read: first(/after 3 s idle, (?:after the merge|as the merge ended): (\d+ MB)/), target: '≤ 250 MB' },
    { label: 'MCP server resident memory, highest while its merge ran', step: 'mcp', read: first(/while the merge ran: (\d+ MB)/), target: '≤ 250 MB' },
    { label: 'Resident memory during a build (peak)', step: 'build', read: first(/resident memory of the process[^:]*: peak (\d+ MB)/), target: '≤ 500 MB' },
    { label: 'Host event loop during the build: most CPU in one turn', step: 'build', read: first(/host event loop during the build: .*?most CPU time in one turn: ([\d.]+ ms|n\/a[^;)]*)/), target: '≤ 20 ms' },
    { label: 'Build time (its own figure)', step: 'build', read: first(/built in ([^(]+) \(index/), target: '' },
    { label: 'Index on disk, share of the text indexed', step: 'build', read: first(/on disk: [^(]+\(([\d.]+%)/), target: '≤ 50%' },
    { label: 'Reopen after 100 changed files (median)', step: 'reopen', read: first(/tree check: median reopen ([^,]+)/), target: '≤ 2 s' },
    { label: 'Rebuild under 2 clients of selective searches / idle', step: 'rebuild', read: rebuildRatio('2 clients, selective'), target: '≤ 2×' },
    { label: 'Rebuild under 2 clients of scanning searches / idle', step: 'rebuild', read: rebuildRatio('2 clients, a pattern'), target: '≤ 2×' },
];

function argsOf(step: StepName, scale: number, dir: string, queries: number, kernel: string): string[] {
    const tree = scale > 1 ? path.join(dir, 'tree') : kernel;
    switch (step) {
        case 'queries':
            return ['index-queries', '--scale', String(scale), '--max-results', '50', '--queries', String(queries), '--runs', '3', '--compare', String(Math.min(queries, scale > 1 ? 5 : 20)), '--keep', '--work', dir];
        case 'build':
            return ['index', '--dir', tree, '--index-dir', path.join(dir, 'build-probe'), '--build-only'];
        case 'serving':
            return ['serving-memory', '--work', dir, '--runs', '3'];
        case 'mcp':
            return ['mcp-memory', '--work', dir, '--settle', '60000'];
        case 'reopen':
            return ['reopen', '--work', dir, '--changed', '100', '--runs', '3', '--only', 'tree'];
        case 'rebuild':
            return ['rebuild', '--scale', String(scale), '--work', path.join(dir, 'rebuild')];
        case 'churn':
            return ['churn', '--scale', String(scale), '--work', path.join(dir, 'churn')];
    }
}

/**
 * `n` small files under `root`: hard links to the Linux tree's files under 4 KB (35k of them, 1.2 KB
 * on average: headers, Kconfig and Makefile fragments, small sources), copy after copy (`c0`, `c1`, …)
 * until there are `n`. Real text, so the postings per byte are those of real small files.
 */
function smallFilesTree(kernelRoot: string, root: string, n: number): void {
    const small = execFileSync('find', ['.', '-type', 'f', '-size', '-4k'], { cwd: kernelRoot, encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n').filter(Boolean).sort();
    const made = new Set<string>();
    for (let i = 0; i < n; i++) {
        const rel = small[i % small.length]!;
        const to = path.join(root, `c${Math.floor(i / small.length)}`, rel);
        const dir = path.dirname(to);
        if (!made.has(dir)) {
            fs.mkdirSync(dir, { recursive: true });
            made.add(dir);
        }
        fs.linkSync(path.join(kernelRoot, rel), to);
    }
}

function runStep(step: StepName | typeof SMALL, args: string[], kernelRoot: string): StepRun {
    return runSuite(step, args, kernelRoot, 'monorepo');
}

export async function monorepoMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const scales = (flags.get('scales') ?? '1,10').split(',').map((s) => intFlag(new Map([['scales', s]]), 'scales', 1));
    const skip = new Set((flags.get('skip') ?? '').split(',').filter(Boolean));
    for (const s of skip) if (s !== SMALL && !(STEPS as readonly string[]).includes(s)) throw new Error(`--skip ${s}: expected some of ${[...STEPS, SMALL].join(', ')}`);
    const queries = intFlag(flags, 'queries', 100);
    const work = path.resolve(flags.get('work') ?? path.join(os.tmpdir(), 'lcf-monorepo'));
    const kernel = kernelTree(flags).root;
    const startLoad = loadAverages();
    const t0 = performance.now();
    const runs = new Map<number, StepRun[]>();
    for (const scale of scales) {
        const dir = path.join(work, `x${scale}`);
        fs.rmSync(dir, { recursive: true, force: true });
        const done: StepRun[] = [];
        runs.set(scale, done);
        for (const step of STEPS) if (!skip.has(step)) done.push(runStep(step, argsOf(step, scale, dir, queries, kernel), kernel));
        fs.rmSync(dir, { recursive: true, force: true });
    }
    let small: StepRun | undefined;
    if (!skip.has(SMALL)) {
        const n = intFlag(flags, 'small-files', 1_000_000);
        const dir = path.join(work, 'small');
        fs.rmSync(dir, { recursive: true, force: true });
        smallFilesTree(kernel, path.join(dir, 'tree'), n);
        small = runStep(SMALL, ['index', '--dir', path.join(dir, 'tree'), '--index-dir', path.join(dir, 'index'), '--build-only'], kernel);
        small.command.push(`(${n} files made by bench/monorepo.ts)`);
        fs.rmSync(dir, { recursive: true, force: true });
    }
    const name = (s: number): string => (s === 1 ? 'kernel' : `×${s}`);
    const lines = [
        `# The index at monorepo scale (${machine()})`,
        '',
        `\`npm run bench -- monorepo ${argv.join(' ')}\`; the Linux tree ${kernel}; ×N is N hard-linked copies of it. Load average ${startLoad} at the start, ${loadAverages()} at the end; ${((performance.now() - t0) / 60_000).toFixed(1)} minutes in all.`,
        '',
        `| Figure | ${scales.map(name).join(' | ')} | Target |`,
        `| --- | ${scales.map(() => '---:').join(' | ')} | --- |`,
        ...FIGURES.map((f) => `| ${f.label} | ${scales.map((s) => cell(f, runs.get(s)!)).join(' | ')} | ${f.target} |`),
        '',
    ];
    if (small) {
        const share = first(/on disk: (\d+ MB \([\d.]+%)/)(small.output);
        lines.push(`Index on disk for ${intFlag(flags, 'small-files', 1_000_000)} small files: ${share ? `${share} of the text)` : small.ok ? 'not printed' : 'step failed'}; target ≤ 50%.`, '');
    }
    for (const scale of scales) {
        for (const r of runs.get(scale)!) {
            lines.push(`## ${name(scale)}: ${r.step} (${(r.ms / 1000).toFixed(0)} s${r.ok ? '' : ', FAILED'})`, '', `\`npm run bench -- ${r.command.join(' ')}\``, '', '```', r.output.trim(), '```', '');
        }
    }
    for (const r of small ? [small] : []) {
        lines.push(`## ${r.step} files (${(r.ms / 1000).toFixed(0)} s${r.ok ? '' : ', FAILED'})`, '', `\`npm run bench -- ${r.command.join(' ')}\``, '', '```', r.output.trim(), '```', '');
    }
    const text = lines.join('\n');
    console.log(text);
    const file = path.join(REPO, 'bench', 'results', `monorepo-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, `${text}\n`);
    console.log(`\nwritten to ${path.relative(REPO, file)}`);
}
