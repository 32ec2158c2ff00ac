import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { workerEntry } from './pool.js';

/**
 * The process's one pool for the index's background work: builds, merges and the listings of a
 * reopen share its threads, which lower themselves to {@link BACKGROUND_NICE} and, on Linux,
 * SCHED_IDLE as they take a task (workers/pool/background.ts; a thread never raises its priority
 * back, so these threads are not the engine's, and every task here runs at that priority). Started on first use with no thread; a thread idle for {@link IDLE_MS} exits, so the
 * memory of a build leaves soon after it, while the tasks of one build, and builds close
 * together, reuse the threads instead of starting new ones (a start costs some 90 ms of CPU). Idle
 * threads never keep the process alive (piscina unrefs them).
 */

/** Nice value of the background threads (Linux: per thread). */
export const BACKGROUND_NICE = 10;
/** How long an idle thread stays for the next task. */
const IDLE_MS = 2_000;

let shared: { pool: Piscina; threads: number } | undefined;

function newPool(threads: number): Piscina {
    const pool = new Piscina({ ...workerEntry(), minThreads: 0, maxThreads: threads, idleTimeout: IDLE_MS });
    // A thread that dies outside a task is replaced on the next one; nothing to report.
    pool.on('error', () => undefined);
    return pool;
}

/** The shared pool, with room for at least `threads` threads. */
function poolFor(threads: number): Piscina {
    // A caller wanting more threads than the pool has gets a larger one; the old one's threads
    // finish their tasks and leave once idle.
    if (shared === undefined || shared.threads < threads) {
        shared = { pool: newPool(threads), threads };
    }
    return shared.pool;
}

/**
 * One caller's tasks on the shared pool (a build, a merge, a listing). The caller limits how many
 * it runs at once; {@link stop} ends them.
 */
export class BackgroundTasks {
    readonly #pool: Piscina;
    readonly #abort = new AbortController();

    readonly #own: boolean;

    /**
     * @param threads - the most tasks the caller runs at once.
     * @param own - threads of the caller's own, which {@link close} ends (memory: a task whose
     *   thread is left with a large heap, as the build's walk, leaves with it).
     */
    constructor(threads: number, own = false) {
        this.#own = own;
        this.#pool = own ? newPool(threads) : poolFor(threads);
    }

    /** Ends the caller's own threads once their tasks are done (nothing for the shared pool's). */
    async close(): Promise<void> {
        if (this.#own) await this.#pool.destroy();
    }

    /**
     * Runs `task` on a thread of the pool, at {@link BACKGROUND_NICE}; the buffers of `move` are
     * moved to the thread, not copied (unusable here afterwards). @throws AbortError once {@link stop} was called.
     */
    run(task: object, move: ArrayBuffer[] = []): Promise<unknown> {
        return this.#pool.run({ ...task, nice: BACKGROUND_NICE }, { signal: this.#abort.signal, transferList: move });
    }

    /**
     * Drops the caller's queued tasks and terminates the threads running its tasks; resolves when
     * those threads have exited (nothing they did is still under way). Other callers' tasks go on.
     */
    async stop(): Promise<void> {
        if (this.#abort.signal.aborted) return;
        const before = this.#pool.threads;
        this.#abort.abort();
        const still = new Set(this.#pool.threads);
        await Promise.all(before.filter((w) => !still.has(w)).map(exited));
    }
}

/** Resolves when `w` has exited (at once if it has). */
async function exited(w: Worker): Promise<void> {
    if (w.threadId === -1) return;
    await once(w, 'exit').catch(() => undefined);
}
