import fs from 'node:fs';
import { osPath } from '../../src/print/shared/byte-names.js';
import { awaitRead, CheckQueue, newCheckQueue } from '../../src/search-index/shared/check-queue.js';
import { foldChangeTime } from '../../src/search-index/shared/change-time.js';
import { CrawlGate } from '../../src/search-index/shared/crawl-gate.js';
import { decodeTable, Flag, Kind, type FileTable } from '../../src/search-index/shared/format.js';
import type { IndexCheckResult, IndexCheckTask } from '../../src/search-index/shared/protocol.js';
import type { Listing } from '../fs/dirent-records.js';
import { heldAt, type HeldAt } from '../fs/held-at.js';
import { takeTaskPriority } from '../pool/background.js';
import { CheckWatches, look, WatchFailed } from './check-watches.js';
import { runIndexCheckByWalk } from './index-walk.js';

/**
 * The check of a stored table against the tree (what changed while no process watched), without
 * a second table: the stored table's directories are listed one by one, each listing merged with
 * the directory's stored children by name (both sorted alike), each entry stat'ed relative to its
 * open directory (statx, held-at.ts). Large subdirectories go to a queue the check's threads
 * share (check-queue.ts). Perf: no path string, Map or Stats object per entry (the walk-and-compare
 * of index-walk.ts makes all three: 12.8-14.3 s on ten copies of the Linux tree, one thread).
 *
 * Its result is the walk-and-compare's (the same paths, in another order): an entry new, gone,
 * of another kind or readability, or with another size, modification, birth or change time (a
 * file), and a directory's times apart. Where statx cannot be called, the thread that takes the root runs
 * the walk-and-compare instead. With `task.watch` each directory is watched before it is stat'ed
 * and listed (check-watches.ts): the reopen's watcher needs no crawl of its own.
 */

/** A stored subdirectory with more entries than this is queued for any thread rather than compared in place. */
const SPLIT = 1024;
const O_DIR = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;

class TooMany extends Error {}
/** The watcher could not be started: nothing found can be trusted. */
class Unwatched extends Error {}
/** The root cannot be walked: failed with the walk's code. */
class RootFailure extends Error {
    constructor(readonly code: 'not_a_directory' | 'walk_failed', message: string) {
        super(message);
    }
}

/** What changed under the root since the stored table was made (see IndexCheckTask), the directories this thread took. */
export async function runIndexCheck(task: IndexCheckTask): Promise<IndexCheckResult> {
    takeTaskPriority(task);
    const queue = new CheckQueue(task.queue ?? newCheckQueue());
    const gate = task.gate === undefined ? null : new CrawlGate(task.gate);
    try {
        const at = heldAt();
        if (at.statAt === undefined && task.watch !== undefined) throw new Error('the tree check cannot watch directories here (no statx)');
        if (at.statAt === undefined) {
            const first = queue.take();
            if (first === null) return { ok: true, changed: '', dirTimes: [] };
            try {
                // No name has a NUL: the whole crawl is waited for.
                if (gate !== null && !gate.waitFor('\0')) throw new Unwatched();
                return await runIndexCheckByWalk(task);
            } finally {
                queue.done();
            }
        }
        if (task.tableRead !== undefined && !awaitRead(task.tableRead)) throw new Error(`${task.table} could not be read`);
        const bytes = task.tableBytes === undefined ? fs.readFileSync(task.table) : Buffer.from(task.tableBytes);
        const stored = await decodeTable(bytes, task.table, async () => undefined, task.tableBytes !== undefined && task.tableChecked === true);
        const watches = task.watch === undefined ? null : new CheckWatches(task.root, task.watch.fd, task.watch.mask);
        const check = new Check(task, stored, at, queue, gate, watches);
        for (let d = queue.take(); d !== null; d = queue.take()) {
            try {
                check.queued(d.id, d.mtime, d.birthtime);
            } finally {
                queue.done();
            }
        }
        return { ok: true, changed: check.changed.join('\0'), dirTimes: check.dirTimes, ...(watches !== null && { watched: { wds: watches.wds, paths: watches.paths.join('\0') } }) };
    } catch (err) {
        queue.fail();
        if (err instanceof WatchFailed) return { ok: false, code: 'check_failed', message: `${task.root}: ${err.message}` };
        if (err instanceof TooMany) return { ok: false, code: 'too_many_entries', message: `more than ${task.maxEntries} entries under ${task.root}` };
        if (err instanceof RootFailure) return { ok: false, code: err.code, message: err.message };
        if (err instanceof Unwatched) return { ok: false, code: 'check_failed', message: `${task.root} could not be watched` };
        return { ok: false, code: 'check_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

/** One thread's part of a check: the directories it took, compared. */
class Check {
    readonly changed: string[] = [];
    readonly dirTimes: string[] = [];
    readonly #root: string;
    readonly #skip: Set<string>;
    readonly #max: number;
    readonly #t: FileTable;
    readonly #at: HeldAt;
    readonly #statAt: NonNullable<HeldAt['statAt']>;
    readonly #queue: CheckQueue;
    readonly #gate: CrawlGate | null;
    readonly #watches: CheckWatches | null;
    /** The last statAt: mode, size, mtimeMs, birthtimeMs, ctimeMs. */
    readonly #st = new Float64Array(5);

    constructor(task: IndexCheckTask, t: FileTable, at: HeldAt, queue: CheckQueue, gate: CrawlGate | null, watches: CheckWatches | null) {
        this.#root = task.root;
        this.#skip = new Set(task.skipDirs);
        this.#max = task.maxEntries;
        this.#t = t;
        this.#at = at;
        this.#statAt = at.statAt!;
        this.#queue = queue;
        this.#gate = gate;
        this.#watches = watches;
    }

    /**
     * Waits until the watcher's crawl has watched the root's subdirectory `name` and all below
     * it (`''`: the root itself): a change made after its entries are compared is then reported.
     */
    #watched(name: string): void {
        if (this.#gate !== null && !this.#gate.waitFor(name)) throw new Unwatched();
    }

    /** Compares the stored directory `id` a thread took from the queue (0: the root), opened by its path. */
    queued(id: number, mtime: number, birthtime: number): void {
        const rel = this.#pathOf(id);
        const abs = rel === '' ? this.#root : `${this.#root}/${rel}`;
        if (id === 0) {
            this.#watched('');
            this.#watches?.add('');
            // As the walk: the root followed if a link, its modification time alone compared.
            let st: fs.Stats;
            try {
                st = fs.statSync(this.#root);
            } catch (err) {
                throw new RootFailure('walk_failed', err instanceof Error ? err.message : String(err));
            }
            if (!st.isDirectory()) throw new RootFailure('not_a_directory', `${this.#root} is not a directory`);
            if (st.mtimeMs !== this.#t.mtime[0]) this.dirTimes.push('');
        }
        let fd = -1;
        try {
            fd = fs.openSync(osPath(abs), id === 0 ? fs.constants.O_RDONLY | fs.constants.O_DIRECTORY : O_DIR);
        } catch {
            // Gone or replaced since its parent was listed: as a directory the walk could not list.
        }
        try {
            this.#dir(id, fd, rel, mtime, birthtime);
        } finally {
            if (fd >= 0) fs.closeSync(fd);
        }
    }

    /**
     * Compares the stored directory `id` (at `rel`, open as `fd`; -1: could not be opened) with
     * its listing: its readability, then its times, then its entries by name.
     */
    #dir(id: number, fd: number, rel: string, mtime: number, birthtime: number): void {
        const t = this.#t;
        let names: string[] | null = null;
        let kinds: number[] = [];
        if (fd >= 0) {
            try {
                ({ names, kinds } = this.#at.list(fd));
            } catch {
                // unreadable
            }
        }
        if (id > 0) {
            if ((names === null) !== ((t.flags[id]! & Flag.Unreadable) !== 0)) this.changed.push(rel);
            else if (mtime !== t.mtime[id] || birthtime !== t.birthtime[id]) this.dirTimes.push(rel);
        }
        const stop = t.end[id]!;
        let c = id + 1;
        let k = 0;
        let counted = 0;
        const list = names ?? [];
        const st = this.#st;
        while (k < list.length || c < stop) {
            const name = k < list.length ? list[k]! : null;
            const cmp = c >= stop ? 1 : name === null ? -1 : t.names.compare(c, name);
            if (cmp < 0) {
                this.#gone(c, rel);
                c = t.end[c]!;
                continue;
            }
            // Left out as the walk leaves them out: the library's temporary files, skipped
            // directories, entries gone since listed. A stored entry left out so is gone.
            const kind = this.#look(fd, name!, kinds[k++]!, rel);
            if (kind < 0) {
                if (cmp === 0) {
                    this.#gone(c, rel);
                    c = t.end[c]!;
                }
                continue;
            }
            counted++;
            if (id === 0 && kind === Kind.Dir) this.#watched(name!);
            if (cmp > 0) {
                const p = rel === '' ? name! : `${rel}/${name}`;
                this.changed.push(p);
                if (kind === Kind.Dir) this.#added(fd, name!, p);
                continue;
            }
            // Perf: the entry's path is made only where it is reported or compared below.
            const p = kind !== Kind.Dir && kind === t.kind[c] ? '' : rel === '' ? name! : `${rel}/${name}`;
            const was = t.kind[c]!;
            if (kind !== was) {
                this.changed.push(p);
                if (was === Kind.Dir) this.#below(c, p);
                if (kind === Kind.Dir) this.#added(fd, name!, p);
            } else if (kind !== Kind.Dir) {
                // The birth time too: a file replaced (sed -i, rsync, an editor's save) with its size and
                // modification time set back is a new file; and the change time: one rewritten in
                // place so (cp -p over it, rsync --inplace -t) keeps its birth time, not its ctime.
                if (st[1] !== t.size[c] || st[2] !== t.mtime[c] || st[3] !== t.birthtime[c] || foldChangeTime(st[4]!) !== t.ctime[c]) this.changed.push(rel === '' ? name! : `${rel}/${name}`);
            } else if (t.end[c]! - c <= SPLIT || !this.#queue.push(c, st[2]!, st[3]!)) {
                this.#sub(fd, name!, c, p, st[2]!, st[3]!);
            }
            c = t.end[c]!;
        }
        if (this.#queue.count(counted) > this.#max) throw new TooMany();
    }

    /** The kind of entry `name` of `fd` (in the directory at `rel`), listed as `listed`, in `#st` (check-watches.ts `look`). */
    #look(fd: number, name: string, listed: number, rel: string): number {
        return look(this.#statAt, this.#st, this.#skip, this.#watches, fd, name, listed, rel);
    }

    /** Compares the stored subdirectory `c`, entry `name` of `fd`, in place. */
    #sub(fd: number, name: string, c: number, p: string, mtime: number, birthtime: number): void {
        let sub = -1;
        try {
            sub = this.#at.open(fd, name, O_DIR);
        } catch {
            // as an unreadable directory
        }
        try {
            this.#dir(c, sub, p, mtime, birthtime);
        } finally {
            if (sub >= 0) this.#at.close(sub);
        }
    }

    /** The stored entry `c` in the directory at `rel` is gone: it and everything stored below it changed. */
    #gone(c: number, rel: string): void {
        const name = this.#t.names.get(c);
        const p = rel === '' ? name : `${rel}/${name}`;
        this.changed.push(p);
        if (this.#t.kind[c] === Kind.Dir) this.#below(c, p);
    }

    /** Every stored entry below the directory `c` (at `p`) changed. */
    #below(c: number, p: string): void {
        const t = this.#t;
        const end = t.end[c]!;
        const paths = new Array<string>(end - c);
        paths[0] = p;
        for (let j = c + 1; j < end; j++) {
            paths[j - c] = `${paths[t.parent[j]! - c]}/${t.names.get(j)}`;
            this.changed.push(paths[j - c]!);
        }
    }

    /** The directory `name` of `fd` (at `p`) is new: everything in it changed. */
    #added(fd: number, name: string, p: string): void {
        let sub: number;
        try {
            sub = this.#at.open(fd, name, O_DIR);
        } catch {
            return; // unreadable: the directory alone, as the walk lists it
        }
        try {
            let listing: Listing;
            try {
                listing = this.#at.list(sub);
            } catch {
                return;
            }
            let counted = 0;
            for (let i = 0; i < listing.names.length; i++) {
                const n = listing.names[i]!;
                const kind = this.#look(sub, n, listing.kinds[i]!, p);
                if (kind < 0) continue;
                counted++;
                this.changed.push(`${p}/${n}`);
                if (kind === Kind.Dir) this.#added(sub, n, `${p}/${n}`);
            }
            if (this.#queue.count(counted) > this.#max) throw new TooMany();
        } finally {
            this.#at.close(sub);
        }
    }

    /** The relative path of stored entry `id` (`''`: the root). */
    #pathOf(id: number): string {
        const parts: string[] = [];
        for (let i = id; i > 0; i = this.#t.parent[i]!) parts.push(this.#t.names.get(i));
        return parts.reverse().join('/');
    }
}
