import type { Access } from '../../config/shared/configuration.js';
import type { IgnoreFrame, OutputMode, PatternSpec, ReadItem, ReadOutcome, ReadRender, SearchHit, SearchRequest, SearchRoot, ShownReadOutcome } from './types.js';
import type { WorkerFailureCode } from '../../errors/shared/errors.js';
import type { MessagePort } from 'node:worker_threads';
import { runHit } from './hit-list.js';
import type { EntryColumns, PackedEntries, PackedHits, Segment, WalkJob } from './walk-output.js';

export { EntryKind, type EntryColumns, type PackedEntries, type PackedHits, type Segment, type Skip, type TooLarge, type WalkJob } from './walk-output.js';

/**
 * Messages between the engine (main thread) and the pool workers. Structured-clone safe; workers
 * answer with discriminated results and never let an exception cross the thread boundary.
 */

/**
 * A search checked and compiled once ({@link prepareSearch} in src/search/prepare.ts), handed to
 * every task of the call unchanged: the {@link SearchRequest} with the same names, its options
 * taken over as they are except those listed here (compiled, defaulted or resolved). Workers build
 * their RegExps and glob matchers from it once per search (cached by `id`).
 */
export interface PreparedSearch extends Omit<SearchRequest, 'root' | 'namePattern' | 'contentPattern' | 'include' | 'exclude' | 'outputMode' | 'contextLines' | 'respectGitignore'> {
    /** Unique per preparation in this process: workers cache what they compile from it under this key. */
    id: number;
    /** The checked root, resolved. */
    root: SearchRoot;
    namePattern?: PatternSpec;
    contentPattern?: PatternSpec;
    outputMode: OutputMode;
    /** Context lines around each content hit (output mode `content` only; 0: none). */
    contextLines: number;
    /** Include/exclude globs as a valid list (compiled by the worker, see filters.ts); absent: no filter. */
    include?: readonly string[];
    exclude?: readonly string[];
    /** Read each listed directory's `.gitignore` and apply it (with the frames of the job) below it. */
    respectGitignore: boolean;
    /** The `.gitignore` files above the searched directory that apply to it, outermost first (see `ancestorIgnores`); empty unless `respectGitignore`. */
    gitignoreAbove: readonly IgnoreFrame[];
    /** A filter on the entry's stat is active (`needsStat` in entry-policy.ts): entries are stat'ed and hits carry their times. */
    needTimes: boolean;
    /** Length of the prefix of an entry's display path before its path relative to the searched directory. */
    relStart: number;
}

/**
 * Builds the {@link EntryColumns} one task's runs share: {@link add} packs a run's hits when they
 * are plain entries, {@link finish} fills the columns (the runs already point at them).
 */
export class EntryPacker {
    readonly cols: EntryColumns = { names: '', ends: new Uint32Array(0), dirs: new Uint8Array(0), at: new Uint32Array(0) };
    #names: string[] = [];
    #ends: number[] = [];
    #dirs: number[] = [];
    #at: number[] = [];
    #end = 0;

    /** Entries recorded so far. */
    get length(): number {
        return this.#ends.length;
    }

    /** Records one entry hit: its name after the run's prefix, whether it is a directory, its index in its run. */
    push(name: string, dir: boolean, at: number): void {
        this.#names.push(name);
        this.#end += name.length;
        this.#ends.push(this.#end);
        this.#dirs.push(dir ? 1 : 0);
        this.#at.push(at);
    }

    /** The entries recorded from `from` on, as a run's {@link PackedEntries}; `undefined` when there are none. */
    since(from: number, prefix: string): PackedEntries | undefined {
        return this.#ends.length > from ? { cols: this.cols, prefix, from, to: this.#ends.length } : undefined;
    }

    /** Packs `run`'s hits if every one is a plain entry (`path` and `kind` only); `false` leaves the run as it is. */
    add(run: Extract<Segment, { t: 'run' }>): boolean {
        const hits = run.hits;
        if (hits.length === 0 || run.at.length !== hits.length) return false;
        for (const h of hits) if ((h.kind !== 'file' && h.kind !== 'directory') || Object.keys(h).length !== 2) return false;
        // The common directory of the run's paths (a run is the entries of one directory), else none.
        const first = hits[0]!.path;
        let prefix = first.slice(0, first.lastIndexOf('/') + 1);
        for (const h of hits) {
            const p = h.path;
            if (p.length <= prefix.length || !p.startsWith(prefix) || p.indexOf('/', prefix.length) !== -1) {
                prefix = '';
                break;
            }
        }
        const from = this.#ends.length;
        for (let i = 0; i < hits.length; i++) {
            const h = hits[i]!;
            this.push(prefix === '' ? h.path : h.path.slice(prefix.length), h.kind === 'directory', run.at[i]!);
        }
        run.entries = this.since(from, prefix)!;
        run.hits = [];
        run.at = [];
        return true;
    }

    /** Fills the shared columns; call once, after the last {@link add}. */
    finish(): void {
        const c = this.cols;
        c.names = this.#names.join('');
        c.ends = Uint32Array.from(this.#ends);
        c.dirs = Uint8Array.from(this.#dirs);
        c.at = Uint32Array.from(this.#at);
        this.#names = [];
    }
}

/**
 * Packs the hits of `run` for the thread boundary: plain entry hits into `entries` (the task's
 * shared columns when `entries` is given, else the run's own), plain content hits (path, kind
 * 'file', line, text; nothing else) into {@link PackedHits}; other runs stay as they are.
 */
export function packRun(run: Extract<Segment, { t: 'run' }>, entries?: EntryPacker): void {
    const hits = run.hits;
    if (hits.length === 0) return;
    if (entries !== undefined) {
        if (entries.add(run)) return;
    } else {
        const own = new EntryPacker();
        if (own.add(run)) return own.finish();
    }
    if (hits.length < 2) return;
    for (const h of hits) {
        if (h.kind !== 'file' || h.line === undefined || h.text === undefined || Object.keys(h).length !== 4) return;
    }
    const paths: string[] = [];
    const n = hits.length;
    let chars = 0;
    for (const h of hits) chars += h.text!.length;
    // Memory / event loop: the run's five columns share one ArrayBuffer, its own (not a slice of
    // Buffer's shared pool: a clone copies the whole ArrayBuffer). Each ArrayBuffer a thread
    // receives is one more backing store its garbage collector tracks and sweeps (a buffer per
    // column would bring some 4,600 of them to the host for a search with 81,383 hits).
    const buffer = new ArrayBuffer(16 * n + 2 * chars);
    const at = new Uint32Array(buffer, 0, n);
    const pathOf = new Uint32Array(buffer, 4 * n, n);
    const lines = new Uint32Array(buffer, 8 * n, n);
    const ends = new Uint32Array(buffer, 12 * n, n);
    const text = new Uint8Array(buffer, 16 * n, 2 * chars);
    const texts = new Array<string>(n);
    let end = 0;
    let last: string | undefined;
    for (let i = 0; i < n; i++) {
        const h = hits[i]!;
        if (h.path !== last) {
            paths.push(h.path);
            last = h.path;
        }
        at[i] = run.at[i]!;
        pathOf[i] = paths.length - 1;
        lines[i] = h.line!;
        texts[i] = h.text!;
        end += h.text!.length;
        ends[i] = end;
    }
    Buffer.from(buffer, text.byteOffset, text.byteLength).write(texts.join(''), 'utf16le');
    run.packed = { paths, pathOf, lines, at, text, ends };
    run.hits = [];
    run.at = [];
}

type Run = Extract<Segment, { t: 'run' }>;

/**
 * Joins the consecutive runs of one job's output where the result is the same sequence of
 * entries and hits (`at` and the too-large files' `at` shifted by the entries before them), so
 * a job's output is a few runs between the jobs it left for later, not one per directory.
 * Memory / event loop: the runs live on the host's main thread until the search ends, and
 * young-generation collections copy them; one run per directory (some 21,000 for a search with
 * 81,383 hits) makes pauses of 6-14 ms each. A run whose entry hits are in the task's
 * {@link EntryColumns} keeps its own run (their `at` and path prefix are the columns'), and takes
 * in only following runs without hits.
 * @returns `out`, joined in place.
 */
export function coalesceRuns(out: Segment[]): Segment[] {
    let last: Run | undefined;
    let k = 0;
    for (const seg of out) {
        if (seg.t === 'run' && last !== undefined && seg.entries === undefined && (last.entries === undefined || seg.hits.length === 0)) {
            appendRun(last, seg);
            continue;
        }
        last = seg.t === 'run' ? seg : undefined;
        out[k++] = seg;
    }
    out.length = k;
    return out;
}

/** Appends `b`'s entries, hits, skips and too-large files to `a` (not packed runs). */
function appendRun(a: Run, b: Run): void {
    for (let i = 0; i < b.hits.length; i++) {
        a.hits.push(b.hits[i]!);
        a.at.push(b.at[i]! + a.n);
    }
    if (b.skipped) for (const s of b.skipped) (a.skipped ??= []).push(s);
    if (b.tooLarge) for (const f of b.tooLarge) (a.tooLarge ??= []).push({ ...f, at: f.at + a.n });
    a.n += b.n;
}

/** Turns a packed run back into one hit object per hit (paths shared), in order. */
export function unpackRun(run: Extract<Segment, { t: 'run' }>): void {
    const e = run.entries;
    if (e !== undefined) {
        const hits = new Array<SearchHit>(e.to - e.from);
        for (let i = 0; i < hits.length; i++) hits[i] = runHit(run, i);
        run.hits = hits;
        run.at = Array.from(e.cols.at.subarray(e.from, e.to));
        delete run.entries;
        return;
    }
    const p = run.packed;
    if (p === undefined) return;
    const hits = new Array<SearchHit>(p.lines.length);
    for (let i = 0; i < hits.length; i++) hits[i] = runHit(run, i);
    run.hits = hits;
    run.at = Array.from(p.at);
    delete run.packed;
}

/** Work units a task does before it answers {@link SearchTask.hunger} (so that every task advances). */
export const SPLIT_MIN_UNITS = 64;

export interface SearchTask {
    op: 'search';
    search: PreparedSearch;
    /** Soft deadline, epoch milliseconds: workers stop at the next entry boundary after it. */
    deadline: number;
    jobs: WalkJob[];
    /** Work units (entries, plus scanned bytes / 16 KiB) after which the task hands back what is left. */
    budget: number;
    /** Time slice in milliseconds after which the task hands back what is left. */
    sliceMs: number;
    /** Stop after this many hits: later hits cannot be among the first `maxResults`. */
    capHits: number;
    /** Stop after this many entries: the ordered walk exceeds `maxTotalEntries` by then. */
    capEntries: number;
    /** Int32Array over it; index 0 non-zero means the search is over, return at once. */
    cancel: SharedArrayBuffer;
    /**
     * Int32Array over it; index 0: threads of the search left without work (no job pending). A
     * task that has done {@link SPLIT_MIN_UNITS} takes one (decrements it) and hands back what is
     * left as jobs, as when its budget is spent, so the idle thread gets part of its subtree.
     */
    hunger?: SharedArrayBuffer;
    /**
     * With a pattern that may backtrack catastrophically: where the task records its hits before
     * each next entry, for the engine to read if it has to terminate the task (see checkpoint.ts).
     */
    checkpoint?: SharedArrayBuffer;
}

export type SearchTaskResult =
    | {
          ok: true;
          /** One entry per job in order: its segments, or `null` when not started (requeue it). */
          results: (Segment[] | null)[];
          visited: number;
          scanned: number;
          /** A cap was reached: jobs not started are not needed at all. */
          capped: boolean;
          /** The soft deadline passed. */
          timedOut: boolean;
      }
    | { ok: false; code: WorkerFailureCode; message: string };

export interface ReadTask {
    op: 'read';
    items: ReadItem[];
    maxBytes: number;
    realRoots: readonly Access[] | null;
    /** The setting named in `too_large` messages. */
    setting: string;
    /** Hand back the text read_file shows instead of the bytes. */
    render?: ReadRender;
}

export type ReadTaskResult = { ok: true; results: (ReadOutcome | ShownReadOutcome)[] } | { ok: false; code: WorkerFailureCode; message: string };

/**
 * A run of search tasks on one pool thread (src/search/search-run.ts): the thread takes the tasks
 * posted on `port` one after the other ({@link SessionTask}; `null` ends the run), answers each on
 * the same port with its {@link SearchTaskResult}, in order, and waits on `wake` (Int32Array index
 * 0, which the engine increments after each post) while none is waiting. Perf: a task posted while
 * the thread is still busy with the one before starts as soon as it is done, not a round trip
 * through the host later (0.6-1.2 ms each). The run ends by itself once `cancel` is set and no
 * task is waiting.
 */
export interface SearchSessionTask extends SearchShared {
    op: 'search-session';
    port: MessagePort;
    wake: SharedArrayBuffer;
}

/** One task of a {@link SearchSessionTask}: a {@link SearchTask} without what the run shares. */
export type SessionTask = Pick<SearchTask, 'deadline' | 'jobs' | 'budget' | 'sliceMs' | 'capHits' | 'capEntries'>;

/** What every task of one search shares: the search, its cancel flag and its hunger count. */
export type SearchShared = Pick<SearchTask, 'search' | 'cancel'> & { hunger: SharedArrayBuffer };

/** The {@link SearchTask} that runs `work` within the search `shared` (a pool task's, or a session's task on its thread). */
export function searchTask(work: SessionTask, shared: SearchShared): SearchTask {
    return { ...work, op: 'search', search: shared.search, cancel: shared.cancel, hunger: shared.hunger };
}

/** What a {@link SearchSessionTask} returns when it ends: the tasks it answered. */
export type SearchSessionResult = { ok: true; tasks: number } | { ok: false; code: WorkerFailureCode; message: string };

export type WorkerTask = SearchTask | SearchSessionTask | ReadTask;
