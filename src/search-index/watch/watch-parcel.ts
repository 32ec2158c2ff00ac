import { setTimeout as sleep } from 'node:timers/promises';
import { DELIVERY_MS, ignoreOf, ignorePathsOf, loadWatcher, subscribeCounted, SWAP_OVERLAP_MS, type Subscription, type Watcher } from './parcel.js';
import { LeftOutDirs } from './parcel-left-out.js';
import { lossyRelTop, relOf } from './tree-paths.js';
import type { TreeWatch, WatchSink } from './watch.js';

/**
 * @parcel/watcher as a tree's watcher, where the index's own inotify watcher cannot run (macOS,
 * Windows, other architectures). It delivers events in batches from a thread of its own, so a
 * search cannot wait for the events queued before it (see watch-inotify.ts for Linux).
 */

/**
 * The watcher leaves out the directories the walk leaves out (named in `skipDirs`), by path once
 * they are known ({@link subscribe}, {@link watchByPath}). Paths inside such a directory are never
 * noted (no search enters one) but are counted toward the rebuild. A directory of such a name
 * made later is left out from the next subscription on ({@link renew}). A directory left out by
 * path that is no longer one (replaced by a file of its name) is found by {@link checkLeftOut},
 * which each search answered from the index calls, and watched again.
 *
 * @parcel/watcher keeps one crawl of a directory tree per root, shared by all subscriptions there
 * (its DirTree cache) and by the snapshot calls: a subscription made while another is on takes
 * the other's tree and watches its directories, without a crawl of its own. So a new subscription
 * made before the old one is dropped (kept on {@link SWAP_OVERLAP_MS} longer) loses no change,
 * but only one made with none on in this process crawls the tree anew.
 */
export class ParcelWatch implements TreeWatch {
    readonly root: string;
    readonly #sink: WatchSink;
    #watcher: Subscription | null = null;
    /** The live subscription's ignore option (the snapshot calls give the same). */
    #ignore: (string | RegExp)[] = [];
    /** The directories it leaves out. */
    readonly #left: LeftOutDirs;
    #resubscribing: Promise<boolean> | null = null;
    #closed = false;
    /** The watcher reported something since its tree was last crawled (see {@link renew}). */
    #sinceCrawl = false;
    /** Its tree was last crawled leaving skipped directories out by name (files of those names are missing from it). */
    #crawledByName = false;
    /** Its tree is another subscription's crawl (see {@link sharedCrawl}). */
    #sharedCrawl = false;

    constructor(root: string, sink: WatchSink) {
        this.root = root;
        this.#sink = sink;
        this.#left = new LeftOutDirs(root, () => this.#skip, () => this.#closed);
    }

    get #skip(): ReadonlySet<string> {
        return this.#sink.skip;
    }

    get watching(): boolean {
        return this.#watcher !== null;
    }

    get leftOut(): readonly string[] | null {
        return this.#watcher === null ? null : this.#left.list();
    }

    get byName(): boolean {
        return this.#watcher !== null && this.#left.byPath === null;
    }

    /**
     * The live subscription watches the tree another subscription of this process crawled (another
     * index of the same root, with other skipped directories or in another package): what that
     * crawl left out or missed is not watched, so the index is not served.
     */
    get sharedCrawl(): boolean {
        return this.#watcher !== null && this.#sharedCrawl;
    }

    /**
     * The watcher reported something since its tree was last crawled: among it may be a directory
     * whose subdirectories it does not watch (see {@link renew}; a directory removed and made
     * again within one batch comes as an update, so any event counts).
     */
    get reportedSinceCrawl(): boolean {
        return this.#sinceCrawl;
    }

    /**
     * Starts watching the tree, directories named in `skipDirs` left out: by path when `known`
     * lists them (relative paths; those still directories, and such directories at the top, are
     * left out), else by name. Stays off when the watcher cannot run here or this was unsubscribed.
     * True when its tree was crawled for it (no other subscription of this process on the root).
     */
    async subscribe(known: readonly string[] | null): Promise<boolean> {
        const w = await loadWatcher();
        if (w === null || this.#closed || this.#watcher !== null) return false;
        // With no names to skip, leaving out by name and by path are the same: by path (nothing).
        const dirs = known === null && this.#skip.size > 0 ? null : await this.#left.stillDirs([...(known ?? []), ...this.#skip]);
        return this.#subscribeAnew(w, dirs).catch(() => false);
    }

    /**
     * Leaves out by path the skipped directories a walk found (relative paths): at once when they
     * were left out by name, else from the next subscription on. `swap` (while the index may
     * serve): the new subscription made before the old one is dropped, sharing its crawl; `fresh`
     * (only while nothing is served, and the caller lists the tree or compares a snapshot after:
     * files of those names went unreported until now): the old one dropped first, a crawl of its
     * own. True when they were left out by name.
     * @throws Error when the new subscription fails (`swap`: the old one stays; `fresh`: none is on).
     */
    async watchByPath(found: readonly string[], how: 'swap' | 'fresh'): Promise<boolean> {
        if (this.#watcher === null) return false;
        for (const d of found) this.#left.found.add(d);
        if (this.#left.byPath !== null) return false;
        await this.#resubscribe(how);
        return true;
    }

    /**
     * A subscription crawled anew, leaving out the skipped directories known now: the old one is
     * dropped first (meanwhile nothing is reported, so only call it while the index serves
     * nothing, before a build's walk). @parcel/watcher (inotify) watches a directory created or
     * moved in, not the subdirectories it already has (parcel-bundler/watcher#97, open); until a
     * build those are inside a changed path (walked from disk), and a build must start from a
     * crawl that watches them. False when another subscription of this process on the same root
     * kept the old crawl (see the class note and {@link sharedCrawl}).
     * @throws Error when the new subscription fails (nothing is watched then).
     */
    async renew(): Promise<boolean> {
        return this.#resubscribe('fresh');
    }

    /**
     * Makes the subscription with the ignore option for `dirs` (`null`: by name); true when its
     * tree was crawled for it. `keepsTree`: made while this one's previous subscription is on (a swap).
     */
    async #subscribeAnew(w: Watcher, dirs: Set<string> | null, keepsTree = false): Promise<boolean> {
        const ignore = dirs === null ? ignoreOf([...this.#skip]) : ignorePathsOf(this.root, dirs);
        // Each subscription has a callback of its own: @parcel/watcher drops a watcher (and its
        // watches) with its last callback, and takes a callback given twice only once.
        const fn = (err: Error | null, events: { path: string; type: string }[]): void => this.#onEvents(err, events);
        const { handle, crawls } = await subscribeCounted(w, this.root, fn, ignore);
        if (this.#closed) {
            await handle.unsubscribe().catch(() => undefined);
            return false;
        }
        this.#watcher = handle;
        this.#ignore = ignore;
        this.#left.byPath = dirs;
        if (crawls) {
            this.#sinceCrawl = false;
            this.#crawledByName = dirs === null;
            this.#sharedCrawl = false;
        } else if (!keepsTree) {
            // Another index's crawl, of whatever kind and age: no snapshot from it, never served.
            this.#crawledByName = true;
            this.#sharedCrawl = true;
        }
        return crawls;
    }

    readonly #onEvents = (err: Error | null, events: { path: string; type: string }[]): void => {
        if (err) {
            // An overflow or backend failure: outside changes are unknown from here on.
            this.#sink.lost();
            return;
        }
        if (events.length > 0) this.#sinceCrawl = true;
        void this.#sink.inSlices(events, (e) => this.#noteEvent(e.path)).then(() => this.#sink.changed());
    };

    /**
     * Notes a path the watcher reported. A directory of a skipped name it watches (a new one, or
     * one whose changes it reports) is left out from the next subscription on.
     */
    #noteEvent(abs: string): void {
        const was = relOf(this.root, abs);
        if (was === null) return;
        const rel = lossyRelTop(was);
        if (!this.#left.insideSkipped(rel)) return this.#sink.note(rel);
        // Not noted, but counted: a burst there can overflow the watcher's queue as well.
        this.#sink.drop();
    }

    /**
     * Checks that the directories left out by path are still directories (sync: one lstat per
     * directory left out); one that is not is noted as changed at once and watched again (a new
     * subscription made before the old one is dropped, which notes it once more).
     */
    checkLeftOut(): void {
        const gone = this.#left.noteGone((rel) => this.#sink.note(rel));
        if (gone && this.#resubscribing === null) void this.#resubscribe('swap').catch(() => undefined);
    }

    /**
     * A new subscription leaving out by path the directories left out now and found since (those
     * still directories). `swap`: made before the old one is dropped (no change falls between
     * them; it shares the old one's crawl); none when it would leave out the same. `fresh`: made
     * after (a crawl of its own, unless another subscription on the root keeps the old one). What
     * the old one left out that the new one watches is noted as changed (its changes until now are
     * unknown). True when the new subscription's tree was crawled for it.
     */
    async #resubscribe(how: 'swap' | 'fresh'): Promise<boolean> {
        while (this.#resubscribing !== null) await this.#resubscribing.catch(() => undefined);
        if (this.#watcher === null || this.#closed) return false;
        const run = (async () => {
            const w = (await loadWatcher())!;
            const left = this.#left;
            const dirs = await left.stillDirs([...(left.byPath ?? []), ...left.found, ...this.#skip]);
            const before = left.byPath;
            if (how === 'swap' && before !== null && dirs.size === before.size && [...dirs].every((d) => before.has(d))) return false;
            const old = this.#watcher!;
            if (how === 'fresh') {
                this.#watcher = null;
                await old.unsubscribe().catch(() => undefined);
            }
            const crawled = await this.#subscribeAnew(w, dirs, how === 'swap');
            if (this.#watcher === null || this.#closed) return false;
            left.found.clear();
            if (how === 'swap') {
                // The old one's gathered batch is delivered meanwhile (see SWAP_OVERLAP_MS).
                await sleep(SWAP_OVERLAP_MS, undefined, { ref: false });
                await old.unsubscribe().catch(() => undefined);
            }
            for (const d of before ?? []) if (!dirs.has(d)) this.#sink.note(d);
            this.#sink.changed();
            return crawled;
        })();
        this.#resubscribing = run;
        try {
            return await run;
        } finally {
            this.#resubscribing = null;
        }
    }

    /**
     * Writes the watcher's view of the tree to `file` (@parcel/watcher's snapshot: made from the
     * live subscription's tree, no crawl), for {@link changesSinceSnapshot} in the next process.
     * @throws Error when there is no watcher, or its tree was crawled leaving skipped directories
     * out by name (files of those names are missing from it: the next process lists the tree).
     */
    async saveSnapshot(file: string): Promise<void> {
        const w = await loadWatcher();
        if (w === null || this.#watcher === null) throw new Error('no watcher');
        if (this.#crawledByName) throw new Error('the watcher\'s tree lacks files named like skipped directories');
        await w.writeSnapshot(this.root, file, { ignore: this.#ignore });
    }

    /**
     * The paths created, changed or deleted since `file` was written (with the subscription on,
     * @parcel/watcher compares its live tree, no crawl), none inside a skipped directory.
     * @throws Error when it cannot tell.
     */
    async changesSinceSnapshot(file: string): Promise<string[]> {
        const w = await loadWatcher();
        if (w === null || this.#watcher === null) throw new Error('no watcher');
        const events = await w.getEventsSince(this.root, file, { ignore: this.#ignore });
        const out: string[] = [];
        await this.#sink.inSlices(events, (e) => {
            const rel = relOf(this.root, e.path);
            if (rel !== null && !this.#left.insideSkipped(rel)) out.push(lossyRelTop(rel));
        });
        return out;
    }

    /**
     * Resolves once what the watcher had gathered when this was called has been delivered and
     * handed on: {@link DELIVERY_MS} (the Changes then waits until it is noted). A snapshot written
     * before this holds no change the paths noted after it lack.
     */
    async delivered(): Promise<void> {
        await sleep(DELIVERY_MS);
    }

    /** @parcel/watcher reads inotify on a thread of its own and delivers in batches: nothing to read here. */
    drain(): void {}

    async unsubscribe(): Promise<void> {
        this.#closed = true;
        await this.#resubscribing?.catch(() => undefined);
        await this.#watcher?.unsubscribe().catch(() => undefined);
        this.#watcher = null;
    }
}
