import type { SearchHit } from './types.js';

/**
 * Checkpoints of a search task whose pattern may backtrack catastrophically: a task stuck in one
 * file's regex returns nothing until the hard abort terminates its worker, so it records what it
 * has found so far in a shared buffer the engine reads after terminating it. Only the stuck
 * file's own hits are then lost, and the task keeps its speed: nothing crosses threads unless
 * the task is terminated.
 *
 * Layout: three Int32 slots (bytes of records written, entries visited, files scanned), then
 * records, each the UTF-8 JSON of `[jobIndex, hits]` followed by a newline. The writer copies a
 * record's bytes in, then publishes its length with `Atomics.store`; the reader's
 * `Atomics.load` of the length makes those bytes visible (JavaScript memory model:
 * synchronizes-with).
 */

/**
 * Size of one task's checkpoint buffer. A task that fills it hands back its results instead.
 * Perf: a task of 20 ms finds up to about 5,000 hits (~750 KB as JSON) with a common pattern;
 * buffers are reused from task to task (checkpoints cost a hit-heavy search about 10% with
 * reused 1 MiB buffers, 25% with 256 KiB ones allocated per task).
 */
export const CHECKPOINT_BYTES = 1024 * 1024;
const HEADER_BYTES = 12;
const USED = 0;
const VISITED = 1;
const SCANNED = 2;

/** Worker side: appends the hits of a task as it finds them. */
export class CheckpointWriter {
    readonly #header: Int32Array;
    /** The record area, as a Buffer over the shared memory. Perf: records are encoded straight into it. */
    readonly #bytes: Buffer;
    #used = 0;

    constructor(buffer: SharedArrayBuffer) {
        this.#header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
        this.#bytes = Buffer.from(buffer, HEADER_BYTES);
    }

    /** Records hits of job `job` (its index in the task). False when the buffer has no room left: nothing was recorded. */
    append(job: number, hits: readonly SearchHit[]): boolean {
        const record = `${JSON.stringify([job, hits])}\n`;
        const length = Buffer.byteLength(record);
        if (this.#used + length > this.#bytes.length) return false;
        this.#bytes.write(record, this.#used);
        this.#used += length;
        Atomics.store(this.#header, USED, this.#used);
        return true;
    }

    /** Publishes the task's progress figures. */
    progress(visited: number, scanned: number): void {
        Atomics.store(this.#header, VISITED, visited);
        Atomics.store(this.#header, SCANNED, scanned);
    }
}

/** What a terminated task had recorded. */
export interface Checkpoint {
    /** Hits per job index, in the order found. */
    hits: Map<number, SearchHit[]>;
    visited: number;
    scanned: number;
}

/** Engine side: empties a checkpoint buffer whose task has returned, for the next task. */
export function resetCheckpoint(buffer: SharedArrayBuffer): void {
    new Int32Array(buffer, 0, HEADER_BYTES / 4).fill(0);
}

/** Engine side: reads a task's checkpoint buffer (after its worker stopped or was terminated). */
export function readCheckpoint(buffer: SharedArrayBuffer): Checkpoint {
    const header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    const used = Atomics.load(header, USED);
    const hits = new Map<number, SearchHit[]>();
    // Copied out of shared memory first: decoding a view of a SharedArrayBuffer is not allowed.
    const text = Buffer.from(new Uint8Array(buffer, HEADER_BYTES, used)).toString('utf8');
    for (const line of text.split('\n')) {
        if (line === '') continue;
        const [job, found] = JSON.parse(line) as [number, SearchHit[]];
        const list = hits.get(job);
        if (list) list.push(...found);
        else hits.set(job, found);
    }
    return { hits, visited: Atomics.load(header, VISITED), scanned: Atomics.load(header, SCANNED) };
}
