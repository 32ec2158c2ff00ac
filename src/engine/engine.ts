import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import type { Access } from '../config/configuration.js';
import { CHECKPOINT_BYTES, readCheckpoint, resetCheckpoint } from './checkpoint.js';
import { OrderedWalk, type WalkNode } from './ordered.js';
import { unpackRun, type ReadTask, type ReadTaskResult, type SearchTask, type SearchTaskResult, type Segment, type WalkJob, type WalkSpec } from './protocol.js';
import { compileGlobs } from './filters.js';
import { compilePattern } from './regex.js';
import type { ReadItem, ReadOutcome, ReadRender, SearchHit, SearchOutcome, SearchRequest, SearchStop, ShownReadOutcome } from './types.js';

/** Where a search asks an index for its walk (src/search-index): segments of the walked root, or `null` for the scan path. */
export interface WalkPlanner {
    plan(req: SearchRequest, spec: WalkSpec, rootReal: string): Segment[] | null;
}

/**
 * The worker-pool engine behind `search_entries` and bulk reads.
 *
 * A search is a parallel walk: the main thread keeps a queue of directories in walk order and
 * hands batches to the pool; each task lists directories, filters entries, scans file contents,
 * descends depth-first until its budget is spent and returns its hits and the directories left
 * over. {@link OrderedWalk} stitches the results into the order of a sequential walk, so output
 * and early stops are deterministic. Stopping early, timeouts and aborts first ask the workers to
 * stop (a shared flag they check at every entry), then terminate any still busy after a short
 * grace, so a runaway regex cannot outlive its call.
 */

/**
 * The worker entry point of the pool, and the Node options its threads start with.
 *
 * Built (`dist/src/engine/engine.js`): `dist/workers/entry.cjs` on plain Node. Run from the
 * source tree (`src/engine/engine.ts`, as the tests run it), never a possibly stale build: the
 * bundle of the source workers that the test run made at its start, named in
 * `LLM_CHAT_FILE_TEST_WORKER` (test/worker-bundle.setup.ts); without one (watch mode, a script
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

/** How long tasks get to return by themselves after a search ends before their workers are terminated. */
const GRACE_MS = 250;
/** Work units of a task when the queue is short (small tasks spread the walk) and when it is long. */
const SMALL_BUDGET = 256;
const LARGE_BUDGET = 4096;
/** Time slice of a task: results stream back at least this often. */
const SLICE_MS = 20;
/** Jobs per task at most. */
const MAX_JOBS_PER_TASK = 32;
/** Streaming: stop handing out work while this many hits wait for the consumer. */
const STREAM_HIGH_WATER = 2048;
/**
 * A task running this long (many time slices: it is inside one file or directory) counts as
 * stuck: its search hands out no more tasks until it returns. Shorter for patterns that may
 * backtrack catastrophically; long enough otherwise that a legitimately slow file (10 MB
 * through a slow regex) costs a search little parallelism.
 */
const STUCK_RISKY_MS = 200;
const STUCK_MS = 2000;
/**
 * Young-generation size of a worker's heap, in MiB. Memory: a walk makes short-lived garbage
 * (paths, stat objects) and V8 let each worker's young generation grow to its default maximum;
 * with 16 threads a full scan of the Linux tree peaked at 423 MB RSS, with 4 MiB at 358 MB and
 * with 2 MiB at 337 MB (an idle pool of 16: 260 MB), at no measurable CPU cost on 2 threads
 * (user + system 1.33-1.53 s per full scan either way, load average ~16). Peak per thread count:
 * `node dist/bench/compare.js --tree kernel --only peak-rss --rss-threads 2,16`.
 */
const WORKER_YOUNG_GENERATION_MB = 4;
/** Threads the pool may add beyond `maxThreads` for concurrent calls, at least (see the constructor). */
const SPARE_THREADS = 16;

type Resolve<T> = (value: T) => void;

/** A task waiting in the engine's queue for a thread. */
interface QueuedTask {
    task: object;
    stuckMs: number;
    risky: boolean;
    resolve: (value: unknown) => void;
    reject: (err: unknown) => void;
    signal?: AbortSignal;
    onAbort?: () => void;
    onStart?: () => void;
}

/** The error of a task aborted before it ran, like piscina's for an aborted task. */
function abortError(): Error {
    const err = new Error('The task has been aborted');
    err.name = 'AbortError';
    return err;
}

/** Options of {@link Engine.search}. */
export interface SearchOptions {
    /** Total time in milliseconds; after it the search returns what it found, `stop: 'timeout'`. */
    timeoutMs: number;
    /** Aborting it ends the search with the hits found so far, `stop: 'aborted'`. */
    signal?: AbortSignal;
    /** Called as the walk goes on (at most every 100 ms): entries visited, files scanned, hits found so far. Must not throw. */
    onProgress?: (progress: SearchProgress) => void;
}

/** How far a running search has got. */
export interface SearchProgress {
    visited: number;
    scanned: number;
    /** Hits known so far (found by finished tasks; not all of them need be returned). */
    hits: number;
}

/** The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days); a longer one would fire after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Minimum time between two progress reports. */
const PROGRESS_EVERY_MS = 100;

/** Options of {@link Engine.readMany}. */
export interface ReadManyOptions {
    /** Files above this many bytes fail with `too_large`. */
    maxBytes: number;
    /** Real access roots each opened file is re-checked against; `null` when symlink resolution is off. */
    realRoots: readonly Access[] | null;
    /** Items not read after this many milliseconds fail with `timeout`. */
    timeoutMs: number;
    /** The setting named in `too_large` messages (default `maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)`). */
    setting?: string;
    /**
     * Format each file as `read_file` shows it on the worker and hand back that text instead of
     * the bytes (outcomes with `shown`). Perf: decoding, splitting and hashing a 10 MiB file on
     * the main thread blocked the host's event loop for ~200 ms, 100 large files for ~1.5 s
     * (bench/event-loop.ts, load average ~18 on 2 cores).
     */
    render?: ReadRender;
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
export class Engine {
    static #shared: Engine | undefined;

    /** Process-wide default engine used by tools built without a package (its pool starts on first use). */
    static shared(): Engine {
        return (Engine.#shared ??= new Engine());
    }

    /** Worker threads one call keeps busy, and the pool's steady size. */
    readonly maxThreads: number;
    /** Worker threads the pool runs at most, across concurrent calls. */
    readonly maxPoolThreads: number;
    /** The search index answering searches it can (candidate files from the index, opened by the workers); none: every search walks. */
    searchIndex: WalkPlanner | undefined;
    #pool: Piscina | undefined;
    /** Tasks handed to the pool and not yet settled: when each started and when it counts as stuck. */
    readonly #running = new Set<{ since: number; stuckMs: number; risky: boolean }>();
    /** Tasks waiting for a thread, first come first served. */
    #queue: QueuedTask[] = [];
    #wakeTimer: ReturnType<typeof setTimeout> | undefined;

    /**
     * @param options.maxThreads - worker threads a search or bulk read runs on in parallel, and the
     *   number the pool keeps (default `os.availableParallelism()`).
     * @param options.maxPoolThreads - threads the pool may run at once (default
     *   `max(2 × maxThreads, maxThreads + 16)`, at least `maxThreads`). Tasks of concurrent calls
     *   queue for the `maxThreads` threads; each task running past its stuck time (a search in a
     *   runaway regex) lets one more start, up to this many threads, so such searches do not
     *   starve the other calls; those extra threads exit after 10 s idle. Each thread costs about
     *   10-20 MB, plus a read buffer as large as the largest file it scanned.
     * @throws Error when an option is not a positive whole number, or `maxPoolThreads < maxThreads`.
     */
    constructor(options: { maxThreads?: number; maxPoolThreads?: number } = {}) {
        const n = options.maxThreads ?? os.availableParallelism();
        if (!Number.isInteger(n) || n < 1) throw new Error(`Invalid maxThreads: ${String(n)}; expected a positive whole number.`);
        const max = options.maxPoolThreads ?? Math.max(2 * n, n + SPARE_THREADS);
        if (!Number.isInteger(max) || max < n) throw new Error(`Invalid maxPoolThreads: ${String(max)}; expected a whole number of at least maxThreads (${n}).`);
        this.maxThreads = n;
        this.maxPoolThreads = max;
    }

    /**
     * The pool, started on first use. Its threads are unref'ed by piscina while idle, so an idle
     * pool never keeps the process alive.
     */
    get pool(): Piscina {
        if (!this.#pool) {
            // Start-up: piscina is loaded on the first task, so a call that needs no worker never loads it.
            const { Piscina } = createRequire(import.meta.url)('piscina') as typeof import('piscina');
            const pool = new Piscina({
                ...workerEntry(),
                minThreads: this.maxThreads,
                // One call never queues more tasks than maxThreads, so spare threads start only for concurrent calls.
                maxThreads: this.maxPoolThreads,
                idleTimeout: 10_000,
                // Memory: each worker's young generation stays small (see WORKER_YOUNG_GENERATION_MB).
                resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
            });
            // A worker that dies outside a task (e.g. terminated by a hard abort) is replaced; nothing to report.
            pool.on('error', () => undefined);
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
     */
    run<T>(task: object, options: { signal?: AbortSignal; stuckMs?: number; risky?: boolean; onStart?: () => void } = {}): Promise<T> {
        const { signal } = options;
        if (signal?.aborted) return Promise.reject(abortError());
        return new Promise<T>((resolve, reject) => {
            const queued: QueuedTask = { task, stuckMs: options.stuckMs ?? STUCK_MS, risky: options.risky === true, resolve: resolve as (v: unknown) => void, reject };
            if (options.onStart) queued.onStart = options.onStart;
            if (signal) {
                queued.signal = signal;
                queued.onAbort = () => {
                    const i = this.#queue.indexOf(queued);
                    if (i !== -1) this.#queue.splice(i, 1);
                    reject(abortError());
                };
                signal.addEventListener('abort', queued.onAbort, { once: true });
            }
            this.#queue.push(queued);
            this.#drain();
        });
    }

    /** Threads tasks may use now: `maxThreads`, plus one per stuck or risky running task, at most `maxPoolThreads`. */
    #allowed(now: number): number {
        let stuck = 0;
        for (const r of this.#running) if (r.risky || now - r.since > r.stuckMs) stuck++;
        return Math.min(this.maxPoolThreads, this.maxThreads + stuck);
    }

    /** Starts waiting tasks while there is room; while some wait, looks again when a running task turns stuck. */
    #drain(): void {
        const now = performance.now();
        while (this.#queue.length > 0 && this.#running.size < this.#allowed(now)) {
            const q = this.#queue.shift()!;
            if (q.onAbort) q.signal?.removeEventListener('abort', q.onAbort);
            const slot = { since: performance.now(), stuckMs: q.stuckMs, risky: q.risky };
            this.#running.add(slot);
            q.onStart?.();
            this.pool.run(q.task, q.signal ? { signal: q.signal } : {}).then(
                (value: unknown) => {
                    this.#running.delete(slot);
                    q.resolve(value);
                    this.#drain();
                },
                (err: unknown) => {
                    this.#running.delete(slot);
                    q.reject(err);
                    this.#drain();
                },
            );
        }
        clearTimeout(this.#wakeTimer);
        this.#wakeTimer = undefined;
        if (this.#queue.length === 0 || this.#running.size >= this.maxPoolThreads) return;
        let next = Number.POSITIVE_INFINITY;
        for (const r of this.#running) if (!r.risky && now - r.since <= r.stuckMs) next = Math.min(next, r.since + r.stuckMs - now);
        if (next === Number.POSITIVE_INFINITY) return;
        this.#wakeTimer = setTimeout(() => this.#drain(), Math.ceil(next) + 1);
        this.#wakeTimer.unref();
    }

    /** True when the pool has been started and not closed. */
    get started(): boolean {
        return this.#pool !== undefined;
    }

    /**
     * Searches `req.root`. Hits come back sorted by path (component-wise), then line; when
     * `maxResults` stops the search they are exactly the first `maxResults` of that order.
     * Never rejects for filesystem reasons: unreadable entries go to `skipped`.
     */
    async search(req: SearchRequest, opts: SearchOptions): Promise<SearchOutcome> {
        return new SearchRun(this, req, opts.timeoutMs, opts.signal, opts.onProgress ? { onProgress: opts.onProgress } : {}).promise;
    }

    /**
     * Streams hits as they are found (not globally sorted), at most `req.maxResults`. Breaking
     * out of the loop or aborting `signal` stops the search; no work goes on afterwards.
     */
    async *stream(req: SearchRequest, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): AsyncGenerator<SearchHit, void, undefined> {
        const queue: SearchHit[] = [];
        let head = 0;
        let wake: (() => void) | undefined;
        let finished = false;
        const ac = new AbortController();
        const run = new SearchRun(this, req, opts.timeoutMs ?? Number.POSITIVE_INFINITY, opts.signal ? AbortSignal.any([opts.signal, ac.signal]) : ac.signal, {
            onHits: (hits) => {
                for (const h of hits) queue.push(h);
                wake?.();
            },
            paused: () => queue.length - head >= STREAM_HIGH_WATER,
        });
        void run.promise.finally(() => {
            finished = true;
            wake?.();
        });
        let yielded = 0;
        try {
            while (yielded < req.maxResults) {
                if (head < queue.length) {
                    const hit = queue[head]!;
                    queue[head++] = undefined as unknown as SearchHit;
                    if (head > 1024 && head * 2 > queue.length) {
                        queue.splice(0, head);
                        head = 0;
                    }
                    yielded++;
                    yield hit;
                    run.resume();
                } else if (finished) {
                    break;
                } else {
                    await new Promise<void>((r) => (wake = r));
                    wake = undefined;
                }
            }
        } finally {
            ac.abort();
            await run.promise;
        }
    }

    /**
     * Reads files on the pool with bounded concurrency; one outcome per item, in the order
     * given. A failing item (missing, binary check is the caller's, too large, FIFO, outside,
     * timeout) never affects the others.
     */
    async readMany(items: readonly ReadItem[], opts: ReadManyOptions & { render: ReadRender }): Promise<ShownReadOutcome[]>;
    async readMany(items: readonly ReadItem[], opts: ReadManyOptions & { render?: undefined }): Promise<ReadOutcome[]>;
    async readMany(items: readonly ReadItem[], opts: ReadManyOptions): Promise<(ReadOutcome | ShownReadOutcome)[]> {
        const out: (ReadOutcome | ShownReadOutcome)[] = new Array(items.length);
        if (items.length === 0) return out;
        const groupSize = Math.min(16, Math.max(1, Math.ceil(items.length / (this.maxThreads * 4))));
        const groups: number[][] = [];
        for (let i = 0; i < items.length; i += groupSize) groups.push(Array.from({ length: Math.min(groupSize, items.length - i) }, (_, k) => i + k));
        const timeout = AbortSignal.timeout(Math.min(opts.timeoutMs, MAX_TIMER_MS));
        let next = 0;
        const failAll = (group: number[], kind: string, message: (shown: string) => string): void => {
            for (const i of group) out[i] = { ok: false, kind, message: message(items[i]!.shown) };
        };
        const lane = async (): Promise<void> => {
            while (next < groups.length) {
                const group = groups[next++]!;
                if (timeout.aborted) {
                    failAll(group, 'timeout', (s) => `Read timed out after ${opts.timeoutMs} ms: ${s}`);
                    continue;
                }
                const task: ReadTask = {
                    op: 'read',
                    items: group.map((i) => items[i]!),
                    maxBytes: opts.maxBytes,
                    realRoots: opts.realRoots,
                    setting: opts.setting ?? 'maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)',
                };
                if (opts.render) task.render = opts.render;
                try {
                    const res = await this.run<ReadTaskResult>(task, { signal: timeout });
                    if (res.ok) group.forEach((i, k) => (out[i] = res.results[k]!));
                    else failAll(group, 'io', (s) => `Could not read ${s}: ${res.message}`);
                } catch (err) {
                    if (timeout.aborted) failAll(group, 'timeout', (s) => `Read timed out after ${opts.timeoutMs} ms: ${s}`);
                    else failAll(group, 'io', (s) => `Could not read ${s}: ${err instanceof Error ? err.message : String(err)}`);
                }
            }
        };
        await Promise.all(Array.from({ length: Math.min(groups.length, this.maxThreads) }, lane));
        return out;
    }

    /** Stops the pool (running tasks are terminated). The engine can be used again; a new pool then starts. */
    async close(): Promise<void> {
        const waiting = this.#queue;
        this.#queue = [];
        clearTimeout(this.#wakeTimer);
        this.#wakeTimer = undefined;
        for (const q of waiting) {
            if (q.onAbort) q.signal?.removeEventListener('abort', q.onAbort);
            q.reject(new Error('The worker pool was closed before the task started.'));
        }
        const pool = this.#pool;
        this.#pool = undefined;
        if (pool) await pool.destroy();
    }
}

/** Hooks for streaming consumers. */
interface RunHooks {
    /** Hits of each finished task, in the task's order (not globally sorted). */
    onHits?: (hits: SearchHit[]) => void;
    /** While true, no new tasks are handed out. */
    paused?: () => boolean;
    onProgress?: (progress: SearchProgress) => void;
}

/** In-flight task of a search. */
interface Inflight {
    ac: AbortController;
    done: Promise<void>;
    /** `performance.now()` when it was handed to the pool. */
    since: number;
    nodes: WalkNode[];
    /** Its checkpoint buffer (risky patterns only). */
    checkpoint?: SharedArrayBuffer;
    /** Terminated at the end of the search, its checkpoint taken instead of a result. */
    killed: boolean;
}

/** One search call: dispatch, ordered merge, deadline, teardown. */
class SearchRun {
    readonly promise: Promise<SearchOutcome>;
    readonly #engine: Engine;
    readonly #req: SearchRequest;
    readonly #timeoutMs: number;
    readonly #signal: AbortSignal | undefined;
    readonly #hooks: RunHooks;
    readonly #started = performance.now();
    readonly #cancel = new SharedArrayBuffer(4);
    readonly #inflight = new Set<Inflight>();
    #walk: OrderedWalk | undefined;
    #spec: WalkSpec | undefined;
    /** After this long a task counts as stuck (see {@link STUCK_MS}). */
    #stuckMs = STUCK_MS;
    /** The pattern may backtrack catastrophically: tasks keep checkpoints. */
    #risky = false;
    /** Checkpoint buffers of returned tasks, for the next ones. */
    readonly #spareCheckpoints: SharedArrayBuffer[] = [];
    #visited = 0;
    #scanned = 0;
    #found = 0;
    #lastProgress = 0;
    #workerSkips: { path: string; reason: string }[] = [];
    #stop: SearchStop | null = null;
    #resolve!: Resolve<SearchOutcome>;
    #reject!: (err: unknown) => void;
    #timer: ReturnType<typeof setTimeout> | undefined;
    #onAbort = (): void => void this.#finish('aborted');

    constructor(engine: Engine, req: SearchRequest, timeoutMs: number, signal: AbortSignal | undefined, hooks: RunHooks = {}) {
        this.#engine = engine;
        this.#req = req;
        this.#timeoutMs = timeoutMs;
        this.#signal = signal;
        this.#hooks = hooks;
        this.promise = new Promise<SearchOutcome>((resolve, reject) => {
            this.#resolve = resolve;
            this.#reject = reject;
        });
        this.#start().catch((err: unknown) => {
            // Only a programming error gets here (e.g. an invalid pattern the caller did not check).
            this.#stop ??= 'aborted';
            Atomics.store(new Int32Array(this.#cancel), 0, 1);
            clearTimeout(this.#timer);
            this.#signal?.removeEventListener('abort', this.#onAbort);
            this.#reject(err);
        });
    }

    async #start(): Promise<void> {
        const req = this.#req;
        if (this.#signal?.aborted) return this.#finish('aborted');
        this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
        if (Number.isFinite(this.#timeoutMs)) this.#timer = setTimeout(() => void this.#finish('timeout'), Math.min(this.#timeoutMs, MAX_TIMER_MS));
        let rootReal: string;
        try {
            // Security: with real roots the caller's checked real path is used as is; resolving it
            // again here could follow a link swapped in since the check. Workers re-check the opened directory.
            rootReal = req.realRoots !== null ? req.root : await fs.realpath(req.root);
        } catch (err) {
            this.#workerSkips.push({ path: req.displayRoot, reason: err instanceof Error ? err.message : String(err) });
            return this.#finish('done');
        }
        if (this.#stop !== null) return;
        const timeFilter = [req.createdAfter, req.createdBefore, req.modifiedAfter, req.modifiedBefore].some((t) => t !== undefined);
        this.#spec = {
            type: req.type, // a content pattern implies files: the worker lists no directory then
            ...(req.namePattern !== undefined && { name: compilePattern(req.namePattern) }),
            ...(req.contentPattern !== undefined && { content: compilePattern(req.contentPattern) }),
            maxFileSize: req.maxFileSize,
            ...(req.createdAfter !== undefined && { createdAfter: req.createdAfter }),
            ...(req.createdBefore !== undefined && { createdBefore: req.createdBefore }),
            ...(req.modifiedAfter !== undefined && { modifiedAfter: req.modifiedAfter }),
            ...(req.modifiedBefore !== undefined && { modifiedBefore: req.modifiedBefore }),
            needTimes: timeFilter,
            skipDirs: [...req.skipDirs],
            realRoots: req.realRoots === null ? null : req.realRoots.map((a) => a.path),
            deadline: Number.isFinite(this.#timeoutMs) ? Date.now() + this.#timeoutMs : Number.MAX_SAFE_INTEGER,
            mode: req.outputMode ?? 'content',
            context: (req.outputMode ?? 'content') === 'content' ? (req.contextLines ?? 0) : 0,
            ...(req.include !== undefined && req.include.length > 0 && { include: [...req.include] }),
            ...(req.exclude !== undefined && req.exclude.length > 0 && { exclude: [...req.exclude] }),
            gitignore: req.respectGitignore === true,
            rootRel: req.displayRoot,
            relStart: req.displayRoot === '.' ? 0 : req.displayRoot.endsWith('/') ? req.displayRoot.length : req.displayRoot.length + 1,
        };
        if (this.#spec.name?.risky === true || this.#spec.content?.risky === true) {
            this.#risky = true;
            this.#stuckMs = STUCK_RISKY_MS;
        }
        // Invalid globs fail the call here, like invalid patterns, not in every worker.
        if (this.#spec.include) compileGlobs(this.#spec.include);
        if (this.#spec.exclude) compileGlobs(this.#spec.exclude);
        const root: WalkJob = { real: rootReal, rel: req.displayRoot, jumps: [] };
        if (req.respectGitignore === true && req.gitignoreAbove !== undefined && req.gitignoreAbove.length > 0) root.ignores = [...req.gitignoreAbove];
        this.#walk = new OrderedWalk(root, req.maxResults, req.maxTotalEntries);
        // The index's walk: the root resolved at once, only the entries it cannot rule out handed to the workers.
        const planned = this.#engine.searchIndex?.plan(req, this.#spec, rootReal) ?? null;
        if (planned !== null) this.#walk.resolve(this.#walk.take(1)[0]!, planned);
        this.#pump();
    }

    /** Streaming consumer caught up: hand out work again. */
    resume(): void {
        if (this.#stop === null && this.#walk) this.#pump();
    }

    /** Hands out tasks while there is work and room. */
    #pump(): void {
        const walk = this.#walk!;
        // Perf/fairness: no more tasks than workers, so the pool's queue stays empty for a lone search
        // and piscina starts spare threads only when other calls are waiting. While a task is stuck
        // (likely in a runaway regex), no more: the search holds one thread until it returns or times out.
        const slots = this.#stuck() ? 1 : this.#engine.maxThreads;
        while (this.#stop === null && this.#inflight.size < slots && walk.pending > 0 && !this.#hooks.paused?.()) {
            const perTask = Math.min(MAX_JOBS_PER_TASK, Math.max(1, Math.ceil(walk.pending / slots)));
            const nodes = walk.take(perTask);
            this.#dispatch(nodes, walk.pending < this.#engine.maxThreads ? SMALL_BUDGET : LARGE_BUDGET);
        }
        if (this.#stop === null && this.#inflight.size === 0 && walk.pending === 0 && !this.#hooks.paused?.()) {
            // Nothing running, nothing queued: the cursor has passed everything (or a stop was found).
            walk.advance();
            void this.#finish(walk.stop ?? 'done');
        }
    }

    /** Some in-flight task has run longer than {@link STUCK_MS}. */
    #stuck(): boolean {
        const now = performance.now();
        for (const t of this.#inflight) if (now - t.since > this.#stuckMs) return true;
        return false;
    }

    #dispatch(nodes: WalkNode[], budget: number): void {
        const walk = this.#walk!;
        const task: SearchTask = {
            op: 'search',
            spec: this.#spec!,
            jobs: nodes.map((n) => n.job),
            budget,
            sliceMs: SLICE_MS,
            capHits: walk.hitsNeeded,
            capEntries: walk.entriesNeeded,
            cancel: this.#cancel,
        };
        const ac = new AbortController();
        // `since` counts from the start on a thread: time in the engine's queue is not being stuck.
        const entry: Inflight = { ac, done: Promise.resolve(), since: Number.POSITIVE_INFINITY, nodes, killed: false };
        // Perf: only for risky patterns; a returned task's buffer serves the next one.
        if (this.#risky) task.checkpoint = entry.checkpoint = this.#spareCheckpoints.pop() ?? new SharedArrayBuffer(CHECKPOINT_BYTES);
        const onStart = (): void => {
            entry.since = performance.now();
        };
        entry.done = this.#engine.run<SearchTaskResult>(task, { signal: ac.signal, stuckMs: this.#stuckMs, risky: this.#risky, onStart }).then(
            (res: SearchTaskResult) => {
                this.#inflight.delete(entry);
                if (entry.killed) return;
                if (entry.checkpoint) {
                    resetCheckpoint(entry.checkpoint);
                    this.#spareCheckpoints.push(entry.checkpoint);
                }
                this.#onResult(nodes, res);
            },
            (err: unknown) => {
                this.#inflight.delete(entry);
                if (this.#stop !== null) return; // aborted by our own teardown
                this.#onResult(nodes, { ok: false, code: 'worker_failed', message: err instanceof Error ? err.message : String(err) });
            },
        );
        this.#inflight.add(entry);
    }

    #onResult(nodes: WalkNode[], res: SearchTaskResult): void {
        const walk = this.#walk!;
        const ending = this.#stop !== null;
        if (ending && this.#stop !== 'timeout' && this.#stop !== 'aborted') return;
        if (!res.ok) {
            // A task that failed as a whole (a crashed worker): its directories are reported, the walk goes on.
            for (const node of nodes) {
                walk.resolve(node, [{ t: 'run', n: 0, hits: [], at: [], skipped: [{ path: node.job.rel, reason: `search worker failed: ${res.message}` }] }]);
            }
        } else {
            this.#visited += res.visited;
            this.#scanned += res.scanned;
            const fresh: SearchHit[] = [];
            nodes.forEach((node, i) => {
                const segs = res.results[i];
                if (segs === null || segs === undefined) {
                    // Not started: needed later unless a cap made it pointless.
                    if (res.capped) walk.resolve(node, []);
                    else walk.requeue(node);
                    return;
                }
                for (const seg of segs) if (seg.t === 'run') unpackRun(seg);
                walk.resolve(node, segs);
                for (const seg of segs) if (seg.t === 'run') this.#found += seg.hits.length;
                if (this.#hooks.onHits) collectHits(segs, fresh);
            });
            if (fresh.length > 0 && !ending) this.#hooks.onHits!(fresh);
            this.#progress(ending);
            if (res.timedOut && !ending) {
                void this.#finish('timeout');
                return;
            }
        }
        if (ending) return;
        walk.advance();
        if (walk.stop !== null) {
            void this.#finish(walk.stop);
            return;
        }
        if (walk.complete) {
            void this.#finish('done');
            return;
        }
        this.#pump();
    }

    #progress(ending: boolean): void {
        const report = this.#hooks.onProgress;
        const now = performance.now();
        if (!report || ending || now - this.#lastProgress < PROGRESS_EVERY_MS) return;
        this.#lastProgress = now;
        try {
            report({ visited: this.#visited, scanned: this.#scanned, hits: this.#found });
        } catch {
            // a listener's failure is not the search's
        }
    }

    /** Takes what a task about to be terminated recorded: its hits so far join the partial result, its figures the totals. */
    #salvage(t: Inflight): void {
        const cp = readCheckpoint(t.checkpoint!);
        this.#visited += cp.visited;
        this.#scanned += cp.scanned;
        for (const [job, hits] of cp.hits) {
            const node = t.nodes[job];
            if (node) this.#walk!.partial(node, hits);
        }
    }

    /**
     * Ends the search: signals the workers to stop, gives running tasks a short grace to return
     * (their results still count after a timeout), then terminates what is left. Nothing of this
     * search runs after the promise resolves.
     */
    async #finish(stop: SearchStop): Promise<void> {
        if (this.#stop !== null) return;
        this.#stop = stop;
        Atomics.store(new Int32Array(this.#cancel), 0, 1);
        clearTimeout(this.#timer);
        this.#signal?.removeEventListener('abort', this.#onAbort);
        if (this.#inflight.size > 0) {
            let graceTimer: ReturnType<typeof setTimeout> | undefined;
            const grace = new Promise<void>((r) => (graceTimer = setTimeout(r, GRACE_MS)));
            try {
                await Promise.race([Promise.all([...this.#inflight].map((t) => t.done)), grace]);
            } finally {
                clearTimeout(graceTimer);
            }
            // Hard abort: piscina terminates a worker still running (e.g. stuck in a runaway regex) and starts a new one.
            for (const t of this.#inflight) {
                t.killed = true;
                if (t.checkpoint && this.#walk && (stop === 'timeout' || stop === 'aborted')) this.#salvage(t);
                t.ac.abort();
            }
            await Promise.all([...this.#inflight].map((t) => t.done));
        }
        const walk = this.#walk;
        let hits: SearchHit[] = [];
        let skipped = [...this.#workerSkips];
        let visited = this.#visited;
        if (walk) {
            const ordered = stop === 'max_results' || stop === 'too_many_entries' || stop === 'done';
            hits = ordered ? walk.emitted : walk.knownHits();
            // Deterministic where the sequential walk's stopping point is known; workers overshoot it.
            if (ordered) visited = walk.visited;
            skipped = skipped.concat(walk.skipped);
        }
        this.#resolve({
            hits,
            visited,
            scanned: this.#scanned,
            stop,
            skipped,
            tooLarge: walk ? walk.tooLarge : [],
            tooLargeCount: walk ? walk.tooLargeCount : 0,
            elapsedMs: Math.round(performance.now() - this.#started),
        });
    }
}

/** All hits of a task's segments, in order. */
function collectHits(segs: readonly Segment[], out: SearchHit[]): void {
    for (const s of segs) if (s.t === 'run') for (const h of s.hits) out.push(h);
}
