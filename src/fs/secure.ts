import { closeSync, constants as C, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { accessFor, allows } from '../access/contain.js';
import { AccessType, type Access } from '../config/configuration.js';
import { errorCode, errors, toToolError, ToolError } from '../errors.js';
import { quotePath } from '../tools/display.js';
import { CAN_HOLD, heldPath, heldRealPath, heldRealPathSync, isHeldPath, READ_FLAGS } from './held.js';
import { debrisKind, debrisName, isDebrisName, isStaleDebris } from './debris.js';

/**
 * Opening and writing files so that a path swapped for a symlink between the access check and
 * the operation cannot escape the accesses (time-of-check/time-of-use).
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
async function recheckOpened(fh: FileHandle, shownPath: string, realPath: string, roots: RealRoots, needed: AccessType): Promise<void> {
    if (roots === null) return;
    let actual = await heldRealPath(fh.fd);
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
    const actual = heldRealPathSync(fd) ?? pathByIdentity(fstatSync(fd), statSync(realPath), realPath);
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

/** The held path of `fh` where descriptors can be held (see held.ts). */
function heldPathOf(fh: FileHandle): string | undefined {
    return CAN_HOLD ? heldPath(fh.fd) : undefined;
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
        if (code === 'ENOTDIR') throw new ToolError('wrong_type', `Not a directory: a component of ${quotePath(shownPath)} is a file (or changed into a link); nothing was changed.`);
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
            if (errorCode(err) === 'ENOTDIR') throw new ToolError('wrong_type', `Not a directory: a component of ${quotePath(shownPath)} is a file; nothing was changed.`);
            if (errorCode(err) !== 'ENOENT') throw err;
            if (!opts.create) throw errors.notFound('Path', `ENOENT: no such file or directory: ${quotePath(shownPath)}`);
            missing.unshift(path.basename(existing));
            const parent = path.dirname(existing);
            if (parent === existing) break;
            existing = parent;
        }
    }
    let fh = await openDirNoFollow(existing, shownPath, needed);
    try {
        let heldAt = heldPathOf(fh);
        // Security: the directory opened must be the one checked (real paths have no links, so a
        // different path means a component was swapped for a link or renamed since the check).
        if (heldAt !== undefined) {
            if ((await fs.readlink(heldAt)) !== existing) throw changedIntoLink(shownPath, needed);
        } else {
            const [a, b] = await Promise.all([fh.stat(), fs.lstat(existing)]);
            if (a.dev !== b.dev || a.ino !== b.ino) throw changedIntoLink(shownPath, needed);
        }
        let plain = existing;
        for (const name of missing) {
            const here = path.join(heldAt ?? plain, name);
            await fs.mkdir(here).catch((err: unknown) => {
                if (errorCode(err) !== 'EEXIST') throw err;
            });
            const child = await openDirNoFollow(here, shownPath, needed);
            await fh.close();
            fh = child;
            plain = path.join(plain, name);
            heldAt = heldPathOf(fh);
        }
        return held(fh, heldAt ?? plain);
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
    return held(fh, heldPathOf(fh) ?? target);
}

async function mkdirs(dir: string, shownPath: string): Promise<void> {
    try {
        await fs.mkdir(dir, { recursive: true });
    } catch (err) {
        if (errorCode(err) === 'EEXIST' || errorCode(err) === 'ENOTDIR') {
            throw new ToolError('wrong_type', `Cannot create ${quotePath(shownPath)}: a file is in the way on its path.`);
        }
        throw err;
    }
}

/**
 * A position in a depth-first walk that holds at most two directory descriptors whatever the
 * depth (one while standing, two for a moment while moving), instead of one per level: a tree
 * 5,000 levels deep is walked under `ulimit -n 64`. Going down opens the child through the held
 * directory without following a link; going up opens `..` of the held directory and proves it
 * is the directory left (same device and inode), as fts(3) does, so a directory moved elsewhere
 * meanwhile stops the walk instead of sending it somewhere else.
 * Without `/proc/self/fd` (or with symlink resolution off) it walks plain paths, holding nothing.
 */
export class DirectoryCursor {
    #dir: HeldDirectory;
    readonly #held: boolean;
    /** Device and inode of each directory above the current one, up to where the walk started. */
    readonly #above: { dev: number; ino: number }[] = [];
    /** Device and inode of the current directory, when known. */
    #here: { dev: number; ino: number } | undefined;

    private constructor(dir: HeldDirectory) {
        this.#dir = dir;
        this.#held = isHeldPath(dir.path);
    }

    /** A cursor at `dir`; it owns `dir` from now on (closes it when it moves or closes). */
    static at(dir: HeldDirectory): DirectoryCursor {
        return new DirectoryCursor(dir);
    }

    /** The current directory's path to act through; see {@link HeldDirectory.path}. */
    get path(): string {
        return this.#dir.path;
    }

    /** `path` joined with an entry name. */
    join(name: string): string {
        return this.#dir.join(name);
    }

    /** How many levels below its start the cursor is. */
    get depth(): number {
        return this.#above.length;
    }

    /**
     * Moves into the subdirectory `name` (never through a link). `known`: its lstat, when the
     * caller has it (saves a call per level; were it stale, going back up would stop the walk).
     * @throws ToolError (outside_access, wrong_type) or the system error; the cursor stays where it was.
     */
    async descend(name: string, known?: { dev: number; ino: number }): Promise<void> {
        if (!this.#held) {
            this.#above.push({ dev: 0, ino: 0 });
            this.#dir = held(undefined, this.#dir.join(name));
            return;
        }
        const here = this.#here ?? (await fs.stat(this.#dir.path));
        const child = await holdSubdirectory(this.#dir, name);
        await this.#dir.close();
        this.#dir = child;
        this.#above.push({ dev: here.dev, ino: here.ino });
        this.#here = known && { dev: known.dev, ino: known.ino };
    }

    /**
     * Moves back to the parent directory.
     * @throws ToolError (io) when the directory was moved during the walk (its `..` is another directory).
     */
    async ascend(): Promise<void> {
        const expected = this.#above.pop();
        if (expected === undefined) throw new Error('DirectoryCursor.ascend above its start');
        if (!this.#held) {
            this.#dir = held(undefined, path.dirname(this.#dir.path));
            return;
        }
        // Not path.join, which would normalize the `..` away.
        const fh = await fs.open(`${this.#dir.path}/..`, C.O_RDONLY | C.O_DIRECTORY);
        const st = await fh.stat().catch(async (err: unknown) => {
            await fh.close();
            throw err;
        });
        if (st.dev !== expected.dev || st.ino !== expected.ino) {
            await fh.close();
            throw new ToolError('io', 'A directory was moved while it was being walked; the walk stopped there.');
        }
        await this.#dir.close();
        this.#dir = held(fh, heldPathOf(fh) ?? path.dirname(this.#dir.path));
        this.#here = expected;
    }

    async close(): Promise<void> {
        await this.#dir.close();
    }
}

/** A recursive delete that stopped part way; `entry` is the failure on the entry it stopped at. */
export class PartialRemoval extends ToolError {
    constructor(
        readonly entry: ToolError,
        message: string,
    ) {
        super(entry.kind, message);
    }
}

/**
 * Removes the entry `name` of the held directory `dir`, recursively for a directory, never
 * following a link: each subdirectory is opened without following links and emptied through its
 * own descriptor, so a subdirectory swapped for a link meanwhile cannot redirect the removal.
 * Open descriptors stay bounded whatever the depth ({@link DirectoryCursor}).
 * @throws ToolError naming the first entry that could not be removed (relative to `shownPath`)
 *   and its cause; what was removed before stays removed.
 */
export async function removeTree(dir: HeldDirectory, name: string, shownPath = name): Promise<void> {
    const target = dir.join(name);
    const st = await fs.lstat(target);
    if (!st.isDirectory()) return fs.unlink(target);
    let removed = 0;
    let where = shownPath;
    const fail = (err: unknown): never => {
        if (err instanceof ToolError) throw err;
        const cause = toToolError(err, where);
        throw new PartialRemoval(cause, `Could not delete all of ${quotePath(shownPath)}: ${cause.message} ${removed} entries inside it were removed before that; the rest is still there.`);
    };
    // Security: opened with O_NOFOLLOW: a link put in its place is refused, not followed.
    const start = await holdSubdirectory(dir, name).catch(fail);
    const cursor = DirectoryCursor.at(start);
    try {
        if (!isHeldPath(start.path)) {
            await fs.rm(target, { recursive: true }).catch(fail);
            return;
        }
        const empty = async (rel: string): Promise<void> => {
            for (const entry of await fs.readdir(cursor.path)) {
                where = `${rel}/${entry}`;
                const at = cursor.join(entry);
                const est = await fs.lstat(at);
                if (est.isDirectory()) {
                    await cursor.descend(entry, est);
                    try {
                        await empty(`${rel}/${entry}`);
                    } finally {
                        await cursor.ascend();
                    }
                    where = `${rel}/${entry}`;
                    await fs.rmdir(cursor.join(entry));
                } else {
                    await fs.unlink(at);
                }
                removed++;
            }
        };
        await empty(shownPath).catch(fail);
    } finally {
        await cursor.close();
    }
    where = shownPath;
    await fs.rmdir(target).catch(fail);
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

/** What a write did, beyond writing the bytes. */
export interface WriteOutcome {
    /** The file existed and was rewritten in place (owner, group, mode, attributes and links kept). */
    inPlace: boolean;
    /** Hard links of the file (names in the filesystem); above 1, every name shows the new content. */
    links: number;
}

/** First line of a backup file: a marker and the JSON-quoted name of the file it belongs to. */
const BACKUP_MAGIC = 'llm-chat-file backup of ';

/** Writes all of `data` at `position` through `fh` (a short write is continued). */
async function writeAll(fh: FileHandle, data: Uint8Array, position: number): Promise<void> {
    let done = 0;
    while (done < data.length) {
        const { bytesWritten } = await fh.write(data, done, data.length - done, position + done);
        if (bytesWritten === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
        done += bytesWritten;
    }
}

/** Replaces the whole content of the open file `fh` with `data`, in place, and syncs it. */
async function overwrite(fh: FileHandle, data: Uint8Array): Promise<void> {
    await writeAll(fh, data, 0);
    await fh.truncate(data.length);
    await fh.sync();
}

/**
 * Writes `data` as the whole content of the file at `realPath`, like a careful editor.
 *
 * - A new file: written to a temporary file in the same (held, verified) directory, synced, then
 *   renamed into place; it gets mode 0o666 less the umask, owner and group of the process.
 * - An existing regular file that a replacement keeps whole (one link, no extended attributes or
 *   ACLs, owner and group the process can give): written the same way, the temporary file given
 *   the file's owner, group and mode before the rename, so readers see the old or the new
 *   content, never a mix.
 * - Any other existing regular file (hard links, extended attributes or ACLs, another owner the
 *   process may not give, a bind mount on the file where rename gives EBUSY, or no way to see
 *   attributes): rewritten in place through a descriptor, which keeps owner, group, mode,
 *   attributes, links and mounts by construction. Against a torn file the old content is first
 *   copied to a backup next to it (synced) and removed only after the new content is synced; a
 *   failed write puts the old content back before it reports. A crash in between leaves the
 *   backup, which the next write in that directory restores onto the file.
 * - A file without any write permission bit (mode 0444) is refused, as are files the process may
 *   not open for writing (permission denied, immutable, read-only filesystem): nothing changes.
 *
 * Before writing, the directory's stale temporary files (their writer gone) are removed; a stale
 * backup of this very file is restored and the write refused (its basis was a torn file).
 * @returns whether the file was rewritten in place and its number of hard links.
 * @throws ToolError (not_writable for a read-only file, changed_since_read, wrong_type, io with
 *   the cause: permission denied, no space left, read-only filesystem, busy).
 */
export async function writeFileSafely(shownPath: string, realPath: string, data: Buffer, roots: RealRoots): Promise<WriteOutcome> {
    // Security: every step goes through the held (verified) directory, so a parent directory
    // swapped for a link after the check cannot send the temporary file or the rename outside.
    const dir = await holdDirectory(shownPath, path.dirname(realPath), roots, AccessType.Write);
    try {
        const name = path.basename(realPath);
        if ((await cleanStaleDebris(dir)).has(name)) {
            throw new ToolError(
                'changed_since_read',
                `File changed since it was last read: ${quotePath(shownPath)} was restored from the backup of an interrupted earlier write; nothing else was changed. Call read_file again and redo the edit on the current content.`,
            );
        }
        const target = dir.join(name);
        let st: Stats | undefined;
        try {
            st = await fs.lstat(target);
        } catch (err) {
            if (errorCode(err) !== 'ENOENT') throw toToolError(err, shownPath);
        }
        if (st?.isDirectory()) throw errors.wrongType(shownPath, 'file', 'directory');
        if (st !== undefined && !st.isFile() && !st.isSymbolicLink()) throw errors.wrongType(shownPath, 'file', entryKind(st));
        if (st?.isFile()) {
            // A file nobody may write is read-only by intent; root, who could, does not override it.
            if ((st.mode & 0o222) === 0) throw errors.readOnlyFile(shownPath, st.mode);
            // As an editor would: a file the process may not write is not replaced either.
            await fs.access(target, C.W_OK).catch((err: unknown) => {
                throw toToolError(err, shownPath);
            });
            if (await keptByReplacing(target, st)) {
                if (await writeNew(dir, name, shownPath, data, roots, st)) return { inPlace: false, links: 1 };
            }
            return await writeInPlace(dir, name, shownPath, data, roots);
        }
        await writeNew(dir, name, shownPath, data, roots);
        return { inPlace: false, links: 1 };
    } finally {
        await dir.close();
    }
}

/** The extended-attribute API (a native package); `null` where it cannot load. */
let xattrApi: Promise<typeof import('@napi-rs/xattr') | null> | undefined;

/**
 * Whether replacing the existing file `st` at `target` by a new one (rename) keeps all it has:
 * one link only, and no extended attributes (ACLs are stored as attributes). Owner, group and
 * mode are given to the new file before the rename (see {@link writeNew}).
 */
async function keptByReplacing(target: string, st: Stats): Promise<boolean> {
    if (st.nlink !== 1) return false;
    xattrApi ??= import('@napi-rs/xattr').then((m) => m, () => null);
    const api = await xattrApi;
    if (api === null) return false;
    try {
        return (await api.listAttributes(target)).length === 0;
    } catch {
        return false;
    }
}

/**
 * Writes `data` to a temporary file next to `name` and renames it over `name`. With `like` (the
 * existing file's stat), the temporary file first gets its owner, group and mode.
 * @returns `false` when `like` is given and the replacement cannot keep them (the process may
 *   not give that owner or group, or rename is refused with EBUSY/EXDEV, as on a bind-mounted
 *   file): nothing was changed and the caller writes in place instead.
 */
async function writeNew(dir: HeldDirectory, name: string, shownPath: string, data: Buffer, roots: RealRoots, like?: Stats): Promise<boolean> {
    const tmp = dir.join(debrisName(name, 'tmp'));
    let renamed = false;
    try {
        // Security: O_EXCL never follows or reuses an existing entry at the temporary name; 0o600
        // until the file's own mode is set, so the new content is never more exposed than the old.
        const fh = await fs.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, like ? 0o600 : 0o666);
        try {
            await recheckOpened(fh, shownPath, tmp, roots, AccessType.Write);
            if (like !== undefined) {
                const mine = await fh.stat();
                if (mine.uid !== like.uid || mine.gid !== like.gid) {
                    const given = await fh.chown(like.uid, like.gid).then(() => true, () => false);
                    if (!given) return false;
                }
                // After chown, which clears set-user-ID and set-group-ID bits. chmod ignores the umask.
                await fh.chmod(like.mode & 0o7777);
            }
            await writeAll(fh, data, 0);
            await fh.sync();
        } finally {
            await fh.close();
        }
        try {
            await fs.rename(tmp, dir.join(name));
        } catch (err) {
            const code = errorCode(err);
            if (like !== undefined && (code === 'EBUSY' || code === 'EXDEV')) return false;
            throw err;
        }
        renamed = true;
        return true;
    } catch (err) {
        throw toToolError(err, shownPath);
    } finally {
        if (!renamed) await fs.unlink(tmp).catch(() => undefined);
    }
}

/** An existing regular file: in place, guarded by a synced backup of its old content. */
async function writeInPlace(dir: HeldDirectory, name: string, shownPath: string, data: Buffer, roots: RealRoots): Promise<WriteOutcome> {
    let fh: FileHandle;
    try {
        // Security: O_NOFOLLOW: a link swapped in after the lstat is refused, not written through.
        fh = await fs.open(dir.join(name), C.O_RDWR | C.O_NOFOLLOW | C.O_NONBLOCK | C.O_NOCTTY);
    } catch (err) {
        throw errorCode(err) === 'ELOOP' ? changedIntoLink(shownPath, AccessType.Write) : toToolError(err, shownPath);
    }
    try {
        const opened = await fh.stat();
        if (!opened.isFile()) throw errors.wrongType(shownPath, 'file', entryKind(opened));
        await recheckOpened(fh, shownPath, dir.join(name), roots, AccessType.Write);
        const old = await fh.readFile();
        const backup = await writeBackup(dir, name, shownPath, old);
        try {
            await overwrite(fh, data);
        } catch (err) {
            // Put the old content back before reporting; the backup stays only if that fails too.
            const restored = await overwrite(fh, old).then(() => true, () => false);
            if (restored) await fs.unlink(backup).catch(() => undefined);
            const cause = toToolError(err, shownPath);
            throw restored
                ? new ToolError(cause.kind, `${cause.message} The file was left as it was.`)
                : new ToolError(cause.kind, `${cause.message} The old content could not be put back; it is kept in ${quotePath(path.join(path.dirname(shownPath), path.basename(backup)))}.`);
        }
        await fs.unlink(backup).catch(() => undefined);
        return { inPlace: true, links: opened.nlink };
    } finally {
        await fh.close();
    }
}

/** Writes and syncs the backup of `name`'s old content; returns its path. Nothing is left on failure. */
async function writeBackup(dir: HeldDirectory, name: string, shownPath: string, old: Buffer): Promise<string> {
    const backup = dir.join(debrisName(name, 'bak'));
    try {
        // Security: only the writing process may read the copy (0600): the file itself may be private.
        const fh = await fs.open(backup, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
        try {
            await writeAll(fh, Buffer.concat([Buffer.from(`${BACKUP_MAGIC}${JSON.stringify(name)}\n`), old]), 0);
            await fh.sync();
        } finally {
            await fh.close();
        }
        return backup;
    } catch (err) {
        await fs.unlink(backup).catch(() => undefined);
        const cause = toToolError(err, shownPath);
        throw new ToolError(cause.kind, `${cause.message} (while keeping a copy of the old content next to it); nothing was changed.`);
    }
}

/**
 * Removes the stale temporary files of the held directory (see `fs/debris.ts`): a stale `.tmp`
 * is deleted; a stale `.bak` is first written back onto the file it names (in place, synced),
 * undoing a write that was interrupted part way. Best effort: what cannot be cleaned stays.
 * @returns the names of the files restored from a backup.
 */
export async function cleanStaleDebris(dir: HeldDirectory): Promise<Set<string>> {
    const restored = new Set<string>();
    let names: string[];
    try {
        names = await fs.readdir(dir.path);
    } catch {
        return restored;
    }
    for (const entry of names) {
        if (!isDebrisName(entry) || !isStaleDebris(entry)) continue;
        const at = dir.join(entry);
        if (debrisKind(entry) === 'bak') {
            const target = await restoreBackup(dir, at);
            if (target === null) continue;
            if (target !== '') restored.add(target);
        }
        await fs.unlink(at).catch(() => undefined);
    }
    return restored;
}

/**
 * Writes the old content kept in the backup `at` back onto its file. Returns the file's name,
 * `''` when there is nothing to restore (no such file any more, not a backup), or `null` when
 * the restore failed (the backup is then kept).
 */
async function restoreBackup(dir: HeldDirectory, at: string): Promise<string | null> {
    let bytes: Buffer;
    try {
        const fh = await fs.open(at, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
        try {
            if (!(await fh.stat()).isFile()) return '';
            bytes = await fh.readFile();
        } finally {
            await fh.close();
        }
    } catch {
        return null;
    }
    const eol = bytes.indexOf(0x0a);
    const head = eol < 0 ? '' : bytes.subarray(0, eol).toString('utf8');
    if (!head.startsWith(BACKUP_MAGIC)) return '';
    let name: unknown;
    try {
        name = JSON.parse(head.slice(BACKUP_MAGIC.length));
    } catch {
        return '';
    }
    if (typeof name !== 'string' || name === '' || name.includes('/') || name === '.' || name === '..') return '';
    try {
        const fh = await fs.open(dir.join(name), C.O_RDWR | C.O_NOFOLLOW | C.O_NONBLOCK | C.O_NOCTTY);
        try {
            if (!(await fh.stat()).isFile()) return '';
            await overwrite(fh, bytes.subarray(eol + 1));
        } finally {
            await fh.close();
        }
    } catch (err) {
        return errorCode(err) === 'ENOENT' || errorCode(err) === 'ELOOP' ? '' : null;
    }
    return name;
}
