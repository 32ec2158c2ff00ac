import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { isDebrisName } from '../../src/fs/shared/debris.js';
import { nativeSection, type Koffi } from '../../src/fs/shared/native-gate.js';
import { bytesOf, hasEscapedBytes } from '../../src/print/shared/byte-names.js';
import { Kind } from '../../src/search-index/shared/format.js';
import type { HeldAt } from '../fs/held-at.js';
import type { RawListing } from '../fs/raw-listing.js';

/**
 * The inotify watches a tree check adds for the host's watcher (a reopen: reopen.ts
 * `watchAndFind`): each directory it compares is watched before it is listed and before its
 * entries are stat'ed, so a change made after its comparison is reported by the watcher and one
 * made before is seen by the check. Perf: the watcher then needs no crawl of its own, which
 * listed every directory a second time on the host's thread (some 0.9 s of CPU of ten copies of
 * the Linux tree, against 0.1 s for the watches themselves).
 *
 * The instance is the host's (`fd`): threads share the process's descriptors. The watches added
 * are handed back with the result (watch descriptor and relative path), and the host adopts them
 * (watched-dirs.ts). Errors are the crawl's: a directory gone, replaced by a file or unreadable is
 * left unwatched (its parent's watch reports what happens to it); any other (the watch limit,
 * the instance closed meanwhile) fails the check.
 */

const ENOENT = os.constants.errno.ENOENT;
const ENOTDIR = os.constants.errno.ENOTDIR;
const EACCES = os.constants.errno.EACCES;

/** A watch that could not be added for another reason than the crawl skips: the check fails. */
export class WatchFailed extends Error {
    constructor(readonly errno: number) {
        super(`inotify_add_watch failed (errno ${errno})`);
    }
}

type AddWatch = (fd: number, path: Buffer, mask: number) => number;
let loaded: { add: AddWatch; errno: () => number } | undefined;

function load(): { add: AddWatch; errno: () => number } {
    return (loaded ??= nativeSection(() => {
        const koffi = createRequire(import.meta.url)('koffi') as Koffi;
        const add = koffi.load(null).func('int inotify_add_watch(int, const uint8_t *, uint32_t)') as AddWatch;
        return { add, errno: () => koffi.errno() };
    }));
}

/** One thread's watches, in the order added (a directory before those below it). */
export class CheckWatches {
    /** Watch descriptors, and the relative paths of their directories (`''`: the root). */
    readonly wds: number[] = [];
    readonly paths: string[] = [];
    readonly #root: string;
    readonly #fd: number;
    readonly #mask: number;
    readonly #lib = load();
    #path = Buffer.allocUnsafe(4096);

    constructor(root: string, fd: number, mask: number) {
        this.#root = root;
        this.#fd = fd;
        this.#mask = mask;
    }

    /** Watches the directory at `rel`; false when it is not there to watch. @throws WatchFailed */
    add(rel: string): boolean {
        const wd = this.#lib.add(this.#fd, this.#pathBytes(rel === '' ? this.#root : `${this.#root}/${rel}`), this.#mask);
        if (wd < 0) {
            const errno = this.#lib.errno();
            if (errno === ENOENT || errno === ENOTDIR || errno === EACCES) return false;
            throw new WatchFailed(errno);
        }
        this.wds.push(wd);
        this.paths.push(rel);
        return true;
    }

    /** `abs` as bytes ended by a NUL. Perf: written into one reused buffer (an escaped byte aside), not two new ones per directory. */
    #pathBytes(abs: string): Buffer {
        if (hasEscapedBytes(abs)) return Buffer.concat([bytesOf(abs), NUL]);
        if (abs.length * 3 + 1 > this.#path.length) this.#path = Buffer.allocUnsafe(abs.length * 6 + 1);
        const n = this.#path.write(abs, 0, 'utf8');
        this.#path[n] = 0;
        return this.#path;
    }

    /** The last watch added is not the directory's after all (replaced meanwhile): not handed back. */
    drop(): void {
        this.wds.pop();
        this.paths.pop();
    }
}

const NUL = Buffer.from([0]);
const S_IFMT = 0o170000;

function kindOfMode(mode: number): number {
    const t = mode & S_IFMT;
    return t === fs.constants.S_IFDIR ? Kind.Dir : t === fs.constants.S_IFREG ? Kind.File : t === fs.constants.S_IFLNK ? Kind.Link : Kind.Other;
}

/**
 * The kind of entry `name` of the directory at `rel` (open as `fd`), which its listing gave as
 * `listed`, its statx in `st`; -1 where the walk leaves it out (the library's temporary files,
 * skipped directories, entries gone). With `w`, a directory is watched before it is stat'ed: its
 * times, then its listing, are taken after its watch is on.
 */
export function look(statAt: NonNullable<HeldAt['statAt']>, st: Float64Array, skip: ReadonlySet<string>, w: CheckWatches | null, fd: number, name: string, listed: number, rel: string): number {
    // Perf: the library's temporary names start with a dot; most names are tested no further.
    if (name.charCodeAt(0) === 0x2e && isDebrisName(name)) return -1;
    // Perf: only a directory's name is looked for among the skipped ones (listed so, or stat'ed so).
    let skipped = listed === Kind.Dir && skip.has(name);
    const watched = w !== null && listed === Kind.Dir && !skipped && w.add(rel === '' ? name : `${rel}/${name}`);
    let kind = statAt(fd, name, st) !== 0 ? -1 : kindOfMode(st[0]!);
    if (kind === Kind.Dir && listed !== Kind.Dir) skipped = skip.has(name);
    if (w !== null && kind === Kind.Dir && listed !== Kind.Dir && !skipped && w.add(rel === '' ? name : `${rel}/${name}`)) {
        // Made a directory since it was listed: stat'ed again once watched.
        kind = statAt(fd, name, st) !== 0 ? -1 : kindOfMode(st[0]!);
        if (kind !== Kind.Dir) w.drop();
    } else if (watched && kind !== Kind.Dir) w.drop();
    return kind === Kind.Dir && skipped ? -1 : kind;
}

/**
 * {@link look} for entry `k` of a raw listing (raw-listing.ts): a file is stat'ed by its name's
 * address, with no string made of its name. An entry made a directory since it was listed is
 * looked at again by {@link look}.
 */
export function lookRaw(at: Required<Pick<HeldAt, 'statAt' | 'statAtAddress'>>, st: Float64Array, skip: ReadonlySet<string>, w: CheckWatches | null, fd: number, l: RawListing, k: number, rel: string): number {
    const listed = l.kinds[k]!;
    if (l.buf[l.starts[k]!] === 0x2e && isDebrisName(l.name(k))) return -1;
    const name = listed === Kind.Dir ? l.name(k) : '';
    const skipped = listed === Kind.Dir && skip.has(name);
    const watched = w !== null && listed === Kind.Dir && !skipped && w.add(rel === '' ? name : `${rel}/${name}`);
    const kind = at.statAtAddress(fd, l.address + l.starts[k]!, st) !== 0 ? -1 : kindOfMode(st[0]!);
    if (kind === Kind.Dir && listed !== Kind.Dir) return look(at.statAt, st, skip, w, fd, l.name(k), listed, rel);
    if (watched && kind !== Kind.Dir) w.drop();
    return kind === Kind.Dir && skipped ? -1 : kind;
}
