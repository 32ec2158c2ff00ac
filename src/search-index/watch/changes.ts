import { Turns } from '../../engine/turns.js';
import { CrawlGateWriter } from '../shared/crawl-gate.js';
import { DirtyTops } from './dirty-tops.js';
import { RebuildCount, type BuildStart } from './rebuild-count.js';
import { inotifyAvailable } from './inotify.js';
import { isEntryName, relOf, skippedAbove } from './tree-paths.js';
import type { TreeWatch, WatcherKind, WatchingCheck, WatchSink } from './watch.js';
import { InotifyWatch } from './watch-inotify.js';
import { ParcelWatch } from './watch-parcel.js';

export type { WatcherKind } from './watch.js';

/**
 * Freshness of one tree's index: the paths changed since its generation was built ("dirty"),
 * from the tools (which report the paths they change), from a file watcher's live events
 * (watch-inotify.ts on Linux, watch-parcel.ts elsewhere), and, for what changed while no process
 * watched, from listing the tree again and comparing it with the stored table (on a thread of
 * its own, changes-since.ts). A dirty path is never answered from the table.
 */

export interface ChangeEvents {
    /** Outside changes were noted (or the watcher failed). */
    onChange(): void;
    /** So many paths changed (or the watcher failed) that the index should be rebuilt. */
    onRebuild(): void;
    /** The inotify watcher lost events (an overflow): the tree is to be watched and checked again (recover.ts). */
    onLost(): void;
}

/** The changed paths of one tree (relative, `/`-separated) and the watcher that reports them. */
export class Changes {
    readonly root: string;
    /** Changed paths, with the sequence number of their last change. */
    readonly dirty = new Map<string, number>();
    /** The topmost of the changed paths (what a search walks from disk instead of the table). */
    readonly tops = new DirtyTops();
    /** Changed paths named `.gitignore` (a search that reads them takes the scan path). */
    readonly #gitignores = new Set<string>();
    /** Directories whose times changed while no process watched (their table times are stale). */
    readonly dirTimes = new Set<string>();
    /** The watcher failed (overflow, error): nothing is known about outside changes until the next build. */
    blind = false;
    #seq = 0;
    /** Sequence number of the last loss of events, and the one the served table holds every change up to. */
    #lossSeq = 0;
    #servedFrom = 0;
    #skip = new Set<string>();
    /** What counts toward the next rebuild (rebuild-count.ts). */
    readonly #count = new RebuildCount();
    readonly #rebuildAfter: number;
    readonly #events: ChangeEvents;
    readonly #watch: TreeWatch;

    constructor(root: string, rebuildAfter: number, events: ChangeEvents, watcher: WatcherKind = 'auto') {
        this.root = root;
        this.#rebuildAfter = rebuildAfter;
        this.#events = events;
        const changes = this;
        const sink: WatchSink = {
            note: (rel) => this.note(rel),
            drop: () => {
                this.#count.dropped++;
                this.#rebuildIfOver();
            },
            lost: () => {
                this.blind = true;
                this.#lossSeq = ++this.#seq;
                this.#events.onChange();
                // The inotify watcher reports every loss and can watch every directory again: a check
                // of the tree finds what was lost. @parcel/watcher cannot say what it missed: a rebuild.
                if (this.watcher === 'inotify') this.#events.onLost();
                else this.#events.onRebuild();
            },
            changed: () => this.#events.onChange(),
            inSlices: (items, each) => this.#inSlices(items, each),
            get skip() {
                return changes.#skip;
            },
        };
        const inotify = watcher === 'inotify' || (watcher === 'auto' && inotifyAvailable());
        this.#watch = inotify ? new InotifyWatch(root, sink) : new ParcelWatch(root, sink);
    }

    /** Which watcher reports this tree's changes. */
    get watcher(): 'inotify' | 'parcel' {
        return this.#watch instanceof InotifyWatch ? 'inotify' : 'parcel';
    }

    /**
     * Events were lost since the served table's walk began: it cannot be brought up to date with
     * the changed paths (unlike {@link blind}, which a build resets as it begins).
     */
    get lostSinceServed(): boolean {
        return this.#lossSeq > this.#servedFrom;
    }

    /** The served table holds every change up to `seq` (a reopened one: up to its listing, begun after the watcher was on). */
    servedFrom(seq: number): void {
        this.#servedFrom = seq;
    }

    /**
     * After lost events, the tree was watched again and checked from sequence `seq` on, and what
     * the check found is noted: the served table with the changed paths holds every change up to
     * it, unless events were lost again since.
     */
    recovered(seq: number): void {
        if (this.#lossSeq > seq) return;
        this.#servedFrom = seq;
        this.blind = false;
    }

    /** Sequence number of the last change noted. */
    get seq(): number {
        return this.#seq;
    }

    /** A live subscription is on. */
    get watching(): boolean {
        return this.#watch.watching;
    }

    /** See {@link TreeWatch.leftOut}. */
    get leftOut(): readonly string[] | null {
        return this.#watch.leftOut;
    }

    /** See {@link TreeWatch.byName}. */
    get byName(): boolean {
        return this.#watch.byName;
    }

    /** See {@link TreeWatch.sharedCrawl}. */
    get sharedCrawl(): boolean {
        return this.#watch.sharedCrawl;
    }

    /** See {@link TreeWatch.reportedSinceCrawl}. */
    get reportedSinceCrawl(): boolean {
        return this.#watch.reportedSinceCrawl;
    }

    /**
     * Starts watching the tree, directories named in `skipDirs` left out (by path when `known`
     * lists them, where the watcher needs that). Stays off when the watcher cannot run here or
     * this was unsubscribed. True when its tree was crawled for it. A `gate` is ended either way;
     * a {@link WatchingCheck} adds the watches instead of a crawl (inotify).
     */
    async subscribe(skipDirs: readonly string[], known: readonly string[] | null = null, gate?: SharedArrayBuffer | WatchingCheck): Promise<boolean> {
        try {
            if (this.#watch.watching) return false;
            this.#skip = new Set(skipDirs.filter(isEntryName));
            return await this.#watch.subscribe(known, gate);
        } finally {
            if (gate instanceof SharedArrayBuffer) new CrawlGateWriter(gate).end(this.#watch.watching);
        }
    }

    /** See {@link ParcelWatch.watchByPath}. @throws Error when the new subscription fails. */
    watchByPath(found: readonly string[], how: 'swap' | 'fresh'): Promise<boolean> {
        return this.#watch.watchByPath(found, how);
    }

    /** Brings the watcher to watch every directory there is, before a build's walk. @throws Error when it cannot. */
    renew(): Promise<boolean> {
        return this.#watch.renew();
    }

    /** See {@link ParcelWatch.checkLeftOut}. */
    checkLeftOut(): void {
        this.#watch.checkLeftOut();
    }

    /** Notes every event the watcher can read now (see {@link TreeWatch.drain}); a search calls it first. */
    drain(): void {
        this.#watch.drain();
    }

    /** @throws Error when the watcher keeps no snapshot (the next process lists the tree). */
    saveSnapshot(file: string): Promise<void> {
        return this.#watch.saveSnapshot(file);
    }

    /** @throws Error when it cannot tell. */
    changesSinceSnapshot(file: string): Promise<string[]> {
        return this.#watch.changesSinceSnapshot(file);
    }

    /** Resolves once what the watcher had gathered when this was called has been noted. */
    async delivered(): Promise<void> {
        await this.#watch.delivered();
        while (this.pending > 0) await new Promise((r) => setTimeout(r, 10));
    }

    async unsubscribe(): Promise<void> {
        await this.#watch.unsubscribe();
    }

    /** Notes an absolute path (real or as written) as changed; paths outside the tree are ignored. */
    noteAbs(abs: string): void {
        const rel = relOf(this.root, abs);
        if (rel !== null && skippedAbove(this.#skip, rel) === null) this.note(rel);
    }

    /**
     * More paths changed than a rebuild waits for: until the rebuild, searches take the scan
     * path. Besides the rebuild's cost this covers what @parcel/watcher may have dropped: it does
     * not report an inotify queue overflow (IN_Q_OVERFLOW is skipped).
     */
    get overRebuildLimit(): boolean {
        return this.dirty.size + this.#count.dropped > this.#rebuildAfter;
    }

    note(rel: string): void {
        this.#count.noted(this.dirty.get(rel));
        this.dirty.set(rel, ++this.#seq);
        this.tops.add(rel);
        if (rel === '.gitignore' || rel.endsWith('/.gitignore')) this.#gitignores.add(rel);
        this.#rebuildIfOver();
    }

    /** Asks for a rebuild once the changes counted pass {@link overRebuildLimit} (during a build, those since it began). */
    #rebuildIfOver(): void {
        if (this.#count.over(this.dirty.size, this.#rebuildAfter)) this.#events.onRebuild();
    }

    /** A build begins: its table will hold every change noted so far (see rebuild-count.ts); {@link settle} or {@link buildEnded} ends it. */
    buildBegins(): BuildStart {
        return this.#count.begin(this.#seq);
    }

    /** The build begun last ended without being served (it failed, or the index closed). */
    buildEnded(): void {
        this.#count.end();
    }

    /** Notes what a check found (see `changesSince` in changes-since.ts), in slices (searches take the scan path until all are noted: {@link pending}). */
    async noteAll(c: { changed: string[]; dirTimes: string[] }): Promise<void> {
        await this.#inSlices(c.changed, (rel) => this.note(rel));
        await this.#inSlices(c.dirTimes, (rel) => this.dirTimes.add(rel));
    }

    /**
     * Changes received but not all noted yet (a large batch, from the watcher or a check, is
     * noted in slices between yields): while above 0, searches take the scan path (never a
     * result from a table that misses a change already reported).
     */
    pending = 0;

    /**
     * Calls `each` on every item, in slices of a turn (see turns.ts) between yields to the event
     * loop (Perf: a `git checkout` reports tens of thousands of paths at once); a batch that
     * fits in one slice is done before this returns. Counted in {@link pending} meanwhile.
     */
    async #inSlices<T>(items: readonly T[], each: (item: T) => void): Promise<void> {
        this.pending++;
        try {
            const turns = new Turns();
            for (let i = 0; i < items.length; i++) {
                each(items[i]!);
                if ((i & 255) === 255 && turns.due) await turns.yield();
            }
        } finally {
            this.pending--;
        }
    }

    /**
     * Directory times not yet compared with the table (after a reopen from a snapshot, which
     * reports entries, not directory times): searches filtering on times take the scan path.
     */
    dirTimesPending = false;

    /** A new generation, built from `start`, is served: only later changes stay dirty and count toward the next rebuild. */
    settle(start: BuildStart): void {
        const seq = start.seq;
        this.#count.served(start);
        this.#servedFrom = seq;
        for (const [k, s] of this.dirty) if (s <= seq) this.dirty.delete(k);
        this.tops.clear();
        this.#gitignores.clear();
        for (const k of this.dirty.keys()) {
            this.tops.add(k);
            if (k === '.gitignore' || k.endsWith('/.gitignore')) this.#gitignores.add(k);
        }
        this.dirTimes.clear();
        this.dirTimesPending = false;
        this.blind = false;
    }

    /** A changed path is the directory `rel`, inside it or above it: its contents are uncertain. */
    touches(rel: string): boolean {
        return this.tops.touches(rel);
    }

    /** A `.gitignore` changed: what its directory shows is uncertain. */
    get gitignoreChanged(): boolean {
        return this.#gitignores.size > 0;
    }
}
