import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import util from 'node:util';
import { isMainThread, workerData } from 'node:worker_threads';
import { claimSlot, type LedgerSlot } from '../../src/fs/shared/fd-ledger.js';
import { CAN_HOLD, heldPath } from '../../src/fs/shared/held.js';
import { nativeSection, type Koffi } from '../../src/fs/shared/native-gate.js';
import { hasEscapedBytes, osPath } from '../../src/print/shared/byte-names.js';
import { DirentRecords, listPath, type Listing } from './dirent-records.js';
import { RawListing } from './raw-listing.js';
import { statAtOf } from './stat-at.js';

/**
 * Entries of a held directory (src/fs/shared/held.ts) reached by its descriptor: a file or a
 * subdirectory opened relative to it (the scan's and the walk's), and its listing. The walk holds
 * them nested (a directory stays open while its subtree is walked), and a worker terminated
 * holding them has them closed by the engine through its descriptor ledger. Two layers give the
 * same results, errors included (the same Node-style `code`, `errno`, `syscall` and message,
 * naming the held path):
 *
 * - native (Linux x86-64 and arm64): `openat(2)` and `getdents64(2)` called through the `koffi`
 *   FFI package, loaded lazily once per thread. Perf: Node has no openat or fdopendir, and a
 *   path through `/proc/<pid>/fd/N/` is resolved through /proc on every open and needs a second
 *   open of the directory to list it (a file opened and closed in 5.5-7.5 µs by openat against
 *   10.9-13.7 µs through the held path, on the Linux 6.1 tree).
 * - held paths (everywhere else, when koffi or the C library cannot be loaded, or when
 *   `LLM_CHAT_FILE_NATIVE_AT=0` was in the environment when the thread first used the layer:
 *   the tests run the walk and scan files under both): `fs.openSync` and `fs.readdirSync` of
 *   `/proc/<pid>/fd/N/name`.
 *
 * Security: both reach the entry *in the held directory*, whatever its path now leads to; the
 * flags are the caller's (O_NOFOLLOW: a final link swapped in is refused with ELOOP) plus
 * O_CLOEXEC, which Node's own opens add; entry names never contain `/`.
 */

/** The environment variable that forces the held-path layer (`0`), read once per thread. Internal: for tests. */
export const NATIVE_AT_VAR = 'LLM_CHAT_FILE_NATIVE_AT';

/** Opening and listing entries of held directories by descriptor. */
export interface HeldAt {
    /** `native` (openat, getdents64) or `held-path` (through `/proc/<pid>/fd/N`). */
    readonly kind: 'native' | 'held-path';
    /**
     * Opens entry `name` of the held directory `dirFd` with open(2) `flags` (plus O_CLOEXEC): a
     * file or, with O_DIRECTORY, a subdirectory. Descriptors from this layer are closed in the
     * reverse order of their opens (the walk holds them nested): in a worker the native layer
     * notes each in the engine's ledger (src/fs/shared/fd-ledger.ts), which closes those a
     * terminated worker still held; past the ledger's depth it opens through Node's fs, which
     * closes its own.
     * Returns the new descriptor; throws what `fs.openSync` of the entry's held path throws
     * (`code` ENOENT, ELOOP, ENOTDIR, EACCES, EMFILE...; `syscall` `open`).
     */
    open(dirFd: number, name: string, flags: number): number;
    /**
     * Closes the descriptor {@link open} returned last of those still open (throws, closing
     * nothing, for another one it returned; one closed already fails with EBADF). Perf: in a worker
     * thread Node tracks the descriptors its fs opened, and `fs.closeSync` of one opened natively
     * raises a process warning each time (~13 µs more per close); the native layer closes its own
     * with close(2).
     */
    close(fd: number): void;
    /**
     * The entries of the held directory `dirFd`, as `fs.readdirSync(heldPath(dirFd), { withFileTypes: true })`
     * gives them, sorted ({@link Listing}); an entry the file system gives no type for is lstat'ed
     * through the held path, as Node's readdir does. Throws what that readdir throws (`syscall`
     * `scandir`, or the lstat's error).
     */
    list(dirFd: number): Listing;
    /** Native layer only: the address of `buf`'s first byte (C's `memset(p, 0, 0)` returns `p`), for read-buffer.ts. */
    addressOf?(buf: Uint8Array): bigint;
    /**
     * Native layer only, where the C library has statx(2): entry `name` of `dirFd` as
     * `fs.lstatSync` of it sees it (the same call libuv makes: links not followed, the basic
     * fields and the birth time), into `out`: mode, size, mtimeMs, birthtimeMs, ctimeMs (Node's
     * arithmetic). Returns 0, or the errno of the failure. Perf: no path string, no Stats object.
     */
    statAt?(dirFd: number, name: string, out: Float64Array): number;
    /** Native layer only, with {@link statAt}: as it, for the name at `address` (a {@link RawListing}'s, NUL-terminated). */
    statAtAddress?(dirFd: number, address: number, out: Float64Array): number;
    /** Native layer only: an empty {@link RawListing} for {@link listRaw}. */
    rawListing?(): RawListing;
    /**
     * Native layer only: the records of the held directory `dirFd` into `into`, as {@link list}
     * reads them (its errors too); false when a name is not ASCII or an entry has no type: that
     * directory is to be listed by {@link list}.
     */
    listRaw?(dirFd: number, into: RawListing): boolean;
}

/** The held-path layer: the entry's path through `/proc/<pid>/fd/N`. */
export const HELD_PATH_AT: HeldAt = {
    kind: 'held-path',
    open: (dirFd, name, flags) => fs.openSync(osPath(`${heldPath(dirFd)}/${name}`), flags),
    close: (fd) => fs.closeSync(fd),
    list: (dirFd) => listPath(heldPath(dirFd)),
};

let chosen: HeldAt | undefined;

/** This thread's layer: the native one where it loads (and {@link NATIVE_AT_VAR} is not `0`), else {@link HELD_PATH_AT}. */
export function heldAt(): HeldAt {
    return (chosen ??= process.env[NATIVE_AT_VAR] === '0' ? HELD_PATH_AT : (nativeAt() ?? HELD_PATH_AT));
}

/** This thread's layer if {@link heldAt} has chosen it already; `undefined` otherwise (nothing is loaded). */
export function chosenAt(): HeldAt | undefined {
    return chosen;
}

let native: HeldAt | null | undefined;

/** The native layer, loaded on first call; `null` where it cannot be (not Linux x86-64 or arm64, no /proc, koffi or the C library not loadable). */
export function nativeAt(): HeldAt | null {
    if (native === undefined) {
        try {
            native = loadNative();
        } catch {
            native = null;
        }
    }
    return native;
}

/** getdents64's system call number per architecture (asm-generic for arm64). */
const SYS_GETDENTS64: Partial<Record<string, number>> = { x64: 217, arm64: 61 };
/** O_CLOEXEC on Linux x86-64 and arm64 (Node's fs.constants does not name it). */
const O_CLOEXEC = 0o2000000;
const O_DIRECTORY = fs.constants.O_DIRECTORY;
const SEEK_SET = 0;
const ENOENT = os.constants.errno.ENOENT;
/** Size of the getdents64 buffer (glibc's readdir uses 32 KiB). */
const DENTS_BYTES = 64 * 1024;

/** Minimal view of koffi's API used here (its own types are not needed to build without it). */
/**
 * This worker's slot in the engine's descriptor ledger (src/fs/shared/fd-ledger.ts, given to
 * the engine's pool threads as `workerData.fdLedger`); `undefined` on the main thread and in
 * threads not started by an engine (a test runner's, the index build's), which nothing here
 * terminates mid-scan; `null` when the ledger has no free slot: the thread then keeps to the
 * held-path layer (Node closes what that opened when the worker is terminated).
 */
function ledgerSlot(): LedgerSlot | null | undefined {
    if (isMainThread) return undefined;
    const ledger = (workerData as { fdLedger?: unknown } | null | undefined)?.fdLedger;
    return ledger instanceof SharedArrayBuffer ? claimSlot(ledger) : undefined;
}

function loadNative(): HeldAt | null {
    const sysGetdents = SYS_GETDENTS64[process.arch];
    if (process.platform !== 'linux' || sysGetdents === undefined || !CAN_HOLD) return null;
    const slot = ledgerSlot();
    if (slot === null) return null;
    // Loaded and declared where the host does not terminate this thread (a termination while Node
    // registers the addon aborts the process: src/fs/shared/native-gate.ts).
    // Perf: openat(2) and syscall(2) declared with the argument types of these calls rather than
    // variadic (koffi parses the types of a variadic call's arguments on every call); integer
    // arguments are passed alike either way on x86-64 and arm64 Linux. errno is read with
    // koffi.errno() right after a failed call, before anything else runs on this thread.
    // Security: entry names come from this layer's listings, with no `/` and no NUL.
    const { koffi, openat, getdents, lseek, closeFd, memset, statAt } = nativeSection(() => {
        const k = createRequire(import.meta.url)('koffi') as Koffi;
        // The C library Node itself is linked with (glibc or musl), found through the main program.
        const libc = k.load(null);
        const memset = libc.func('uintptr_t memset(void *, int, size_t)') as (p: Uint8Array, c: number, n: number) => number | bigint;
        return {
            koffi: k,
            openat: libc.func('int openat(int, const char *, int, int)') as (dirFd: number, name: string, flags: number, mode: number) => number,
            getdents: libc.func('long syscall(long, int, void *, long)') as (nr: number, fd: number, buf: Buffer, len: number) => number | bigint,
            lseek: libc.func('long lseek(int, long, int)') as (fd: number, offset: number, whence: number) => number | bigint,
            closeFd: libc.func('int close(int)') as (fd: number) => number,
            memset,
            statAt: statAtOf(k, libc, (b) => Number(memset(b, 0, 0))),
        };
    });
    const buf = Buffer.allocUnsafe(DENTS_BYTES);

    // The descriptors open through this layer, in open order; `true` where opened natively
    // (noted in the ledger), `false` where through Node's fs (the ledger's row was full).
    const heldFds: number[] = [];
    const nativeFds: boolean[] = [];
    /** A directory just opened natively and not listed yet: at its start already (see `list`). */
    let unlisted = -1;
    const open = (dirFd: number, name: string, flags: number): number => {
        // A name that is not UTF-8 (print/shared/byte-names.ts) goes through the held path as bytes.
        if (slot?.full === true || hasEscapedBytes(name)) {
            const fd = fs.openSync(osPath(`${heldPath(dirFd)}/${name}`), flags);
            heldFds.push(fd);
            nativeFds.push(false);
            return fd;
        }
        const fd = openat(dirFd, name, flags | O_CLOEXEC, 0);
        if (fd < 0) throw systemError(koffi.errno(), 'open', `${heldPath(dirFd)}/${name}`);
        slot?.opened(fd);
        heldFds.push(fd);
        nativeFds.push(true);
        unlisted = (flags & O_DIRECTORY) !== 0 ? fd : -1;
        return fd;
    };

    const close = (fd: number): void => {
        if (fd === unlisted) unlisted = -1;
        const top = heldFds.length - 1;
        if (top >= 0 && heldFds[top] === fd) {
            heldFds.pop();
            if (!nativeFds.pop()) return fs.closeSync(fd);
            // Cleared first: a termination from here on leaves the descriptor open at worst, never
            // noted after it was closed (fd-ledger.ts).
            slot?.closing();
        } else if (heldFds.includes(fd)) {
            throw new Error(`held-at: descriptor ${fd} closed out of order (close the last one opened first)`);
        }
        // A descriptor not open through this layer (closed already: EBADF, as fs.closeSync gives).
        if (closeFd(fd) < 0) throw systemError(koffi.errno(), 'close');
    };

    const list = (dirFd: number): Listing => {
        // From the directory's start, as a new open of the held path would list it. Perf: a
        // directory this layer has just opened is there already (the walk lists each subdirectory
        // right after opening it: 5,200 lseek calls fewer per walk of the Linux tree).
        if (dirFd === unlisted) unlisted = -1;
        else if (Number(lseek(dirFd, 0, SEEK_SET)) < 0) throw systemError(koffi.errno(), 'scandir', heldPath(dirFd));
        const records = new DirentRecords();
        for (;;) {
            const got = Number(getdents(sysGetdents, dirFd, buf, buf.length));
            if (got < 0) {
                const errno = koffi.errno();
                // A removed directory answers ENOENT; the C library's readdir (so Node's) takes that
                // for its end (glibc and musl alike): it lists what was read, nothing.
                if (errno === ENOENT) break;
                throw systemError(errno, 'scandir', heldPath(dirFd));
            }
            if (got === 0) break;
            records.add(buf, got);
        }
        return records.listing(dirFd);
    };

    const listRaw = (dirFd: number, into: RawListing): boolean => {
        if (dirFd === unlisted) unlisted = -1;
        else if (Number(lseek(dirFd, 0, SEEK_SET)) < 0) throw systemError(koffi.errno(), 'scandir', heldPath(dirFd));
        into.reset();
        for (;;) {
            into.reserve();
            const got = Number(getdents(sysGetdents, dirFd, into.buf.subarray(into.used), into.buf.length - into.used));
            if (got < 0) {
                const errno = koffi.errno();
                if (errno === ENOENT) break; // as in list
                throw systemError(errno, 'scandir', heldPath(dirFd));
            }
            if (got === 0) break;
            into.used += got;
        }
        return into.parse();
    };
    const rawListing = (): RawListing => new RawListing((b) => Number(memset(b, 0, 0)));
    const addressOf = (b: Uint8Array): bigint => BigInt(memset(b, 0, 0));

    return { kind: 'native', open, close, list, addressOf, listRaw, rawListing, ...statAt };
}

/** The error Node raises for a failed system call: `CODE: description, syscall 'path'` with errno (negative), code, syscall and path. */
function systemError(errno: number, syscall: string, path?: string): NodeJS.ErrnoException {
    // Node's own fallback for an errno libuv does not map (lib/internal/errors.js, uvException).
    const [code, description] = util.getSystemErrorMap().get(-errno) ?? ['UNKNOWN', 'unknown error'];
    const err: NodeJS.ErrnoException = new Error(`${code}: ${description}, ${syscall}${path === undefined ? '' : ` '${path}'`}`);
    err.errno = -errno;
    err.code = code;
    err.syscall = syscall;
    if (path !== undefined) err.path = path;
    return err;
}
