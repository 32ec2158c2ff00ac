import fs from 'node:fs';
import { osPath } from '../../src/print/shared/byte-names.js';
import type { CheckQueue } from '../../src/search-index/shared/check-queue.js';
import { foldChangeTime } from '../../src/search-index/shared/change-time.js';
import type { CrawlGate } from '../../src/search-index/shared/crawl-gate.js';
import { Flag, Kind, type FileTable } from '../../src/search-index/shared/format.js';
import type { IndexCheckTask } from '../../src/search-index/shared/protocol.js';
import type { Listing } from '../fs/dirent-records.js';
import type { HeldAt } from '../fs/held-at.js';
import type { RawListing } from '../fs/raw-listing.js';
import { RootFailure, TooMany, Unwatched } from './check-errors.js';
import { look, lookRaw, type CheckWatches } from './check-watches.js';

/**
 * One thread's part of a tree check (index-check.ts): the stored directories it took from the
 * queue, each listed and compared with the table, entry by entry, without a path string, Map or
 * Stats object per entry. Where the native layer gives raw listings (raw-listing.ts), a
 * directory whose names are all ASCII is compared by its names' bytes, found by hash among the
 * stored children; any other is listed as strings, sorted, and merged by name with them.
 */

/** A stored subdirectory with more entries than this is queued for any thread rather than compared in place. */
const SPLIT = 1024;
const O_DIR = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;

/** One thread's part of a check: the directories it took, compared. */
export class Check {
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
    /** The native layer's raw listings and statx by address, where it has them (`null`: names as strings only). */
    readonly #fast: Required<Pick<HeldAt, 'statAt' | 'statAtAddress'>> | null;
    /** A raw listing per depth below the queued directory being compared. */
    readonly #raw: RawListing[] = [];

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
        this.#fast = at.listRaw !== undefined && at.statAtAddress !== undefined ? (at as Required<HeldAt>) : null;
    }

    /** Waits until the crawl has watched the root's subdirectory `name` and below (`''`: the root): a later change is reported. */
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
            this.#dir(id, fd, rel, mtime, birthtime, 0);
        } finally {
            if (fd >= 0) fs.closeSync(fd);
        }
    }

    /**
     * Compares the stored directory `id` (at `rel`, open as `fd`; -1: could not be opened, at
     * `depth` below the queued one) with its listing: its readability, its times, its entries.
     */
    #dir(id: number, fd: number, rel: string, mtime: number, birthtime: number, depth: number): void {
        const t = this.#t;
        let names: string[] | null = null;
        let kinds: number[] = [];
        let raw: RawListing | null = null;
        let readable = false;
        if (fd >= 0) {
            try {
                if (this.#fast !== null) {
                    const l = (this.#raw[depth] ??= this.#at.rawListing!());
                    if (this.#at.listRaw!(fd, l)) raw = l;
                }
                if (raw === null) ({ names, kinds } = this.#at.list(fd));
                readable = true;
            } catch {
                // unreadable
            }
        }
        if (id > 0) {
            if (readable === ((t.flags[id]! & Flag.Unreadable) !== 0)) this.changed.push(rel);
            else if (mtime !== t.mtime[id] || birthtime !== t.birthtime[id]) this.dirTimes.push(rel);
        }
        const counted = raw !== null ? this.#byBytes(id, fd, rel, raw, depth) : this.#byName(id, fd, rel, names ?? [], kinds, depth);
        if (this.#queue.count(counted) > this.#max) throw new TooMany();
    }

    /** The entries of `list` (sorted as the table) merged with the stored children of `id`; returns how many count. */
    #byName(id: number, fd: number, rel: string, list: string[], kinds: number[], depth: number): number {
        const t = this.#t;
        const stop = t.end[id]!;
        let c = id + 1;
        let k = 0;
        let counted = 0;
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
            const kind = look(this.#statAt, this.#st, this.#skip, this.#watches, fd, name!, kinds[k++]!, rel);
            if (kind < 0) {
                if (cmp === 0) {
                    this.#gone(c, rel);
                    c = t.end[c]!;
                }
                continue;
            }
            counted++;
            if (id === 0 && kind === Kind.Dir) this.#watched(name!);
            if (cmp > 0) this.#new(fd, name!, kind, rel);
            else this.#same(c, kind, fd, name!, rel, depth);
            if (cmp === 0) c = t.end[c]!;
        }
        return counted;
    }

    /**
     * The entries of the raw listing `l` found by their bytes among the stored children of `id`
     * (no string per entry, no sort); returns how many count. As {@link #byName} otherwise.
     */
    #byBytes(id: number, fd: number, rel: string, l: RawListing, depth: number): number {
        const t = this.#t;
        const names = t.names;
        const fast = this.#fast!;
        let counted = 0;
        for (let c = id + 1, stop = t.end[id]!; c < stop; c = t.end[c]!) {
            const k = l.find(names.bytes, names.startOf(c), names.endOf(c));
            if (k >= 0) l.matched[k] = 1;
            const kind = k < 0 ? -1 : lookRaw(fast, this.#st, this.#skip, this.#watches, fd, l, k, rel);
            if (kind < 0) {
                this.#gone(c, rel);
                continue;
            }
            counted++;
            // The stored name is the listed one: the same bytes, ASCII.
            const name = kind === Kind.Dir || kind !== t.kind[c] ? names.get(c) : null;
            if (id === 0 && kind === Kind.Dir) this.#watched(name!);
            this.#same(c, kind, fd, name, rel, depth);
        }
        for (let k = 0; k < l.count; k++) {
            if (l.matched[k] !== 0) continue;
            const kind = lookRaw(fast, this.#st, this.#skip, this.#watches, fd, l, k, rel);
            if (kind < 0) continue;
            counted++;
            const name = l.name(k);
            if (id === 0 && kind === Kind.Dir) this.#watched(name);
            this.#new(fd, name, kind, rel);
        }
        return counted;
    }

    /** The entry `name` of `fd` (in the directory at `rel`), of `kind`, is not in the table. */
    #new(fd: number, name: string, kind: number, rel: string): void {
        const p = rel === '' ? name : `${rel}/${name}`;
        this.changed.push(p);
        if (kind === Kind.Dir) this.#added(fd, name, p);
    }

    /**
     * The stored entry `c`, listed in `fd` (at `rel`) as `kind`, its statx in `#st`, compared.
     * `name` is needed (not null) where the kind is another or a directory.
     */
    #same(c: number, kind: number, fd: number, name: string | null, rel: string, depth: number): void {
        const t = this.#t;
        const st = this.#st;
        const was = t.kind[c]!;
        if (kind !== Kind.Dir && kind === was) {
            // The birth time too: a file replaced (sed -i, rsync, an editor's save) with its size and
            // modification time set back is a new file; and the change time: one rewritten in
            // place so (cp -p over it, rsync --inplace -t) keeps its birth time, not its ctime.
            if (st[1] !== t.size[c] || st[2] !== t.mtime[c] || st[3] !== t.birthtime[c] || foldChangeTime(st[4]!) !== t.ctime[c]) {
                const n = name ?? t.names.get(c);
                this.changed.push(rel === '' ? n : `${rel}/${n}`);
            }
            return;
        }
        const p = rel === '' ? name! : `${rel}/${name}`;
        if (kind !== was) {
            this.changed.push(p);
            if (was === Kind.Dir) this.#below(c, p);
            if (kind === Kind.Dir) this.#added(fd, name!, p);
        } else if (t.end[c]! - c <= SPLIT || !this.#queue.push(c, st[2]!, st[3]!)) {
            this.#sub(fd, name!, c, p, st[2]!, st[3]!, depth + 1);
        }
    }

    /** Compares the stored subdirectory `c`, entry `name` of `fd`, in place. */
    #sub(fd: number, name: string, c: number, p: string, mtime: number, birthtime: number, depth: number): void {
        let sub = -1;
        try {
            sub = this.#at.open(fd, name, O_DIR);
        } catch {
            // as an unreadable directory
        }
        try {
            this.#dir(c, sub, p, mtime, birthtime, depth);
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
                const kind = look(this.#statAt, this.#st, this.#skip, this.#watches, sub, n, listing.kinds[i]!, p);
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
