import type { Access } from '../../config/shared/configuration.js';
import type { IgnoreFrame, OutputMode, PatternSpec, ReadItem, ReadOutcome, ReadRender, SearchRequest, SearchRoot, ShownReadOutcome } from './types.js';
import type { WorkerFailureCode } from '../../errors/shared/errors.js';
import type { MessagePort } from 'node:worker_threads';
import type { Segment, WalkJob } from './walk-output.js';

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
 * A run of search tasks on one pool thread (src/search/search-sessions.ts): the thread takes the
 * tasks posted on `port` one after the other ({@link SessionTask}; `null` ends the run), answers
 * each on the same port with its {@link SearchTaskResult}, in order, and waits on `wake`
 * (Int32Array index 0, which the engine increments after each post) while none is waiting. Perf: a task posted while
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
export type SessionTask = Pick<SearchTask, 'deadline' | 'jobs' | 'budget' | 'sliceMs' | 'capHits' | 'capEntries'> & { last?: LastTask };

/**
 * Why a session's task may be its thread's last: `capped`, it starts at the ordered walk's cursor
 * (no job before it unanswered), so a stop at its caps ends the search; `all`, it also holds every
 * job left, so its jobs done with none handed back end it too. Perf: the thread returns with its
 * answer (see {@link endsSession}) instead of a round trip through the host to end the session.
 */
export type LastTask = 'capped' | 'all';

/** Whether answer `res` to a task posted with `last` ends its session: its thread returns after it, the host posts it nothing more. */
export function endsSession(last: LastTask | undefined, res: SearchTaskResult): boolean {
    if (last === undefined || !res.ok || res.timedOut) return false;
    return res.capped || (last === 'all' && res.results.every((r) => r !== null && r.every((seg) => seg.t !== 'job')));
}

/** What every task of one search shares: the search, its cancel flag and its hunger count. */
export type SearchShared = Pick<SearchTask, 'search' | 'cancel'> & { hunger: SharedArrayBuffer };

/** The {@link SearchTask} that runs `work` within the search `shared` (a pool task's, or a session's task on its thread). */
export function searchTask(work: SessionTask, shared: SearchShared): SearchTask {
    return { ...work, op: 'search', search: shared.search, cancel: shared.cancel, hunger: shared.hunger };
}

/** What a {@link SearchSessionTask} returns when it ends: the tasks it answered. */
export type SearchSessionResult = { ok: true; tasks: number } | { ok: false; code: WorkerFailureCode; message: string };

export type WorkerTask = SearchTask | SearchSessionTask | ReadTask;
