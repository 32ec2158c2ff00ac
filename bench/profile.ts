import { constants as C } from 'node:fs';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compilePattern } from '../src/search/regex.js';
import { isBinary } from '../src/text/shared/text.js';
import { makeMatcher, scanBytes, type LineHit } from '../workers/search/scan.js';
import { scanEntry, scanPath, type ScanSpec } from '../workers/search/scan-file.js';
import { heldAt } from '../workers/fs/held-at.js';
import { READ_BUFFER_PAGE_OFFSET, readBuffer } from '../workers/fs/read-buffer.js';
import { packRun, unpackRun } from '../src/search/shared/pack-runs.js';
import type { Segment, WalkJob } from '../src/search/shared/protocol.js';
import { prepareSearch, searchRootAt } from '../src/search/prepare.js';
import { runSearchTask } from '../workers/search/walk.js';
import { intFlag, machine, benchArgs, pickTree } from './common.js';

/**
 * Where the scan path's time goes per file, on one thread, by CPU time (user + system of this
 * process, which is one thread here), so that a loaded machine shifts the figures less than
 * wall time would:
 *
 *   node dist/bench/profile.js phases --tree kernel [--repeat 3]
 *   node dist/bench/profile.js walker --tree kernel [--pattern P] [--checks on|off] [--repeat 3]
 *   node dist/bench/profile.js summarize DIR      # self time by category of the .cpuprofile files in DIR
 *
 * `phases` replays the walk worker's per-file steps cumulatively over every regular file of the
 * tree (the list is gathered first, not timed) and prints the CPU microseconds per file each
 * step adds: open + fstat + close by real path, the same through the pinned directory
 * (`/proc/self/fd/<dir>/name`, the symlink checks' way of reaching a file) and by the held
 * directory's descriptor (workers/fs/held-at.ts: openat and getdents64 where its native layer
 * loads; `LLM_CHAT_FILE_NATIVE_AT=0` measures its held-path layer), reading into a reused
 * buffer (half a page into its page, as the scan reads, and 16 bytes into it, where a large
 * allocation of the C library lies: workers/fs/read-buffer.ts), the binary check, the literal prefilter (a literal found nowhere) and the full regex
 * scan of a many-match pattern; then the cost of cloning that pattern's hits (the thread
 * boundary) as objects and packed. Each pass runs `--repeat` times; the minimum counts (the page
 * cache is warm after the first).
 *
 * `walker` runs the real walk worker (runSearchTask) on this thread over the whole tree, one task
 * after another with an unbounded budget, and prints its CPU time per file: the worker's own
 * cost without the pool, the transfer or the merge (run it under `--cpu-prof` to see inside).
 *
 * `summarize` reads the CPU profiles written by `node --cpu-prof --cpu-prof-dir DIR` (one per
 * thread, workers included) and prints self time per category of the same steps.
 */

/** A buffer of `size` bytes starting 16 bytes into a memory page (see workers/fs/read-buffer.ts). */
function skewedBuffer(size: number): Buffer {
    const raw = readBuffer(size + 4096);
    const skip = 4096 - READ_BUFFER_PAGE_OFFSET + 16;
    return raw.subarray(skip, skip + size);
}

interface Dir {
    real: string;
    names: string[];
}

function gather(root: string): { dirs: Dir[]; files: number } {
    const dirs: Dir[] = [];
    let files = 0;
    const stack = [root];
    while (stack.length > 0) {
        const real = stack.pop()!;
        const names: string[] = [];
        for (const d of fs.readdirSync(real, { withFileTypes: true })) {
            if (d.isDirectory()) stack.push(path.join(real, d.name));
            else if (d.isFile()) names.push(d.name);
        }
        names.sort();
        files += names.length;
        dirs.push({ real, names });
    }
    return { dirs, files };
}

const OPEN_FLAGS = C.O_RDONLY | C.O_NONBLOCK | C.O_NOCTTY | C.O_NOFOLLOW;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NONBLOCK;

function cpuMs(): number {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
}

async function phases(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const repeat = intFlag(flags, 'repeat', 3);
    const tree = await pickTree(flags);
    const { dirs, files } = gather(tree.root);
    const absent = makeMatcher(compilePattern(tree.absent));
    const many = makeMatcher(compilePattern(tree.manyRegex));
    // As the scan's (workers/fs/read-buffer.ts); `skewed` sits 16 bytes into its page instead, where
    // the C library puts a large allocation.
    let scratch = readBuffer(1 << 16);
    let skewed = skewedBuffer(1 << 16);
    let hitsKept: { path: string; kind: 'file'; line: number; text: string }[] = [];

    type Step = 'list' | 'list-pinned' | 'list-held' | 'open' | 'open-pinned' | 'open-held' | 'read' | 'read-skewed' | 'binary' | 'prefilter' | 'regex' | 'scan-path' | 'scan-entry';
    const steps: Step[] = ['list', 'list-pinned', 'list-held', 'open', 'open-pinned', 'open-held', 'read', 'read-skewed', 'binary', 'prefilter', 'regex', 'scan-path', 'scan-entry'];
    // The workers' layer (workers/fs/held-at.ts): native (openat, getdents64) unless LLM_CHAT_FILE_NATIVE_AT=0 or it cannot load.
    const at = heldAt();
    // The worker's own per-file path (scan-file.ts), with the largest file searched as in compare.js.
    const spec: ScanSpec = { matcher: absent, mode: 'content', maxFileSize: 1 << 26, max: Number.MAX_SAFE_INTEGER, context: 0 };
    const pass = (step: Step): number => {
        let sink = 0;
        const hits: LineHit[] = [];
        if (step === 'regex') hitsKept = [];
        for (const d of dirs) {
            let dfd = -1;
            let base = d.real + '/';
            const pinned = step !== 'open' && step !== 'list';
            if (pinned) {
                dfd = fs.openSync(d.real, DIR_FLAGS);
                base = `/proc/self/fd/${dfd}/`;
                // The walk checks each opened directory's real path once.
                if (fs.readlinkSync(`/proc/self/fd/${dfd}`) !== d.real) throw new Error(`moved: ${d.real}`);
            }
            if (step === 'list-held') {
                sink += at.list(dfd).names.length;
                fs.closeSync(dfd);
                continue;
            }
            if (step === 'list' || step === 'list-pinned') {
                const ents = fs.readdirSync(step === 'list' ? d.real : base.slice(0, -1), { withFileTypes: true });
                ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
                sink += ents.length;
                if (dfd >= 0) fs.closeSync(dfd);
                continue;
            }
            for (const name of d.names) {
                if (step === 'scan-entry') {
                    sink += scanEntry(dfd, name, spec).units;
                    continue;
                }
                if (step === 'open-held') {
                    const fd = at.open(dfd, name, OPEN_FLAGS);
                    sink += fs.fstatSync(fd).size;
                    at.close(fd);
                    continue;
                }
                if (step === 'scan-path') {
                    const r = scanPath(base + name, null, spec);
                    sink += r === null ? 0 : r.units;
                    continue;
                }
                const fd = fs.openSync(base + name, OPEN_FLAGS);
                const st = fs.fstatSync(fd);
                if (step === 'open' || step === 'open-pinned') {
                    sink += st.size;
                    fs.closeSync(fd);
                    continue;
                }
                const size = st.size;
                if (scratch.length < size) scratch = readBuffer(Math.max(size, scratch.length * 2));
                if (step === 'read-skewed' && skewed.length < size) skewed = skewedBuffer(Math.max(size, skewed.length * 2));
                const into = step === 'read-skewed' ? skewed : scratch;
                let got = 0;
                while (got < size) {
                    const n = fs.readSync(fd, into, got, size - got, got);
                    if (n === 0) break;
                    got += n;
                }
                fs.closeSync(fd);
                const bytes = scratch.subarray(0, got);
                if (step === 'read' || step === 'read-skewed') {
                    sink += got;
                    continue;
                }
                if (got === 0 || isBinary(bytes)) continue;
                if (step === 'binary') continue;
                if (step === 'prefilter') {
                    absent.literals!.reset();
                    sink += absent.literals!.find(bytes, 0);
                    continue;
                }
                hits.length = 0;
                scanBytes(bytes, many, Number.MAX_SAFE_INTEGER, hits);
                for (const h of hits) hitsKept.push({ path: d.real.slice(tree.root.length + 1) + '/' + name, kind: 'file', line: h.line, text: h.text });
            }
            if (dfd >= 0) fs.closeSync(dfd);
        }
        return sink;
    };

    console.error(`${tree.description}: ${dirs.length} directories, ${files} regular files\n${machine()}`);
    const best: Record<string, number> = {};
    for (const step of steps) {
        const times: number[] = [];
        for (let i = 0; i < repeat; i++) {
            const t0 = cpuMs();
            pass(step);
            times.push(cpuMs() - t0);
        }
        best[step] = Math.min(...times);
        console.error(`${step}: CPU ms ${times.map((t) => t.toFixed(0)).join(' ')}`);
    }
    // The thread boundary: postMessage clones the result; structuredClone does the same work.
    const hits = hitsKept;
    const cloneTimes: number[] = [];
    const packedTimes: number[] = [];
    const unpackTimes: number[] = [];
    for (let i = 0; i < repeat; i++) {
        let t0 = cpuMs();
        structuredClone(hits);
        cloneTimes.push(cpuMs() - t0);
        // As the worker sends them (pack-runs.ts packRun) and the engine keeps them (hit-list.ts);
        // then made into one object per hit (unpackRun), as a caller reading `outcome.hits` gets them.
        const run: Extract<Segment, { t: 'run' }> = { t: 'run', n: hits.length, hits: hits.map((h) => ({ ...h })), at: [] };
        t0 = cpuMs();
        packRun(run);
        const received = structuredClone(run);
        packedTimes.push(cpuMs() - t0);
        t0 = cpuMs();
        unpackRun(received);
        unpackTimes.push(cpuMs() - t0);
        if (received.hits.length !== hits.length) throw new Error('packing lost hits');
    }
    const us = (ms: number, n: number): string => ((ms * 1000) / n).toFixed(2);
    const b = best as Record<Step, number>;
    const rows: [string, number, number][] = [
        ['list directories (readdir + sort), per directory', b['list'], dirs.length],
        ['  extra when pinned (open dir + readlink check + list through /proc/self/fd)', b['list-pinned'] - b['list'], dirs.length],
        [`  extra when held, listed by its descriptor (open dir + readlink check + workers/fs/held-at.ts, ${at.kind} layer)`, b['list-held'] - b['list'], dirs.length],
        ['open + fstat + close, by real path', b['open'], files],
        ['  extra when pinned (the path through /proc/self/fd/<dir>/name)', b['open-pinned'] - b['open'], files],
        [`  extra when held, opened by the directory's descriptor (workers/fs/held-at.ts, ${at.kind} layer)`, b['open-held'] - b['open'], files],
        ['read into a reused buffer (half a page into its page, as the scan reads: workers/fs/read-buffer.ts)', b['read'] - b['open-pinned'], files],
        ['  the same into a buffer 16 bytes into its page (where the C library puts a large allocation)', b['read-skewed'] - b['open-pinned'], files],
        ['binary check (512-byte sample)', b['binary'] - b['read'], files],
        [`literal prefilter (\`${tree.absent}\`, found nowhere)`, b['prefilter'] - b['binary'], files],
        [`regex instead of the prefilter's miss (\`${tree.manyRegex}\`, ${hits.length} hits)`, b['regex'] - b['prefilter'], files],
        [`open, read, binary check and prefilter through scan-file.ts scanPath (pinned, no fstat for a file that ends within its first read)`, b['scan-path'], files],
        [`  the same through scan-file.ts scanEntry (the file opened by the held directory's descriptor, ${at.kind} layer)`, b['scan-entry'], files],
        [`  the same steps as separate passes (pinned open + fstat + read + binary + prefilter)`, b['prefilter'], files],
        [`transfer: clone of ${hits.length} hit objects`, Math.min(...cloneTimes), files],
        [`transfer: the same hits packed in columns and cloned (pack-runs.ts packRun; the engine keeps them so)`, Math.min(...packedTimes), files],
        [`  then made into hit objects (unpackRun, when a caller reads outcome.hits)`, Math.min(...unpackTimes), files],
    ];
    console.log(`Per-file CPU time of the scan path, one thread (${tree.description}; ${dirs.length} directories, ${files} files; best of ${repeat}; ${machine()})`);
    console.log('');
    console.log('| step | CPU ms (whole tree) | µs per item |');
    console.log('| --- | ---: | ---: |');
    for (const [what, ms, n] of rows) console.log(`| ${what} | ${ms.toFixed(0)} | ${us(ms, n)} |`);
}

async function walker(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const repeat = intFlag(flags, 'repeat', 3);
    const tree = await pickTree(flags);
    const pattern = flags.get('pattern') ?? tree.absent;
    const checks = flags.get('checks') ?? 'on';
    const search = await prepareSearch({
        root: searchRootAt(tree.root, checks === 'on' ? [tree.root] : null),
        type: 'both',
        ...(pattern !== '-' && { contentPattern: pattern }),
        maxResults: 1e9,
        maxFileSize: 1 << 30,
        maxTotalEntries: 1e9,
        skipDirs: [],
    });
    console.error(`${tree.description}\n${machine()}`);
    for (let r = 0; r < repeat; r++) {
        const t0 = cpuMs();
        const w0 = performance.now();
        const queue: WalkJob[] = [{ real: tree.root, rel: '.', jumps: [] }];
        let visited = 0;
        let scanned = 0;
        let hits = 0;
        let tasks = 0;
        while (queue.length > 0) {
            const jobs = queue.splice(0, 32);
            const res = runSearchTask({ op: 'search', search, deadline: Number.MAX_SAFE_INTEGER, jobs, budget: Number.MAX_SAFE_INTEGER, sliceMs: 1e9, capHits: 1e9, capEntries: 1e9, cancel: new SharedArrayBuffer(4) });
            tasks++;
            if (!res.ok) throw new Error(res.message);
            visited += res.visited;
            scanned += res.scanned;
            for (const segs of res.results) {
                for (const s of segs ?? []) {
                    if (s.t === 'job') queue.push(s.job);
                    else hits += s.hits.length + (s.packed?.lines.length ?? 0) + (s.entries ? s.entries.to - s.entries.from : 0);
                }
            }
        }
        const cpu = cpuMs() - t0;
        console.log(`walker (${pattern === '-' ? 'every entry' : `\`${pattern}\``}, checks ${checks}): CPU ${cpu.toFixed(0)} ms (${((cpu * 1000) / visited).toFixed(2)} µs per entry), wall ${(performance.now() - w0).toFixed(0)} ms; ${visited} entries, ${scanned} files scanned, ${hits} hits, ${tasks} tasks`);
    }
}

/** Self time of a profile's nodes, by category of the scan path's steps. */
function summarize(argv: string[]): void {
    const { words } = benchArgs(argv);
    const dir = words[0];
    if (!dir) throw new Error('usage: profile.js summarize DIR');
    interface Node {
        id: number;
        callFrame: { functionName: string; url: string; lineNumber: number };
        children?: number[];
    }
    interface Profile {
        nodes: Node[];
        samples: number[];
        timeDeltas: number[];
    }
    const byFn = new Map<string, number>();
    const byCat = new Map<string, number>();
    let total = 0;
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
        const p = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Profile;
        const nodes = new Map(p.nodes.map((n) => [n.id, n]));
        const parent = new Map<number, number>();
        for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
        const self = new Map<number, number>();
        for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
        for (const [id, us] of self) {
            const n = nodes.get(id)!;
            const name = n.callFrame.functionName || '(anonymous)';
            if (name === '(idle)') continue;
            total += us;
            const key = `${name} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
            byFn.set(key, (byFn.get(key) ?? 0) + us);
            // Category: the nearest ancestor (self included) that names a step.
            let cat = 'other';
            for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
                const fn = nodes.get(at)!.callFrame.functionName;
                const c = CATEGORY[fn];
                if (c) {
                    cat = c;
                    break;
                }
            }
            if (name === '(garbage collector)') cat = 'gc';
            byCat.set(cat, (byCat.get(cat) ?? 0) + us);
        }
    }
    const pct = (us: number): string => `${((100 * us) / total).toFixed(1)}%`;
    console.log(`Self time of ${dir} (${(total / 1000).toFixed(0)} ms sampled, idle excluded)`);
    console.log('');
    console.log('| step | ms | share |');
    console.log('| --- | ---: | ---: |');
    for (const [c, us] of [...byCat].sort((a, b) => b[1] - a[1])) console.log(`| ${c} | ${(us / 1000).toFixed(0)} | ${pct(us)} |`);
    console.log('');
    console.log('| function (top 25 by self time) | ms | share |');
    console.log('| --- | ---: | ---: |');
    for (const [k, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`| ${k} | ${(us / 1000).toFixed(0)} | ${pct(us)} |`);
}

/** Function names that mark a step, nearest one wins. */
const CATEGORY: Record<string, string> = {
    openSync: 'open',
    closeSync: 'close',
    fstatSync: 'fstat',
    readlinkSync: 'checks (readlink of /proc/self/fd)',
    statSync: 'stat (links)',
    realpathSync: 'stat (links)',
    lstatSync: 'stat (times)',
    readSync: 'read',
    readdirSync: 'list',
    sort: 'list',
    isBinary: 'binary check',
    isBinaryFileSync: 'binary check',
    isUtf8: 'decode',
    toString: 'decode',
    findLiteral: 'prefilter',
    scanBytes: 'regex / lines',
    countBytes: 'regex / lines',
    test: 'regex / lines',
    exec: 'regex / lines',
    relPrefix: 'paths',
    serialize: 'transfer',
    postMessage: 'transfer',
    deserialize: 'transfer',
    onResult: 'merge (main thread)',
    '#onResult': 'merge (main thread)',
    advance: 'merge (main thread)',
    resolve: 'merge (main thread)',
};

export async function profileMain(argv: string[]): Promise<void> {
    const [cmd, ...rest] = argv;
    if (cmd === 'summarize') return summarize(rest);
    if (cmd === 'phases') return phases(rest);
    if (cmd === 'walker') return walker(rest);
    throw new Error(`Unknown profile command ${JSON.stringify(cmd)}; expected phases, walker or summarize.`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
    profileMain(process.argv.slice(2)).catch((err: unknown) => {
        console.error(err instanceof Error ? (err.stack ?? err.message) : err);
        process.exitCode = 1;
    });
}

