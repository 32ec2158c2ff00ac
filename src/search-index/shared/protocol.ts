import type { MessagePort } from 'node:worker_threads';
/**
 * Tasks of the index build, run by the pool's worker code (workers/search-index/index-walk.ts, workers/search-index/index-chunk.ts). Like the
 * search protocol: structured-clone safe, and a worker answers with a discriminated result.
 */
import type { WorkerFailureCode } from '../../errors/shared/errors.js';

/** Lists the tree under `root` into a file table (no contents read). */
export interface IndexWalkTask {
    op: 'index-walk';
    /** Real path of the indexed directory. */
    root: string;
    /** Directory names left out (the search's skip list at build time). */
    skipDirs: readonly string[];
    /** More entries than this: the task fails with `too_many_entries`. */
    maxEntries: number;
    /** Nice value the thread takes first (the background pool's threads); absent: unchanged. */
    nice?: number;
    /** `false`: at `nice` alone, sharing the CPU with searches (background-pool.ts); else also SCHED_IDLE. */
    idle?: boolean;
    /** Where the table goes (see {@link IndexWalkResult}), moved to the thread with the task; absent: it goes nowhere. */
    port?: MessagePort;
}

/**
 * The walk's outcome. Its file table before the content phase sets the flags, encoded as a table
 * file (format.ts `encodeTable`) in an ArrayBuffer of its own, is posted on the task's port before
 * the task returns, moved (not copied), so that the host can hand its memory back as soon as it
 * has copied what it keeps (a shared buffer stayed resident until the host's next full collection:
 * 78 MB through a whole content phase at ten copies of the Linux tree); `bytes` is its length.
 * `skipped`: the relative paths of the directories it left out by name (`skipDirs`; the top-most
 * ones, whose insides it never listed).
 */
export type IndexWalkResult = { ok: true; bytes: number; skipped: string[] } | { ok: false; code: WorkerFailureCode; message: string };

/** Reads, checks and n-grams the files of one id range and writes the range's segment file. */
export interface IndexChunkTask {
    op: 'index-chunk';
    root: string;
    /** First id of the range and how many ids it spans (directories and links included). */
    firstId: number;
    count: number;
    /**
     * Ids of the regular files in the range, ascending, and their paths relative to `root`
     * (`/`-separated), joined by NUL, as UTF-16LE (Perf: both buffers are moved to the thread,
     * not copied: build-chunks.ts).
     */
    ids: Int32Array;
    paths: Uint8Array;
    /** Files above this many bytes are not indexed (always candidates). */
    maxFileSize: number;
    /**
     * Where the segment files are written: the range's first part is `${out}-0.bin`, the next
     * `${out}-1.bin`, and so on. A part ends where its postings reach `partPostings` (memory: a
     * thread holds one part's postings at a time, whatever the range's text).
     */
    out: string;
    /** Most postings of one part (default: the worker's, workers/search-index/index-chunk.ts). */
    partPostings?: number;
    /** Nice value the thread takes first (the background pool's threads); absent: unchanged. */
    nice?: number;
    /** `false`: at `nice` alone, sharing the CPU with searches (background-pool.ts); else also SCHED_IDLE. */
    idle?: boolean;
}

export type IndexChunkResult =
    | {
          ok: true;
          /** Flags (format.ts `Flag`) of `ids`, in order. */
          flags: Uint8Array;
          /** Bytes of text indexed. */
          textBytes: number;
          /** Bytes of each segment file written, in order (one per part, consecutive id ranges). */
          segmentBytes: number[];
      }
    | { ok: false; code: WorkerFailureCode; message: string };

/**
 * Lists the tree again and compares it with a stored file table: what changed since the table was
 * made (while no process watched). Like the watcher's snapshots, a change is a new, deleted or
 * retyped entry, or a different size or modification time.
 */
export interface IndexCheckTask {
    op: 'index-check';
    root: string;
    skipDirs: readonly string[];
    maxEntries: number;
    /** The stored table file (format.ts). */
    table: string;
    /**
     * The work queue the threads of one check share (check-queue.ts `newCheckQueue`): each
     * thread's result holds the directories it compared. Absent: one thread compares them all.
     */
    queue?: SharedArrayBuffer;
    /**
     * The watcher's crawl running alongside (crawl-gate.ts `newCrawlGate`): the root and each of
     * its subdirectories are compared once the crawl has watched them. Absent: all are watched.
     */
    gate?: SharedArrayBuffer;
    /** The bytes of `table`, read once for all threads of the check; absent: the thread reads the file. */
    tableBytes?: SharedArrayBuffer;
    /** With `tableBytes`, the host's read of them, still under way when the task starts (check-queue.ts `awaitRead`). */
    tableRead?: SharedArrayBuffer;
    /**
     * `tableBytes` are the very bytes the host's load of the stored index checks (their CRC-32),
     * and the check's result is used only once that load has passed: the thread does not checksum them again.
     */
    tableChecked?: boolean;
    /**
     * The host watcher's inotify instance (its descriptor, the events' mask): each directory
     * compared is watched first (workers/search-index/check-watches.ts), the watches handed back
     * in the result. Needs the native statx layer (the walk-and-compare adds none).
     */
    watch?: { fd: number; mask: number };
    /** Nice value the thread takes first (the background pool's threads); absent: unchanged. */
    nice?: number;
    /** `false`: at `nice` alone, sharing the CPU with searches (background-pool.ts); else also SCHED_IDLE. */
    idle?: boolean;
}

export type IndexCheckResult =
    | {
          ok: true;
          /** The changed paths (never the root's `''`) joined by NUL, `''` for none (Perf: one string to copy, split on the host in slices). */
          changed: string;
          /** Directories whose modification time differs. */
          dirTimes: string[];
          /** With `watch`: the watches this thread added, and their directories' relative paths joined by NUL (the root's is `''`). */
          watched?: { wds: number[]; paths: string };
      }
    | { ok: false; code: WorkerFailureCode; message: string };

/**
 * Merges segment files of consecutive id ranges (in order) into one segment file (one dictionary):
 * written under a temporary name, synced, then renamed to `out`.
 */
export interface IndexMergeTask {
    op: 'index-merge';
    inputs: string[];
    out: string;
    /** Nice value the thread takes first (the background pool's threads); absent: unchanged. */
    nice?: number;
    /** `false`: at `nice` alone, sharing the CPU with searches (background-pool.ts); else also SCHED_IDLE. */
    idle?: boolean;
    /** Bytes the inputs' read buffers share (index-merge.ts READ_BUDGET when absent). */
    readBudget?: number;
}

/** `heldBytes`: the merge's own buffers at their largest (the inputs' reads, the output's, the longest list). */
export type IndexMergeResult = { ok: true; bytes: number; grams: number; heldBytes: number } | { ok: false; code: WorkerFailureCode; message: string };

export type IndexTask = IndexWalkTask | IndexChunkTask | IndexCheckTask | IndexMergeTask;
