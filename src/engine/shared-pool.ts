import type { Piscina } from 'piscina';
import { createPool, threadCap } from './pool.js';

/**
 * The pools engines made with `sharedPool` share (engine.ts): one per thread count and nice value
 * in the process (the threads' heap and priority are set as they start), so a host with several
 * engines (several packages, a test suite) starts and keeps one pool's threads instead of one set
 * per engine; a start costs some 50-90 ms of CPU. Each engine still queues its own tasks and runs
 * at most what it asks for (task-queue.ts); the pool may run what the busy engines ask for together.
 */
export class SharedPool {
    readonly pool: Piscina;
    /** The threads the pool keeps once started, and runs at least: one engine's maxThreads. */
    readonly #steady: number;
    /** The threads each busy engine asks for (an idle one asks for none). */
    readonly #asks = new Map<object, number>();

    constructor(maxThreads: number, workerNice: number) {
        // The descriptor ledger stays watched while the process runs: the pool is never destroyed.
        this.pool = createPool(maxThreads, workerNice).pool;
        this.#steady = maxThreads;
    }

    /** Lets `user` run `threads` threads (0: it is idle); the pool runs the sum of the asks, at least the steady size. */
    ask(user: object, threads: number): void {
        if (threads > 0) this.#asks.set(user, threads);
        else this.#asks.delete(user);
        let sum = 0;
        for (const n of this.#asks.values()) sum += n;
        threadCap(this.pool, Math.max(this.#steady, sum));
    }
}

const pools = new Map<string, SharedPool>();

/** The process's shared pool for engines of `maxThreads` threads at nice `workerNice`, started on first use. */
export function sharedPool(maxThreads: number, workerNice: number): SharedPool {
    const key = `${maxThreads}/${workerNice}`;
    let shared = pools.get(key);
    if (shared === undefined) pools.set(key, (shared = new SharedPool(maxThreads, workerNice)));
    return shared;
}
