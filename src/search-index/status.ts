import type { WatcherKind } from './watch/watch.js';
/** The states, figures and options of one tree's index (tree-index.ts). */

/** What a {@link TreeIndex} does now. */
export type IndexState = 'idle' | 'building' | 'ready' | 'failed' | 'closed';

/** Progress and figures of an index. */
export interface IndexStatus {
    root: string;
    state: IndexState;
    /** Build phase while building. */
    phase?: 'walk' | 'content' | 'write';
    /** Files read / to read in the content phase. */
    filesDone: number;
    filesTotal: number;
    /** Entries (files, directories, links) in the file table. */
    entries: number;
    /** Bytes of text indexed. */
    textBytes: number;
    /** Bytes the index takes on disk. */
    diskBytes: number;
    /** Segment files served (one once the build's segments are merged). */
    segments: number;
    /** Paths changed since the build (candidates whatever the query). */
    dirty: number;
    /** Milliseconds of the last build, or of the reopen. */
    buildMs?: number;
    openMs?: number;
    /** How the reopen found what changed while no process watched: the last process's watcher snapshot, or a listing of the tree. */
    reopenedFrom?: 'snapshot' | 'listing';
    /** Why the index is not used, when failed. */
    error?: string;
}

export interface TreeIndexOptions {
    /** Directory of this tree's index files (private, outside the tree). */
    dir: string;
    /** Files above this many bytes are not indexed (always candidates). */
    maxFileSize: number;
    /** Directory names left out of the index (a search must skip them too for the index to answer it). */
    skipDirs: readonly string[];
    /** The tree holding more entries than this is not indexed (default 3,000,000). */
    maxEntries?: number;
    /** Bytes of file content per segment (default 64 MiB). */
    segmentBytes?: number;
    /** Dirty paths above which the index is rebuilt in the background (default 2,000). */
    rebuildAfter?: number;
    /** Threads a build runs on at once. */
    threads: number;
    /** Watch for outside changes (default true). Without a watcher the index is never used. */
    watch?: boolean;
    /** The watcher (default `auto`: the index's own inotify watcher on Linux, @parcel/watcher elsewhere). */
    watcher?: WatcherKind;
    /** Merge a build's segment files into one in the background (default true; merge.ts). */
    merge?: boolean;
    /**
     * Nice value of the searches' threads (the engine's `workerNice`, default 5): while searches
     * keep coming, a build's tasks run at it, sharing the CPU with them, instead of at idle priority.
     */
    searchNice?: number;
    /** Whether the engine's searches (or other tasks) are under way now: a build then shares the CPU with them. */
    searching?: () => boolean;
}

/** {@link TreeIndexOptions} with their defaults filled in. */
export type ResolvedTreeOptions = Required<Omit<TreeIndexOptions, 'skipDirs' | 'searchNice' | 'searching'>> & { skipDirs: readonly string[]; searchNice?: number; searching?: () => boolean };
