import { closeSync } from 'node:fs';
import { threadId } from 'node:worker_threads';

/**
 * The descriptor ledger: where each worker thread notes the descriptors it holds open that Node
 * does not know of (files and directories opened with openat through workers/fs/held-at.ts), so
 * that the engine can close them when the thread was terminated while holding them (a hard
 * abort, a stuck regex). Node closes the descriptors its own `fs` opened when a worker ends, not
 * these.
 *
 * Shape: a SharedArrayBuffer of {@link LEDGER_THREADS} rows of Int32: the thread id (0 marks a
 * free row), the count of descriptors noted, then up to {@link LEDGER_DEPTH} descriptors as a
 * stack. The walk holds them nested (a directory stays open while its subtree is walked, a file
 * while it is scanned), so they are opened and closed in stack order. A worker claims a row the
 * first time it opens natively ({@link claimSlot}); the engine frees it when the worker has
 * exited ({@link releaseThread}).
 *
 * Safety: a worker notes a descriptor after opening it (the descriptor first, then the count)
 * and clears the note before closing it (the count first), so a termination between the two
 * steps can at worst leave that one descriptor open, never make the engine close a number that
 * was already closed and perhaps reused by another thread.
 */

/** Rows in a ledger: at least the most worker threads one engine runs at once. */
export const LEDGER_THREADS = 256;
/**
 * Descriptors one thread may note at once: the walk's nested directories (workers/search/walk.ts
 * descends at most 64 levels within a task) and the file being scanned, with room to spare.
 * Past it, held-at.ts opens through Node's fs, which closes its own descriptors.
 */
export const LEDGER_DEPTH = 72;
const ROW = 2 + LEDGER_DEPTH;

/** A new, empty ledger (74 KiB). */
export function createLedger(): SharedArrayBuffer {
    return new SharedArrayBuffer(LEDGER_THREADS * ROW * 4);
}

/** A worker's row in a ledger: notes the descriptors it holds open, as a stack. */
export interface LedgerSlot {
    /** Whether another descriptor can be noted ({@link LEDGER_DEPTH} at most). */
    readonly full: boolean;
    /** Notes `fd` as open, on top of the stack (call right after opening it; not when {@link full}). */
    opened(fd: number): void;
    /** Clears the note on top of the stack (call right before closing that descriptor). */
    closing(): void;
}

/** Claims a free row of `ledger` for this worker thread; `null` when all are taken, or on the main thread (id 0, the mark of a free row; it is never terminated). */
export function claimSlot(ledger: SharedArrayBuffer): LedgerSlot | null {
    if (threadId === 0) return null;
    const a = new Int32Array(ledger);
    for (let i = 0; i < LEDGER_THREADS; i++) {
        const row = i * ROW;
        if (Atomics.compareExchange(a, row, 0, threadId) !== 0) continue;
        Atomics.store(a, row + 1, 0);
        let count = 0;
        return {
            get full() {
                return count >= LEDGER_DEPTH;
            },
            opened(fd) {
                if (count >= LEDGER_DEPTH) throw new Error('descriptor ledger: row full');
                Atomics.store(a, row + 2 + count, fd);
                Atomics.store(a, row + 1, ++count);
            },
            closing() {
                if (count > 0) Atomics.store(a, row + 1, --count);
            },
        };
    }
    return null;
}

/**
 * Frees the row of the ended worker thread `id`, closing the descriptors noted in it (those it
 * was terminated holding). Call only once the thread has exited. Returns how many were closed.
 */
export function releaseThread(ledger: SharedArrayBuffer, id: number): number {
    const a = new Int32Array(ledger);
    let closed = 0;
    for (let i = 0; i < LEDGER_THREADS; i++) {
        const row = i * ROW;
        if (Atomics.load(a, row) !== id) continue;
        const count = Atomics.exchange(a, row + 1, 0);
        for (let j = count - 1; j >= 0; j--) {
            try {
                closeSync(a[row + 2 + j]!);
                closed++;
            } catch {
                // already closed: nothing to do
            }
        }
        Atomics.store(a, row, 0);
    }
    return closed;
}
