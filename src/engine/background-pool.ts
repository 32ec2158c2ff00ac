import { once } from 'node:events';
import type { MessagePort, Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { sharingWithBuild } from './build-share.js';
import { nativeGate, poolBase, watchNativeGate } from './pool.js';
import { releaseSoon } from './release-memory.js';
import { wasmWorkerData } from './wasm-modules.js';

/**
 * The process's pools for the index's background work: builds, merges and the listings of a
 * reopen share their threads. The idle pool's threads lower themselves to {@link BACKGROUND_NICE}
 * and, on Linux, SCHED_IDLE as they take a task (workers/pool/background.ts): the work then takes
 * only CPU time nothing else wants. A build's task asked for while searches keep coming goes to
 * the fair pool instead, whose threads run at the searches' own nice value: continuous searches
 * would otherwise leave a SCHED_IDLE build no CPU at all, and its index would never serve them
 * (a thread never raises its priority back, hence two pools). Each starts on first use with no
 * thread; a thread idle for {@link IDLE_MS} (or {@link setBackgroundIdleMs}) exits, so the memory of a build leaves soon after it,
 * while the tasks of one build, and builds close together, reuse the threads instead of starting
 * new ones (a start costs some 90 ms of CPU). Idle threads never keep the process alive (piscina
 * unrefs them).
 */

/** Nice value of the background threads (Linux: per thread). */
export const BACKGROUND_NICE = 10;
/** How long an idle thread stays for the next task, by default (see {@link setBackgroundIdleMs}). */
const IDLE_MS = 2_000;
let idleMs = IDLE_MS;

/**
 * Sets how long the idle threads of the background pools made from now on stay for the next task
 * (default 2 s). A process that builds indexes often, one after another (a test suite), keeps
 * them longer and starts fewer threads, each of which loads the workers' code and the grammars
 * again; a build's memory then stays that much longer. @throws RangeError for a negative or non-finite value.
 */
export function setBackgroundIdleMs(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`Invalid background idle time: ${ms}; expected a finite number of milliseconds, at least 0.`);
    idleMs = ms;
}
/**
 * How long a caller's own threads, once it closed, wait for the next caller asking for threads
 * alike (see {@link setOwnThreadsIdleMs}); 0: they end with their caller.
 */
let ownIdleMs = 0;

/**
 * Sets how long a caller's own threads (a build's walk, a tree check, a merge) stay once the
 * caller closed, for the next caller of the same kind, thread count, heap and priority (default
 * 0: they end with the caller, so a large walk's heap leaves with it). A process that builds and
 * checks small trees often (a test suite) starts fewer threads, each of which loads the workers'
 * code again. Callers closed after a stop, or with tasks still running, end theirs at once.
 * @throws RangeError for a negative or non-finite value.
 */
export function setOwnThreadsIdleMs(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`Invalid own threads' idle time: ${ms}; expected a finite number of milliseconds, at least 0.`);
    ownIdleMs = ms;
}

/** Own pools closed while {@link ownIdleMs} is above 0, by {@link ownKey}, each ended when its wait is over. */
const parked = new Map<string, { pool: Piscina; timer: NodeJS.Timeout }[]>();

/** What a reused own pool must match: its kind, threads, heap and the lowest priority its threads took (a thread never raises it). */
function ownKey(kind: PoolKind, threads: number, heap: HeapLimits, nice: number): string {
    return `${kind} ${threads} ${heap.youngMb ?? '-'} ${heap.oldMb ?? '-'} ${nice}`;
}

function park(key: string, pool: Piscina): void {
    const list = parked.get(key) ?? [];
    parked.set(key, list);
    const entry = {
        pool,
        timer: setTimeout(() => {
            list.splice(list.indexOf(entry), 1);
            if (list.length === 0 && parked.get(key) === list) parked.delete(key);
            void pool.destroy();
        }, ownIdleMs).unref(),
    };
    list.push(entry);
}

function unpark(key: string): Piscina | undefined {
    if (ownIdleMs === 0) return undefined;
    const entry = parked.get(key)?.pop();
    if (entry === undefined) return undefined;
    clearTimeout(entry.timer);
    return entry.pool;
}

/**
 * Young-generation size of the shared pools' threads, in MiB. Memory: a build's content task
 * makes little short-lived garbage (its data is in typed arrays), yet V8's default let the young
 * generation of each thread grow to 16 MiB and stay resident; 4 MiB took 13 MB off each build
 * thread at no measured cost in time (docs/performance.md). A caller's own threads (the build's
 * walk, which makes a string and a record per entry) keep V8's default.
 */
export const SHARED_YOUNG_GENERATION_MB = 4;

type PoolKind = 'idle' | 'fair';
const shared = new Map<PoolKind, { pool: Piscina; threads: number }>();
/** Tasks asked of each pool (shared or a caller's own) and not settled yet. */
const running = new WeakMap<Piscina, number>();

/**
 * Ends the threads of the shared pools that run nothing now, at once rather than after their idle
 * time: a build calls it when its content tasks are done, so their heaps and buffers (~50 MB a
 * thread at ten times the Linux tree) leave before the new generation serves, not seconds into
 * it. The next task starts new threads. Nothing happens when the process keeps idle threads
 * longer than the default ({@link setBackgroundIdleMs}): it asked for reuse over memory.
 */
export function endIdleThreads(): void {
    if (idleMs > IDLE_MS) return;
    for (const [kind, { pool }] of shared) {
        if ((running.get(pool) ?? 0) > 0) continue;
        shared.delete(kind);
        void pool.destroy().catch(() => undefined);
    }
}

/** V8's heap sizes of a pool's threads, in MiB (V8's defaults where not given). */
export interface HeapLimits {
    youngMb?: number;
    oldMb?: number;
}

function newPool(threads: number, heap: HeapLimits = {}): Piscina {
    watchNativeGate();
    const resourceLimits = { ...(heap.youngMb !== undefined && { maxYoungGenerationSizeMb: heap.youngMb }), ...(heap.oldMb !== undefined && { maxOldGenerationSizeMb: heap.oldMb }) };
    const limits = Object.keys(resourceLimits).length === 0 ? {} : { resourceLimits };
    const pool = new Piscina({ ...poolBase(), workerData: { nativeGate, ...wasmWorkerData() }, minThreads: 0, maxThreads: threads, idleTimeout: idleMs, ...limits });
    // A thread that dies outside a task is replaced on the next one; nothing to report.
    pool.on('error', () => undefined);
    // Memory: a thread's C heap arena outlives it (glibc hands it to the next thread) with what the
    // thread freed still resident; returned once the thread has exited (at ten copies of the Linux
    // tree a 64 MB arena stayed resident through the merge that followed a build).
    const seen = new WeakSet<Worker>();
    pool.on('workerCreate', () => {
        for (const w of pool.threads) {
            if (seen.has(w)) continue;
            seen.add(w);
            w.once('exit', releaseSoon);
        }
    });
    return pool;
}

/** The shared pool of `kind`, with room for at least `threads` threads. */
function poolFor(kind: PoolKind, threads: number): Piscina {
    // A caller wanting more threads than the pool has gets a larger one; the old one's threads
    // finish their tasks and leave once idle.
    const had = shared.get(kind);
    if (had !== undefined && had.threads >= threads) return had.pool;
    const pool = newPool(threads, { youngMb: SHARED_YOUNG_GENERATION_MB });
    shared.set(kind, { pool, threads });
    return pool;
}

/** What a task asks of {@link BackgroundTasks.run}. */
export interface RunOptions {
    /** Buffers (or ports) moved to the thread, not copied (unusable here afterwards). */
    move?: (ArrayBuffer | MessagePort)[];
    /** Run on the fair pool at this nice value (sharing the CPU with searches run at it), not at idle priority. */
    sharedNice?: number | undefined;
    /** A build's task (an index's walk or contents, a tree check): on the fair pool, searches leave it a thread while it runs (build-share.ts). */
    build?: boolean;
}

/**
 * One caller's tasks on the shared pools (a build, a merge, a listing), or on threads of its own.
 * The caller limits how many it runs at once; {@link stop} ends them.
 */
export class BackgroundTasks {
    readonly #threads: number;
    readonly #own: Map<PoolKind, Piscina> | null;
    readonly #used = new Set<Piscina>();
    readonly #abort = new AbortController();
    /** Per own pool: the highest nice value its tasks asked for. */
    readonly #ownNice = new Map<Piscina, number>();

    readonly #heap: HeapLimits;

    /**
     * @param threads - the most tasks the caller runs at once.
     * @param own - threads of the caller's own, which {@link close} ends (memory: a task whose
     *   thread is left with a large heap, as the build's walk, leaves with it).
     * @param heap - the heap sizes of the caller's own threads (V8's defaults without).
     */
    constructor(threads: number, own = false, heap: HeapLimits = {}) {
        this.#threads = threads;
        this.#own = own ? new Map() : null;
        this.#heap = heap;
        if (!own) this.#pool('idle');
    }

    #pool(kind: PoolKind, nice = BACKGROUND_NICE): Piscina {
        let pool = this.#own?.get(kind);
        if (pool === undefined && this.#own !== null) {
            pool = unpark(ownKey(kind, this.#threads, this.#heap, nice)) ?? newPool(this.#threads, this.#heap);
            this.#own.set(kind, pool);
            this.#ownNice.set(pool, nice);
        }
        pool ??= poolFor(kind, this.#threads);
        this.#used.add(pool);
        return pool;
    }

    /** Runs `task` on `pool`, counting it until it settles (and, on an own pool, the priority it asks for). */
    #runOn(pool: Piscina, task: object, nice: number, options: { signal: AbortSignal; transferList: (ArrayBuffer | MessagePort)[] }): Promise<unknown> {
        const own = this.#ownNice.get(pool);
        if (own !== undefined) this.#ownNice.set(pool, Math.max(own, nice));
        running.set(pool, (running.get(pool) ?? 0) + 1);
        return pool.run(task, options).finally(() => void running.set(pool, running.get(pool)! - 1));
    }

    /**
     * Ends the caller's own threads once their tasks are done (nothing for the shared pools'), or
     * keeps them for the next caller alike (see {@link setOwnThreadsIdleMs}).
     */
    async close(): Promise<void> {
        if (this.#own === null) return;
        const ending: Promise<void>[] = [];
        for (const [kind, pool] of this.#own) {
            if (ownIdleMs === 0 || this.#abort.signal.aborted || (running.get(pool) ?? 0) > 0) {
                ending.push(pool.destroy());
                continue;
            }
            // Handed on: a task this caller runs later starts or takes another pool.
            this.#own.delete(kind);
            park(ownKey(kind, this.#threads, this.#heap, this.#ownNice.get(pool)!), pool);
        }
        await Promise.all(ending);
    }

    /**
     * Runs `task` on a thread of the idle pool, at {@link BACKGROUND_NICE} and SCHED_IDLE; with
     * `sharedNice`, on the fair pool at that nice value. @throws AbortError once {@link stop} was called.
     */
    run(task: object, { move = [], sharedNice, build = false }: RunOptions = {}): Promise<unknown> {
        const options = { signal: this.#abort.signal, transferList: move };
        if (sharedNice === undefined) return this.#runOn(this.#pool('idle'), { ...task, nice: BACKGROUND_NICE }, BACKGROUND_NICE, options);
        const run = (): Promise<unknown> => this.#runOn(this.#pool('fair', sharedNice), { ...task, nice: sharedNice, idle: false }, sharedNice, options);
        return build ? sharingWithBuild(run) : run();
    }

    /**
     * Drops the caller's queued tasks and terminates the threads running its tasks; resolves when
     * those threads have exited (nothing they did is still under way). Other callers' tasks go on.
     */
    async stop(): Promise<void> {
        if (this.#abort.signal.aborted) return;
        const before = [...this.#used].flatMap((p) => p.threads);
        this.#abort.abort();
        const still = new Set([...this.#used].flatMap((p) => p.threads));
        await Promise.all(before.filter((w) => !still.has(w)).map(exited));
    }
}

/** Resolves when `w` has exited (at once if it has). */
async function exited(w: Worker): Promise<void> {
    if (w.threadId === -1) return;
    await once(w, 'exit').catch(() => undefined);
}
