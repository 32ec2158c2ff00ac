import type { ReadArgs } from '../../text/shared/read-render.js';
import type { CheckedPath } from '../../access/shared/checked-path.js';
import type { ToolErrorKind } from '../../errors/shared/errors.js';

/**
 * Messages between the engine client (src/engine) and the pool workers (workers/). Everything
 * here is structured-clone safe. Workers make no access decisions: they receive resolved,
 * checked roots and the real access roots, used only to refuse following a symlink out.
 */

/** Entry kinds a search may return. */
export type EntryType = 'file' | 'directory' | 'both';

/**
 * What a content search returns per file: each matching line (`content`), one hit per file with
 * a match (`files_with_matches`), or one hit per such file with its number of matching lines (`count`).
 */
export type OutputMode = 'content' | 'files_with_matches' | 'count';

/** A search pattern compiled once (`compilePattern` in src/search/regex.ts); structured-clone safe. */
export interface PatternSpec {
    source: string;
    /** `i`, or `iu` when the pattern needs Unicode mode. */
    flags: 'i' | 'iu';
    /** The pattern may backtrack catastrophically (`mayBacktrack` in src/search/regex.ts): workers hand back hits before each next entry. */
    risky: boolean;
}

/**
 * The rules of one `.gitignore` file and where they apply. An entry at `relPath` (relative to the
 * searched directory) is tested as `up + relPath.slice(base.length)`: `base` is the directory of
 * the file relative to the searched one (`''` or `a/b/`), `up` the searched directory relative to
 * the file's directory for a `.gitignore` above it (`''` or `src/`).
 */
export interface IgnoreFrame {
    base: string;
    up: string;
    /** The file's text. */
    rules: string;
}

/**
 * The directory a search starts from, as the access check left it: the worker-safe part of its
 * {@link CheckedPath} (the real and display paths) with the roots that bound what the search may
 * read. One value from the tool through the engine to the workers.
 */
export interface SearchRoot extends Pick<CheckedPath, 'real' | 'display'> {
    /** Real access roots; a symlink whose real target is outside all of them is not followed. `null`: symlink resolution is off, follow freely. */
    realRoots: readonly string[] | null;
    /** Directories nothing is read outside of, not even a `.gitignore` above the root: the real access roots, or the configured ones when `realRoots` is `null`. */
    bounds: readonly string[];
}

/**
 * One search, as a caller hands it to the engine ({@link prepareSearch} in src/search/prepare.ts
 * checks and compiles it). Each option keeps this name on every layer: the tool's parameter is its
 * snake_case form (`contextLines` is `context_lines`), the prepared search and the workers use it as is.
 */
export interface SearchRequest {
    /**
     * The directory to search (already access-checked), or a function that checks it, called
     * after the other options are validated (so a bad pattern is reported before a bad path).
     */
    root: SearchRoot | (() => Promise<SearchRoot>);
    type: EntryType;
    /** JavaScript regex source matched against entry names, case-insensitive. */
    namePattern?: string;
    /** JavaScript regex source matched against file contents line by line, case-insensitive. */
    contentPattern?: string;
    /** Stop after this many hits (content hits count one per matching line). */
    maxResults: number;
    /** Files above this size in bytes are not content-searched (they are reported in {@link SearchOutcome.tooLarge}). */
    maxFileSize: number;
    /** Walk limit: visiting more entries than this stops the search with `too_many_entries`. */
    maxTotalEntries: number;
    /** Timestamp filters in epoch milliseconds (exclusive bounds). */
    createdAfter?: number;
    createdBefore?: number;
    modifiedAfter?: number;
    modifiedBefore?: number;
    /** Directory names the walk skips. */
    skipDirs: readonly string[];
    /** Output of a content search (default `content`); `maxResults` then counts files. */
    outputMode?: OutputMode;
    /** Lines of context before and after each content hit (default 0); they do not count as hits. Needs `contentPattern`. */
    contextLines?: number;
    /** Matching lines kept per file at most, in output mode `content` (default: no cap); later ones are not hits. Needs `contentPattern`. */
    maxMatchesPerFile?: number;
    /** Globs (one or a list, see `compileGlobs` in filters.ts): only files, and directory hits, matching one are returned; every directory is still walked. */
    include?: string | readonly string[];
    /** Globs: matching entries are left out as if absent, and matching directories are not walked. */
    exclude?: string | readonly string[];
    /** Leave out what `.gitignore` files ignore: the searched directory's, those below it, and those above it up to the repository top. */
    respectGitignore?: boolean;
}

/** Options of {@link Engine.search}. */
export interface SearchOptions {
    /** Total time in milliseconds; after it the search returns what it found, `stop: 'timeout'`. */
    timeoutMs: number;
    /** Aborting it ends the search with the hits found so far, `stop: 'aborted'`. */
    signal?: AbortSignal;
    /** Called as the walk goes on (at most every 100 ms): entries visited, files scanned, hits found so far. Must not throw. */
    onProgress?: (progress: SearchProgress) => void;
}

/** How far a running search has got. */
export interface SearchProgress {
    visited: number;
    scanned: number;
    /** Hits known so far (found by finished tasks; not all of them need be returned). */
    hits: number;
}

/** One search result. */
export interface SearchHit {
    /** Display path: the root's display path joined with the entry's relative path, `/`-separated. */
    path: string;
    kind: 'file' | 'directory';
    /** 1-based line number, for content hits. */
    line?: number;
    /**
     * The matching line, for content hits. A line above 500 characters is cut to a window of at
     * most 500 around its first match, with `…` where it was cut (start, end or both).
     */
    text?: string;
    /** With `contextLines`: up to that many lines before and after the matching line (fewer at the file's start and end). */
    before?: string[];
    after?: string[];
    /** With output mode `count`: the file's number of matching lines. */
    count?: number;
    /** Epoch milliseconds, present when a timestamp filter is active. */
    birthtimeMs?: number;
    mtimeMs?: number;
}

/** Why a search ended. */
export type SearchStop = 'done' | 'max_results' | 'timeout' | 'too_many_entries' | 'aborted';

/** A finished search: hits sorted by path (component-wise), then line. */
export interface SearchOutcome {
    hits: SearchHit[];
    /**
     * Entries (files and directories) visited. When the search ran to its end or stopped at
     * `maxResults` or `maxTotalEntries`, the count of the sequential walk up to where it stopped
     * (`maxTotalEntries + 1` for the latter), the same on every run; after a timeout or abort,
     * the entries visited by the tasks that finished (parallel work ahead of the sorted prefix included).
     */
    visited: number;
    /** Files whose content was scanned, by the tasks that finished. */
    scanned: number;
    stop: SearchStop;
    /** Entries skipped because they could not be read (permission, vanished, broken link), display paths. */
    skipped: { path: string; reason: string }[];
    /**
     * Text files a content search did not scan because they are larger than `maxFileSize`, in
     * walk order: the first 20, with their sizes in bytes (binaries are not listed: they are never
     * searched). Only those the sorted walk passed, like `skipped`.
     */
    tooLarge: { path: string; size: number }[];
    /** How many such files there were in all. */
    tooLargeCount: number;
    elapsedMs: number;
}

/** One bulk read item (already access-checked). */
export interface ReadItem {
    /** Path shown in messages (absolute, as resolved). */
    shown: string;
    real: string;
}

/** One bulk read result: the file's bytes and the SHA-256 of them (read-before-write). */
export type ReadOutcome =
    | { ok: true; bytes: Uint8Array; hash: string; size: number }
    | { ok: false; kind: ToolErrorKind; message: string };

/** One bulk read result with {@link ReadRender}: only the text `read_file` shows of the file; `hash` is the SHA-256 of the whole file. */
export type ShownReadOutcome =
    | { ok: true; shown: string; hash: string; size: number }
    | { ok: false; kind: ToolErrorKind; message: string };

/** Format each file read as `read_file` shows it, on the worker (see src/text/shared/read-render.ts). */
export interface ReadRender {
    args: ReadArgs;
    /** Characters shown per file at most. */
    maxChars: number;
}
