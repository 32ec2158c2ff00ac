import { once } from 'node:events';
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import { asPrepared } from '../search/prepare.js';
import type { PreparedSearch } from '../search/shared/protocol.js';
import { readMany, type ReadManyOptions } from '../read/read-many.js';
import type { BackendSource, PlannedWalk, SearchBackend, WriteEvent } from '../search/backend.js';
import { SearchRun } from '../search/search-run.js';
import { streamHits } from '../search/stream.js';
import type { RunOptions, TaskRunner } from '../search/task-runner.js';
import type { ReadItem, ReadOutcome, ReadRender, SearchHit, SearchOptions, SearchOutcome, SearchRequest, ShownReadOutcome } from '../search/shared/types.js';
import { createPool, threadCap } from './pool.js';
import { type SharedPool, sharedPool } from './shared-pool.js';
import { TaskQueue } from './task-queue.js';

export type { ReadManyOptions } from '../read/read-many.js';
export type { BackendSource, SearchBackend, WriteEvent } from '../search/backend.js';
export type { SearchOptions, SearchProgress } from '../search/shared/types.js';

/**
 * The worker-pool engine behind `search_entries` and bulk reads: the piscina pool (lazy,
 * unref'ed, closable; pool.ts) and the engine's task queue in front of it (maxThreads at once, one
 * more per stuck task; task-queue.ts). A search runs as a {@link SearchRun} (search-run.ts),
 * streamed by stream.ts; bulk reads are read-many.ts's; requests are checked and compiled by
 * prepare.ts.
 */

/** Threads the pool may add beyond `maxThreads` for concurrent calls, at least (see the constructor). */
const SPARE_THREADS = 16;
/**
 * Default `maxThreads` at most, whatever the number of cores. Memory: a worker thread costs about
 * 17-20 MB once it has searched (an isolate, its heap, V8's compiler memory and its read buffer),
 * so a pool of one thread per core would grow with the core count; with this cap the process
 * stays under the 250 MB target on any host. A host that wants more threads passes `maxThreads`
 * (ripgrep caps its default at 12).
 */
export const DEFAULT_MAX_THREADS = 6;

/**
 * Default nice value of the pool's threads (Linux; see {@link Engine} `workerNice`). While a
 * search keeps every pool thread busy, the host's thread (its garbage collections, the hits it
 * receives) waits for a core next to them; at nice 5 it gets one back first, and searches take as
 * long (Perf: median longest event-loop delay of a search listing 81,383 hits 10.1 ms, against up
 * to 17.1 ms at nice 0; `node dist/bench/event-loop.js --only hits --worker-nice N`). A moderate
 * value: on a machine busy with other programs, threads at nice 5 still get about a quarter of a
 * contended core (weight 335 against 1024 at nice 0, sched(7)).
 */
export const DEFAULT_WORKER_NICE = 5;

/** Options of {@link Engine} (see its constructor), also the `engine` option of `FileToolPackage`. */
export interface EngineOptions {
    maxThreads?: number;
    maxPoolThreads?: number;
    workerNice?: number;
    sharedPool?: boolean;
    /** Search backends, asked in this order (default none: every search walks). */
    backends?: readonly BackendSource[];
}

/**
 * Searches and bulk reads on a worker pool (see the file comment for how a search runs).
 *
 * Runaway regexes (catastrophic backtracking) and concurrent calls:
 * - A task stuck in one file's regex returns nothing until it is terminated, so with a pattern
 *   that may backtrack catastrophically (`mayBacktrack` in regex.ts) each task records its hits
 *   and progress in a shared buffer before each next entry (checkpoint.ts), read after the task
 *   is terminated: a timeout then loses at most the stuck file's own hits.
 * - While one of its tasks has run far longer than a time slice (200 ms with such a pattern,
 *   2 s otherwise), a search hands out no further tasks, so a stuck search holds one thread, not
 *   `maxThreads`, until its timeout.
 * - Concurrent calls share `maxThreads` threads: tasks beyond them wait in the engine's queue
 *   (first come, first served), so 50 concurrent searches run on `maxThreads` threads, not 50.
 *   Only a task with a pattern that may backtrack catastrophically, or one that has run past its
 *   stuck time (above), lets one more task start, up to `maxPoolThreads` threads in all
 *   (default `max(2 × maxThreads, maxThreads + 16)`), so runaway searches cannot starve the
 *   other calls; those extra threads exit after 10 s idle.
 *
 * Remaining limit: each stuck search keeps one thread (and a CPU core) busy until its own
 * timeout, and more than one if several of its tasks reach runaway files within the same
 * 200 ms. With `maxPoolThreads` threads stuck at once, further calls (searches and bulk reads)
 * wait in the engine's queue until a stuck search times out and frees its thread, and may time
 * out themselves meanwhile. The syntactic test misses runaway patterns of other shapes
 * (polynomial ones like `\s*\s*$` on very long lines): those still lose a stuck task's hits
 * on timeout, but are held to one thread after 2 s.
 */
export class Engine implements TaskRunner {
    static #shared: Engine | undefined;

    /** Process-wide default engine used by tools built without a package (its pool starts on first use). */
    static shared(): Engine {
        return (Engine.#shared ??= new Engine());
    }

    /** Worker threads one call keeps busy, and the pool's steady size (threads start as tasks need them, then stay). */
    readonly maxThreads: number;
    /** Worker threads the pool runs at most, across concurrent calls. */
    readonly maxPoolThreads: number;
    /** Nice value the pool's threads take on Linux (0: they keep the host's). */
    readonly workerNice: number;
    /** The search backends, asked in order (see backend.ts); none: every search walks. */
    readonly backends: readonly SearchBackend[];
    /** Whether the pool is the process's shared one for this maxThreads and workerNice (shared-pool.ts). */
    readonly sharedPool: boolean;
    #pool: Piscina | undefined;
    #sharing: SharedPool | undefined;
    #closes = 0;
    /** Stops noting new workers' exits for the pool's descriptor ledger. */
    #ledgerOff: (() => void) | undefined;
    /** Tasks waiting for a thread and those running. */
    readonly #tasks: TaskQueue;

    /**
     * @param options.maxThreads - worker threads a search or bulk read runs on in parallel, and the
     *   number the pool keeps once they have started (each starts when a task first needs it;
     *   default `os.availableParallelism()`, at most {@link DEFAULT_MAX_THREADS}).
     * @param options.maxPoolThreads - threads the pool may run at once (default
     *   `max(2 × maxThreads, maxThreads + 16)`, at least `maxThreads`). Tasks of concurrent calls
     *   queue for the `maxThreads` threads; each task running past its stuck time (a search in a
     *   runaway regex) lets one more start, up to this many threads, so such searches do not
     *   starve the other calls; those extra threads exit after 10 s idle. Each thread costs about
     *   17-20 MB once it has searched (its read buffer at most 1 MiB of that).
     * @param options.workerNice - nice value (0 to 19) the pool's threads lower themselves to on
     *   Linux as they start (workers/entry.cts; never raised: a thread already at it or above keeps
     *   its own), so the host's own thread gets a core back when it needs one (default
     *   {@link DEFAULT_WORKER_NICE}; 0: they keep the host's priority). Linux only: a
     *   nice value is per thread there; elsewhere it would lower the whole process, so threads
     *   keep their priority (workers/pool/background.ts).
     * @param options.sharedPool - run on the process's pool for engines with this option and the
     *   same `maxThreads` and `workerNice` (default false: a pool of the engine's own). A second
     *   such engine starts no thread while the pool has an idle one; each engine still runs at
     *   most its own threads, and {@link close} ends its running tasks, not the pool's threads.
     * @throws Error when `maxThreads` or `maxPoolThreads` is not a positive whole number,
     *   `maxPoolThreads < maxThreads`, `workerNice` is not a whole number from 0 to 19, or
     *   `sharedPool` is neither true nor false.
     */
    constructor(options: EngineOptions = {}) {
        const n = options.maxThreads ?? Math.min(os.availableParallelism(), DEFAULT_MAX_THREADS);
        if (!Number.isInteger(n) || n < 1) throw new Error(`Invalid maxThreads: ${String(n)}; expected a positive whole number.`);
        const max = options.maxPoolThreads ?? Math.max(2 * n, n + SPARE_THREADS);
        if (!Number.isInteger(max) || max < n) throw new Error(`Invalid maxPoolThreads: ${String(max)}; expected a whole number of at least maxThreads (${n}).`);
        const nice = options.workerNice ?? DEFAULT_WORKER_NICE;
        if (!Number.isInteger(nice) || nice < 0 || nice > 19) {
            const shown = typeof nice === 'number' ? String(nice) : `${JSON.stringify(nice) ?? String(nice)} (${typeof nice})`;
            throw new Error(`Invalid workerNice: ${shown}; expected a whole number from 0 to 19.`);
        }
        const shared = options.sharedPool ?? false;
        if (typeof shared !== 'boolean') throw new Error(`Invalid sharedPool: ${JSON.stringify(shared) ?? String(shared)} (${typeof shared}); expected true or false.`);
        this.maxThreads = n;
        this.maxPoolThreads = max;
        this.workerNice = nice;
        this.sharedPool = shared;
        this.backends = (options.backends ?? []).map((b) => (typeof b === 'function' ? b(this) : b));
        this.#tasks = new TaskQueue(n, max, () => this.pool, (threads) => this.#cap(threads), shared);
    }

    /** Lets the pool run `threads` threads for this engine's tasks (0: none running; an own pool keeps its cap). */
    #cap(threads: number): void {
        if (this.#sharing) this.#sharing.ask(this, threads);
        else if (this.#pool && threads > 0) threadCap(this.#pool, threads);
    }

    /** The first backend's walk of `search`, or `null` for the scan path (also when a backend fails: it only ever narrows). */
    async planSearch(search: PreparedSearch, rootReal: string): Promise<PlannedWalk | null> {
        for (const b of this.backends) {
            const planned = await b.plan(search, rootReal).catch(() => null);
            if (planned !== null) return Array.isArray(planned) ? { segments: planned, more: null } : planned;
        }
        return null;
    }

    /** Tells every backend of a change made through the tools. */
    reportWrite(event: WriteEvent): void {
        for (const b of this.backends) b.write?.(event);
    }

    /**
     * The pool, started on first use. Its threads are unref'ed by piscina while idle, so an idle
     * pool never keeps the process alive.
     */
    get pool(): Piscina {
        if (!this.#pool && this.sharedPool) {
            this.#sharing = sharedPool(this.maxThreads, this.workerNice);
            this.#pool = this.#sharing.pool;
        } else if (!this.#pool) {
            const { pool, ledgerOff } = createPool(this.maxThreads, this.workerNice);
            this.#ledgerOff = ledgerOff;
            this.#pool = pool;
        }
        return this.#pool;
    }

    /**
     * Runs `task` on the pool as soon as a thread is free for it (see the class comment):
     * `maxThreads` tasks at once, plus one per running task older than its `stuckMs`, at most
     * `maxPoolThreads`. Rejects with an `AbortError` when `signal` aborts (a waiting task never
     * starts; a running one is terminated by piscina), and with an `Error` when the engine is
     * closed while the task waits.
     * @param options.stuckMs - after this many milliseconds of running the task counts as stuck
     *   (default 2000).
     * @param options.risky - the task runs a pattern that may backtrack catastrophically: it
     *   counts as stuck from its start, so it never holds back the tasks of other calls.
     * @param options.onStart - called when the task leaves the queue for a thread.
     * @param options.since - for a task that runs a series of pieces of work (a search session):
     *   `performance.now()` when its current piece started; it counts as stuck from there.
     * @param options.transferList - objects moved to the worker with the task (a MessagePort).
     */
    run<T>(task: object, options: RunOptions = {}): Promise<T> {
        return this.#tasks.run<T>(task, options);
    }

    /** Tasks waiting for a thread (of any call). */
    get waiting(): number {
        return this.#tasks.waiting;
    }

    /** Tasks running or waiting (of any call): searches, reads, parses under way. */
    get active(): number {
        return this.#tasks.active;
    }

    /** True when the pool has been started and not closed. */
    get started(): boolean {
        return this.#pool !== undefined;
    }

    /**
     * Searches the request's root (checked and compiled by {@link prepareSearch} unless already
     * prepared). Hits come back sorted by path (component-wise), then line; when `maxResults`
     * stops the search they are exactly the first `maxResults` of that order. Never rejects for
     * filesystem reasons: unreadable entries go to `skipped`.
     * @throws ToolError (invalid_argument) from prepareSearch for an invalid request.
     */
    async search(req: SearchRequest | PreparedSearch, opts: SearchOptions): Promise<SearchOutcome> {
        const search = await asPrepared(req);
        return new SearchRun(this, search, opts.timeoutMs, opts.signal, opts.onProgress ? { onProgress: opts.onProgress } : {}).promise;
    }

    /**
     * Streams hits as they are found (not globally sorted), at most `maxResults`. Breaking out of
     * the loop or aborting `signal` stops the search; no work goes on afterwards (see stream.ts).
     */
    stream(req: SearchRequest | PreparedSearch, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): AsyncGenerator<SearchHit, void, undefined> {
        return streamHits(this, req, opts);
    }

    /**
     * Reads files on the pool with bounded concurrency; one outcome per item, in the order
     * given. A failing item (missing, binary check is the caller's, too large, FIFO, outside,
     * timeout) never affects the others (see read-many.ts).
     */
    async readMany(items: readonly ReadItem[], opts: ReadManyOptions & { render: ReadRender }): Promise<ShownReadOutcome[]>;
    async readMany(items: readonly ReadItem[], opts: ReadManyOptions & { render?: undefined }): Promise<ReadOutcome[]>;
    async readMany(items: readonly ReadItem[], opts: ReadManyOptions): Promise<(ReadOutcome | ShownReadOutcome)[]> {
        return readMany(this, items, opts);
    }

    /** How many times {@link close} was called (see TaskRunner.closes). */
    get closes(): number {
        return this.#closes;
    }

    /**
     * Stops the pool (running tasks are terminated). The engine can be used again; a new pool then
     * starts. A shared pool goes on: this engine's running tasks are terminated, and this resolves
     * once their threads have exited.
     */
    async close(): Promise<void> {
        this.#closes++;
        const pool = this.#pool;
        const before = this.#sharing ? [...this.#sharing.pool.threads] : [];
        this.#tasks.close();
        this.#pool = undefined;
        if (this.#sharing) {
            this.#sharing.ask(this, 0);
            this.#sharing = undefined;
            await threadsExited(before, pool!);
        } else if (pool) await pool.destroy();
        this.#ledgerOff?.();
        this.#ledgerOff = undefined;
    }
}

/** Resolves when the threads of `before` that `pool` no longer has (terminated) have exited. */
async function threadsExited(before: readonly Worker[], pool: Piscina): Promise<void> {
    const still = new Set(pool.threads);
    await Promise.all(before.filter((w) => !still.has(w) && w.threadId !== -1).map((w) => once(w, 'exit').catch(() => undefined)));
}
