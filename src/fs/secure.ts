import { randomBytes } from 'node:crypto';
import { closeSync, constants as C, fstatSync, openSync, readFileSync, readlinkSync, statSync, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { accessFor, allows } from '../access/contain.js';
import { AccessType, type Access } from '../config/configuration.js';
import { errorCode, errors, ToolError } from '../errors.js';

/**
 * Opening and writing files so that a path swapped for a symlink between the access check and
 * the operation cannot escape the accesses (time-of-check/time-of-use).
 */

/** What the caller checked against: the real access roots, or `null` when symlink resolution is off. */
export type RealRoots = readonly Access[] | null;

/** The link naming an open descriptor (Linux), whose target is the descriptor's real path. */
function fdLink(fd: number): string {
    return `/proc/self/fd/${fd}`;
}

/** The real path of an open file descriptor (Linux `/proc/self/fd`), or `undefined` elsewhere. */
async function fdPath(fh: FileHandle): Promise<string | undefined> {
    try {
        return await fs.readlink(fdLink(fh.fd));
    } catch {
        return undefined;
    }
}

/** {@link fdPath}, synchronously. */
function fdPathSync(fd: number): string | undefined {
    try {
        return readlinkSync(fdLink(fd));
    } catch {
        return undefined;
    }
}

/** Kind of a non-regular entry, for messages. */
export function entryKind(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSymbolicLink(): boolean }): string {
    if (st.isDirectory()) return 'directory';
    if (st.isFIFO()) return 'FIFO (named pipe)';
    if (st.isSocket()) return 'socket';
    if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
    if (st.isSymbolicLink()) return 'symlink';
    return 'file';
}

/**
 * Re-checks, after opening, that the descriptor really is inside an access allowing `needed`.
 * @throws ToolError (outside_access) when the file was swapped for a link out of the accesses.
 */
async function recheckOpened(fh: FileHandle, shownPath: string, realPath: string, roots: RealRoots, needed: AccessType): Promise<void> {
    if (roots === null) return;
    let actual = await fdPath(fh);
    if (actual === undefined) {
        // Security: without /proc, compare the descriptor's identity with the checked real path.
        const [a, b] = await Promise.all([fh.stat(), fs.stat(realPath)]);
        actual = pathByIdentity(a, b, realPath);
    }
    checkOpenedInside(actual, shownPath, roots, needed);
}

/** {@link recheckOpened}, synchronously, for an open descriptor `fd`. */
function recheckOpenedSync(fd: number, shownPath: string, realPath: string, roots: RealRoots, needed: AccessType): void {
    if (roots === null) return;
    // Security: without /proc, compare the descriptor's identity with the checked real path.
    const actual = fdPathSync(fd) ?? pathByIdentity(fstatSync(fd), statSync(realPath), realPath);
    checkOpenedInside(actual, shownPath, roots, needed);
}

/**
 * The checked real path when the opened descriptor (`opened`) is the same file as `realPath`
 * (`checked`), else `''` (inside no access).
 */
function pathByIdentity(opened: Stats, checked: Stats, realPath: string): string {
    return opened.dev === checked.dev && opened.ino === checked.ino ? realPath : '';
}

/**
 * The decision of {@link recheckOpened}: `actual`, the opened descriptor's real path, must be
 * inside an access allowing `needed`.
 * @throws ToolError (outside_access)
 */
function checkOpenedInside(actual: string, shownPath: string, roots: readonly Access[], needed: AccessType): void {
    if (!allows(accessFor(actual, roots), needed)) {
        throw errors.outsideAccess(shownPath, needed === AccessType.Write ? 'write' : 'read', ' It changed into a link to outside while being opened.');
    }
}

/**
 * A directory held open, with a path that names the opened directory itself: on Linux
 * `/proc/self/fd/N`, so operations through it act inside that directory even if its original
 * path is swapped for a link meanwhile (the `*at` system calls Node does not expose). Elsewhere
 * its real path, after an identity check (a narrower window).
 */
export interface HeldDirectory {
    /** The path to use for the directory. */
    readonly path: string;
    /** `path` joined with an entry name. */
    join(name: string): string;
    close(): Promise<void>;
}

let procFdUsable: boolean | undefined;

/** A path naming what `fh` refers to, immune to renames and swaps: `/proc/self/fd/N` on Linux. */
async function anchorOf(fh: FileHandle): Promise<string | undefined> {
    procFdUsable ??= await fs.access('/proc/self/fd').then(() => true, () => false);
    return procFdUsable ? `/proc/self/fd/${fh.fd}` : undefined;
}

function held(fh: FileHandle | undefined, dirPath: string): HeldDirectory {
    return { path: dirPath, join: (name) => path.join(dirPath, name), close: async () => fh?.close() };
}

/** Opens `dirPath` as a directory without following a final symlink; a link or a file there is refused. */
async function openDirNoFollow(dirPath: string, shownPath: string, needed: AccessType): Promise<FileHandle> {
    try {
        return await fs.open(dirPath, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
    } catch (err) {
        const code = errorCode(err);
        if (code === 'ELOOP') throw changedIntoLink(shownPath, needed);
        if (code === 'ENOTDIR') throw new ToolError('wrong_type', `Not a directory: a component of ${shownPath} is a file (or changed into a link); nothing was changed.`);
        throw err;
    }
}

function changedIntoLink(shownPath: string, needed: AccessType): ToolError {
    return errors.outsideAccess(shownPath, needed === AccessType.Write ? 'write' : 'read', ' A directory on its path changed into a link while being opened; nothing was changed.');
}

/**
 * Opens the checked real directory `dirReal` and proves it is the directory that was checked,
 * then returns a {@link HeldDirectory} to act through. With `create`, missing directories are
 * made one at a time, each inside the one held before (`mkdir -p` that cannot be redirected).
 * With symlink resolution off (`roots === null`) links are followed by policy: the plain path.
 * @throws ToolError (not_found, wrong_type, outside_access when a path component was swapped for a link)
 */
export async function holdDirectory(
    shownPath: string,
    dirReal: string,
    roots: RealRoots,
    needed: AccessType,
    opts: { create?: boolean } = {},
): Promise<HeldDirectory> {
    if (roots === null) {
        if (opts.create) await mkdirs(dirReal, shownPath);
        return held(undefined, dirReal);
    }
    // The nearest existing ancestor, and the components to create below it.
    let existing = dirReal;
    const missing: string[] = [];
    for (;;) {
        try {
            await fs.lstat(existing);
            break;
        } catch (err) {
            if (errorCode(err) === 'ENOTDIR') throw new ToolError('wrong_type', `Not a directory: a component of ${shownPath} is a file; nothing was changed.`);
            if (errorCode(err) !== 'ENOENT') throw err;
            if (!opts.create) throw errors.notFound('Path', `ENOENT: no such file or directory: ${shownPath}`);
            missing.unshift(path.basename(existing));
            const parent = path.dirname(existing);
            if (parent === existing) break;
            existing = parent;
        }
    }
    let fh = await openDirNoFollow(existing, shownPath, needed);
    try {
        let anchor = await anchorOf(fh);
        // Security: the directory opened must be the one checked (real paths have no links, so a
        // different path means a component was swapped for a link or renamed since the check).
        if (anchor !== undefined) {
            if ((await fs.readlink(anchor)) !== existing) throw changedIntoLink(shownPath, needed);
        } else {
            const [a, b] = await Promise.all([fh.stat(), fs.lstat(existing)]);
            if (a.dev !== b.dev || a.ino !== b.ino) throw changedIntoLink(shownPath, needed);
        }
        let plain = existing;
        for (const name of missing) {
            const here = path.join(anchor ?? plain, name);
            await fs.mkdir(here).catch((err: unknown) => {
                if (errorCode(err) !== 'EEXIST') throw err;
            });
            const child = await openDirNoFollow(here, shownPath, needed);
            await fh.close();
            fh = child;
            plain = path.join(plain, name);
            anchor = await anchorOf(fh);
        }
        return held(fh, anchor ?? plain);
    } catch (err) {
        await fh.close();
        throw err;
    }
}

/**
 * Opens the subdirectory `name` of a held directory without following a link there: a
 * subdirectory swapped for a link since it was listed is refused, not followed.
 * @throws ToolError (outside_access, wrong_type) or the system error (ENOENT, EACCES)
 */
export async function holdSubdirectory(parent: HeldDirectory, name: string): Promise<HeldDirectory> {
    const target = parent.join(name);
    const fh = await openDirNoFollow(target, target, AccessType.Read);
    return held(fh, (await anchorOf(fh)) ?? target);
}

async function mkdirs(dir: string, shownPath: string): Promise<void> {
    try {
        await fs.mkdir(dir, { recursive: true });
    } catch (err) {
        if (errorCode(err) === 'EEXIST' || errorCode(err) === 'ENOTDIR') {
            throw new ToolError('wrong_type', `Cannot create ${shownPath}: a file is in the way on its path.`);
        }
        throw err;
    }
}

/**
 * Removes the entry `name` of the held directory `dir`, recursively for a directory, never
 * following a link: each subdirectory is opened without following links and emptied through its
 * own descriptor, so a subdirectory swapped for a link meanwhile cannot redirect the removal.
 */
export async function removeTree(dir: HeldDirectory, name: string): Promise<void> {
    const target = dir.join(name);
    const st = await fs.lstat(target);
    if (!st.isDirectory()) return fs.unlink(target);
    // Security: opened with O_NOFOLLOW: a link put in its place is refused, not followed.
    const fh = await openDirNoFollow(target, target, AccessType.Write);
    try {
        const anchor = await anchorOf(fh);
        if (anchor === undefined) {
            await fs.rm(target, { recursive: true });
            return;
        }
        const inner = held(undefined, anchor);
        for (const entry of await fs.readdir(anchor)) await removeTree(inner, entry);
    } finally {
        await fh.close();
    }
    await fs.rmdir(target);
}

/** An opened regular file: its bytes and stat. */
export interface OpenedFile {
    bytes: Buffer;
    size: number;
    mtimeMs: number;
    mode: number;
}

/**
 * How a safe read opens a file: read-only, without blocking (a FIFO swapped in after the stat
 * does not wait for a writer; the fstat after opening then refuses it) and without making a
 * terminal the controlling one.
 */
const READ_FLAGS = C.O_RDONLY | C.O_NONBLOCK | C.O_NOCTTY;

/**
 * Refuses to read what `st` describes unless it is a regular file of at most `maxBytes`
 * (checked both on the path before opening and on the opened descriptor).
 * @throws ToolError (wrong_type, too_large)
 */
function checkReadable(st: Stats, shownPath: string, maxBytes: number, setting: string): void {
    if (!st.isFile()) throw errors.wrongType(shownPath, 'file', entryKind(st));
    if (st.size > maxBytes) throw errors.tooLarge(shownPath, st.size, maxBytes, setting);
}

/**
 * Reads a regular file safely: never opens FIFOs, sockets or devices (a FIFO would block), opens
 * without blocking and re-checks the opened descriptor's real path.
 * For the main thread; worker threads use {@link readRegularFileSync} (same checks and errors).
 * @param maxBytes - refuse files larger than this many bytes (too_large names `setting`).
 * @throws ToolError (not_found, wrong_type, too_large, outside_access)
 */
export async function readRegularFile(
    shownPath: string,
    realPath: string,
    roots: RealRoots,
    maxBytes: number,
    setting = 'maxFileSize',
): Promise<OpenedFile> {
    let pre;
    try {
        pre = await fs.stat(realPath);
    } catch (err) {
        throw errors.statFailed('File', err, realPath, shownPath);
    }
    // Security: a FIFO, socket or device is never opened for reading.
    checkReadable(pre, shownPath, maxBytes, setting);
    const fh = await fs.open(realPath, READ_FLAGS);
    try {
        const st = await fh.stat();
        checkReadable(st, shownPath, maxBytes, setting);
        await recheckOpened(fh, shownPath, realPath, roots, AccessType.Read);
        const bytes = await fh.readFile();
        return { bytes, size: bytes.length, mtimeMs: st.mtimeMs, mode: st.mode };
    } finally {
        await fh.close();
    }
}

/**
 * Opens a regular file of any size for streaming, with the checks of {@link readRegularFile}
 * but no size limit: no FIFO, socket or device; the opened descriptor's real path re-checked.
 * The caller closes the handle.
 * @returns the open handle and the file's size in bytes.
 * @throws ToolError (not_found, wrong_type, outside_access)
 */
export async function openRegularFile(shownPath: string, realPath: string, roots: RealRoots): Promise<{ handle: FileHandle; size: number }> {
    let pre;
    try {
        pre = await fs.stat(realPath);
    } catch (err) {
        throw errors.statFailed('File', err, realPath, shownPath);
    }
    // Security: a FIFO, socket or device is never opened for reading.
    checkReadable(pre, shownPath, Infinity, '');
    const fh = await fs.open(realPath, READ_FLAGS);
    try {
        const st = await fh.stat();
        checkReadable(st, shownPath, Infinity, '');
        await recheckOpened(fh, shownPath, realPath, roots, AccessType.Read);
        return { handle: fh, size: st.size };
    } catch (err) {
        await fh.close();
        throw err;
    }
}

/**
 * {@link readRegularFile} with synchronous I/O: the same checks in the same order, the same
 * errors. Only for worker threads, where blocking stops that worker alone; on the main thread
 * it would block the event loop.
 * @throws ToolError (not_found, wrong_type, too_large, outside_access)
 */
export function readRegularFileSync(shownPath: string, realPath: string, roots: RealRoots, maxBytes: number, setting = 'maxFileSize'): OpenedFile {
    let pre;
    try {
        pre = statSync(realPath);
    } catch (err) {
        throw errors.statFailed('File', err, realPath, shownPath);
    }
    // Security: a FIFO, socket or device is never opened for reading.
    checkReadable(pre, shownPath, maxBytes, setting);
    const fd = openSync(realPath, READ_FLAGS);
    try {
        const st = fstatSync(fd);
        checkReadable(st, shownPath, maxBytes, setting);
        recheckOpenedSync(fd, shownPath, realPath, roots, AccessType.Read);
        const bytes = readFileSync(fd);
        return { bytes, size: bytes.length, mtimeMs: st.mtimeMs, mode: st.mode };
    } finally {
        closeSync(fd);
    }
}

/**
 * Writes `data` to `realPath` atomically: a temporary file in the same (verified) directory,
 * synced, given the old file's mode, then renamed over the target. A crash leaves either the old
 * or the new content, never half of it.
 * An existing file keeps its mode; a new file gets 0o666 less the process umask.
 * @throws ToolError when the directory is not writable or changed into a link to outside.
 */
export async function writeFileAtomic(shownPath: string, realPath: string, data: Buffer, roots: RealRoots): Promise<void> {
    // Security: every step goes through the held (verified) directory, so a parent directory
    // swapped for a link after the check cannot send the temporary file or the rename outside.
    const dir = await holdDirectory(shownPath, path.dirname(realPath), roots, AccessType.Write);
    try {
        const target = dir.join(path.basename(realPath));
        // An existing file keeps its mode; a new one gets 0o666 less the umask, as any new file does.
        let keptMode: number | undefined;
        try {
            const st = await fs.lstat(target);
            if (st.isDirectory()) throw errors.wrongType(shownPath, 'file', 'directory');
            if (!st.isFile() && !st.isSymbolicLink()) throw errors.wrongType(shownPath, 'file', entryKind(st));
            if (st.isFile()) keptMode = st.mode & 0o7777;
        } catch (err) {
            if (err instanceof ToolError) throw err;
        }
        const mode = keptMode ?? 0o666;
        const tmp = dir.join(`.${path.basename(realPath)}.${randomBytes(6).toString('hex')}.tmp`);
        // Security: O_EXCL never follows or reuses an existing entry at the temporary name.
        const fh = await fs.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode);
        let renamed = false;
        try {
            try {
                await recheckOpened(fh, shownPath, tmp, roots, AccessType.Write);
                await fh.writeFile(data);
                // Security: chmod ignores the umask, so only an existing file's own mode is set explicitly
                // (a new file chmod'ed to 0o666 would be world-writable).
                if (keptMode !== undefined) await fh.chmod(keptMode);
                await fh.sync();
            } finally {
                await fh.close();
            }
            await fs.rename(tmp, target);
            renamed = true;
        } finally {
            if (!renamed) await fs.unlink(tmp).catch(() => undefined);
        }
    } finally {
        await dir.close();
    }
}
