/**
 * The seam between a tree's changed paths (changes.ts) and the file watcher that reports them:
 * the index's own inotify watcher on Linux (watch-inotify.ts), @parcel/watcher elsewhere
 * (watch-parcel.ts).
 */

/** Where a watcher reports to (the tree's Changes). */
export interface WatchSink {
    /** A changed path (relative, `/`-separated; `''` is the root). */
    note(rel: string): void;
    /** An event inside a skipped directory: never noted, counted toward the rebuild. */
    drop(): void;
    /** Events were lost (an overflow, a failure): nothing is known about outside changes until the next build. */
    lost(): void;
    /** Outside changes were noted. */
    changed(): void;
    /** Calls `each` on every item in slices between yields; searches take the scan path meanwhile. */
    inSlices<T>(items: readonly T[], each: (item: T) => void): Promise<void>;
    /** The skipped directory names (set before subscribe). */
    readonly skip: ReadonlySet<string>;
}

/** Watches a tree check added for an inotify watcher (workers/search-index/check-watches.ts): descriptors and their directories' relative paths (the root's `''`). */
export interface CheckedWatches {
    wds: number[];
    paths: string[];
}

/**
 * A tree check run for an inotify watcher's subscription instead of its crawl: it watches each
 * directory on the instance `fd` with `mask` before comparing it, and gives the watches back.
 * @throws Error when it fails (a watch too).
 */
export type WatchingCheck = (fd: number, mask: number) => Promise<CheckedWatches>;

/** A file watcher of one tree. */
export interface TreeWatch {
    /** A live subscription is on. */
    readonly watching: boolean;
    /** It leaves out skipped directories by name, so files of those names go unreported (never served so). */
    readonly byName: boolean;
    /** It watches a crawl another subscription of this process made (never served so). */
    readonly sharedCrawl: boolean;
    /** A build must first call {@link renew}: some directories may not be watched yet. */
    readonly reportedSinceCrawl: boolean;
    /** The directories (relative, sorted) left out by path; `null` while left out by name or not watching. */
    readonly leftOut: readonly string[] | null;
    /**
     * `gate` (crawl-gate.ts): where the crawl tells a tree check run alongside what is watched so
     * far (the caller ends it); or the check that adds the watches instead of a crawl (inotify only).
     */
    subscribe(known: readonly string[] | null, gate?: SharedArrayBuffer | WatchingCheck): Promise<boolean>;
    watchByPath(found: readonly string[], how: 'swap' | 'fresh'): Promise<boolean>;
    renew(): Promise<boolean>;
    checkLeftOut(): void;
    /**
     * Reads every event queued now and notes its path before returning, where the watcher can
     * (inotify): a search that calls it first sees every change completed before it started.
     */
    drain(): void;
    saveSnapshot(file: string): Promise<void>;
    changesSinceSnapshot(file: string): Promise<string[]>;
    delivered(): Promise<void>;
    unsubscribe(): Promise<void>;
}

/** Which watcher a tree uses: `auto` is inotify where it can run, else @parcel/watcher. */
export type WatcherKind = 'auto' | 'inotify' | 'parcel';
