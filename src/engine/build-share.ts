/**
 * The CPU a build gets while searches keep coming. A build's tasks then run on the fair pool, at
 * the searches' own nice value (background-pool.ts); with as many search threads as build threads
 * it would have half the CPU at best, and a rebuild under searches that never pause would take
 * twice its idle time or more. While a build's task runs on the fair pool, each engine's queue
 * (task-queue.ts) runs one task fewer than its `maxThreads` (never fewer than one): on two cores
 * the build's threads are two of three, and it ends sooner, after which those searches are
 * answered from its index.
 */

let running = 0;
const waiting = new Set<() => void>();

/** Threads each engine's queue leaves to the build now: 1 while a build's task runs on the fair pool, else 0. */
export function threadsForBuild(): number {
    return running > 0 ? 1 : 0;
}

/** Calls `wake` once when the thread is given back (no build's task left on the fair pool). */
export function onBuildShareEnd(wake: () => void): void {
    waiting.add(wake);
}

/** Counts `task`, a build's task on the fair pool, while it runs; returns it. */
export function sharingWithBuild<T>(task: () => Promise<T>): Promise<T> {
    running++;
    let done = false;
    const end = (): void => {
        if (done) return;
        done = true;
        if (--running > 0) return;
        const all = [...waiting];
        waiting.clear();
        for (const wake of all) wake();
    };
    try {
        return task().finally(end);
    } catch (err) {
        end();
        throw err;
    }
}
