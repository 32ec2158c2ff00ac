import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@johannes.latzel/llm-chat';
import { AccessType, FileConfiguration, FilePool, ListDirectoryTool, ReadFileTool, SearchConfiguration, SearchEntriesTool, Workspace } from '../src/index.js';
import { Engine } from '../src/internals.js';
import { fmtMB, fmtMs, intFlag, kernelTree, machine, median, benchArgs, REPO, workerNiceFlag } from './common.js';

/**
 * How long one tool call blocks the host's event loop, for the scenarios of the "never waits"
 * target: a recursive listing of 200,000 entries, a read at the size limit (the default 10 MiB
 * and a 200 MB one-line file with the limit raised), a bulk read of 100 files and a search with
 * about 80,000 hits. Each call runs under `perf_hooks.monitorEventLoopDelay` (1 ms resolution);
 * the longest delay it records is the longest time the loop could not run a timer, i.e. the
 * longest single turn (plus scheduling noise: a quiet stretch of the same length is measured
 * first as the baseline). Also reports the process's peak RSS.
 *
 *   node dist/bench/event-loop.js [--runs 3] [--only listing,read-limit,read-200mb,bulk-read,hits]
 *        [--dir KERNEL_TREE] [--worker-nice N] [--out bench/results]
 *
 * Target: no scenario's longest delay above 20 ms. Trees and files are generated once into
 * `~/.cache/llm-chat-file-bench/` (the listing tree: 100 folders of 1,000 empty files and one
 * folder of 99,898 files; 200,000 entries in all with a marker file).
 */

const TARGET_MS = 20;

interface Scenario {
    key: string;
    title: string;
    /** The tool call; resolves to its output. */
    run: () => Promise<string>;
    /** What the output holds, for the report: computed after the measured window (splitting 200,000 lines is the bench's work, not the call's). */
    describe: (out: string) => string;
}

interface Measured {
    key: string;
    title: string;
    maxMs: number[];
    p99Ms: number[];
    wallMs: number[];
    baselineMaxMs: number[];
    note: string;
}

function cacheDir(): string {
    const dir = path.join(process.env['XDG_CACHE_HOME'] ?? path.join(os.homedir(), '.cache'), 'llm-chat-file-bench');
    fs.mkdirSync(dir, { recursive: true });
    return dir;
}

/** 200,000 entries: 100 folders of 1,000 files, one folder of 99,898 files, those 101 folders and a marker file. */
function listingTree(): string {
    const root = path.join(cacheDir(), 'listing-200k');
    const done = path.join(root, '.complete');
    if (fs.existsSync(done)) return root;
    fs.rmSync(root, { recursive: true, force: true });
    console.error(`generating ${root} ...`);
    fs.mkdirSync(root, { recursive: true });
    for (let d = 0; d < 100; d++) {
        const dir = path.join(root, `d${String(d).padStart(3, '0')}`);
        fs.mkdirSync(dir);
        for (let f = 0; f < 1000; f++) fs.closeSync(fs.openSync(path.join(dir, `f${String(f).padStart(4, '0')}.txt`), 'w'));
    }
    const flat = path.join(root, 'flat');
    fs.mkdirSync(flat);
    for (let f = 0; f < 99_899 - 1; f++) fs.closeSync(fs.openSync(path.join(flat, `e${String(f).padStart(5, '0')}`), 'w'));
    fs.writeFileSync(done, '');
    return root;
}

/** A text file of exactly `bytes` bytes: lines of 80 characters, or one line. */
function textFile(name: string, bytes: number, oneLine: boolean): string {
    const file = path.join(cacheDir(), name);
    if (fs.existsSync(file) && fs.statSync(file).size === bytes) return file;
    console.error(`generating ${file} ...`);
    const chunk = Buffer.alloc(1 << 20);
    const line = 'the quick brown fox jumps over the lazy dog 0123456789 abcdefghijklmnopqrstuvw\n';
    for (let i = 0; i < chunk.length; i++) chunk[i] = oneLine ? 97 + (i % 26) : line.charCodeAt(i % line.length);
    const fd = fs.openSync(file, 'w');
    for (let at = 0; at < bytes; at += chunk.length) fs.writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - at));
    fs.closeSync(fd);
    return file;
}

/** The call's results joined; every one must be a success. */
async function call(tool: Tool, args: Record<string, unknown>): Promise<string> {
    const results = await tool.execute(args);
    const bad = results.find((r) => r.status !== 'success');
    if (results.length === 0 || bad) throw new Error(`${tool.name} failed: ${bad?.result.slice(0, 300)}`);
    return results.map((r) => r.result).join('\n');
}

/** The longest event-loop delay while `fn` runs, and the 99th percentile, in ms. */
async function monitored(fn: () => Promise<unknown>): Promise<{ maxMs: number; p99Ms: number; wallMs: number }> {
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    // The histogram records a delay from its timer's second firing on: wait for the first, so a
    // call that blocks the loop from its very start is measured too.
    await new Promise((r) => setTimeout(r, 5));
    const t0 = performance.now();
    await fn();
    const wallMs = performance.now() - t0;
    // One more turn so that a block at the very end is recorded.
    await new Promise((r) => setTimeout(r, 2));
    h.disable();
    return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, wallMs };
}

async function main(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const runs = intFlag(flags, 'runs', 3);
    const only = flags.get('only')?.split(',');
    const kernel = kernelTree(flags);
    // The limits a host might raise, through the environment as a host would.
    const env = {
        LLM_CHAT_FS_MAX_TOTAL_ENTRIES: String(1e9),
        LLM_CHAT_FS_MAX_DISPLAY_ENTRIES: String(1e9),
        LLM_CHAT_FS_MAX_SEARCH_RESULTS: String(1e9),
        LLM_CHAT_FS_SEARCH_TIMEOUT: String(3_600_000),
    };
    for (const [k, v] of Object.entries(env)) process.env[k] ??= v;
    const searchConfig = new SearchConfiguration();
    const defaults = new FileConfiguration();
    const raised = new FileConfiguration(undefined, 256 * 1024 * 1024);
    const engine = new Engine(workerNiceFlag(flags));
    const tools = (root: string, fileConfig: FileConfiguration): { list: ListDirectoryTool; read: ReadFileTool; search: SearchEntriesTool } => {
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: root }], skipDirs: [] });
        const shared = { engine, searchConfig, fileConfig, filePool: new FilePool(fileConfig) };
        return { list: new ListDirectoryTool(ws, shared), read: new ReadFileTool(ws, shared), search: new SearchEntriesTool(ws, shared) };
    };

    let bulkFiles: string[] | undefined;
    const all: Scenario[] = [
        {
            key: 'listing',
            title: 'list_directory recursive, 200,000 entries (one folder of 99,898)',
            run: async () => {
                const root = listingTree();
                return call(tools(root, defaults).list, { path: '.', recursive: true });
            },
            describe: lineCount,
        },
        {
            key: 'read-limit',
            title: `read_file of a file at the default size limit (${fmtMB(defaults.maxFileSize)}, 80-character lines)`,
            run: async () => {
                const file = textFile('read-10mib.txt', defaults.maxFileSize, false);
                const t = tools(path.dirname(file), defaults);
                return call(t.read, { paths: [path.basename(file)] });
            },
            describe: (out) => `${out.length} characters shown`,
        },
        {
            key: 'read-200mb',
            title: 'read_file of a 200 MB one-line file (maxFileSize raised to 256 MiB)',
            run: async () => {
                const file = textFile('read-200mb-one-line.txt', 200 * 1000 * 1000, true);
                const t = tools(path.dirname(file), raised);
                return call(t.read, { paths: [path.basename(file)] });
            },
            describe: (out) => `${out.length} characters shown`,
        },
        {
            key: 'bulk-read',
            title: 'read_file of 100 files at once (the 100 largest of the kernel tree below 10 MiB)',
            run: async () => {
                // Chosen once, in the warm-up: the walk of the tree is the bench's work, not the call's.
                bulkFiles ??= largestFiles(kernel.root, 100, defaults.maxFileSize);
                const files = bulkFiles;
                return call(tools(kernel.root, defaults).read, { paths: files, max_chars: 1000 });
            },
            describe: (out) => `${out.length} characters shown`,
        },
        {
            key: 'hits',
            title: 'search_entries with 81,383 hits (`static inline` on the kernel tree, every hit listed)',
            run: async () => {
                return call(tools(kernel.root, defaults).search, { content_pattern: 'static inline' });
            },
            describe: lineCount,
        },
    ];
    const scenarios = all.filter((s) => !only || only.includes(s.key));
    console.error(machine());
    const results: Measured[] = [];
    for (const s of scenarios) {
        await s.run(); // warm-up (and generation), not counted
        const m: Measured = { key: s.key, title: s.title, maxMs: [], p99Ms: [], wallMs: [], baselineMaxMs: [], note: '' };
        for (let i = 0; i < runs; i++) {
            let out = '';
            const r = await monitored(async () => (out = await s.run()));
            m.note = s.describe(out);
            out = '';
            m.maxMs.push(r.maxMs);
            m.p99Ms.push(r.p99Ms);
            m.wallMs.push(r.wallMs);
            // Baseline: the same time with nothing to do (scheduling noise of a loaded machine).
            const b = await monitored(() => new Promise((res) => setTimeout(res, Math.min(r.wallMs, 5000))));
            m.baselineMaxMs.push(b.maxMs);
        }
        results.push(m);
        console.error(`${s.key}: longest delay ${m.maxMs.map((x) => x.toFixed(1)).join(' ')} ms (idle baseline ${m.baselineMaxMs.map((x) => x.toFixed(1)).join(' ')}), wall ${m.wallMs.map((x) => x.toFixed(0)).join(' ')} ms; ${m.note}`);
    }
    await engine.close();
    const rss = process.resourceUsage().maxRSS * 1024;

    const lines: string[] = [];
    lines.push(`## Event-loop blocking (${new Date().toISOString().replace(/\.\d+Z$/, 'Z')})`);
    lines.push('');
    lines.push(`- Machine: ${machine()}`);
    lines.push(`- Method: each tool call once as warm-up, then ${runs} runs under \`monitorEventLoopDelay\` (resolution 1 ms); after each, an idle stretch as long as the call (capped at 5 s) as the baseline. Medians; the worst run in brackets.`);
    lines.push(`- Command: \`node dist/bench/event-loop.js ${argv.join(' ')}\``.replace(/ `$/, '`'));
    lines.push('');
    lines.push(`| scenario | longest delay (median) [worst] | p99 delay | idle baseline (longest) | wall time | target ≤ ${TARGET_MS} ms |`);
    lines.push('| --- | ---: | ---: | ---: | ---: | --- |');
    for (const m of results) {
        const worst = Math.max(...m.maxMs);
        lines.push(`| ${m.title} (${m.note}) | ${fmtMs(median(m.maxMs))} [${fmtMs(worst)}] | ${fmtMs(median(m.p99Ms))} | ${fmtMs(median(m.baselineMaxMs))} | ${fmtMs(median(m.wallMs))} | ${worst <= TARGET_MS ? 'PASS' : 'FAIL'} |`);
    }
    lines.push(`| Peak RSS of this process (maxRSS, workers included) | ${fmtMB(rss)} | | | | < 250 MB: ${rss < 250 * 1024 * 1024 ? 'PASS' : 'FAIL'} |`);
    lines.push('');
    const md = lines.join('\n');
    console.log(md);
    const outDir = path.resolve(flags.get('out') ?? path.join(REPO, 'bench', 'results'));
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `event-loop-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, md);
    console.error(`written to ${path.relative(process.cwd(), file) || file}`);
}

/** `N lines` for the output's number of lines. */
function lineCount(out: string): string {
    let n = 1;
    for (let at = out.indexOf('\n'); at !== -1; at = out.indexOf('\n', at + 1)) n++;
    return `${n} lines`;
}

/** Paths (relative to `root`) of the `n` largest regular files below `below` bytes, largest first. */
function largestFiles(root: string, n: number, below: number): string[] {
    const all: { rel: string; size: number }[] = [];
    const stack = [''];
    while (stack.length > 0) {
        const rel = stack.pop()!;
        for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
            const r = rel === '' ? d.name : `${rel}/${d.name}`;
            if (d.isDirectory()) stack.push(r);
            else if (d.isFile()) {
                const size = fs.statSync(path.join(root, r)).size;
                if (size < below) all.push({ rel: r, size });
            }
        }
    }
    all.sort((a, b) => b.size - a.size || (a.rel < b.rel ? -1 : 1));
    return all.slice(0, n).map((f) => f.rel);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
    main(process.argv.slice(2)).catch((err: unknown) => {
        console.error(err instanceof Error ? (err.stack ?? err.message) : err);
        process.exitCode = 1;
    });
}

export { main as eventLoopMain };
