import { EventEmitter } from 'node:events';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PreparedSearch, Segment } from '../search/shared/protocol.js';
import { buildGeneration } from './build.js';
import { needsMerge, SegmentMerge } from './merge.js';
import { Changes, changesSince } from './watch/changes.js';
import { IndexFormatError } from './shared/format.js';
import type { SegmentReader } from './shared/segment.js';
import { planSearch } from './plan.js';
import { changesWhileClosed, checkDirTimes, saveForNextProcess, stillChanged, type ReopenContext } from './reopen.js';
import { dropManifest, loadStored, openIndexFolder, readManifest, removeOldGenerations, takeLock, writeManifest, type Manifest, type Stored } from './store.js';
import type { Table } from './table.js';
import type { IndexState, IndexStatus, TreeIndexOptions } from './status.js';

export type { IndexState, IndexStatus, TreeIndexOptions } from './status.js';

export { compareWalk } from './table.js';

/**
 * The search index of one directory tree (see README "Search index"): a file table in walk
 * order and posting lists (trigram -> files) in immutable segment files, built on the engine's
 * worker pool (build.ts), persisted in a private cache directory (store.ts), kept fresh by the
 * tools and a file watcher (changes.ts); a search's walk is answered from it (answer.ts).
 *
 * Freshness: a changed path is "dirty" until the next rebuild. A dirty file is always a
 * candidate (its current content is scanned), a dirty directory is walked as the scan path walks
 * it; deleted entries disappear; paths under a dirty root of the search make the whole search
 * take the scan path. Nothing is ever answered from stale data: when the watcher is unavailable
 * or fails (an overflow), every search takes the scan path until a rebuild completes.
 */

/** Topmost changed paths above which a search takes the scan path (each is looked up on disk per search). */
const MAX_TOPS = 20_000;

const NO_WATCHER = 'file watcher unavailable: searches use the scan path';
const SHARED_CRAWL = 'another index of this process watches this tree (its watcher crawl is shared): searches use the scan path';

/** One tree's index. Events: `state` (IndexStatus) on every state change, `progress` during a build, `change` after outside changes are noted. */
export class TreeIndex extends EventEmitter {
    readonly root: string;
    readonly #opts: Required<Omit<TreeIndexOptions, 'skipDirs'>> & { skipDirs: readonly string[] };
    #state: IndexState = 'idle';
    #phase: IndexStatus['phase'];
    #error: string | undefined;
    #table: Table | null = null;
    #segments: SegmentReader[] = [];
    #manifest: Manifest | null = null;
    readonly #changes: Changes;
    #filesDone = 0;
    #filesTotal = 0;
    #openMs: number | undefined;
    #reopenedFrom: IndexStatus['reopenedFrom'];
    #starting: Promise<void> | null = null;
    #rebuildQueued = false;
    /** The comparison of directory times after a reopen from a snapshot, while it runs. */
    #dirTimesCheck: Promise<void> | null = null;
    /** The merge of the served generation's segments, while it runs. */
    #merge: SegmentMerge | null = null;
    /** Searches the index answered, and those it left to the scan path while ready. */
    readonly counts = { answered: 0, scanned: 0 };
    /** The last answered search: files the index kept as candidates under the searched directory, and entries handed to the workers. */
    lastPlan = { candidates: 0, handedOut: 0 };

    constructor(root: string, options: TreeIndexOptions) {
        super();
        this.root = root;
        this.#opts = { maxEntries: 3_000_000, segmentBytes: 64 * 1024 * 1024, rebuildAfter: 2000, watch: true, watcher: 'auto', merge: true, ...options };
        this.#changes = new Changes(root, this.#opts.rebuildAfter, { onChange: () => this.emit('change'), onRebuild: () => this.#scheduleRebuild() }, this.#opts.watcher);
    }

    get state(): IndexState {
        return this.#state;
    }

    /** Directory names the index leaves out. */
    get skipDirs(): readonly string[] {
        return this.#opts.skipDirs;
    }

    status(): IndexStatus {
        const m = this.#manifest;
        return {
            root: this.root,
            state: this.#state,
            ...(this.#phase !== undefined && { phase: this.#phase }),
            filesDone: this.#filesDone,
            filesTotal: this.#filesTotal,
            entries: this.#table?.size ?? 0,
            textBytes: m?.textBytes ?? 0,
            diskBytes: m?.diskBytes ?? 0,
            segments: this.#segments.length,
            dirty: this.#changes.dirty.size,
            ...(m && { buildMs: m.buildMs }),
            ...(this.#openMs !== undefined && { openMs: this.#openMs }),
            ...(this.#reopenedFrom !== undefined && { reopenedFrom: this.#reopenedFrom }),
            ...(this.#error !== undefined && { error: this.#error }),
        };
    }

    #setState(state: IndexState, error?: string): void {
        this.#state = state;
        if (error !== undefined) this.#error = error;
        this.emit('state', this.status());
    }

    /**
     * Opens the stored index (brought up to date with the changes since it was saved) or builds
     * it. Resolves when the index is ready or has failed (see {@link status}); never rejects.
     */
    start(): Promise<void> {
        return (this.#starting ??= this.#start().catch((err: unknown) => {
            if (this.#state !== 'closed') this.#setState('failed', err instanceof Error ? err.message : String(err));
        }));
    }

    async #start(): Promise<void> {
        const t0 = performance.now();
        await openIndexFolder(this.#opts.dir);
        if (await this.#open()) {
            this.#openMs = Math.round(performance.now() - t0);
            this.#setState('ready');
            return;
        }
        if ((this.#state as IndexState) === 'closed') return;
        if (this.#opts.watch && !this.#changes.watching) {
            this.#setState('failed', NO_WATCHER);
            return;
        }
        await this.#build();
    }

    /**
     * Opens the stored index with the watcher on. What changed while no process watched comes
     * from the watcher's snapshot of the last process to close (with the paths it knew changed),
     * else from listing the tree again on a thread; the table loads meanwhile. False (nothing
     * opened) when there is none, it does not check out, or the watcher cannot run.
     */
    async #open(): Promise<boolean> {
        const m = await readManifest(this.#opts.dir, this.root);
        // Perf: the stored table loads while the watcher starts and the changes are found.
        const stored = m === null ? Promise.resolve(null) : loadStored(this.#opts.dir, this.root, this.#opts);
        // The skipped directories the stored generation's walk found are left out by path from the start.
        if (this.#opts.watch && !this.#changes.watching) await this.#changes.subscribe(this.#opts.skipDirs, m?.skippedDirs ?? null);
        // Nothing is served yet and the changes are found after: a crawl of its own, by path.
        else if (m !== null && this.#changes.byName) await this.#changes.watchByPath(m.skippedDirs, 'fresh').catch(() => undefined);
        // By name, files named like skipped directories go unreported; another index's crawl may miss more: never served so.
        const usable = this.#state !== 'closed' && (!this.#opts.watch || (this.#changes.watching && !this.#changes.byName && !this.#changes.sharedCrawl));
        const listedFrom = this.#changes.seq;
        const changed = m !== null && usable ? changesWhileClosed(this.#reopenContext(), m).catch(() => null) : null;
        const [s, c] = await Promise.all([stored, changed]);
        if (s === null || c === null || s.m.gen !== m?.gen || !usable) {
            for (const seg of s?.segs ?? []) seg.close();
            return false;
        }
        this.#serve(s);
        this.#changes.servedFrom(listedFrom);
        this.#reopenedFrom = c.from;
        await this.#changes.noteAll({ changed: await stillChanged(this.root, s.table, c.changed), dirTimes: c.dirTimes });
        if (this.#changes.dirTimesPending) this.#dirTimesCheck = checkDirTimes(this.root, s.table, this.#changes, () => this.#table === s.table).catch(() => undefined);
        this.#startMerge();
        return true;
    }

    #reopenContext(): ReopenContext {
        return { root: this.root, dir: this.#opts.dir, skipDirs: this.#opts.skipDirs, maxEntries: this.#opts.maxEntries, changes: this.#changes };
    }

    /** Serves `s` from now on; the segments served before are closed. */
    #serve(s: Stored): void {
        const old = this.#segments;
        this.#table = s.table;
        this.#segments = s.segs;
        this.#manifest = s.m;
        for (const seg of old) if (!s.segs.includes(seg)) seg.close();
    }

    /**
     * Brings the index up to date with the disk now: the tree is listed again (on a thread) and
     * every entry whose type, size or modification time differs from the table is noted as
     * changed. Use it where waiting for the watcher's event is not possible (tests, after a bulk
     * change); a reopened index does the same once.
     */
    async sync(): Promise<void> {
        const m = this.#manifest;
        if (m === null || this.#state !== 'ready') return;
        await this.#changes.noteAll(await this.#listedSince(m.gen));
    }

    /** What differs on disk now from generation `gen`'s table: the tree listed again on a thread (changes.ts changesSince). */
    #listedSince(gen: string): Promise<{ changed: string[]; dirTimes: string[] }> {
        return changesSince({ root: this.root, skipDirs: [...this.#opts.skipDirs], maxEntries: this.#opts.maxEntries, table: path.join(this.#opts.dir, gen, 'table.bin') });
    }

    /** The tools report a path they are about to change or have changed (absolute, real or as written). */
    touch(abs: string): void {
        this.#changes.noteAbs(abs);
    }

    /** Builds the index anew (a new generation), then replaces the current one. */
    async #build(): Promise<void> {
        // A merge of the served generation gives way (it holds the build lock while it runs).
        await this.#merge?.cancel();
        const lock = await takeLock(this.#opts.dir, 'build.lock');
        if (lock === null) {
            // Another process builds this tree: use its index once it is there.
            this.#phase = 'walk';
            this.#setState('building');
            await this.#waitForOther();
            return;
        }
        try {
            this.#filesDone = 0;
            this.#filesTotal = 0;
            this.#phase = 'walk';
            this.#setState('building');
            // A build starts from a crawl that watches every directory there is (Changes.renew;
            // nothing is served meanwhile), and from a subscription made anew if it was lost.
            if (this.#changes.watching && (this.#changes.reportedSinceCrawl || this.#changes.blind || this.#changes.sharedCrawl)) await this.#changes.renew().catch(() => false);
            if (this.#opts.watch && !this.#changes.watching) await this.#changes.subscribe(this.#opts.skipDirs, this.#manifest?.skippedDirs ?? null);
            if (this.#opts.watch && !this.#changes.watching) throw new Error(NO_WATCHER);
            if (this.#changes.sharedCrawl) throw new Error(SHARED_CRAWL);
            const startSeq = this.#changes.seq;
            const droppedAtStart = this.#changes.dropped;
            this.#changes.blind = false;
            const g = await buildGeneration({
                ...this.#opts,
                root: this.root,
                closed: () => this.#state === 'closed',
                progress: (phase, done, total) => {
                    this.#phase = phase;
                    if (phase === 'content') [this.#filesDone, this.#filesTotal] = [done, total];
                    this.emit('progress', this.status());
                },
            });
            if ((this.#state as IndexState) === 'closed') {
                for (const seg of g.segs) seg.close();
                throw new Error('index closed during the build');
            }
            const blind = this.#changes.blind;
            const oldGen = this.#manifest?.gen;
            this.#serve({ m: g.manifest, table: g.table, segs: g.segs });
            // Changes noted since the build started stay dirty; earlier ones are in the new generation.
            this.#changes.settle(startSeq, droppedAtStart);
            this.#changes.blind = blind;
            // The watcher leaves out by path what this walk left out. Until a first build it left
            // them out by name (files of those names unreported): a crawl of its own by path, then
            // the tree listed again and compared with the new table (nothing is served meanwhile).
            if (this.#changes.byName) {
                await this.#changes.watchByPath(g.manifest.skippedDirs, 'fresh').catch(() => false);
                if (!this.#changes.watching) throw new Error(NO_WATCHER);
                await this.#changes.noteAll(await this.#listedSince(g.manifest.gen));
            } else await this.#changes.watchByPath(g.manifest.skippedDirs, 'swap');
            await writeManifest(this.#opts.dir, g.manifest);
            if (oldGen !== undefined && oldGen !== g.manifest.gen) await fsp.rm(path.join(this.#opts.dir, oldGen), { recursive: true, force: true });
            await removeOldGenerations(this.#opts.dir, g.manifest.gen);
            this.#startMerge();
            this.#phase = undefined;
            this.#setState(blind ? 'failed' : 'ready', blind ? 'file watcher failed during the build' : undefined);
            // Failed, or more paths changed during the build than a rebuild waits for: again.
            if (blind || this.#changes.overRebuildLimit) this.#scheduleRebuild();
        } finally {
            await lock.release();
        }
    }

    /** Waits for another process's build, then opens its index; builds itself if that process died. */
    async #waitForOther(): Promise<void> {
        for (;;) {
            await sleep(500);
            if (this.#state === 'closed') return;
            const lock = await takeLock(this.#opts.dir, 'build.lock');
            if (lock !== null) {
                await lock.release();
                const t0 = performance.now();
                if (await this.#open()) {
                    this.#openMs = Math.round(performance.now() - t0);
                    this.#setState('ready');
                    // Rebuilds asked for while waiting were not made.
                    if (this.#changes.overRebuildLimit) this.#scheduleRebuild();
                } else if ((this.#state as IndexState) !== 'closed') {
                    await this.#build();
                }
                return;
            }
        }
    }

    #scheduleRebuild(): void {
        if (this.#rebuildQueued || this.#state === 'closed') return;
        this.#rebuildQueued = true;
        setTimeout(() => {
            void (async () => {
                await this.#starting;
                this.#rebuildQueued = false;
                if (this.#state === 'building' || this.#state === 'closed') return;
                try {
                    await this.#build();
                } catch (err) {
                    if ((this.#state as IndexState) !== 'closed') this.#setState('failed', err instanceof Error ? err.message : String(err));
                }
            })();
        }, 1000).unref();
    }

    /**
     * Stops watching and closes the index files, whatever else fails; they stay for the next
     * process, with what this one knew (best effort): the changed paths and the watcher's snapshot
     * (the next process asks the watcher what changed since instead of listing the tree again).
     */
    async close(): Promise<void> {
        if (this.#state === 'closed') return;
        const wasReady = this.#state === 'ready';
        try {
            this.#setState('closed');
            await this.#starting?.catch(() => undefined);
            await this.#merge?.cancel();
            // Perf: a process closed soon after a reopen still leaves a snapshot (else the next one lists the tree).
            await this.#dirTimesCheck;
            if (wasReady && this.#manifest !== null) await saveForNextProcess(this.#reopenContext(), this.#manifest);
        } finally {
            await this.#changes.unsubscribe();
            for (const s of this.#segments.splice(0)) s.close();
        }
    }

    /** Merges the served generation's segment files into one in the background (merge.ts), then serves the merged file. */
    #startMerge(): void {
        const m = this.#manifest;
        if (m === null || this.#merge !== null || !this.#opts.merge || !needsMerge(m)) return;
        const merge = new SegmentMerge({
            root: this.root,
            dir: this.#opts.dir,
            manifest: m,
            current: () => this.#manifest === m && this.#table !== null && this.#state !== 'closed',
            serve: (merged, segs) => this.#serve({ m: merged, table: this.#table!, segs }),
        });
        this.#merge = merge;
        void merge.done.then(() => {
            if (this.#merge === merge) this.#merge = null;
        });
    }

    /** Resolves once no merge of segments runs (benchmarks and tests wait for the merged index). */
    async settled(): Promise<void> {
        while (this.#merge !== null) await this.#merge.done;
    }

    /** The index failed a check while serving: drop it and rebuild. */
    #corrupt(err: unknown): void {
        this.#table = null;
        void this.#merge?.cancel();
        for (const s of this.#segments.splice(0)) s.close();
        this.#manifest = null;
        this.#setState('failed', err instanceof Error ? err.message : String(err));
        void dropManifest(this.#opts.dir).then(() => this.#scheduleRebuild());
    }

    /**
     * The walk of one search as the index answers it (plan.ts), or `null` for the scan path: not
     * ready, the watcher failed, or the index cannot answer this search. A failed check of an
     * index file drops the index (rebuilt in the background) and gives `null`.
     */
    plan(search: PreparedSearch, rootReal: string): Segment[] | null {
        // Every change completed before this search began is noted first (where the watcher can tell).
        this.#changes.drain();
        // While a rebuild runs, the inotify watcher keeps watching (never dropped and made anew
        // unless events were lost): the old table and the changed paths still answer.
        const serving = this.#state === 'ready' || (this.#state === 'building' && this.#changes.watcher === 'inotify');
        if (!serving || (this.#state === 'ready' && this.#changes.blind) || this.#changes.lostSinceServed || this.#changes.pending > 0 || this.#table === null) return null;
        // Past the rebuild limit, @parcel/watcher may have dropped events unseen (it skips an overflow);
        // the inotify watcher reports every loss, so its changed subtrees are walked from disk meanwhile.
        if (this.#changes.watcher === 'parcel' ? this.#changes.overRebuildLimit : this.#changes.tops.size > MAX_TOPS) return null;
        this.#changes.checkLeftOut();
        try {
            const planned = planSearch({ root: this.root, table: this.#table, segments: this.#segments, changes: this.#changes, skipDirs: this.#opts.skipDirs, maxFileSize: this.#opts.maxFileSize }, search, rootReal);
            if (planned === undefined) return null;
            if (planned === null) {
                this.counts.scanned++;
                return null;
            }
            this.counts.answered++;
            this.lastPlan = planned.figures;
            return planned.segments;
        } catch (err) {
            if (err instanceof IndexFormatError) {
                this.#corrupt(err);
                return null;
            }
            throw err;
        }
    }
}
