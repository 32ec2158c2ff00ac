/**
 * How far the symbol table merge's names' stage has written its raw rows, for the rows' stage
 * that follows it on the build's other thread (workers/symbols/table-encode.ts writes,
 * merge-stages.ts `deflateRows` reads): one 32-bit word in a SharedArrayBuffer given to both
 * tasks, the count of blocks whose starts and rows are on disk whole, shifted past two flags
 * (done; failed). One word, so that a follower waiting on it never misses a change. The host
 * sets the failed flag too when the names' task fails (its thread may have ended without telling).
 */

/** Bytes of a progress word's buffer. */
export const PROGRESS_BYTES = 4;
const DONE = 1;
const FAILED = 2;
const FLAGS = 2;
/** A follower looks again at least this often (ms), whatever it is told. */
const WAIT_MS = 1_000;

/** A new progress word: no block written yet. */
export function newProgress(): Int32Array {
    return new Int32Array(new SharedArrayBuffer(PROGRESS_BYTES));
}

/** The writer: `blocks` blocks are on disk whole; `done`: all of them, nothing more comes. */
export function publishBlocks(progress: Int32Array, blocks: number, done = false): void {
    Atomics.store(progress, 0, blocks * (1 << FLAGS) + (done ? DONE : 0));
    Atomics.notify(progress, 0);
}

/** The writer failed: a follower throws rather than wait. */
export function progressFailed(progress: Int32Array): void {
    Atomics.or(progress, 0, FAILED);
    Atomics.notify(progress, 0);
}

/**
 * The follower: waits until more than `seen` blocks are on disk whole, or the writer is done.
 * @throws Error when the writer failed.
 */
export function blocksAfter(progress: Int32Array, seen: number): { blocks: number; done: boolean } {
    for (;;) {
        const v = Atomics.load(progress, 0);
        if ((v & FAILED) !== 0) throw new Error("symbols merge: the names' stage failed");
        const blocks = v >>> FLAGS;
        if (blocks > seen || (v & DONE) !== 0) return { blocks, done: (v & DONE) !== 0 };
        Atomics.wait(progress, 0, v, WAIT_MS);
    }
}
