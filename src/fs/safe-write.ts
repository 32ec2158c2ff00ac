import type { Stats } from 'node:fs';
import { CREATE_FLAGS, WRITE_NOFOLLOW_FLAGS } from './shared/held.js';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AccessType } from '../config/shared/configuration.js';
import { errorCode, errors, toToolError, ToolError } from '../errors/shared/errors.js';
import { quotePath } from '../print/shared/display.js';
import { debrisName, BACKUP_MAGIC } from './shared/debris.js';
import { entryKind, recheckOpened, type RealRoots } from './shared/safe-read.js';
import { changedIntoLink, holdDirectory, type HeldDirectory } from './held-directory.js';
import { cleanStaleDebris } from './stale-debris.js';
import { overwrite, writeAll } from './overwrite.js';
import { osPath } from '../print/shared/byte-names.js';

/**
 * Writes that keep the file's identity: Opening and writing files so that a path swapped for a symlink between the access check and
 * the operation cannot escape the accesses (time-of-check/time-of-use);
 * a file is replaced by rename when that keeps everything, else written in place guarded by a backup.
 */

/** What a write did, beyond writing the bytes. */
export interface WriteOutcome {
    /** The file existed and was rewritten in place (owner, group, mode, attributes and links kept). */
    inPlace: boolean;
    /** Hard links of the file (names in the filesystem); above 1, every name shows the new content. */
    links: number;
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
            st = await fs.lstat(osPath(target));
        } catch (err) {
            if (errorCode(err) !== 'ENOENT') throw toToolError(err, shownPath);
        }
        if (st?.isDirectory()) throw errors.wrongType(shownPath, 'file', 'directory');
        if (st !== undefined && !st.isFile() && !st.isSymbolicLink()) throw errors.wrongType(shownPath, 'file', entryKind(st));
        if (st?.isFile()) {
            // A file nobody may write is read-only by intent; root, who could, does not override it.
            if ((st.mode & 0o222) === 0) throw errors.readOnlyFile(shownPath, st.mode);
            // As an editor would: a file the process may not write is not replaced either.
            await fs.access(osPath(target), fs.constants.W_OK).catch((err: unknown) => {
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
        const fh = await fs.open(osPath(tmp), CREATE_FLAGS, like ? 0o600 : 0o666);
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
            await fs.rename(osPath(tmp), osPath(dir.join(name)));
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
        if (!renamed) await fs.unlink(osPath(tmp)).catch(() => undefined);
    }
}

/** An existing regular file: in place, guarded by a synced backup of its old content. */
async function writeInPlace(dir: HeldDirectory, name: string, shownPath: string, data: Buffer, roots: RealRoots): Promise<WriteOutcome> {
    let fh: FileHandle;
    try {
        // Security: O_NOFOLLOW: a link swapped in after the lstat is refused, not written through.
        fh = await fs.open(osPath(dir.join(name)), WRITE_NOFOLLOW_FLAGS);
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
            if (restored) await fs.unlink(osPath(backup)).catch(() => undefined);
            const cause = toToolError(err, shownPath);
            throw restored
                ? new ToolError(cause.kind, `${cause.message} The file was left as it was.`)
                : new ToolError(cause.kind, `${cause.message} The old content could not be put back; it is kept in ${quotePath(path.join(path.dirname(shownPath), path.basename(backup)))}.`);
        }
        await fs.unlink(osPath(backup)).catch(() => undefined);
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
        const fh = await fs.open(osPath(backup), CREATE_FLAGS, 0o600);
        try {
            await writeAll(fh, Buffer.concat([Buffer.from(`${BACKUP_MAGIC}${JSON.stringify(name)}\n`), old]), 0);
            await fh.sync();
        } finally {
            await fh.close();
        }
        return backup;
    } catch (err) {
        await fs.unlink(osPath(backup)).catch(() => undefined);
        const cause = toToolError(err, shownPath);
        throw new ToolError(cause.kind, `${cause.message} (while keeping a copy of the old content next to it); nothing was changed.`);
    }
}
