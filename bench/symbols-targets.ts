import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, kernelTree, loadAverages, machine, REPO } from './common.js';
import { cell, first, runStep as runSuite, type Figure as StepFigure, type StepRun } from './steps.js';

/**
 * Every target of code navigation in one run, side by side with its figure:
 *
 *   npm run bench -- symbols-targets [--work DIR] [--files 150] [--runs 5]
 *
 * Steps, each a suite in its own process (so one's memory does not count in the next): symbols
 * (definitions against Universal Ctags per language), symbols-outline (file_outline without the
 * index; the tools' characters in `tools/list`), symbols-index (the Linux tree's index reopened or
 * built in `DIR/index`, its symbol table made again: build time, the event loop meanwhile,
 * serving memory, disk, find_symbol and find_references from the index), symbols-mcp (find_symbol
 * through the MCP server on that index). A step that fails is reported in the table and the run
 * goes on. To bench/results/symbols-targets-<date>.md.
 */

type Step = 'symbols' | 'symbols-outline' | 'symbols-index' | 'symbols-mcp';

type Figure = StepFigure<Step>;

/** The n-th "median of medians" cell of a suite's tables (0: exact names, 1: regex, 2: references in symbols-index). */
const medianOfMedians = (n: number) => (out: string): string | undefined => [...out.matchAll(/\| \*\*median of medians\*\* \| \*\*([^*]+)\*\*/g)][n]?.[1];

/** The highest RSS of symbols-index's serving table (its rows after the index and table are loaded). */
const servingPeak = (out: string): string | undefined => {
    const head = out.indexOf('| serving process, after a GC |');
    if (head === -1) return undefined;
    const values = out
        .slice(head)
        .split('\n')
        .slice(2)
        .filter((l) => l.startsWith('|') && !l.includes('package closed'))
        .map((l) => Number(/^\|[^|]*\| (\d+) MB/.exec(l)?.[1]))
        .filter((v) => Number.isFinite(v));
    return values.length === 0 ? undefined : `${Math.max(...values)} MB (highest of ${values.length} rows)`;
};

/** Per language of the ctags table, the lowest recall and precision over the categories. */
const CATEGORIES = new Set(['functions', 'methods', 'classes/structs', 'enums', 'macros', 'types']);
function ctagsFigures(out: string): Map<string, { recall: number; precision: number; rows: number }> {
    const per = new Map<string, { recall: number; precision: number; rows: number }>();
    for (const line of out.split('\n')) {
        const cells = line.split('|').map((c) => c.trim());
        // | lang | files | MB | MB/s | category | ctags | ctags wrong | ours | ctags lacks | recall | precision |
        if (cells.length < 12 || !CATEGORIES.has(cells[5]!)) continue;
        const [recall, precision] = [parseFloat(cells[10]!), parseFloat(cells[11]!)];
        if (!Number.isFinite(recall) || !Number.isFinite(precision)) continue;
        const lang = cells[1]!;
        const p = per.get(lang) ?? { recall: 100, precision: 100, rows: 0 };
        per.set(lang, { recall: Math.min(p.recall, recall), precision: Math.min(p.precision, precision), rows: p.rows + 1 });
    }
    return per;
}

const FIGURES: readonly Figure[] = [
    { label: 'file_outline of a ~5,000-line C file without the index, first call (median of 5 files)', step: 'symbols-outline', read: first(/first call \(a parse\): median \*\*([^*]+)\*\*/), target: '≤ 30 ms' },
    { label: "The outline's share of the file's characters (most of 5 files)", step: 'symbols-outline', read: first(/share of the file's characters: most \*\*([^*]+)\*\*/), target: '≤ 15%' },
    { label: 'Characters the five tools add to `tools/list`', step: 'symbols-outline', read: first(/add to a `tools\/list` answer: \*\*(\d+)\*\*/), target: 'about 6,000 at most' },
    { label: 'find_symbol, exact name, from the index (median of medians)', step: 'symbols-index', read: medianOfMedians(0), target: '≤ 10 ms' },
    { label: 'find_symbol, regex name (median of medians)', step: 'symbols-index', read: medianOfMedians(1), target: '≤ 50 ms' },
    { label: 'find_references of functions used in 4-1,000 places (median of medians)', step: 'symbols-index', read: medianOfMedians(2), target: '≤ 300 ms' },
    { label: 'find_symbol, exact name, through the MCP server', step: 'symbols-mcp', read: first(/exact names: median of medians \*\*([^*]+)\*\*/), target: '≤ 20 ms' },
    { label: "The symbol table's build on the Linux tree (wall)", step: 'symbols-index', read: first(/\| built in \(wall\) \| (\d+ ms) \|/), target: '≤ 60 s' },
    { label: "The host's event loop during the build, longest delay", step: 'symbols-index', read: first(/\| build \| \d+ ms \| \*\*([^*]+)\*\*/), target: '≤ 20 ms' },
    { label: 'Resident memory while serving, index and symbols loaded', step: 'symbols-index', read: servingPeak, target: '≤ 300 MB' },
    { label: 'Symbols on disk (the Linux tree)', step: 'symbols-index', read: first(/\| on disk \| (\d+ MB) \|/), target: '≤ 100 MB' },
    { label: 'find_references equal to whole-file parses (every use)', step: 'symbols-index', read: (out) => (/line by line: (.*)$/m.exec(out)?.[1]?.includes('differ') ? 'differ' : /line by line: /.test(out) ? 'equal' : undefined), target: 'equal' },
];

function runStep(step: Step, args: string[], kernel: string): StepRun<Step> {
    return runSuite(step, [step, ...args], kernel, 'symbols-targets', ['--expose-gc']);
}

export async function symbolsTargetsMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const work = path.resolve(flags.get('work') ?? path.join(os.tmpdir(), 'lcf-symbols-targets'));
    const kernel = kernelTree(flags).root;
    const files = flags.get('files') ?? '150';
    const runs = flags.get('runs') ?? '5';
    fs.mkdirSync(work, { recursive: true });
    const startLoad = loadAverages();
    const t0 = performance.now();
    const steps: StepRun<Step>[] = [
        runStep('symbols', ['--files', files, '--seed', '1'], kernel),
        runStep('symbols-outline', ['--dir', kernel], kernel),
        runStep('symbols-index', ['--work', work, '--dir', kernel, '--runs', runs, '--rebuild'], kernel),
        // On the index and table the step before left in `work`.
        runStep('symbols-mcp', ['--work', work, '--dir', kernel, '--runs', runs], kernel),
    ];
    const ctags = steps.find((s) => s.step === 'symbols')!;
    const per = ctagsFigures(ctags.output);
    const lines = [
        `# Code navigation's targets (${machine()})`,
        '',
        `\`npm run bench -- symbols-targets ${argv.join(' ')}\`; the Linux tree ${kernel}. Load average ${startLoad} at the start, ${loadAverages()} at the end; ${((performance.now() - t0) / 60_000).toFixed(1)} minutes in all.`,
        '',
        '| Figure | Value | Target |',
        '| --- | ---: | --- |',
        ...(per.size === 0
            ? [`| Definitions against Universal Ctags | ${ctags.ok ? 'not printed' : 'step failed'} | recall ≥ 95%, precision ≥ 98% |`]
            : [...per].map(([lang, p]) => `| Definitions against Universal Ctags, ${lang}: lowest recall / precision of ${p.rows} categories | ${p.recall.toFixed(1)}% / ${p.precision.toFixed(1)}% | ≥ 95% / ≥ 98% |`)),
        ...FIGURES.map((f) => `| ${f.label} | ${cell(f, steps)} | ${f.target} |`),
        '',
    ];
    for (const r of steps) lines.push(`## ${r.step} (${(r.ms / 1000).toFixed(0)} s${r.ok ? '' : ', FAILED'})`, '', `\`npm run bench -- ${r.command.join(' ')}\``, '', '```', r.output.trim(), '```', '');
    const text = lines.join('\n');
    console.log(text);
    const file = path.join(REPO, 'bench', 'results', `symbols-targets-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, `${text}\n`);
    console.log(`\nwritten to ${path.relative(REPO, file)}`);
}
