import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AccessType } from '../config/shared/configuration.js';
import { errorCode, errors, ToolError } from '../errors/shared/errors.js';
import { quotePath } from '../print/shared/display.js';
import { CAN_HOLD, DIR_NOFOLLOW_FLAGS, heldPath, heldRealPath } from './shared/held.js';
import { type RealRoots } from './shared/safe-read.js';
import { osPath } from '../print/shared/byte-names.js';
import { makeDirectories } from './make-directories.js';

/**
 * Held directories: a checked directory opened and held by descriptor (see held.ts), proven to
 * be the one checked, so operations through it stay inside it even if its path is swapped.
 */

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
export function heldPathOf(fh: FileHandle): string | undefined {
    return CAN_HOLD ? heldPath(fh.fd) : undefined;
}

export function held(fh: FileHandle | undefined, dirPath: string): HeldDirectory {
    return { path: dirPath, join: (name) => path.join(dirPath, name), close: async () => fh?.close() };
}

/** Opens `dirPath` as a directory without following a final symlink; a link or a file there is refused. */
async function openDirNoFollow(dirPath: string, shownPath: string, needed: AccessType): Promise<FileHandle> {
    try {
        return await fs.open(osPath(dirPath), DIR_NOFOLLOW_FLAGS);
    } catch (err) {
        const code = errorCode(err);
        if (code === 'ELOOP') throw changedIntoLink(shownPath, needed);
        if (code === 'ENOTDIR') throw new ToolError('wrong_type', `Not a directory: a component of ${quotePath(shownPath)} is a file (or changed into a link); nothing was changed.`);
        throw err;
    }
}

export function changedIntoLink(shownPath: string, needed: AccessType): ToolError {
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
            await fs.lstat(osPath(existing));
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
            if ((await heldRealPath(fh.fd)) !== existing) throw changedIntoLink(shownPath, needed);
        } else {
            const [a, b] = await Promise.all([fh.stat(), fs.lstat(osPath(existing))]);
            if (a.dev !== b.dev || a.ino !== b.ino) throw changedIntoLink(shownPath, needed);
        }
        let plain = existing;
        for (const name of missing) {
            const here = path.join(heldAt ?? plain, name);
            await fs.mkdir(osPath(here)).catch((err: unknown) => {
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
    const inTheWay = (): ToolError => new ToolError('wrong_type', `Cannot create ${quotePath(shownPath)}: a file is in the way on its path.`);
    try {
        if (!(await makeDirectories(dir))) throw inTheWay();
    } catch (err) {
        if (errorCode(err) === 'EEXIST' || errorCode(err) === 'ENOTDIR') throw inTheWay();
        throw err;
    }
}
