import fs from 'node:fs';
import { createRequire } from 'node:module';
import { CAN_HOLD } from '../../fs/shared/held.js';
import type { Koffi } from '../../fs/shared/native-gate.js';

/**
 * Linux inotify(7) through the koffi FFI package (already loaded by the workers for getdents):
 * the index's own watcher reads its events with non-blocking reads on the host's thread, so a
 * search can read every event queued before it starts (see watch-inotify.ts).
 */

/** Event bits (include/uapi/linux/inotify.h). */
export const IN = {
    MODIFY: 0x2,
    ATTRIB: 0x4,
    CLOSE_WRITE: 0x8,
    MOVED_FROM: 0x40,
    MOVED_TO: 0x80,
    CREATE: 0x100,
    DELETE: 0x200,
    DELETE_SELF: 0x400,
    MOVE_SELF: 0x800,
    UNMOUNT: 0x2000,
    Q_OVERFLOW: 0x4000,
    IGNORED: 0x8000,
    ONLYDIR: 0x1000000,
    DONT_FOLLOW: 0x2000000,
    EXCL_UNLINK: 0x4000000,
    ISDIR: 0x40000000,
} as const;

const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
export const EAGAIN = 11;
export const EINTR = 4;
export const ENOENT = 2;
export const EACCES = 13;
export const ENOTDIR = 20;
export const ENOSPC = 28;

/** One inotify instance. */
export interface Inotify {
    readonly fd: number;
    /** The watch descriptor, or `-errno`. */
    addWatch(path: Buffer, mask: number): number;
    removeWatch(wd: number): void;
    /** Bytes read into `buf`, 0 when nothing is queued, or `-errno`. */
    read(buf: Buffer): number;
    close(): void;
}

interface Libc {
    init: (flags: number) => number;
    add: (fd: number, path: Buffer, mask: number) => number;
    rm: (fd: number, wd: number) => number;
    read: (fd: number, buf: Buffer, len: number) => number | bigint;
    close: ((fd: number) => number) & { async?: (fd: number, done: (err: unknown, result: number) => void) => void };
    errno: () => number;
    /** The C library exports statx (what the tree check's threads stat with). */
    statx: boolean;
}

let libc: Libc | null | undefined;

function load(): Libc | null {
    if (libc !== undefined) return libc;
    libc = null;
    if (process.platform !== 'linux' || (process.arch !== 'x64' && process.arch !== 'arm64')) return null;
    try {
        const koffi = createRequire(import.meta.url)('koffi') as Koffi;
        const c = koffi.load(null);
        libc = {
            init: c.func('int inotify_init1(int)') as Libc['init'],
            add: c.func('int inotify_add_watch(int, const uint8_t *, uint32_t)') as Libc['add'],
            rm: c.func('int inotify_rm_watch(int, int)') as Libc['rm'],
            read: c.func('long read(int, void *, size_t)') as Libc['read'],
            close: c.func('int close(int)') as Libc['close'],
            errno: () => koffi.errno(),
            statx: exports(c, 'int statx(int, const char *, int, unsigned int, void *)'),
        };
    } catch {
        libc = null;
    }
    return libc;
}

function exports(c: ReturnType<Koffi['load']>, signature: string): boolean {
    try {
        c.func(signature);
        return true;
    } catch {
        return false;
    }
}

/**
 * Whether a tree check's threads can add the watches themselves (workers/search-index/check-watches.ts):
 * they need the native layer of workers/fs/held-at.ts with its statx, which loads where this
 * module's koffi does, descriptors can be held, and the C library exports statx, unless
 * `LLM_CHAT_FILE_NATIVE_AT=0` keeps the threads to the held-path layer.
 */
export function checkCanWatch(): boolean {
    return CAN_HOLD && process.env['LLM_CHAT_FILE_NATIVE_AT'] !== '0' && load()?.statx === true;
}

/** Whether inotify can be used here (Linux x86-64 or arm64 with koffi loadable). */
export function inotifyAvailable(): boolean {
    return load() !== null;
}

/** A new non-blocking inotify instance. @throws Error when none can be made (no support, the per-user instance limit). */
export function openInotify(): Inotify {
    const c = load();
    if (c === null) throw new Error('inotify is not available here');
    const fd = c.init(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) throw new Error(`inotify_init1 failed (errno ${c.errno()}; see /proc/sys/fs/inotify/max_user_instances)`);
    let open = true;
    return {
        fd,
        addWatch(path, mask) {
            // The path must end in a NUL byte: the caller builds it so.
            const wd = c.add(fd, path, mask);
            return wd < 0 ? -c.errno() : wd;
        },
        removeWatch(wd) {
            c.rm(fd, wd);
        },
        read(buf) {
            const n = Number(c.read(fd, buf, buf.length));
            if (n >= 0) return n;
            const errno = c.errno();
            return errno === EAGAIN ? 0 : -errno;
        },
        close() {
            if (!open) return;
            open = false;
            // The kernel drops every watch of the instance in close(2), waiting on its grace period: 13-16 ms
            // for the Linux tree's 5,096 watches at load 7, more under load, ten times that at ten times the
            // tree. A thread of libuv's pool closes it so the host's event loop does not wait; the descriptor
            // is used no more after this call.
            if (c.close.async !== undefined) c.close.async(fd, () => {});
            else c.close(fd);
        },
    };
}

/**
 * Calls `each` on every event in the first `n` bytes of `buf` (`struct inotify_event`: wd, mask,
 * cookie, the name's length, then the name, NUL-padded): `raw` is a copy of the name's bytes,
 * `null` for an event of the watched directory itself. True when some call returned true.
 */
export function readEvents(buf: Buffer, n: number, each: (wd: number, mask: number, cookie: number, raw: Buffer | null) => boolean): boolean {
    let noted = false;
    for (let o = 0; o + 16 <= n; ) {
        const wd = buf.readInt32LE(o);
        const mask = buf.readUInt32LE(o + 4);
        const cookie = buf.readUInt32LE(o + 8);
        const len = buf.readUInt32LE(o + 12);
        let end = o + 16;
        while (end < o + 16 + len && buf[end] !== 0) end++;
        const raw = len === 0 ? null : Buffer.from(buf.subarray(o + 16, end));
        o += 16 + len;
        noted = each(wd, mask, cookie, raw) || noted;
    }
    return noted;
}

/** Why a tree could not be watched once the per-user watch limit was reached, with the limit. */
export function watchLimitMessage(): string {
    let limit = '?';
    try {
        limit = fs.readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim();
    } catch {
        // not readable here
    }
    return `the inotify watch limit was reached (fs.inotify.max_user_watches = ${limit}): raise it, or index a smaller tree`;
}
