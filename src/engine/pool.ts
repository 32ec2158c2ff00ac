import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import { createLedger, releaseThread } from '../fs/shared/fd-ledger.js';
import { closeGate, createGate, releaseGate } from '../fs/shared/native-gate.js';
import { wasmWorkerData } from './wasm-modules.js';

/**
 * The piscina pool behind an engine (engine.ts): the worker code it starts (the build's, or the
 * source tree's under the tests), the heap its threads get, and the descriptor ledger through
 * which the host closes what a terminated thread held natively.
 */

/**
 * The worker entry point of the pool, and the Node options its threads start with.
 *
 * Built (`dist/src/engine/pool.js`): `dist/workers/entry.cjs` on plain Node. Run from the
 * source tree (`src/engine/pool.ts`, as the tests run it), never a possibly stale build: the
 * bundle of the source workers that the test run made at its start, named in
 * `LLM_CHAT_FILE_TEST_WORKER` (test/support/worker-bundle.setup.ts); without one (watch mode, a script
 * run through tsx), `workers/pool-worker.ts` through tsx's require hook, a dev dependency. (Node
 * 20 runs no ESM loader hooks in worker threads, so that loads through the CommonJS hook, not
 * through `entry.cts`'s `import()`.)
 */
export function workerEntry(): { filename: string; execArgv?: string[] } {
    const here = fileURLToPath(import.meta.url);
    const repoOrDist = path.resolve(path.dirname(here), '..', '..');
    if (!here.endsWith('.ts')) return { filename: path.join(repoOrDist, 'workers', 'entry.cjs') };
    const bundle = process.env['LLM_CHAT_FILE_TEST_WORKER'];
    if (bundle) return { filename: bundle, execArgv: [] };
    const tsx = createRequire(import.meta.url).resolve('tsx/cjs');
    return { filename: path.join(repoOrDist, 'workers', 'pool-worker.ts'), execArgv: ['--require', tsx] };
}

/**
 * What every pool of the package starts with: its threads' entry point and Node options
 * ({@link workerEntry}), and no run and wait time histograms (about 0.7 MB a pool), which nothing reads.
 */
export function poolBase(): ReturnType<typeof workerEntry> & { recordTiming: false } {
    return { ...workerEntry(), recordTiming: false };
}

/**
 * Young-generation size of a worker's heap, in MiB: {@link WORKER_YOUNG_GENERATION_TOTAL_MB}
 * shared among `maxThreads`, from {@link WORKER_YOUNG_GENERATION_MB} to three times that each
 * (2 threads: 12 MiB; 6 threads and more: 4 MiB). A walk makes short-lived garbage (paths, stat
 * objects), so more room means fewer scavenges (Perf: on 2 threads a walk of every entry of the
 * Linux tree takes 94-103 ms with 12 MiB each against 110-125 ms with 6), while V8's default
 * maximum per thread would take a pool of 16 threads past the 250 MB memory target. Peak memory
 * per thread count: `node dist/bench/compare.js --tree kernel --only peak-rss --rss-threads 2,16`.
 */
const WORKER_YOUNG_GENERATION_MB = 4;
const WORKER_YOUNG_GENERATION_TOTAL_MB = 24;

/** The young-generation size of each worker of an engine with `maxThreads` threads, in MiB (4 to 12; 2 threads: 12). */
export function workerYoungGenerationMb(maxThreads: number): number {
    return Math.min(3 * WORKER_YOUNG_GENERATION_MB, Math.max(WORKER_YOUNG_GENERATION_MB, Math.floor(WORKER_YOUNG_GENERATION_TOTAL_MB / maxThreads)));
}

/** The descriptor ledgers of the engines with a pool (see {@link watchLedger}). */
const ledgers = new Set<SharedArrayBuffer>();

/** Releases, in every engine's ledger, what a worker thread that has exited still had noted. */
function onWorker(w: Worker): void {
    const id = w.threadId;
    w.once('exit', () => {
        for (const ledger of ledgers) releaseThread(ledger, id);
    });
}

/**
 * Releases what any exiting worker thread noted in `ledger` until the returned function is
 * called. One listener on each new worker whatever the number of engines (one per engine made
 * Node warn of a leak past 10 engines with a pool); a ledger has rows for its own threads only.
 */
function watchLedger(ledger: SharedArrayBuffer): () => void {
    if (ledgers.size === 0) process.on('worker', onWorker);
    ledgers.add(ledger);
    return () => {
        ledgers.delete(ledger);
        if (ledgers.size === 0) process.off('worker', onWorker);
    };
}

/** The process's native gate (src/fs/shared/native-gate.ts), in the `workerData` of every pool. */
export const nativeGate = createGate();
let gateWatched = false;

/**
 * From the first pool on, every worker thread of the process is terminated only outside a native
 * section: its `terminate` first closes its gate (at once for a thread outside one, such as
 * another library's), and its rows are freed when it has exited.
 */
export function watchNativeGate(): void {
    if (gateWatched) return;
    gateWatched = true;
    process.on('worker', (w: Worker) => {
        const id = w.threadId;
        const terminate = w.terminate.bind(w);
        w.terminate = () => closeGate(nativeGate, id).then(terminate);
        w.once('exit', () => releaseGate(nativeGate, id));
    });
}

/**
 * A new pool for an engine of `maxThreads` threads (started as tasks need them, then kept; more
 * only while the engine's task queue runs more tasks, see {@link threadCap}), its threads at nice
 * `workerNice`; `ledgerOff` stops noting its threads' exits for its descriptor ledger.
 */
export function createPool(maxThreads: number, workerNice: number): { pool: Piscina; ledgerOff: () => void } {
    // Start-up: piscina is loaded on the first task, so a call that needs no worker never loads it.
    const { Piscina } = createRequire(import.meta.url)('piscina') as typeof import('piscina');
    // Descriptors the workers open natively (workers/fs/held-at.ts) are noted in a ledger and
    // closed here once a worker that held one has exited (terminated by a hard abort).
    const ledger = createLedger();
    const ledgerOff = watchLedger(ledger);
    watchNativeGate();
    const pool = new Piscina({
        ...poolBase(),
        workerData: { fdLedger: ledger, nice: workerNice, nativeGate, ...wasmWorkerData() },
        // Threads start as tasks need them, not all at once: a search of a small tree runs one
        // task, so a short-lived host (a CLI call, a test) starts one thread, not maxThreads (a
        // start costs some 90-120 ms of CPU). keepStarted keeps them once started.
        minThreads: 0,
        // Raised by the engine's task queue past maxThreads only while it runs more tasks (threadCap).
        maxThreads,
        idleTimeout: 10_000,
        // Memory: each worker's young generation stays small (see workerYoungGenerationMb).
        resourceLimits: { maxYoungGenerationSizeMb: workerYoungGenerationMb(maxThreads) },
    });
    keepStarted(pool, maxThreads);
    // A worker that dies outside a task (e.g. terminated by a hard abort) is replaced; nothing to report.
    pool.on('error', () => undefined);
    return { pool, ledgerOff };
}

/**
 * Keeps up to `steady` of `pool`'s threads once they have started: piscina ends a thread idle for
 * `idleTimeout` only while the pool has more than `minThreads` (read at each idle check), so
 * raising `minThreads` with each start makes the first `steady` threads stay, as a pool started
 * with them would, and only spare threads for concurrent calls leave when idle.
 */
function keepStarted(pool: Piscina, steady: number): void {
    pool.on('workerCreate', () => {
        pool.options.minThreads = Math.max(pool.options.minThreads, Math.min(steady, pool.threads.length));
    });
}

/**
 * Lets `pool` run `threads` threads at most from now on. The engine's task queue is the only one
 * handing tasks to the pool and sets this to the tasks it runs (at least maxThreads, at most
 * maxPoolThreads): piscina starts a thread for every task that waits for a starting one, and
 * without this cap a call's next tasks, handed out while its first threads start, would start
 * threads beyond maxThreads.
 */
export function threadCap(pool: Piscina, threads: number): void {
    pool.options.maxThreads = threads;
}
