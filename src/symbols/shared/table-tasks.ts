import type { WorkerFailureCode } from '../../errors/shared/errors.js';

/**
 * Tasks of the symbol table's build (workers/symbols/symbols-table.ts), run on the index's
 * background pool: parts of the generation's source files parsed into part files, then the parts
 * joined into the generation's `symbols.bin` (symbol-format.ts).
 */

/** Parses `paths` (relative to `root`, table ids `ids`) and writes their definitions to the part file `out` (symbol-format.ts, `PART_MAGIC`). */
export interface SymbolsPartTask {
    op: 'symbols-part';
    root: string;
    ids: number[];
    paths: string[];
    /** Bytes at most per file (the index's `maxFileSize`). */
    maxBytes: number;
    /** Parse time at most per file, in milliseconds. */
    parseMs: number;
    out: string;
    nice?: number;
    idle?: boolean;
}

/**
 * `timedOut`: the ids of the files whose parse ran over `parseMs` (recorded as failed in the part
 * file); `parser`: whether the thread has loaded tree-sitter; `heapBytes`: its JS heap's size now.
 */
export type SymbolsPartResult = { ok: true; definitions: number; timedOut: number[]; parser: boolean; heapBytes: number } | { ok: false; code: WorkerFailureCode; message: string };

/** Joins the part files `parts` into the symbol table `out` (written under a temporary name, synced, renamed). */
export interface SymbolsMergeTask {
    op: 'symbols-merge';
    parts: string[];
    /** Entries of the generation's file table (a table file of another size is another generation's). */
    tableSize: number;
    out: string;
    /**
     * Files parsed a second time (with a larger limit) after their first parse timed out, by the
     * last `retried.length` parts, one file each: the earlier parts' failures of these files are
     * dropped, the second parse's outcome stands.
     */
    retried?: number[];
    /**
     * One stage of the merge (none: all of them in turn): `names` reads the parts, `rows` (beside
     * it with `progress`, else after it) and `file-rows` take the names' columns, `join` writes `out`. The
     * stages share `stem`, the temporary files' prefix; `names` is the count the names' stage gave.
     */
    stage?: 'names' | 'rows' | 'file-rows' | 'join';
    /**
     * A progress word (merge-progress.ts) the `names` stage tells as it writes the raw rows and the
     * `rows` stage, run beside it, follows; without, `rows` runs after `names`.
     */
    progress?: SharedArrayBuffer;
    /**
     * Where the rows by file split into halves (the `names` stage's outcome): the `file-rows`
     * stage makes half `half` alone, and the join puts the two together; without, one whole.
     */
    split?: number;
    half?: 0 | 1;
    stem?: string;
    names?: number;
    nice?: number;
    idle?: boolean;
}

/** `split`: the names' stage's, where the rows by file split into halves of about equal work. */
export type SymbolsMergeResult = { ok: true; bytes: number; names: number; definitions: number; split?: number } | { ok: false; code: WorkerFailureCode; message: string };
