import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlannedWalk } from '../search/backend.js';
import type { PreparedSearch } from '../search/shared/protocol.js';
import { Changes } from './watch/changes.js';
import { needsMerge, SegmentMerge } from './merge.js';
import { IndexFormatError } from './shared/format.js';
import { changesAllow, planSearch } from './plan.js';
import { checkDirTimes, listedSince, saveForNextProcess, sharedTable, stillChanged, watchAndFind } from './reopen.js';
import { dropManifest, loadStored, openIndexFolder, readManifest, takeLock } from './store.js';
import type { IndexState, IndexStatus, ResolvedTreeOptions, TreeIndexOptions } from './status.js';
import { buildAndServe, NO_WATCHER } from './tree-build.js';
import { TreeState, type ServedGeneration } from './tree-state.js';
import { LossRecovery } from './recover.js';

export type { IndexState, IndexStatus, TreeIndexOptions } from './status.js';
export { compareWalk } from './table.js';

/**
 * The search index of one directory tree: a file table in walk order and posting lists (trigram
 * -> files) in immutable segment files, built on the engine's pool (build.ts, run by tree-build.ts),
 * stored in a private cache directory (store.ts), kept fresh by the tools and a file watcher
 * (watch/changes.ts); answer.ts answers a search's walk. State and served generation: tree-state.ts.
 *
 * Freshness: a changed path stays "dirty" until the next rebuild and is answered as the scan path
 * answers it; without a watcher, or after lost events until the tree is checked (recover.ts),
 * every search takes the scan path (docs/search-index.md, "Always fresh").
 */

/** One tree's index. Events: `state` (IndexStatus) on every state change, `progress` during a build, `change` after outside changes are noted. */
export class TreeIndex extends EventEmitter {
    readonly root: string;
    readonly #opts: ResolvedTreeOptions;
    readonly #s: TreeState;
    readonly #changes: Changes;
    #starting: Promise<void> | null = null;
    #rebuildQueued = false;
    /** The comparison of directory times after a reopen from a snapshot, while it runs. */
    #dirTimesCheck: Promise<void> | null = null;
    /** The merge of the served generation's segments, while it runs; the recovery after lost events. */
    #merge: SegmentMerge | null = null;
    readonly #recovery: LossRecovery;
    /** Searches the index answered, and those it left to the scan path while ready. */
    readonly counts = { answered: 0, scanned: 0 };
    /** The last answered search: files the index kept as candidates under the searched directory, and entries handed to the workers. */
    lastPlan = { candidates: 0, handedOut: 0, firstWork: 0 };

    constructor(root: string, options: TreeIndexOptions) {
        super();
        this.root = root;
        this.#opts = { maxEntries: 3_000_000, segmentBytes: 64 * 1024 * 1024, rebuildAfter: 2000, watch: true, watcher: 'auto', merge: true, ...options };
        const events = { onChange: () => this.emit('change'), onRebuild: () => this.#scheduleRebuild(), onLost: () => this.#recovery.start() };
        this.#changes = new Changes(root, this.#opts.rebuildAfter, events, this.#opts.watcher);
        this.#s = new TreeState(root, this.#opts, this.#changes, (status) => this.emit('state', status));
        this.#recovery = new LossRecovery(this.#s, () => this.#starting, () => this.#scheduleRebuild());
    }

    get state(): IndexState {
        return this.#s.state;
    }

    /** Directory names the index leaves out. */
    get skipDirs(): readonly string[] {
        return this.#opts.skipDirs;
    }

    status(): IndexStatus {
        return this.#s.status();
    }

    /**
     * Opens the stored index (brought up to date with the changes since it was saved) or builds
     * it. Resolves when the index is ready or has failed (see {@link status}); never rejects.
     */
    start(): Promise<void> {
        return (this.#starting ??= this.#start().catch((err: unknown) => {
            if (this.#s.state !== 'closed') this.#s.set('failed', err instanceof Error ? err.message : String(err));
        }));
    }

    async #start(): Promise<void> {
        const t0 = performance.now();
        await openIndexFolder(this.#opts.dir);
        if (await this.#open()) {
            this.#s.openMs = Math.round(performance.now() - t0);
            this.#s.set('ready');
            return;
        }
        if ((this.#s.state as IndexState) === 'closed') return;
        if (this.#opts.watch && !this.#changes.watching) {
            this.#s.set('failed', NO_WATCHER);
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
        // Perf: the stored table loads while the watcher starts and the changes are found (its file read once for both).
        const table = sharedTable(this.#opts.dir, m);
        const stored = m === null ? Promise.resolve(null) : loadStored(this.#opts.dir, this.root, this.#opts, table);
        // The skipped directories the stored generation's walk found are left out by path from the start.
        const { usable, listedFrom, changed } = await watchAndFind({ ...this.#s.reopenContext(), table }, m, this.#opts.watch, () => this.#s.state !== 'closed');
        const [s, c] = await Promise.all([stored, changed]);
        if (s === null || c === null || s.m.gen !== m?.gen || !usable) {
            for (const seg of s?.segs ?? []) seg.close();
            s?.table.close();
            return false;
        }
        this.#s.serve(s);
        this.#changes.servedFrom(listedFrom);
        this.#s.reopenedFrom = c.from;
        await this.#changes.noteAll({ changed: await stillChanged(this.root, s.table, c), dirTimes: c.dirTimes });
        if (this.#changes.dirTimesPending) this.#dirTimesCheck = checkDirTimes(this.root, s.table, this.#changes, () => this.#s.table === s.table).catch(() => undefined);
        this.#startMerge();
        return true;
    }

    /**
     * Brings the index up to date with the disk now: the tree listed again (on a thread), each entry
     * differing from the table noted as changed (tests, after a bulk change; a reopen does it once).
     */
    async sync(): Promise<void> {
        const m = this.#s.manifest;
        if (m === null || this.#s.state !== 'ready') return;
        await this.#changes.noteAll(await listedSince(this.#s.reopenContext(), m.gen));
    }

    /** The served generation (tree-state.ts), every change reported so far noted first; `null` while the index may not answer. */
    served(): ServedGeneration | null {
        return this.#s.served();
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
            this.#s.phase = 'walk';
            this.#s.set('building');
            await this.#waitForOther();
            return;
        }
        try {
            const blind = await buildAndServe(this.#s, () => this.emit('progress', this.#s.status()));
            this.#startMerge();
            // Lost events: a check of the tree finds them (inotify), else a rebuild. Past the limit
            // with the changes since the build began: a rebuild (one asked for during the build was dropped).
            const inotify = this.#changes.watcher === 'inotify';
            if (blind && inotify) this.#recovery.start();
            if ((blind && !inotify) || this.#changes.overRebuildLimit) this.#scheduleRebuild();
        } finally {
            this.#changes.buildEnded();
            await lock.release();
        }
    }

    /** Waits for another process's build, then opens its index; builds itself if that process died. */
    async #waitForOther(): Promise<void> {
        for (;;) {
            await sleep(500);
            if (this.#s.state === 'closed') return;
            const lock = await takeLock(this.#opts.dir, 'build.lock');
            if (lock !== null) {
                await lock.release();
                const t0 = performance.now();
                if (await this.#open()) {
                    this.#s.openMs = Math.round(performance.now() - t0);
                    this.#s.set('ready');
                    // Rebuilds asked for while waiting were not made.
                    if (this.#changes.overRebuildLimit) this.#scheduleRebuild();
                } else if ((this.#s.state as IndexState) !== 'closed') {
                    await this.#build();
                }
                return;
            }
        }
    }

    #scheduleRebuild(): void {
        if (this.#rebuildQueued || this.#s.state === 'closed') return;
        this.#rebuildQueued = true;
        setTimeout(() => {
            void (async () => {
                await this.#starting;
                this.#rebuildQueued = false;
                if (this.#s.state === 'building' || this.#s.state === 'closed') return;
                try {
                    await this.#build();
                } catch (err) {
                    if ((this.#s.state as IndexState) !== 'closed') this.#s.set('failed', err instanceof Error ? err.message : String(err));
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
        const s = this.#s;
        if (s.state === 'closed') return;
        const wasReady = s.state === 'ready';
        try {
            s.set('closed');
            await this.#starting?.catch(() => undefined);
            await this.#merge?.cancel();
            // Perf: a process closed soon after a reopen still leaves a snapshot (else the next one lists the tree).
            await this.#dirTimesCheck;
            if (wasReady && s.manifest !== null) await saveForNextProcess(s.reopenContext(), s.manifest);
        } finally {
            await this.#changes.unsubscribe();
            for (const seg of s.segments.splice(0)) seg.close();
            s.table?.close();
        }
    }

    /** Merges the served generation's segment files into one in the background (merge.ts), then serves the merged file. */
    #startMerge(): void {
        const s = this.#s;
        const m = s.manifest;
        if (m === null || this.#merge !== null || !this.#opts.merge || !needsMerge(m)) return;
        const merge = new SegmentMerge({
            root: this.root,
            dir: this.#opts.dir,
            manifest: m,
            current: () => s.manifest === m && s.table !== null && s.state !== 'closed',
            serve: (merged, segs) => s.serve({ m: merged, table: s.table!, segs }),
        });
        this.#merge = merge;
        void merge.done.then(() => {
            if (this.#merge === merge) this.#merge = null;
        });
    }

    /** Resolves once no merge of segments and no recovery from lost events runs (benchmarks and tests wait for them). */
    async settled(): Promise<void> {
        while (this.#merge !== null) await this.#merge.done;
        await this.#recovery.idle();
    }

    /** The index failed a check while serving: drop it and rebuild. */
    #corrupt(err: unknown): void {
        const s = this.#s;
        s.table?.close();
        s.table = null;
        void this.#merge?.cancel();
        for (const seg of s.segments.splice(0)) seg.close();
        s.manifest = null;
        s.set('failed', err instanceof Error ? err.message : String(err));
        void dropManifest(this.#opts.dir).then(() => this.#scheduleRebuild());
    }

    /**
     * The walk of one search as the index answers it (plan.ts), or `null` for the scan path: not
     * ready, the watcher failed, or the index cannot answer this search. A failed check of an
     * index file drops the index (rebuilt in the background) and gives `null`.
     */
    plan(search: PreparedSearch, rootReal: string): PlannedWalk | null {
        this.#s.searchedAt = performance.now();
        // Every change completed before this search began is noted first (where the watcher can tell).
        this.#changes.drain();
        const table = this.#s.table;
        if (!changesAllow(this.#s.state, this.#changes) || table === null) return null;
        this.#changes.checkLeftOut();
        try {
            const m = this.#s.manifest;
            // A list failing its check after the first part: that search goes on without it; the generation is dropped if still served.
            const failed = (err: unknown): void => void (err instanceof IndexFormatError && this.#s.manifest === m && this.#corrupt(err));
            const planned = planSearch({ root: this.root, table, segments: this.#s.segments, changes: this.#changes, skipDirs: this.#opts.skipDirs, maxFileSize: this.#opts.maxFileSize, failed }, search, rootReal);
            if (planned === undefined) return null;
            if (planned === null) {
                this.counts.scanned++;
                return null;
            }
            this.counts.answered++;
            this.lastPlan = planned.figures;
            return planned.walk;
        } catch (err) {
            if (!(err instanceof IndexFormatError)) throw err;
            this.#corrupt(err);
            return null;
        }
    }
}
