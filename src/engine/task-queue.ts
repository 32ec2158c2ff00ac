import type { TransferListItem } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import { STUCK_MS } from '../search/search-tasks.js';
import type { RunOptions } from '../search/task-runner.js';
import { onBuildShareEnd, threadsForBuild } from './build-share.js';
import { releaseFreedMemory } from './release-memory.js';

/** Idle time of the whole pool after which the C heap's free pages are handed back (release-memory.ts). */
const IDLE_RELEASE_MS = 2000;

/**
 * The engine's task queue in front of its pool (engine.ts): concurrent calls share `maxThreads`
 * threads first come, first served, and only a task that is stuck or may backtrack
 * catastrophically lets one more start, so runaway searches cannot starve the other calls while
 * the pool stays small.
 */

/** A task waiting in the engine's queue for a thread. */
interface QueuedTask {
    task: object;
    transferList?: TransferListItem[];
    stuckMs: number;
    risky: boolean;
    /** When the task's current piece of work started (a search session's, see {@link Engine.run}). */
    since?: () => number;
    resolve: (value: unknown) => void;
    reject: (err: unknown) => void;
    signal?: AbortSignal;
    /** Ends the task on a shared pool when the engine closes (see {@link TaskQueue.close}). */
    ending?: AbortController;
    onAbort?: () => void;
    onStart?: () => void;
}

/** A task on a thread: when it started, when its current piece of work started (a session's), when it counts as stuck. */
interface RunningTask {
    since: number;
    current?: () => number;
    stuckMs: number;
    risky: boolean;
}

/** When `r`'s current work started. */
function sinceOf(r: RunningTask): number {
    return r.current?.() ?? r.since;
}

/** The error of a task aborted before it ran, like piscina's for an aborted task. */
function abortError(): Error {
    const err = new Error('The task has been aborted');
    err.name = 'AbortError';
    return err;
}

/** Tasks waiting for a thread of the pool and those running on one (see `Engine.run` in engine.ts). */
export class TaskQueue {
    readonly #maxThreads: number;
    readonly #maxPoolThreads: number;
    /** The pool, started when a first task leaves the queue. */
    readonly #pool: () => Piscina;
    /** Lets the pool run this many threads for this queue (0 once it is idle; see `threadCap` in pool.ts). */
    readonly #cap: (threads: number) => void;
    /** The pool is shared with other engines: a close ends this queue's running tasks, not the pool. */
    readonly #shared: boolean;
    /** Running tasks' controllers on a shared pool. */
    readonly #endings = new Set<AbortController>();
    /** Tasks handed to the pool and not yet settled: when each started and when it counts as stuck. */
    readonly #running = new Set<RunningTask>();
    /** Tasks waiting for a thread, first come first served. */
    #queue: QueuedTask[] = [];
    #wakeTimer: ReturnType<typeof setTimeout> | undefined;
    /** Looks at the queue again (a build gave its thread back). */
    readonly #wake = (): void => this.#drain();
    #idleTimer: ReturnType<typeof setTimeout> | undefined;

    constructor(maxThreads: number, maxPoolThreads: number, pool: () => Piscina, cap: (threads: number) => void, shared = false) {
        this.#maxThreads = maxThreads;
        this.#maxPoolThreads = maxPoolThreads;
        this.#pool = pool;
        this.#cap = cap;
        this.#shared = shared;
    }

    /** Runs `task` on the pool as soon as a thread is free for it (see `Engine.run` in engine.ts). */
    run<T>(task: object, options: RunOptions = {}): Promise<T> {
        const { signal } = options;
        if (signal?.aborted) return Promise.reject(abortError());
        return new Promise<T>((resolve, reject) => {
            const queued: QueuedTask = { task, stuckMs: options.stuckMs ?? STUCK_MS, risky: options.risky === true, resolve: resolve as (v: unknown) => void, reject };
            if (options.onStart) queued.onStart = options.onStart;
            if (options.since) queued.since = options.since;
            if (options.transferList) queued.transferList = options.transferList;
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

    /**
     * Threads tasks may use now: `maxThreads` less the one left to a build sharing the CPU with
     * searches (build-share.ts; never below one), plus one per stuck or risky running task, at
     * most `maxPoolThreads`.
     */
    #allowed(now: number): number {
        let stuck = 0;
        for (const r of this.#running) if (r.risky || now - sinceOf(r) > r.stuckMs) stuck++;
        return Math.min(this.#maxPoolThreads, Math.max(1, this.#maxThreads - threadsForBuild()) + stuck);
    }

    /** Tasks waiting for a thread (of any call). */
    get waiting(): number {
        return this.#queue.length;
    }

    /** Tasks running or waiting (of any call). */
    get active(): number {
        return this.#running.size + this.#queue.length;
    }

    /** Starts waiting tasks while there is room; while some wait, looks again when a running task turns stuck. */
    #drain(): void {
        const now = performance.now();
        while (this.#queue.length > 0 && this.#running.size < this.#allowed(now)) {
            const q = this.#queue.shift()!;
            if (q.onAbort) q.signal?.removeEventListener('abort', q.onAbort);
            const slot: RunningTask = { since: performance.now(), stuckMs: q.stuckMs, risky: q.risky };
            if (q.since) slot.current = q.since;
            this.#running.add(slot);
            q.onStart?.();
            const runOptions: { signal?: AbortSignal; transferList?: TransferListItem[] } = {};
            if (q.signal) runOptions.signal = q.signal;
            if (this.#shared) runOptions.signal = this.#ending(q);
            if (q.transferList) runOptions.transferList = q.transferList;
            const pool = this.#pool();
            this.#cap(Math.max(this.#maxThreads, this.#running.size));
            const settled = (): void => {
                this.#running.delete(slot);
                // Aborting a settled task's own controller only removes its listener on the task's signal.
                if (q.ending) {
                    this.#endings.delete(q.ending);
                    q.ending.abort();
                }
            };
            pool.run(q.task, runOptions).then(
                (value: unknown) => {
                    settled();
                    q.resolve(value);
                    this.#drain();
                },
                (err: unknown) => {
                    settled();
                    q.reject(err);
                    this.#drain();
                },
            );
        }
        clearTimeout(this.#wakeTimer);
        this.#wakeTimer = undefined;
        clearTimeout(this.#idleTimer);
        this.#idleTimer = undefined;
        if (this.#queue.length === 0 && this.#running.size === 0) {
            this.#cap(0);
            this.#idleTimer = setTimeout(() => void releaseFreedMemory(), IDLE_RELEASE_MS);
            this.#idleTimer.unref();
        }
        if (this.#queue.length > 0 && threadsForBuild() > 0) onBuildShareEnd(this.#wake);
        if (this.#queue.length === 0 || this.#running.size >= this.#maxPoolThreads) return;
        let next = Number.POSITIVE_INFINITY;
        for (const r of this.#running) if (!r.risky && now - sinceOf(r) <= r.stuckMs) next = Math.min(next, sinceOf(r) + r.stuckMs - now);
        if (next === Number.POSITIVE_INFINITY) return;
        this.#wakeTimer = setTimeout(() => this.#drain(), Math.ceil(next) + 1);
        this.#wakeTimer.unref();
    }

    /** A signal that aborts `q` when its own does or when the queue closes (a task on a shared pool). */
    #ending(q: QueuedTask): AbortSignal {
        const ac = new AbortController();
        q.ending = ac;
        this.#endings.add(ac);
        const { signal } = q;
        if (signal?.aborted) ac.abort();
        else if (signal) {
            const abort = (): void => ac.abort();
            signal.addEventListener('abort', abort, { once: true });
            ac.signal.addEventListener('abort', () => signal.removeEventListener('abort', abort), { once: true });
        }
        return ac.signal;
    }

    /**
     * Rejects every waiting task: the pool is closing. On a shared pool, which the close does not
     * destroy, also aborts the running tasks (piscina terminates their threads).
     */
    close(): void {
        for (const ac of this.#endings) ac.abort();
        this.#endings.clear();
        const waiting = this.#queue;
        this.#queue = [];
        clearTimeout(this.#idleTimer);
        this.#idleTimer = undefined;
        clearTimeout(this.#wakeTimer);
        this.#wakeTimer = undefined;
        for (const q of waiting) {
            if (q.onAbort) q.signal?.removeEventListener('abort', q.onAbort);
            q.reject(new Error('The worker pool was closed before the task started.'));
        }
    }
}
