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
     * One stage of the merge (none: all of them in turn): `names` reads the parts, `rows` and
     * `file-rows` (which may run side by side) take the names' columns, `join` writes `out`. The
     * stages share `stem`, the temporary files' prefix; `names` is the count the names' stage gave.
     */
    stage?: 'names' | 'rows' | 'file-rows' | 'join';
    stem?: string;
    names?: number;
    nice?: number;
    idle?: boolean;
}

export type SymbolsMergeResult = { ok: true; bytes: number; names: number; definitions: number } | { ok: false; code: WorkerFailureCode; message: string };
