/**
 * The work queue the threads of one tree check share (workers/search-index/index-check.ts): the
 * stored table's directories still to be compared, taken by whichever thread is free. Perf: a
 * split fixed in advance (by top-level subtrees, balanced by their stored sizes) leaves one
 * thread idle whenever the changes, or the machine's other work, fall on the other's half.
 *
 * One SharedArrayBuffer: counters, then per slot a directory's table id (plus one; 0 until
 * written) and the modification and birth times its parent's look gave it.
 */

const HEAD = 0;
const TAIL = 1;
/** Threads holding a directory taken from the queue (or trying to take one). */
const BUSY = 2;
/** Entries counted so far (the `maxEntries` check spans all threads). */
const ENTRIES = 3;
/** Set by a thread that failed: the others stop. */
const FAILED = 4;
const SLOTS = 8;
/** Directories queued at most; past it a thread compares the subtree itself. */
const CAPACITY = 1 << 16;

/** A directory taken from the queue: its table id and times. */
export interface QueuedDir {
    id: number;
    mtime: number;
    birthtime: number;
}

/** A queue holding the table's root (id 0; its times are read by the thread that takes it). */
export function newCheckQueue(): SharedArrayBuffer {
    const sab = new SharedArrayBuffer((SLOTS + CAPACITY) * 4 + CAPACITY * 16);
    const q = new Int32Array(sab, 0, SLOTS + CAPACITY);
    q[SLOTS] = 1;
    q[TAIL] = 1;
    q[ENTRIES] = 1;
    return sab;
}

/** One thread's view of a {@link newCheckQueue}. */
export class CheckQueue {
    readonly #q: Int32Array;
    readonly #times: Float64Array;

    constructor(sab: SharedArrayBuffer) {
        this.#q = new Int32Array(sab, 0, SLOTS + CAPACITY);
        this.#times = new Float64Array(sab, (SLOTS + CAPACITY) * 4, CAPACITY * 2);
    }

    /** Queues directory `id` with the times its parent's look gave; false when the queue is full. */
    push(id: number, mtime: number, birthtime: number): boolean {
        const q = this.#q;
        // Two threads may both pass this test: the margin keeps the slot they take inside.
        if (Atomics.load(q, TAIL) >= CAPACITY - 4) return false;
        const t = Atomics.add(q, TAIL, 1);
        this.#times[2 * t] = mtime;
        this.#times[2 * t + 1] = birthtime;
        // The id last: a thread that took slot t waits for it, and the times are written before.
        Atomics.store(q, SLOTS + t, id + 1);
        Atomics.notify(q, TAIL, 1);
        return true;
    }

    /**
     * The next directory to compare, waiting while other threads may still queue some; `null`
     * once the queue is empty and no thread holds a directory, or a thread failed. Every
     * directory taken is handed back with {@link done}.
     */
    take(): QueuedDir | null {
        const q = this.#q;
        for (;;) {
            if (Atomics.load(q, FAILED) !== 0) return null;
            Atomics.add(q, BUSY, 1);
            const h = Atomics.load(q, HEAD);
            if (h < Atomics.load(q, TAIL) && Atomics.compareExchange(q, HEAD, h, h + 1) === h) {
                let v: number;
                while ((v = Atomics.load(q, SLOTS + h)) === 0) Atomics.wait(q, SLOTS + h, 0, 1);
                return { id: v - 1, mtime: this.#times[2 * h]!, birthtime: this.#times[2 * h + 1]! };
            }
            Atomics.sub(q, BUSY, 1);
            const tail = Atomics.load(q, TAIL);
            if (h < tail) continue;
            // Nothing queued and nobody holding a directory (who could queue more): done.
            if (Atomics.load(q, BUSY) === 0 && Atomics.load(q, HEAD) >= Atomics.load(q, TAIL)) {
                Atomics.notify(q, TAIL);
                return null;
            }
            Atomics.wait(q, TAIL, tail, 5);
        }
    }

    /** The directory {@link take} gave is compared (its subdirectories queued). */
    done(): void {
        Atomics.sub(this.#q, BUSY, 1);
        Atomics.notify(this.#q, TAIL);
    }

    /** Adds `n` entries to the count of all threads; returns the new count. */
    count(n: number): number {
        return Atomics.add(this.#q, ENTRIES, n) + n;
    }

    /** This thread failed: the others stop taking directories. */
    fail(): void {
        Atomics.store(this.#q, FAILED, 1);
        Atomics.notify(this.#q, TAIL);
    }
}

/** A shared read's state (watch/changes-since.ts `readShared`): one Int32, 0 while reading, then {@link READ} or {@link UNREAD}. */
export function newReadState(): SharedArrayBuffer {
    return new SharedArrayBuffer(4);
}

const READ = 1;
const UNREAD = 2;

/** The host's read has ended, with all the bytes or not: the threads waiting for it go on. */
export function endRead(state: SharedArrayBuffer, whole: boolean): void {
    const word = new Int32Array(state);
    Atomics.store(word, 0, whole ? READ : UNREAD);
    Atomics.notify(word, 0);
}

/** Waits for the end of the host's read (a check's thread, before it decodes the table); whether all the bytes are there. */
export function awaitRead(state: SharedArrayBuffer): boolean {
    const word = new Int32Array(state);
    while (Atomics.load(word, 0) === 0) Atomics.wait(word, 0, 0);
    return Atomics.load(word, 0) === READ;
}
