import { closeSync, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { accessFor, allows } from '../../access/shared/contain.js';
import { AccessType, type Access } from '../../config/shared/configuration.js';
import { errors, ToolError } from '../../errors/shared/errors.js';
import { quotePath } from '../../print/shared/display.js';
import { heldRealPath, heldRealPathSync, READ_FLAGS } from './held.js';
import { isDebrisName } from './debris.js';
import { osPath } from '../../print/shared/byte-names.js';

/**
 * Safe reads: Opening and writing files so that a path swapped for a symlink between the access check and
 * the operation cannot escape the accesses (time-of-check/time-of-use). A file is read only when it is a regular file (no FIFOs or devices,
 * opened with held.ts's READ_FLAGS) and its opened descriptor is still inside the accesses.
 */

/** What the caller checked against: the real access roots, or `null` when symlink resolution is off. */
export type RealRoots = readonly Access[] | null;

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
export async function recheckOpened(fh: FileHandle, shownPath: string, realPath: string, roots: RealRoots, needed: AccessType): Promise<void> {
    if (roots === null) return;
    let actual = await heldRealPath(fh.fd);
    if (actual === undefined) {
        // Security: without /proc, compare the descriptor's identity with the checked real path.
        const [a, b] = await Promise.all([fh.stat(), fs.stat(osPath(realPath))]);
        actual = pathByIdentity(a, b, realPath);
    }
    checkOpenedInside(actual, shownPath, roots, needed);
}

/** {@link recheckOpened}, synchronously, for an open descriptor `fd`. */
function recheckOpenedSync(fd: number, shownPath: string, realPath: string, roots: RealRoots, needed: AccessType): void {
    if (roots === null) return;
    // Security: without /proc, compare the descriptor's identity with the checked real path.
    const actual = heldRealPathSync(fd) ?? pathByIdentity(fstatSync(fd), statSync(osPath(realPath)), realPath);
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


/** An opened regular file: its bytes and stat. */
export interface OpenedFile {
    bytes: Buffer;
    size: number;
    mtimeMs: number;
    mode: number;
}


/**
 * Refuses to read what `st` describes unless it is a regular file of at most `maxBytes`
 * (checked both on the path before opening and on the opened descriptor).
 * @throws ToolError (wrong_type, too_large)
 */
function checkReadable(st: Stats, shownPath: string, maxBytes: number, setting: string): void {
    if (isDebrisName(path.basename(shownPath))) {
        throw new ToolError('wrong_type', `Not read: ${quotePath(shownPath)} is a temporary file of a write by llm-chat-file (running, or interrupted); the next write in its directory removes it once its writer is gone.`);
    }
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
        pre = await fs.stat(osPath(realPath));
    } catch (err) {
        throw errors.statFailed('File', err, realPath, shownPath);
    }
    // Security: a FIFO, socket or device is never opened for reading.
    checkReadable(pre, shownPath, maxBytes, setting);
    const fh = await fs.open(osPath(realPath), READ_FLAGS);
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
        pre = await fs.stat(osPath(realPath));
    } catch (err) {
        throw errors.statFailed('File', err, realPath, shownPath);
    }
    // Security: a FIFO, socket or device is never opened for reading.
    checkReadable(pre, shownPath, Infinity, '');
    const fh = await fs.open(osPath(realPath), READ_FLAGS);
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
    const { fd, stats } = openRegularFileSync(shownPath, realPath, roots, maxBytes, setting);
    try {
        const bytes = readFileSync(fd);
        return { bytes, size: bytes.length, mtimeMs: stats.mtimeMs, mode: stats.mode };
    } finally {
        closeSync(fd);
    }
}

/**
 * The open of {@link readRegularFileSync} without the read: the same checks in the same order,
 * the same errors; the caller reads the descriptor and closes it. Only for worker threads.
 * @returns the open descriptor and its stat (size in bytes).
 * @throws ToolError (not_found, wrong_type, too_large, outside_access)
 */
export function openRegularFileSync(shownPath: string, realPath: string, roots: RealRoots, maxBytes: number, setting = 'maxFileSize'): { fd: number; stats: Stats } {
    let pre;
    try {
        pre = statSync(osPath(realPath));
    } catch (err) {
        throw errors.statFailed('File', err, realPath, shownPath);
    }
    // Security: a FIFO, socket or device is never opened for reading.
    checkReadable(pre, shownPath, maxBytes, setting);
    const fd = openSync(osPath(realPath), READ_FLAGS);
    try {
        const stats = fstatSync(fd);
        checkReadable(stats, shownPath, maxBytes, setting);
        recheckOpenedSync(fd, shownPath, realPath, roots, AccessType.Read);
        return { fd, stats };
    } catch (err) {
        closeSync(fd);
        throw err;
    }
}
