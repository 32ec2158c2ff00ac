import type { IgnoreFrame, SearchHit } from './types.js';

/**
 * What a walk job hands back, in walk order: runs of visited entries with their hits (packed into
 * columns for the trip between threads) and jobs left for later. The workers write it, the engine
 * and the search index read it; protocol.ts carries it in its messages.
 */

/**
 * One unit of walk work: a directory to list, or (`names` set) entries of an already listed
 * directory still to process, in sorted order.
 */
export interface WalkJob {
    /** Real path of the directory (symlinks along the way resolved where followed). */
    real: string;
    /** Display path of the directory, `/`-separated (`.` or workspace-relative or absolute). */
    rel: string;
    /**
     * Real paths of the directories from which a symlinked directory was entered, root first.
     * A link whose target contains one of them (or the current directory) would loop.
     */
    jumps: readonly string[];
    /** Pre-listed entries (a deferred part of a large directory). */
    names?: string[];
    /** Entry kinds for `names`, see {@link EntryKind}. */
    kinds?: number[];
    /** `.gitignore` frames in force in this directory, outermost first (absent: none). */
    ignores?: readonly IgnoreFrame[];
}

/** Entry kinds as sent in {@link WalkJob.kinds}. */
export const EntryKind = { File: 0, Dir: 1, Link: 2, Other: 3 } as const;

/** An entry that could not be read. */
export interface Skip {
    path: string;
    reason: string;
}

/** A file not content-searched for its size; `at` is its index within its run. */
export interface TooLarge {
    path: string;
    size: number;
    at: number;
}

/**
 * A piece of a job's output in walk order: a run of visited entries with their hits (`at[i]` is
 * the index, within the run, of the entry hit `i` belongs to), or a job left for later.
 */
export type Segment =
    | { t: 'run'; n: number; hits: SearchHit[]; at: number[]; skipped?: Skip[]; tooLarge?: TooLarge[]; packed?: PackedHits; entries?: PackedEntries }
    | { t: 'job'; job: WalkJob };

/**
 * A run's content hits as columns (`hits` is then empty): hit `i` is
 * `{ path: paths[pathOf[i]], kind: 'file', line: lines[i], text }` with `text` the UTF-16 code
 * units `ends[i - 1] ?? 0` to `ends[i]` of {@link PackedHits.text}.
 * Perf: a worker sends these instead of one object per hit; structured clone writes every
 * object's keys and makes one path string per hit, ~1.1 µs per hit against ~0.4 µs packed
 * (bench/profile.ts phases). The texts travel as the bytes of one buffer, outside the
 * main thread's JavaScript heap, so its garbage collector never copies them (see hit-list.ts).
 * The typed arrays are views of one ArrayBuffer per run (see {@link packRun}).
 */
export interface PackedHits {
    paths: string[];
    pathOf: Uint32Array;
    lines: Uint32Array;
    /** The run's `at` (the index, within the run, of the entry hit `i` belongs to); the run's own `at` is then empty. */
    at: Uint32Array;
    /** The hits' texts, concatenated, as UTF-16LE code units (lossless for any JavaScript string, lone surrogates included). */
    text: Uint8Array;
    /** End of hit `i`'s text in {@link text}, in UTF-16 code units. */
    ends: Uint32Array;
}

/**
 * The entry hits (name searches, listings of every entry, `files_with_matches`) of the runs of one
 * task as shared columns: entry `k` is the name `names.slice(ends[k - 1] ?? 0, ends[k])` (UTF-16
 * code units) after its run's {@link PackedEntries.prefix}, a directory when `dirs[k]` is 1, and
 * the entry `at[k]` of its run (the run's `at`). Perf: one string and three typed arrays per task
 * instead of one path string per hit (a path string per entry of the Linux tree costs structured
 * clone ~150 ms of CPU on two threads).
 */
export interface EntryColumns {
    names: string;
    ends: Uint32Array;
    dirs: Uint8Array;
    at: Uint32Array;
}

/**
 * A run's entry hits as a range of a task's {@link EntryColumns} (`hits` is then empty and `at`
 * too): hit `j` is `{ path: prefix + name, kind: dirs ? 'directory' : 'file' }` of entry
 * `from + j`. `prefix`: the display path of the run's directory with its trailing `/`, or `''`
 * when the names are whole paths.
 */
export interface PackedEntries {
    cols: EntryColumns;
    prefix: string;
    from: number;
    to: number;
}
