import fs from 'node:fs';
import { Bench } from 'tinybench';
import { distinctGrams, planQuery, querySize } from '../src/search-index/planner.js';
import { fmtMs, intFlag, machine, benchArgs } from './common.js';

/**
 * The index's query planner and gram split (src/search-index/):
 *
 *   npm run bench -- planner [--iterations 2000] [--text FILE]
 *
 * - plan: planQuery per pattern shape (literal, alternation, classes, repetitions, 300-way
 *   alternation, long literal), p50 and p99 per call, and the size of the plan;
 * - grams: distinctGrams (the builder's path) over a text file (default: the largest .c file of the Linux tree when present,
 *   else a generated ASCII text), in MB/s of UTF-16 characters.
 */
const PATTERNS: Record<string, string> = {
    literal: 'spin_lock_irqsave',
    'case variants': 'Kmalloc_ARRAY',
    alternation: '(kmalloc|kzalloc|kcalloc)\\(',
    'class and repeat': 'struct\\s+[a-z_]+_ops\\s*=',
    '.* between literals': 'mutex_lock.*unlock',
    'unicode escapes': '\\u{48}ello\\u00e9',
    'no literal': '^\\s*\\w+\\(\\)$',
    '300-way alternation': Array.from({ length: 300 }, (_, i) => `sym_${i.toString(36)}_fn`).join('|'),
    'long literal': 'abcdefghijklmnopqrstuvwxyz'.repeat(20),
};

export async function plannerMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const iterations = intFlag(flags, 'iterations', 2000);
    console.log(`${machine()}; tinybench, ${iterations} iterations per task.\n`);
    const bench = new Bench({ name: 'plan', iterations, time: 0, warmup: true, warmupIterations: 100, warmupTime: 0, throws: true });
    for (const [name, pattern] of Object.entries(PATTERNS)) {
        const flagsFor = pattern.includes('\\u{') ? 'iu' : 'i';
        bench.add(name, () => void planQuery(pattern, flagsFor));
    }
    const tasks = await bench.run();
    console.log('| pattern | p50 | p99 | gram leaves |\n| --- | --- | --- | --- |');
    for (const t of tasks) {
        const r = t.result;
        const pattern = PATTERNS[t.name]!;
        const size = querySize(planQuery(pattern, pattern.includes('\\u{') ? 'iu' : 'i'));
        if (r.state !== 'completed') throw new Error(`${t.name}: ${r.state}`);
        console.log(`| ${t.name} | ${fmtMs(r.latency.p50)} | ${fmtMs(r.latency.p99)} | ${size} |`);
    }
    const text = loadText(flags.get('text'));
    const runs: number[] = [];
    let distinct = 0;
    for (let i = 0; i < 7; i++) {
        const t0 = performance.now();
        distinct = distinctGrams(text).length;
        runs.push(performance.now() - t0);
    }
    runs.sort((a, b) => a - b);
    const ms = runs[3]!;
    console.log(`\ndistinctGrams: ${(text.length / 1e6).toFixed(2)} M chars, median of 7 ${fmtMs(ms)} (${(text.length / 1e3 / ms).toFixed(1)} M chars/s), ${distinct} distinct grams`);
}

function loadText(file: string | undefined): string {
    if (file !== undefined) return fs.readFileSync(file, 'utf8');
    const kernel = '/root/.cache/llm-chat-file-corpora/linux-source-6.1/kernel/sched/core.c';
    if (fs.existsSync(kernel)) return fs.readFileSync(kernel, 'utf8');
    return Array.from({ length: 40_000 }, (_, i) => `    value_${i % 977} = compute(${i}, "Text");`).join('\n');
}
