/**
 * `npm run bench -- symbols-index --work DIR [--dir TREE] [--runs 5] [--rebuild]`: the symbol
 * table of the index on the Linux tree (or TREE). In this process: the index built (or reopened)
 * in `DIR/index`, then the symbol table made for its generation (`--rebuild`: made again when
 * there is one; its parts and merge run in the library's build process) and loaded, with the
 * time, CPU time and resident memory (this process's and the build process's summed) and the
 * file's size; the event loop's longest
 * wait during the build, during the load after it, and during a quiet stretch before them as the
 * baseline, with the host thread's time on a CPU in the waits over 20 ms (`LoopWatch`). Then, in a fresh process that reopens both: the longest wait
 * while it loads the table, resident memory with the index and symbols loaded, and the medians of
 * `find_symbol` by exact name and by regex, and of `find_references`, through the tools; then
 * the memory (where it is: heap, buffers, WebAssembly, the pool's share) after those calls, after
 * a mix of the five navigation tools, after 15 s idle and with the package closed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, fmtMB, fmtMs, intFlag, kernelTree, loadAverages, machine, median } from './common.js';
import { LoopWatch } from './index.js';

export const EXACT = ['kvm_vcpu_ioctl', 'mutex_lock', 'schedule', 'kmalloc', 'task_struct', 'spin_lock_irqsave', 'ext4_fill_super', 'PAGE_SIZE', 'list_head', 'tcp_sendmsg', 'usb_register_driver', 'pci_enable_device', 'inode_operations', 'copy_from_user', 'kvm_arch_vcpu_ioctl', 'file_operations/read'];
export const REGEX = ['^kvm_vcpu_', '_ioctl$', '^mutex_(un)?lock$', '^ext4_.*_super$', 'xyzzy_none'];
const REFERENCES = ['kvm_make_request', 'mutex_destroy', 'kvm_vcpu_ioctl'];
/** After the timed calls, a serving mix of the navigation tools, run twice, before the memory is taken. */
const MIX: [string, Record<string, unknown>][] = [
    ['read_symbol', { path: 'virt/kvm/kvm_main.c', name: 'kvm_vcpu_ioctl' }],
    ['read_symbol', { path: 'kernel/sched/core.c', name: 'schedule' }],
    ['read_symbol', { path: 'fs/ext4/super.c', name: 'ext4_fill_super' }],
    ['read_symbol', { path: 'net/ipv4/tcp.c', name: 'tcp_sendmsg' }],
    ['file_outline', { path: 'kernel/sched/core.c' }],
    ['file_outline', { path: 'mm/page_alloc.c' }],
    ['file_outline', { path: 'include/linux/sched.h' }],
    ['file_outline', { path: 'kernel/bpf/verifier.c' }],
    ['repo_map', { path: 'kernel/sched' }],
    ['repo_map', { path: 'fs/ext4' }],
    ['find_symbol', { name: 'ext4_fill_super' }],
    ['find_symbol', { name: '^tcp_v4_', regex: true }],
    ['find_references', { name: 'ext4_fill_super' }],
    ['find_references', { name: 'tcp_sendmsg' }],
    ['find_references', { name: 'kvm_make_request' }],
];
/** The quiet stretch before the build, the baseline of the event loop's waits on this machine now. */
const BASELINE_MS = 10_000;
/** After the mix, the process idles this long before its memory is taken again (the pool's threads idle too). */
const IDLE_MS = 15_000;

/**
 * The process's memory now: resident (anonymous and file-backed), the host's heap and buffers,
 * the WebAssembly memories of every thread, and the threads. V8 reserves a memory's address space
 * with its guard regions: its pages in use are a mapping right before the rest of the
 * reservation (4 GiB and more, no access), the only mappings that large.
 */
function memoryNow(): Record<string, number> {
    const m = process.memoryUsage();
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) * 1024;
    const maps: { from: bigint; to: bigint; size: number; rss: number }[] = [];
    for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
        const h = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
        if (h) maps.push({ from: BigInt(`0x${h[1]}`), to: BigInt(`0x${h[2]}`), size: 0, rss: 0 });
        const f = /^(Size|Rss):\s+(\d+) kB/.exec(line);
        if (f !== null && maps.length > 0) maps[maps.length - 1]![f[1] === 'Size' ? 'size' : 'rss'] = Number(f[2]) * 1024;
    }
    let [wasm, wasmMemories] = [0, 0];
    maps.forEach((v, i) => {
        const next = maps[i + 1];
        if (next !== undefined && next.from === v.to && next.size >= 2 ** 32 && v.size < 2 ** 32) [wasm, wasmMemories] = [wasm + v.rss, wasmMemories + 1];
    });
    return { rss: m.rss, anon: kb('RssAnon'), file: kb('RssFile'), heapUsed: m.heapUsed, heapTotal: m.heapTotal, arrayBuffers: m.arrayBuffers, external: m.external, wasm, wasmMemories, threads: kb('Threads') / 1024 };
}

async function open(work: string, root: string) {
    const { AccessType, FileToolPackage, Workspace } = await import('../src/index.js');
    const { DEFAULT_SKIP_DIRS } = await import('../src/internals.js');
    const ws = new Workspace({ accesses: [{ type: AccessType.Read, path: root }], workspacePath: root });
    const pkg = new FileToolPackage(ws, { index: { dir: path.join(work, 'index'), symbols: true }, navigation: true });
    const t0 = performance.now();
    const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    if (tree.state !== 'ready') throw new Error(`index not ready: ${JSON.stringify(tree.status())}`);
    return { pkg, tree, indexMs: performance.now() - t0 };
}

/** The serving process: reopen, load the symbols, measure memory, then the calls. */
async function child(work: string, root: string, runs: number): Promise<void> {
    const { symbolsOf } = await import('../src/symbols/symbol-table.js');
    const { pkg, tree } = await open(work, root);
    const probe = new Phases();
    probe.start('load (serving process)');
    const store = await symbolsOf(tree).ready();
    probe.end();
    if (store === null) throw new Error(`symbols not loaded: ${symbolsOf(tree).error}`);
    (globalThis as { gc?: () => void }).gc?.();
    const rss = process.memoryUsage().rss;
    const loaded = memoryNow();
    const tool = (name: string) => pkg.tools().find((t) => t.name === name)!;
    const timed = async (name: string, args: Record<string, unknown>): Promise<{ ms: number; lines: number; status: string }> => {
        const t0 = performance.now();
        const [r] = await tool(name).execute(args);
        return { ms: performance.now() - t0, lines: String(r!.result).split('\n').length, status: r!.status };
    };
    const answered0 = symbolsOf(tree).answered;
    const series = async (name: string, list: readonly Record<string, unknown>[], n: number, settle?: () => Promise<void>) => {
        const out: { q: string; median: number; lines: number; status: string; first: number }[] = [];
        for (const q of list) {
            const { ms: first } = await timed(name, q);
            await settle?.();
            const xs: { ms: number; lines: number; status: string }[] = [];
            for (let i = 0; i < n; i++) xs.push(await timed(name, q));
            out.push({ q: JSON.stringify(q), median: median(xs.map((x) => x.ms)), lines: xs[0]!.lines, status: xs[0]!.status, first });
        }
        return out;
    };
    const exact = await series('find_symbol', EXACT.map((name) => ({ name })), runs);
    const regex = await series('find_symbol', REGEX.map((name) => ({ name, regex: true })), runs);
    const answered = symbolsOf(tree).answered - answered0;
    // A table whose rows by file are made in memory on first use: the first call begins making
    // them, and the timed calls come once they are made. A table that stores them waits for nothing.
    let rowsWait = -1;
    const made = (store as unknown as { byFile: unknown }).byFile;
    const refs = await series('find_references', REFERENCES.map((name) => ({ name })), Math.min(runs, 3), async () => {
        const t0 = performance.now();
        if (typeof made === 'function') await (made as () => Promise<unknown>).call(store);
        if (rowsWait < 0) rowsWait = performance.now() - t0;
    });
    (globalThis as { gc?: () => void }).gc?.();
    const rssAfter = process.memoryUsage().rss;
    const afterRefs = memoryNow();
    const mixMs: number[] = [];
    for (let round = 0; round < 2; round++) {
        for (const [name, args] of MIX) {
            const r = await timed(name, args);
            if (r.status !== 'success') throw new Error(`${name} ${JSON.stringify(args)}: ${r.status}`);
            if (round === 1) mixMs.push(r.ms);
        }
    }
    (globalThis as { gc?: () => void }).gc?.();
    const afterMix = memoryNow();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    (globalThis as { gc?: () => void }).gc?.();
    const idle = memoryNow();
    // Every use of each name, with the table and from whole-file parses without the index: the same text.
    const { AccessType, FileToolPackage, SearchConfiguration, Workspace } = await import('../src/index.js');
    // Without the index the kernel's walk needs more entries and time than the defaults give.
    const plain = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Read, path: root }], workspacePath: root }), { navigation: true, searchConfig: new SearchConfiguration(undefined, undefined, 10_000_000, 600_000) });
    const checks: string[] = [];
    for (const name of REFERENCES) {
        const all = { name, max_results: 100_000 };
        const [a] = await tool('find_references').execute(all);
        const [b] = await plain.tools().find((t) => t.name === 'find_references')!.execute(all);
        const [x, y] = [String(a!.result).split('\n'), String(b!.result).split('\n')];
        const differ = x.filter((l, i) => l !== y[i]).length + Math.abs(x.length - y.length);
        checks.push(`\`${name}\`: ${x.length} lines, ${differ === 0 ? 'equal' : `${differ} differ`}`);
    }
    await plain.close();
    await pkg.close();
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((r) => setTimeout(r, 1000));
    const closed = memoryNow();
    const memory = { loaded, afterRefs, afterMix, idle, closed };
    process.stdout.write(`${JSON.stringify({ waits: probe.phases, rss, rssAfter, rowsWait, heap: loaded.heapUsed, names: store.counts.names, defs: store.counts.defs, exact, regex, refs, answered, checks, memory, mixMs })}\n`);
    process.exit(0);
}

export async function symbolsIndexMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const work = flags.get('work');
    if (work === undefined) throw new Error('--work DIR: a folder of its own for the index (made when missing)');
    const root = kernelTree(flags).root;
    const runs = intFlag(flags, 'runs', 5);
    if (flags.has('child')) return child(work, root, runs);
    fs.mkdirSync(work, { recursive: true, mode: 0o700 });
    const { symbolsOf } = await import('../src/symbols/symbol-table.js');
    const { SYMBOLS_FILE, layoutOf } = await import('../src/symbols/shared/symbol-format.js');
    console.log(`# Symbol table on the index (${machine()}, load average ${loadAverages()})\n`);
    console.log(`Tree: ${root}; index in ${path.join(work, 'index')}.\n`);
    const { pkg, tree, indexMs } = await open(work, root);
    const status = tree.status();
    console.log(`Index: ${status.reopenedFrom ? `reopened in ${fmtMs(indexMs)}` : `built in ${fmtMs(status.buildMs ?? indexMs)}`}, ${status.entries} entries, ${fmtMB(status.diskBytes)} on disk.\n`);
    const served = tree.served();
    if (served === null) throw new Error('the index serves no generation');
    if (flags.has('rebuild')) fs.rmSync(path.join(served.genDir, SYMBOLS_FILE), { force: true });
    const building = !fs.existsSync(path.join(served.genDir, SYMBOLS_FILE));
    const probe = new Phases();
    probe.start(`quiet baseline (nothing under way, ${BASELINE_MS / 1000} s)`);
    await new Promise((r) => setTimeout(r, BASELINE_MS));
    probe.start(building ? 'build' : 'load');
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const symbols = symbolsOf(tree);
    // The build's figures are set as it ends, right before the table is loaded.
    const switcher = setInterval(() => {
        if (building && symbols.figures !== undefined && probe.phases.length === 1) probe.start('load after the build');
    }, 1);
    // Resident memory while the table is made: this process's plus the build process's (the
    // parts and the merge run there), read from its /proc status at the same sample.
    const buildRss = (): number => {
        const pid = symbols.buildPid;
        if (pid === undefined) return 0;
        try {
            return Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
        } catch {
            return 0;
        }
    };
    const rss0 = process.memoryUsage().rss;
    let [peak, peakBuild] = [rss0, 0];
    const sampler = setInterval(() => {
        const b = buildRss();
        peakBuild = Math.max(peakBuild, b);
        peak = Math.max(peak, process.memoryUsage().rss + b);
    }, 100);
    const store = await symbols.ready();
    probe.end();
    clearInterval(switcher);
    clearInterval(sampler);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const hwm = Number(/^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
    if (store === null) throw new Error(`symbols failed: ${symbols.error}`);
    const file = path.join(tree.served()!.genDir, SYMBOLS_FILE);
    const f = symbols.figures;
    console.log('| symbol table | value |\n| --- | ---: |');
    console.log(`| ${f ? 'built' : 'loaded'} in (wall) | ${fmtMs(ms)} |`);
    const hostCpu = (cpu.user + cpu.system) / 1000;
    console.log(`| CPU time (all threads; this process + the build process) | ${fmtMs(hostCpu + (f?.cpuMs ?? 0))}${f ? ` (${fmtMs(hostCpu)} + ${fmtMs(f.cpuMs)})` : ''} |`);
    if (f) console.log(`| source files parsed | ${f.files} |`);
    console.log(`| definitions / names | ${store.counts.defs} / ${store.counts.names} |`);
    console.log(`| on disk | ${fmtMB(fs.statSync(file).size)} |`);
    console.log(`| RSS before / peak while made, this process plus the build process (sampled every 100 ms) | ${fmtMB(rss0)} / ${fmtMB(peak)} |`);
    if (f) console.log(`| the build process's peak RSS: sampled / its own (maxRSS) | ${fmtMB(peakBuild)} / ${fmtMB(f.peakRss)} |`);
    console.log(`| this process's peak RSS since start (VmHWM, index build included, not the build process) | ${fmtMB(hwm)} |`);
    const l = layoutOf(store.counts);
    const cols = Object.entries(l).filter(([k]) => k !== 'end').sort((a, b) => a[1] - b[1]);
    const sizes = cols.map(([k, at], i) => `${k} ${(((cols[i + 1]?.[1] ?? l.end) - at) / 1048576).toFixed(1)} MB`);
    console.log(`| bytes per section | ${sizes.join(', ')} |`);
    console.log(`| longest event-loop wait meanwhile (build and load) | ${fmtMs(Math.max(...probe.phases.slice(1).map((p) => p.maxMs)))} |\n`);
    await pkg.close();
    const script = fileURLToPath(new URL('./run.js', import.meta.url));
    // A budget past every use's line, for the comparison of every use (the timed calls print 200 at most).
    const env = { ...process.env, LLM_CHAT_FS_MAX_CHARS_PER_CALL: '10000000' };
    const out = spawnSync(process.execPath, ['--expose-gc', script, 'symbols-index', '--child', '--work', work, '--dir', root, '--runs', String(runs)], { encoding: 'utf8', maxBuffer: 1 << 26, env });
    if (out.status !== 0) throw new Error(`serving process failed: ${out.stderr}`);
    const s = JSON.parse(out.stdout.trim().split('\n').pop()!) as { waits: PhaseWaits[]; rss: number; rssAfter: number; rowsWait: number; heap: number; exact: Row[]; regex: Row[]; refs: Row[]; answered: number; checks: string[]; memory: Record<string, Record<string, number>>; mixMs: number[] };
    console.log(`The host's event loop (longest delay: monitorEventLoopDelay, 5 ms resolution; a 1 ms timer's turns over ${LoopWatch.LONG_MS} ms with the host thread's time on a CPU and in the run queue during each, from its schedstat; load average ${loadAverages()} now):\n`);
    console.log(`| phase | wall | longest delay | p99 | turns over ${LoopWatch.LONG_MS} ms (the longest: on a CPU / waiting for one) | most CPU time in one turn |\n| --- | ---: | ---: | ---: | ---: | ---: |`);
    for (const p of [...probe.phases, ...s.waits]) {
        const worst = p.long.reduce<PhaseWaits['long'][number] | null>((w, t) => (w === null || t.ms > w.ms ? t : w), null);
        console.log(`| ${p.phase} | ${fmtMs(p.ms)} | **${fmtMs(p.maxMs)}** | ${fmtMs(p.p99Ms)} | ${p.long.length}${worst ? ` (${fmtMs(worst.ms)}: ${fmtMs(worst.cpuMs)} / ${fmtMs(worst.waitMs)})` : ''} | ${fmtMs(p.maxCpuMs)} |`);
    }
    console.log('');
    console.log(`Serving process (reopened index and symbols loaded, after a GC): RSS ${fmtMB(s.rss)}, heap ${fmtMB(s.heap)}; the table answered ${s.answered} of ${(EXACT.length + REGEX.length) * (runs + 1)} find_symbol calls (${EXACT.length + REGEX.length} queries, each run ${runs + 1} times; a query it finds nothing for goes on to the scan, which says how many files mention the name).\n`);
    for (const [title, rows] of [['find_symbol, exact name', s.exact], ['find_symbol, regex', s.regex], ['find_references', s.refs]] as const) {
        console.log(`| ${title} | median | lines |\n| --- | ---: | ---: |`);
        for (const r of rows) console.log(`| \`${r.q}\` | ${fmtMs(r.median)} | ${r.status === 'success' ? r.lines : r.status} |`);
        console.log(`| **median of medians** | **${fmtMs(median(rows.map((r) => r.median)))}** | |\n`);
    }
    console.log(`find_references' first calls (not in the medians): ${s.refs.map((r) => `\`${r.q}\` ${fmtMs(r.first)}`).join(', ')}; waited for the table's rows by file after the first call's end: ${fmtMs(s.rowsWait)}. Serving process RSS after them (after a GC): ${fmtMB(s.rssAfter)}.\n`);
    console.log(`Then a serving mix, run twice (${MIX.length} calls: ${MIX.map(([n, a]) => `${n} ${JSON.stringify(a)}`).join(', ')}); the second round's calls took ${s.mixMs.map(fmtMs).join(', ')}.\n`);
    const phases: [string, string][] = [['loaded', 'index and table loaded'], ['afterRefs', 'after the timed calls'], ['afterMix', 'after the mix'], ['idle', `after ${IDLE_MS / 1000} s idle`], ['closed', 'package closed (no pool)']];
    console.log('| serving process, after a GC | RSS | anonymous | file-backed | host heap used / total | host buffers | WebAssembly (memories) | threads |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const [k, title] of phases) {
        const m = s.memory[k]!;
        console.log(`| ${title} | ${fmtMB(m['rss']!)} | ${fmtMB(m['anon']!)} | ${fmtMB(m['file']!)} | ${fmtMB(m['heapUsed']!)} / ${fmtMB(m['heapTotal']!)} | ${fmtMB(m['arrayBuffers']!)} | ${fmtMB(m['wasm']!)} (${m['wasmMemories']}) | ${m['threads']} |`);
    }
    console.log('');
    console.log(`Every use (max_results 100000) with the table against whole-file parses without the index, line by line: ${s.checks.join('; ')}.`);
}

/** One phase's event-loop figures (LoopWatch's). */
interface PhaseWaits {
    phase: string;
    ms: number;
    maxMs: number;
    p99Ms: number;
    maxCpuMs: number;
    long: LoopWatch['long'];
}

/** The event loop watched phase by phase: one LoopWatch each. */
class Phases {
    readonly phases: PhaseWaits[] = [];
    #cur: { phase: string; t0: number; watch: LoopWatch } | null = null;

    /** Ends the phase under way (if any) and starts `phase`. */
    start(phase: string): void {
        this.end();
        this.#cur = { phase, t0: performance.now(), watch: new LoopWatch() };
    }

    end(): void {
        if (this.#cur === null) return;
        const { phase, t0, watch } = this.#cur;
        watch.stop();
        this.phases.push({ phase, ms: performance.now() - t0, maxMs: watch.delay.max, p99Ms: watch.delay.p99, maxCpuMs: watch.maxCpuMs, long: watch.long });
        this.#cur = null;
    }
}

interface Row {
    q: string;
    first: number;
    median: number;
    lines: number;
    status: string;
}
