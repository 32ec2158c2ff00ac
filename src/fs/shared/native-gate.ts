import { isMainThread, threadId, workerData } from 'node:worker_threads';

/**
 * The native gate: a pool thread is never terminated while it loads a native addon.
 *
 * A worker thread terminated while Node registers a node-addon-api module (koffi, sharp) aborts
 * the whole process (`FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw`): the module's
 * set-up calls into JavaScript, which a terminating thread refuses, and the addon treats that
 * refusal as fatal. The engine terminates threads on a hard abort (a stuck regex), on a timeout
 * and when it closes, so any of them could meet a thread that has just started and is loading.
 *
 * Shape: a SharedArrayBuffer of {@link GATE_THREADS} rows of two Int32, the thread id (0: a free
 * row) and its state: {@link OPEN}, {@link INSIDE} a native section, or {@link CLOSED} (about to
 * be terminated). A thread claims a row on its first section ({@link nativeSection}); the host
 * closes it (or makes it closed) before it terminates the thread, waiting while the thread is
 * inside ({@link closeGate}), and frees it once the thread has exited ({@link releaseGate}). A
 * thread that finds its row closed waits there for its end (termination interrupts `Atomics.wait`).
 */

/** What the project calls of the koffi FFI package: the C library's functions by signature, and the errno the last call left. */
export interface Koffi {
    load(path: string | null): { func(signature: string): (...args: unknown[]) => unknown };
    errno(): number;
}

/** Rows in a gate: at least the most pool threads one process runs at once. */
export const GATE_THREADS = 1024;
const OPEN = 0;
const INSIDE = 1;
const CLOSED = 2;

/** A new gate, for the `nativeGate` field of every pool's `workerData` (8 KiB). */
export function createGate(): SharedArrayBuffer {
    return new SharedArrayBuffer(GATE_THREADS * 2 * 4);
}

/** This thread's state word in the pool's gate: `null` on the main thread, in a thread without a gate, or when every row is taken. */
let row: { a: Int32Array; at: number } | null | undefined;
let depth = 0;

function ownRow(): { a: Int32Array; at: number } | null {
    if (row !== undefined) return row;
    const gate = (workerData as { nativeGate?: unknown } | null | undefined)?.nativeGate;
    row = null;
    if (isMainThread || !(gate instanceof SharedArrayBuffer)) return row;
    const a = new Int32Array(gate);
    // A row the host made already: its termination began before this thread's first section.
    const made = rowsOf(a, threadId);
    if (made.length > 0) return (row = { a, at: made[0]! });
    const at = claimRow(a, threadId);
    if (at < 0) return row;
    row = { a, at };
    // The host may have made one meanwhile; each side looks for the other's row after making its
    // own (sequentially consistent atomics: at least one of the two sees the other's).
    for (const other of rowsOf(a, threadId)) if (other !== at && Atomics.load(a, other) === CLOSED) Atomics.store(a, at, CLOSED);
    return row;
}

/**
 * Runs `load` (the loading of a native addon and its declarations) where the host does not
 * terminate this thread; waits for the end first when the host has begun terminating it.
 */
export function nativeSection<T>(load: () => T): T {
    const r = ownRow();
    if (r === null || depth > 0) return load();
    while (Atomics.compareExchange(r.a, r.at, OPEN, INSIDE) === CLOSED) Atomics.wait(r.a, r.at, CLOSED);
    depth++;
    try {
        return load();
    } finally {
        depth--;
        Atomics.store(r.a, r.at, OPEN);
        Atomics.notify(r.a, r.at);
    }
}

/** The state words of the rows of thread `id`. */
function rowsOf(a: Int32Array, id: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < GATE_THREADS; i++) if (Atomics.load(a, 2 * i) === id) out.push(2 * i + 1);
    return out;
}

/** Claims a free row for thread `id` (its state is open), returning its state word; -1 when every row is taken. */
function claimRow(a: Int32Array, id: number): number {
    for (let i = 0; i < GATE_THREADS; i++) if (Atomics.compareExchange(a, 2 * i, 0, id) === 0) return 2 * i + 1;
    return -1;
}

/**
 * Closes the gate of thread `id` (host side, right before terminating it): resolves once the
 * thread is outside any native section and will not enter one again. A thread that has not
 * entered one yet gets a closed row. A section that has not ended within `limitMs` (a load hung
 * in the system) is given up on: the thread is terminated anyway rather than kept forever.
 */
export async function closeGate(gate: SharedArrayBuffer, id: number, limitMs = 30_000): Promise<void> {
    const a = new Int32Array(gate);
    const deadline = performance.now() + limitMs;
    const close = async (at: number): Promise<void> => {
        while (Atomics.compareExchange(a, at, OPEN, CLOSED) === INSIDE) {
            const left = deadline - performance.now();
            if (left <= 0) return;
            await waitAsync(a, at, INSIDE, Math.min(left, 1_000)).value;
        }
    };
    if (rowsOf(a, id).length === 0) {
        const at = claimRow(a, id);
        if (at >= 0) await close(at);
    }
    // Every row of the thread, the one the thread may have made meanwhile included (see ownRow).
    for (const at of rowsOf(a, id)) await close(at);
}

/** `Atomics.waitAsync` (Node 16 and later; typed in TypeScript's ES2024 library, which this build does not use). */
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, at: number, value: number, timeoutMs: number): { value: Promise<string> | string } }).waitAsync;

/** Whether thread `id` has a row in `gate`. */
export function hasGate(gate: SharedArrayBuffer, id: number): boolean {
    return rowsOf(new Int32Array(gate), id).length > 0;
}

/** Frees the rows of the exited thread `id`. */
export function releaseGate(gate: SharedArrayBuffer, id: number): void {
    const a = new Int32Array(gate);
    for (const at of rowsOf(a, id)) {
        Atomics.store(a, at, OPEN);
        Atomics.store(a, at - 1, 0);
    }
}
