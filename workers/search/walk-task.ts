import type { SearchHit } from '../../src/search/shared/types.js';
import { CheckpointWriter } from '../../src/search/shared/checkpoint.js';
import { coalesceRuns, EntryPacker, packRun } from '../../src/search/shared/pack-runs.js';
import { SPLIT_MIN_UNITS, type Segment, type SearchTask, type SearchTaskResult } from '../../src/search/shared/protocol.js';
import type { FileScan } from './scan-file.js';

/**
 * The state of one search task as walk.ts walks it: what it has visited, scanned and found; the
 * caps, deadline, budget and time slice that stop it; and its hits, recorded into runs, into the
 * checkpoint a terminated task leaves behind, and into the packed output it hands back. Every
 * entry of the walk passes through here, so the checks are cheap.
 */

/** Entries without a system call (plain file entries of a walk or name search) after which {@link WalkTask} reads the clock again. */
const CLOCK_EVERY = 32;

export type Run = Extract<Segment, { t: 'run' }>;

/** The counts, stops and recorded hits of one task. */
export class WalkTask {
    visited = 0;
    scanned = 0;
    hits = 0;
    units = 0;
    capped = false;
    timedOut = false;
    cancelled = false;
    /** Entries handled without a system call since the clock was read (see {@link check}); the walk counts them. */
    cheap = 0;
    /** The entry hits of the task's runs, as shared columns (see EntryColumns in protocol.ts). */
    readonly entries = new EntryPacker();
    readonly #task: SearchTask;
    readonly #flag: Int32Array;
    /** Threads of the search waiting for work (see {@link SearchTask.hunger}); null: not told. */
    readonly #hunger: Int32Array | null;
    /** This task answered a waiting thread: it hands back what is left. */
    #split = false;
    readonly #sliceEnd: number;
    /** Where hits are recorded before each next entry, with a pattern that may backtrack catastrophically. */
    readonly #checkpoint: CheckpointWriter | null;
    /** Hits found since the last checkpoint, and the index of the job being walked. */
    #unrecorded: SearchHit[] = [];
    #job = 0;
    /** The checkpoint buffer is full: the task hands back what it has instead. */
    #checkpointFull = false;
    /** The clock as {@link check} last read it (ms since the epoch). */
    #now = Date.now();
    /**
     * Memory / event loop: the runs left with no hit object share one empty `hits` and one
     * empty `at` per task; a structured clone keeps that sharing, so the host receives two
     * arrays, not two per directory (most runs have no hit object, and each array is an
     * object the host's young-generation collections copy while the search runs). Nothing
     * writes to a run's arrays once the task is done.
     */
    readonly #noHits: SearchHit[] = [];
    readonly #noAt: number[] = [];

    constructor(task: SearchTask) {
        this.#task = task;
        this.#flag = new Int32Array(task.cancel);
        this.#hunger = task.hunger ? new Int32Array(task.hunger) : null;
        this.#sliceEnd = Date.now() + task.sliceMs;
        this.#checkpoint = task.checkpoint ? new CheckpointWriter(task.checkpoint) : null;
    }

    /** Hits are recorded in a checkpoint (as hit objects). */
    get checkpointed(): boolean {
        return this.#checkpoint !== null;
    }

    /** Stop everything now (cap reached, search over, deadline passed). */
    get halted(): boolean {
        return this.capped || this.timedOut || this.cancelled;
    }

    /**
     * Checks the cancel flag and deadline; called at every entry boundary. The clock is read
     * here ({@link #now}, also {@link exhausted}'s) after an entry that may have made a system
     * call, and otherwise every {@link CLOCK_EVERY} entries. Perf: `Date.now()` costs 53 ns, and two
     * reads per entry would be 9.4 ms of the ~160 ms of worker CPU time a walk of the Linux tree's
     * 89,209 entries takes; 32 entries without a system call take a few microseconds.
     */
    check(): boolean {
        if (Atomics.load(this.#flag, 0) !== 0) this.cancelled = true;
        else {
            if (this.cheap === 0 || this.cheap >= CLOCK_EVERY) {
                this.#now = Date.now();
                this.cheap = 0;
            }
            if (this.#now > this.#task.deadline) this.timedOut = true;
        }
        return this.halted;
    }

    /**
     * The budget is spent (only after some progress, so that every task advances), or another
     * thread of the search has no work and this task answers it (see {@link SearchTask.hunger}).
     */
    exhausted(): boolean {
        if (this.visited === 0) return false;
        if (this.units >= this.#task.budget || this.#now >= this.#sliceEnd || this.#checkpointFull || this.#split) return true;
        return this.#hunger !== null && this.units >= SPLIT_MIN_UNITS && (this.#split = takeOne(this.#hunger));
    }

    /**
     * With a checkpoint buffer: records the hits found since the last call and the progress
     * figures. Called before each next entry, whose regex may run away until the hard abort
     * terminates this worker; the engine then reads what was recorded, so only the stuck file's
     * own hits are lost. A full buffer makes the task hand back its results instead.
     */
    record(): void {
        const cp = this.#checkpoint;
        if (cp === null) return;
        if (this.#unrecorded.length > 0) {
            if (!cp.append(this.#job, this.#unrecorded)) this.#checkpointFull = true;
            this.#unrecorded = [];
        }
        cp.progress(this.visited, this.scanned);
    }

    /** The walk of the task's `job`-th job begins (its hits are checkpointed under that index). */
    begin(job: number): void {
        this.#job = job;
    }

    /** Counts one visited entry; reaching the entry cap ends the task. */
    count(run: Run): void {
        run.n++;
        this.visited++;
        this.units++;
        if (this.visited >= this.#task.capEntries) this.capped = true;
    }

    /** A plain entry hit (path and kind only), recorded by its name in the run's directory. */
    entry(run: Run, name: string, dir: boolean): void {
        this.entries.push(name, dir, run.n - 1);
        this.hits++;
        if (this.hits >= this.#task.capHits) this.capped = true;
    }

    hit(run: Run, hit: SearchHit): void {
        run.hits.push(hit);
        if (this.#checkpoint !== null) this.#unrecorded.push(hit);
        run.at.push(run.n - 1);
        this.hits++;
        if (this.hits >= this.#task.capHits) this.capped = true;
    }

    /** Hits the task still wants (the scan's limit for the next file). */
    get hitsLeft(): number {
        return this.#task.capHits - this.hits;
    }

    /** Records what the content search of file `rel` found in `run`, as the output mode says. */
    scannedFile(run: Run, rel: string, found: FileScan, times: { birthtimeMs: number; mtimeMs: number } | undefined): void {
        this.units += found.units;
        if (found.scanned) this.scanned++;
        const mode = this.#task.search.outputMode;
        if (found.tooLarge >= 0) {
            (run.tooLarge ??= []).push({ path: rel, size: found.tooLarge, at: run.n - 1 });
        } else if (mode === 'count') {
            if (found.count > 0) this.hit(run, { path: rel, kind: 'file', count: found.count, ...times });
        } else if (mode === 'files_with_matches') {
            if (found.lines.length > 0) this.hit(run, { path: rel, kind: 'file', ...times });
        } else {
            for (const h of found.lines) {
                const hit: SearchHit = { path: rel, kind: 'file', line: h.line, text: h.text, ...times };
                if (h.before !== undefined) {
                    hit.before = h.before;
                    hit.after = h.after!;
                }
                this.hit(run, hit);
                if (this.capped) break;
            }
        }
    }

    /** A job's output made ready for the host: its runs joined and packed (see pack-runs.ts). */
    pack(out: Segment[]): Segment[] {
        coalesceRuns(out);
        for (const seg of out) {
            if (seg.t !== 'run') continue;
            // Perf: the entry hits of all the task's runs travel as one set of columns (see EntryColumns).
            packRun(seg, this.entries);
            if (seg.hits.length === 0) seg.hits = this.#noHits;
            if (seg.at.length === 0) seg.at = this.#noAt;
        }
        return out;
    }

    /** The task's result: per job its packed output (see {@link pack}), or `null` when not started. */
    result(results: (Segment[] | null)[]): SearchTaskResult {
        this.entries.finish();
        return { ok: true, results, visited: this.visited, scanned: this.scanned, capped: this.capped, timedOut: this.timedOut };
    }
}

/** Takes one from a positive count shared between threads; false when it is 0. */
function takeOne(count: Int32Array): boolean {
    for (;;) {
        const v = Atomics.load(count, 0);
        if (v <= 0) return false;
        if (Atomics.compareExchange(count, 0, v, v - 1) === v) return true;
    }
}
