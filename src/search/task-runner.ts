import type { TransferListItem } from 'node:worker_threads';
import type { PlannedWalk } from './backend.js';
import type { PreparedSearch } from './shared/protocol.js';

/** Options of {@link TaskRunner.run} (see `Engine.run` in engine.ts). */
export interface RunOptions {
    signal?: AbortSignal;
    stuckMs?: number;
    risky?: boolean;
    onStart?: () => void;
    since?: () => number;
    transferList?: TransferListItem[];
}

/**
 * What a search run, a stream and a bulk read need of the engine: its task queue in front of the
 * pool, its thread count and its backends. `Engine` (engine.ts) implements it and hands itself to
 * search-run.ts, stream.ts and read-many.ts, which therefore never import engine.ts.
 */
export interface TaskRunner {
    /** Worker threads one call keeps busy. */
    readonly maxThreads: number;
    /** Tasks waiting for a thread (of any call). */
    readonly waiting: number;
    /** How many times the pool was closed: a task of a call begun before a close failed because of it. */
    readonly closes: number;
    /** Runs `task` on the pool as soon as a thread is free for it. */
    run<T>(task: object, options?: RunOptions): Promise<T>;
    /** The first backend's walk of `search`, or `null` for the scan path. */
    planSearch(search: PreparedSearch, rootReal: string): Promise<PlannedWalk | null>;
}
