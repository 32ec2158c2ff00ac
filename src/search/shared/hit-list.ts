import type { PackedHits, Segment } from './walk-output.js';
import type { SearchHit, SearchOutcome } from './types.js';

/**
 * The hits of a search in walk order, kept as the runs the workers sent (their columns, see
 * {@link PackedHits} and {@link PackedEntries} in walk-output.ts) and ranges of them, not as one
 * object per hit. Memory / event loop: 81,383 hit objects kept alive on the main thread, each
 * with its own text string, would make the young-generation collections copy them (20-30 ms
 * pauses each); a run's columns are a handful of objects. A hit object is made when asked for
 * ({@link HitList.hits}, {@link HitList.toArray}), and dies young when printed.
 */

/** One run of a task's result (see protocol.ts). */
export type Run = Extract<Segment, { t: 'run' }>;

/** Number of hits of a run, packed or not. */
export function runSize(run: Run): number {
    if (run.packed !== undefined) return run.packed.lines.length;
    if (run.entries !== undefined) return run.entries.to - run.entries.from;
    return run.hits.length;
}

/** Index, within its run, of the visited entry hit `j` of the run belongs to (the run's `at`, packed or not). */
export function runAt(run: Run, j: number): number {
    const e = run.entries;
    if (e !== undefined) return e.cols.at[e.from + j]!;
    return run.packed !== undefined ? run.packed.at[j]! : run.at[j]!;
}

/** A Buffer over each packed run's text bytes, made once (a clone delivers a plain Uint8Array). */
const views = new WeakMap<PackedHits, Buffer>();

/** Hit `j` of a run as an object (a new one for a packed run). */
export function runHit(run: Run, j: number): SearchHit {
    const p = run.packed;
    if (p !== undefined) {
        let bytes = views.get(p);
        if (bytes === undefined) views.set(p, (bytes = Buffer.from(p.text.buffer, p.text.byteOffset, p.text.byteLength)));
        const text = bytes.toString('utf16le', 2 * (j === 0 ? 0 : p.ends[j - 1]!), 2 * p.ends[j]!);
        return { path: p.paths[p.pathOf[j]!]!, kind: 'file', line: p.lines[j]!, text };
    }
    const e = run.entries;
    if (e !== undefined) {
        const c = e.cols;
        const k = e.from + j;
        const name = c.names.slice(k === 0 ? 0 : c.ends[k - 1]!, c.ends[k]!);
        return { path: e.prefix === '' ? name : e.prefix + name, kind: c.dirs[k] === 1 ? 'directory' : 'file' };
    }
    return run.hits[j]!;
}

/** Hits as ranges of runs, in order. */
export class HitList {
    readonly #runs: Run[] = [];
    readonly #from: number[] = [];
    readonly #to: number[] = [];
    #length = 0;

    /** Number of hits. */
    get length(): number {
        return this.#length;
    }

    /** Appends hits `from` (inclusive) to `to` (exclusive) of `run`, extending the last range when they follow it. */
    add(run: Run, from: number, to: number): void {
        if (to <= from) return;
        const last = this.#runs.length - 1;
        if (last >= 0 && this.#runs[last] === run && this.#to[last] === from) this.#to[last] = to;
        else {
            this.#runs.push(run);
            this.#from.push(from);
            this.#to.push(to);
        }
        this.#length += to - from;
    }

    /** Appends plain hit objects (a terminated task's partial result). */
    addHits(hits: SearchHit[]): void {
        this.add({ t: 'run', n: 0, hits, at: [] }, 0, hits.length);
    }

    /** The hits from index `start` on, as objects made one at a time. */
    *hits(start = 0): Generator<SearchHit, void, undefined> {
        for (const { run, from, to } of this.ranges(start)) {
            for (let j = from; j < to; j++) yield runHit(run, j);
        }
    }

    /** The hits from index `start` on, as ranges `from..to` (exclusive) of the runs, in order: no object per hit. */
    *ranges(start = 0): Generator<{ run: Run; from: number; to: number }, void, undefined> {
        let skip = start;
        for (let r = 0; r < this.#runs.length; r++) {
            const n = this.#to[r]! - this.#from[r]!;
            if (skip >= n) {
                skip -= n;
                continue;
            }
            yield { run: this.#runs[r]!, from: this.#from[r]! + skip, to: this.#to[r]! };
            skip = 0;
        }
    }

    /** Every hit from `start` on, as an array of objects (at most `max`). */
    toArray(start = 0, max = Number.POSITIVE_INFINITY): SearchHit[] {
        // Perf: sized once and filled run by run (no generator, no growing array): 89,209 entries.
        const out = new Array<SearchHit>(Math.max(0, Math.min(max, this.#length - start)));
        let skip = start;
        let k = 0;
        for (let r = 0; r < this.#runs.length && k < out.length; r++) {
            const n = this.#to[r]! - this.#from[r]!;
            if (skip >= n) {
                skip -= n;
                continue;
            }
            const run = this.#runs[r]!;
            for (let j = this.#from[r]! + skip; j < this.#to[r]! && k < out.length; j++) out[k++] = runHit(run, j);
            skip = 0;
        }
        return out;
    }
}

/** The hit lists of outcomes whose `hits` are made on first read. */
const lists = new WeakMap<SearchOutcome, HitList>();

/**
 * `outcome` with `hits` made from `list` when first read (then kept as a plain property), so a
 * caller that prints through {@link hitListOf} never makes one object per hit.
 */
export function outcomeWithHitList(outcome: SearchOutcome, list: HitList): SearchOutcome {
    const define = (target: SearchOutcome, value: SearchHit[]): void => {
        Object.defineProperty(target, 'hits', { value, writable: true, enumerable: true, configurable: true });
    };
    Object.defineProperty(outcome, 'hits', {
        get(this: SearchOutcome): SearchHit[] {
            const hits = list.toArray();
            define(this, hits);
            return hits;
        },
        set(this: SearchOutcome, value: SearchHit[]) {
            define(this, value);
        },
        enumerable: true,
        configurable: true,
    });
    lists.set(outcome, list);
    return outcome;
}

/** The hits of `outcome` as a {@link HitList}, when its `hits` were not read yet. */
export function hitListOf(outcome: SearchOutcome): HitList | undefined {
    const desc = Object.getOwnPropertyDescriptor(outcome, 'hits');
    return desc?.get !== undefined ? lists.get(outcome) : undefined;
}
