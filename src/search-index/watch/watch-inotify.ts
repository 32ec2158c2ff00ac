import fs from 'node:fs';
import { Turns } from '../../engine/turns.js';
import { CrawlGateWriter } from '../shared/crawl-gate.js';
import { EACCES, EINTR, ENOENT, ENOSPC, ENOTDIR, IN, openInotify, readEvents, watchLimitMessage, type Inotify } from './inotify.js';
import type { TreeWatch, WatchingCheck, WatchSink } from './watch.js';
import { WatchedDirs, type Dir } from './watched-dirs.js';

/**
 * The index's own watcher on Linux: one inotify watch per directory the walk enters, read with
 * non-blocking reads on the host's thread.
 *
 * Why not @parcel/watcher here: it reads inotify on a thread of its own and hands events on in
 * batches up to 500 ms later, skips IN_Q_OVERFLOW, and removes a deleted directory by walking
 * every watch it tracks (quadratic in a mass delete). Reading the queue ourselves gives a barrier
 * instead: the kernel queues an event before the system call that made the change returns, so
 * {@link drain} at the start of a search notes every change completed before the search began,
 * whatever the load. An overflow is reported ({@link WatchSink.lost}), never skipped. Every
 * event costs O(1) (a deleted or moved directory is one map entry), and a directory moved within
 * the tree keeps its watches (paths are made from parent links when an event comes).
 *
 * A directory made or moved in is noted as changed (searches list it from disk) before its
 * watch exists; its watch is added, then it is listed, so nothing made in it after its listing
 * goes unreported. A build waits for those additions ({@link renew}).
 */

const MASK =
    IN.MODIFY | IN.ATTRIB | IN.CLOSE_WRITE | IN.MOVED_FROM | IN.MOVED_TO | IN.CREATE | IN.DELETE | IN.DELETE_SELF | IN.MOVE_SELF | IN.ONLYDIR | IN.DONT_FOLLOW | IN.EXCL_UNLINK;

/**
 * How often the queue is read between searches (milliseconds). The kernel's queue holds 16,384
 * events by default; a mass change makes a few hundred per interval here, far below it.
 */
const DRAIN_MS = 20;

const NUL = Buffer.from([0]);

export class InotifyWatch implements TreeWatch {
    readonly root: string;
    readonly #sink: WatchSink;
    #ino: Inotify | null = null;
    readonly #dirs: WatchedDirs;
    /**
     * Directories to watch (and list): a parent and a name; `note`: noted again once watched (one
     * met through an event: a build that began before its watch was on must not take it as current).
     */
    readonly #queue: { parent: Dir | null; raw: Buffer; note: boolean }[] = [];
    #adding: Promise<void> | null = null;
    /** Directories moved away in the batch being read, by the move's cookie, until their arrival is read. */
    readonly #movedOut = new Map<number, Dir>();
    /** Events were lost or a directory could not be watched: a full crawl is needed before the next build. */
    #incomplete = false;
    #limitHit = false;
    #timer: NodeJS.Timeout | null = null;
    #closed = false;
    readonly #buf = Buffer.allocUnsafe(64 * 1024);

    constructor(root: string, sink: WatchSink) {
        this.root = root;
        this.#sink = sink;
        this.#dirs = new WatchedDirs(root);
    }

    get watching(): boolean {
        return this.#ino !== null;
    }

    /** Skipped directories are left out by name, as the walk leaves them out; their names' files are watched in their parents. */
    get byName(): boolean {
        return false;
    }

    get sharedCrawl(): boolean {
        return false;
    }

    get reportedSinceCrawl(): boolean {
        return this.#incomplete || this.#queue.length > 0 || this.#adding !== null;
    }

    get leftOut(): readonly string[] | null {
        return null;
    }

    /**
     * Watches every directory of the tree (skipped names left out). False when it cannot (no inotify,
     * the watch limit). `gate`: what is watched so far, for a tree check run alongside (crawl-gate.ts);
     * or the tree check that adds the watches instead of the crawl.
     */
    async subscribe(_known?: readonly string[] | null, gate?: SharedArrayBuffer | WatchingCheck): Promise<boolean> {
        if (this.#closed || this.#ino !== null) return false;
        try {
            this.#ino = openInotify();
        } catch {
            return false;
        }
        this.#incomplete = false;
        this.#limitHit = false;
        if (typeof gate !== 'function' || !(await this.#adopt(gate))) {
            this.#queue.push({ parent: null, raw: Buffer.alloc(0), note: false });
            await this.#pump(gate instanceof SharedArrayBuffer ? new CrawlGateWriter(gate) : undefined);
        }
        if (this.#limitHit || this.#closed || this.#dirs.top === null) {
            this.#stop();
            return false;
        }
        this.#timer = setInterval(() => this.drain(), DRAIN_MS);
        this.#timer.unref();
        return true;
    }

    /**
     * The watches `check` adds, taken instead of a crawl; false when it failed (the watch limit, a
     * damaged table...): the crawl then watches the tree (the check's watches, on this instance
     * still, are found again), and meets what made a watch fail.
     */
    async #adopt(check: WatchingCheck): Promise<boolean> {
        const ino = this.#ino!;
        try {
            const got = await check(ino.fd, MASK);
            if (this.#ino === ino) for (const wd of new Set(this.#dirs.adopt(got.wds, got.paths))) ino.removeWatch(wd);
            return true;
        } catch {
            return this.#ino !== ino; // closed meanwhile: nothing to crawl
        }
    }

    async watchByPath(): Promise<boolean> {
        return false;
    }

    /**
     * Before a build's walk: every directory watched. The additions under way are finished; after
     * lost events, every watch is made anew from a crawl.
     * @throws Error when the tree cannot be watched (the watch limit, the root gone).
     */
    async renew(): Promise<boolean> {
        this.drain();
        if (this.#incomplete) {
            this.#stop();
            if (!(await this.subscribe())) throw new Error(this.#limitHit ? watchLimitMessage() : 'the tree cannot be watched');
            return true;
        }
        await this.#pump();
        this.drain();
        if (this.#incomplete) return this.renew();
        return true;
    }

    checkLeftOut(): void {}

    /** Reads and notes every event queued now (see the class note). */
    drain(): void {
        const ino = this.#ino;
        if (ino === null) return;
        let noted = false;
        for (;;) {
            const n = ino.read(this.#buf);
            if (n === 0) break;
            if (n === -EINTR) continue;
            if (n < 0) {
                this.#lose();
                break;
            }
            noted = readEvents(this.#buf, n, this.#event) || noted;
        }
        // Moved out of the tree (no arrival in the same batch): no longer watched.
        for (const d of this.#movedOut.values()) this.#forget(d, true);
        this.#movedOut.clear();
        if (noted) this.#sink.changed();
        if (this.#queue.length > 0) void this.#pump();
    }

    /** Notes one event (see {@link readEvents}); true when a path was noted. */
    readonly #event = (wd: number, mask: number, cookie: number, raw: Buffer | null): boolean => {
        if (mask & IN.Q_OVERFLOW) {
            this.#lose();
            return false;
        }
        const dir = this.#dirs.get(wd);
        if (dir === undefined) return false;
        if (mask & IN.IGNORED) {
            this.#forget(dir, false);
            return false;
        }
        if (raw === null) {
            // The directory itself: its parent reports the same change by name, but the top has none.
            if (dir === this.#dirs.top && mask & (IN.DELETE_SELF | IN.MOVE_SELF | IN.UNMOUNT)) {
                this.#sink.note('');
                this.#lose();
                return true;
            }
            if (mask & IN.UNMOUNT) this.#sink.note(this.#dirs.relOf(dir, null));
            return (mask & IN.UNMOUNT) !== 0;
        }
        // Made, moved in from outside, or given read permission (a watch needs it): watched.
        if (mask & IN.ISDIR && this.#dirs.dirEvent(dir, mask, cookie, raw, this.#movedOut, (old) => this.#forget(old, true)) && !this.#sink.skip.has(raw.toString())) this.#queue.push({ parent: dir, raw, note: true });
        this.#sink.note(this.#dirs.relOf(dir, raw));
        return true;
    };

    /**
     * Watches and lists the queued directories, yielding between them; one run at a time. With
     * `gate` (a subscribe's crawl): the queue is a stack, so a root's subdirectory's subtree is
     * watched whole when the next one is taken, or the stack is empty. Only the crawl's items
     * count (`note` false): a directory an event brought is pushed above them, ending nothing.
     */
    #pump(gate?: CrawlGateWriter): Promise<void> {
        return (this.#adding ??= (async () => {
            const turns = new Turns();
            let top: Buffer | null = null;
            while (this.#queue.length > 0 && this.#ino !== null) {
                const { parent, raw, note } = this.#queue.pop()!;
                if (gate !== undefined && !note && parent !== null && parent === this.#dirs.top) {
                    if (top !== null) gate.watched(top);
                    top = raw;
                }
                this.#add(parent, raw, note);
                if (gate !== undefined && parent === null) gate.watched(raw); // the root's own watch: its files
                if (turns.due) await turns.yield();
            }
            if (gate !== undefined && top !== null && this.#ino !== null) gate.watched(top);
        })().finally(() => {
            this.#adding = null;
        }));
    }

    /** Watches one directory, then queues its subdirectories (listed after the watch is on). */
    #add(parent: Dir | null, raw: Buffer, note: boolean): void {
        const ino = this.#ino!;
        if (parent !== null && (!this.#dirs.live(parent) || parent.children?.has(raw.toString('latin1')))) return;
        const abs = this.#dirs.absOf(parent, raw);
        const wd = ino.addWatch(Buffer.concat([abs, NUL]), MASK);
        if (wd < 0) {
            // Gone or replaced by a file meanwhile: its parent's event notes that.
            if (-wd === ENOENT || -wd === ENOTDIR) return;
            // Unreadable: the walk cannot list it either; a later chmod comes as an attribute event.
            if (-wd === EACCES) return;
            if (-wd === ENOSPC) this.#limitHit = true;
            this.#lose();
            return;
        }
        const d = this.#dirs.add(wd, parent, raw);
        if (d === null) return;
        if (note && parent !== null) this.#sink.note(this.#dirs.relOf(parent, raw));
        let names: fs.Dirent[];
        try {
            names = fs.readdirSync(abs, { withFileTypes: true });
            // Names as bytes only where one is not UTF-8 (U+FFFD). Perf: a Buffer per entry costs a
            // second of CPU per crawl of ten copies of the Linux tree; most entries are files.
            if (names.some((e) => e.name.includes('\uFFFD'))) {
                for (const e of fs.readdirSync(abs, { withFileTypes: true, encoding: 'buffer' })) if (e.isDirectory() && !this.#sink.skip.has(e.name.toString())) this.#queue.push({ parent: d, raw: e.name, note });
                return;
            }
        } catch {
            return;
        }
        // The root's subdirectories taken in the order the check lists them (it waits for each).
        if (parent === null) names.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
        for (const e of names) if (e.isDirectory() && !this.#sink.skip.has(e.name)) this.#queue.push({ parent: d, raw: Buffer.from(e.name), note });
    }

    /** Stops watching `d` and everything below it (`unwatch`: the kernel still has the watches). */
    #forget(d: Dir, unwatch: boolean): void {
        this.#dirs.forget(d, unwatch ? (wd) => this.#ino?.removeWatch(wd) : undefined);
    }

    #lose(): void {
        this.#incomplete = true;
        this.#sink.lost();
    }

    async saveSnapshot(): Promise<void> {
        throw new Error('inotify keeps no snapshot: the next process lists the tree');
    }

    async changesSinceSnapshot(): Promise<string[]> {
        throw new Error('inotify keeps no snapshot');
    }

    async delivered(): Promise<void> {
        this.drain();
    }

    async unsubscribe(): Promise<void> {
        this.#closed = true;
        this.#stop();
    }

    #stop(): void {
        if (this.#timer !== null) clearInterval(this.#timer);
        this.#timer = null;
        this.#ino?.close();
        this.#ino = null;
        this.#dirs.clear();
        this.#movedOut.clear();
        this.#queue.length = 0;
    }
}
