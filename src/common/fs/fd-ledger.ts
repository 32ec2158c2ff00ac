import { closeSync } from 'node:fs';
import { threadId } from 'node:worker_threads';

/**
 * The descriptor ledger: where each worker thread notes the one descriptor it holds open that
 * Node does not know of (a file opened with openat through workers/held-at.ts), so that the
 * engine can close it when the thread was terminated while holding it (a hard abort, a stuck
 * regex). Node closes the descriptors its own `fs` opened when a worker ends, not these.
 *
 * Shape: a SharedArrayBuffer of {@link LEDGER_SLOTS} pairs of Int32 (thread id, descriptor);
 * a thread id of 0 marks a free slot, a descriptor of -1 "none open". A worker claims a slot
 * the first time it opens natively ({@link claimSlot}); the engine frees it when piscina reports
 * the worker destroyed ({@link releaseThread}).
 *
 * Safety: a worker notes a descriptor after opening it and clears the note before closing it,
 * so a termination between the two steps can at worst leave one descriptor open (as before the
 * ledger), never make the engine close a number that was already closed and perhaps reused.
 */

/** Slots in a ledger: at least the most worker threads one engine runs at once. */
export const LEDGER_SLOTS = 256;

/** A new, empty ledger. */
export function createLedger(): SharedArrayBuffer {
    const sab = new SharedArrayBuffer(LEDGER_SLOTS * 2 * 4);
    const a = new Int32Array(sab);
    for (let i = 0; i < LEDGER_SLOTS; i++) a[i * 2 + 1] = -1;
    return sab;
}

/** A worker's slot in a ledger: notes the one descriptor held open. */
export interface LedgerSlot {
    /** Notes `fd` as open (call right after opening it). */
    opened(fd: number): void;
    /** Clears the note (call right before closing the descriptor). */
    closing(): void;
}

/** Claims a free slot of `ledger` for this worker thread; `null` when all are taken, or on the main thread (id 0, the mark of a free slot; it is never terminated). */
export function claimSlot(ledger: SharedArrayBuffer): LedgerSlot | null {
    if (threadId === 0) return null;
    const a = new Int32Array(ledger);
    for (let i = 0; i < LEDGER_SLOTS; i++) {
        if (Atomics.compareExchange(a, i * 2, 0, threadId) !== 0) continue;
        const at = i * 2 + 1;
        Atomics.store(a, at, -1);
        return {
            opened: (fd) => void Atomics.store(a, at, fd),
            closing: () => void Atomics.store(a, at, -1),
        };
    }
    return null;
}

/**
 * Frees the slots of the ended worker thread `id`, closing the descriptor noted in each (one it
 * was terminated holding). Call only once the thread has exited. Returns how many were closed.
 */
export function releaseThread(ledger: SharedArrayBuffer, id: number): number {
    const a = new Int32Array(ledger);
    let closed = 0;
    for (let i = 0; i < LEDGER_SLOTS; i++) {
        if (Atomics.load(a, i * 2) !== id) continue;
        const fd = Atomics.exchange(a, i * 2 + 1, -1);
        if (fd >= 0) {
            try {
                closeSync(fd);
                closed++;
            } catch {
                // already closed: nothing to do
            }
        }
        Atomics.store(a, i * 2, 0);
    }
    return closed;
}
