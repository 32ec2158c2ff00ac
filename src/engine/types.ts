import type { Access } from '../config/configuration.js';

/**
 * Messages between the engine client (src/engine) and the pool workers (workers/). Everything
 * here is structured-clone safe. Workers make no access decisions: they receive resolved,
 * checked roots and the real access roots, used only to refuse following a symlink out.
 */

/** Entry kinds a search may return. */
export type EntryType = 'file' | 'directory' | 'both';

/** One search, as the facade hands it to the engine. */
export interface SearchRequest {
    /** Real path of the directory to search (already access-checked). */
    root: string;
    /** Prefix shown for hits (workspace-relative like `src` or `.`, or absolute), `/`-separated. */
    displayRoot: string;
    type: EntryType;
    /** JavaScript regex source matched against entry names, case-insensitive. */
    namePattern?: string;
    /** JavaScript regex source matched against file contents line by line, case-insensitive. */
    contentPattern?: string;
    /** Stop after this many hits (content hits count one per matching line). */
    maxResults: number;
    /** Files above this size in bytes are not content-searched. */
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
    /** Real access roots; a symlink whose target is outside all of them is not followed. `null`: follow freely. */
    realRoots: readonly Access[] | null;
}

/** One search result. */
export interface SearchHit {
    /** Display path: `displayRoot` joined with the entry's relative path, `/`-separated. */
    path: string;
    kind: 'file' | 'directory';
    /** 1-based line number, for content hits. */
    line?: number;
    /** The matching line (at most 500 characters), for content hits. */
    text?: string;
    /** Epoch milliseconds, present when a timestamp filter is active. */
    birthtimeMs?: number;
    mtimeMs?: number;
}

/** Why a search ended. */
export type SearchStop = 'done' | 'max_results' | 'timeout' | 'too_many_entries' | 'aborted';

/** A finished search: hits sorted by path (component-wise), then line. */
export interface SearchOutcome {
    hits: SearchHit[];
    /** Entries (files and directories) visited. */
    visited: number;
    /** Files whose content was scanned. */
    scanned: number;
    stop: SearchStop;
    /** Entries skipped because they could not be read (permission, vanished, broken link), display paths. */
    skipped: { path: string; reason: string }[];
    elapsedMs: number;
}

/** One bulk read item (already access-checked). */
export interface ReadItem {
    /** Path shown in messages (absolute, as resolved). */
    shown: string;
    real: string;
}

/** One bulk read result. */
export type ReadOutcome =
    | { ok: true; bytes: Uint8Array; hash: string; size: number }
    | { ok: false; kind: string; message: string };
