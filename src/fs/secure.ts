import { randomBytes } from 'node:crypto';
import { constants as C } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { accessFor, allows } from '../access/contain.js';
import { AccessType, type Access } from '../config/configuration.js';
import { errors, ToolError } from '../errors.js';

/**
 * Opening and writing files so that a path swapped for a symlink between the access check and
 * the operation cannot escape the accesses (time-of-check/time-of-use).
 */

/** What the caller checked against: the real access roots, or `null` when symlink resolution is off. */
export type RealRoots = readonly Access[] | null;

/** The real path of an open file descriptor (Linux `/proc/self/fd`), or `undefined` elsewhere. */
async function fdPath(fh: FileHandle): Promise<string | undefined> {
    try {
        return await fs.readlink(`/proc/self/fd/${fh.fd}`);
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
        if (a.dev !== b.dev || a.ino !== b.ino) actual = '';
        else actual = realPath;
    }
    if (!allows(accessFor(actual, roots), needed)) {
        throw errors.outsideAccess(shownPath, needed === AccessType.Write ? 'write' : 'read', ' It changed into a link to outside while being opened.');
    }
}

/** An opened regular file: its bytes and stat. */
export interface OpenedFile {
    bytes: Buffer;
    size: number;
    mtimeMs: number;
    mode: number;
}

/**
 * Reads a regular file safely: never opens FIFOs, sockets or devices (a FIFO would block), opens
 * without blocking and re-checks the opened descriptor's real path.
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
        throw errors.notFound('File', err instanceof Error ? err.message.replace(realPath, shownPath) : String(err));
    }
    // Security: a FIFO, socket or device is never opened for reading.
    if (!pre.isFile()) throw errors.wrongType(shownPath, 'file', entryKind(pre));
    if (pre.size > maxBytes) throw errors.tooLarge(shownPath, pre.size, maxBytes, setting);
    const fh = await fs.open(realPath, C.O_RDONLY | C.O_NONBLOCK | C.O_NOCTTY);
    try {
        const st = await fh.stat();
        if (!st.isFile()) throw errors.wrongType(shownPath, 'file', entryKind(st));
        if (st.size > maxBytes) throw errors.tooLarge(shownPath, st.size, maxBytes, setting);
        await recheckOpened(fh, shownPath, realPath, roots, AccessType.Read);
        const bytes = await fh.readFile();
        return { bytes, size: bytes.length, mtimeMs: st.mtimeMs, mode: st.mode };
    } finally {
        await fh.close();
    }
}

/**
 * Writes `data` to `realPath` atomically: a temporary file in the same (verified) directory,
 * synced, given the old file's mode, then renamed over the target. A crash leaves either the old
 * or the new content, never half of it.
 * @param mode - permission bits for a new file; an existing file keeps its own.
 * @throws ToolError when the directory is not writable or changed into a link to outside.
 */
export async function writeFileAtomic(shownPath: string, realPath: string, data: Buffer, roots: RealRoots): Promise<void> {
    const dir = path.dirname(realPath);
    let mode = 0o666;
    try {
        const st = await fs.lstat(realPath);
        if (st.isDirectory()) throw errors.wrongType(shownPath, 'file', 'directory');
        if (!st.isFile() && !st.isSymbolicLink()) throw errors.wrongType(shownPath, 'file', entryKind(st));
        if (st.isFile()) mode = st.mode & 0o7777;
    } catch (err) {
        if (err instanceof ToolError) throw err;
    }
    const tmp = path.join(dir, `.${path.basename(realPath)}.${randomBytes(6).toString('hex')}.tmp`);
    // Security: O_EXCL never follows or reuses an existing entry at the temporary name.
    const fh = await fs.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode);
    let renamed = false;
    try {
        try {
            await recheckOpened(fh, shownPath, tmp, roots, AccessType.Write);
            await fh.writeFile(data);
            await fh.chmod(mode);
            await fh.sync();
        } finally {
            await fh.close();
        }
        await fs.rename(tmp, realPath);
        renamed = true;
    } finally {
        if (!renamed) await fs.unlink(tmp).catch(() => undefined);
    }
}
