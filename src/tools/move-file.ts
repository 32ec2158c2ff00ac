import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { isInside } from '../access/shared/contain.js';
import { AccessType } from '../config/shared/configuration.js';
import { errorCode, errors, toToolError, ToolError } from '../errors/shared/errors.js';
import { withPathLock } from '../fs/file-pool.js';
import { debrisName } from '../fs/shared/debris.js';
import { holdDirectory, PartialRemoval, removeTree, type HeldDirectory } from '../fs/secure.js';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { quotePath } from '../print/shared/display.js';
import { lstatHeld, rootsOf } from './shared.js';
import { decodeName, osPath } from '../print/shared/byte-names.js';

const schema = z.strictObject({
    source: arg.path('Source path'),
    destination: arg.path('Destination path'),
});

const declaration = declareTool({
    name: 'move_file',
    title: 'Move or rename',
    description: 'Moves or renames a file or directory.',
    schema,
    behaviour: { readOnly: false, destructive: true, idempotent: true },
});

/**
 * `move_file`: moves or renames a file, symlink or directory. Never overwrites an existing
 * destination (files move by link-then-unlink, which fails atomically if the name is taken),
 * refuses to move a directory into itself, creates missing destination parents.
 *
 * Result: `Moved: /abs/source -> /abs/destination`.
 */
export class MoveFileTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView): Promise<PartialToolResult> {
        const src = await view.check(args.source, AccessType.Write, this.name, { followFinal: false, param: 'source' });
        const dst = await view.check(args.destination, AccessType.Write, this.name, { followFinal: false, param: 'destination' });
        // Security: the access roots as configured too, not only their real paths: with
        // resolveSymlinks off a root that is a link would otherwise be movable.
        if (await view.holdsRoot(src)) {
            throw new ToolError('outside_access', `Refused: ${quotePath(src.abs)} is a configured access root, the current workspace, or contains one.`);
        }
        if (src.real === dst.real) throw errors.invalidArgument(this.name, 'source and destination are the same path.');
        const roots = await rootsOf(view);
        // Locks in one order for every call: two moves in opposite directions never wait for each other forever.
        const [first, second] = [src.real, dst.real].sort();
        return withPathLock(first!, () =>
            withPathLock(second!, async () => {
                // Security: source and destination are reached through their held parent directories,
                // so a parent swapped for a link after the check cannot redirect the move.
                const from = await holdDirectory(src.abs, path.dirname(src.real), roots, AccessType.Write);
                try {
                    const { target: source, st } = await lstatHeld(from, src.real, src.abs);
                    if (st.isDirectory() && isInside(dst.real, src.real)) {
                        throw errors.invalidArgument(this.name, `cannot move the directory ${quotePath(src.abs)} into itself (${quotePath(dst.abs)}).`);
                    }
                    const to = await holdDirectory(dst.abs, path.dirname(dst.real), roots, AccessType.Write, { create: true });
                    try {
                        const destination = to.join(path.basename(dst.real));
                        if (await exists(destination)) {
                            throw errors.exists(dst.abs, 'Destination already exists (move_file never overwrites); delete it first or choose another name');
                        }
                        await moveNoReplace({ path: source, shown: src.abs, dir: from }, { path: destination, shown: dst.abs, dir: to }, st.isDirectory());
                    } finally {
                        await to.close();
                    }
                } finally {
                    await from.close();
                }
                this.ctx.filePool.forget(src.real);
                return ok(`Moved: ${quotePath(src.abs)} -> ${quotePath(dst.abs)}`);
            }),
        );
    }
}

async function exists(p: string): Promise<boolean> {
    try {
        await fs.lstat(osPath(p));
        return true;
    } catch {
        return false;
    }
}

/** One side of a move: the path to act through (in the held directory `dir`) and the user's path. */
interface Side {
    path: string;
    shown: string;
    dir: HeldDirectory;
}

/**
 * Moves `from` to `to` without replacing an existing destination, and either completely or not
 * at all: after a failure both paths are as they were.
 * - A file: link() to the new name (fails with EEXIST if taken: no window in which a file is
 *   overwritten), then unlink() the old name; if the old name cannot be removed, the new link is
 *   removed again.
 * - A directory, or a file on a filesystem without hard links: rename().
 * - Across filesystems (EXDEV): see {@link moveAcross}.
 * @throws ToolError with the cause (permission denied, no space left, busy) and the user's paths.
 */
async function moveNoReplace(from: Side, to: Side, isDir: boolean): Promise<void> {
    if (!isDir) {
        let linked = false;
        try {
            await fs.link(osPath(from.path), osPath(to.path));
            linked = true;
        } catch (err) {
            if (errorCode(err) === 'EEXIST') throw errors.exists(to.shown, 'Destination already exists (move_file never overwrites)');
            if (!['EXDEV', 'EPERM', 'ENOTSUP', 'EMLINK', 'EOPNOTSUPP'].includes(errorCode(err) ?? '')) throw moveError(err, from, to, to.shown);
        }
        if (linked) {
            try {
                await fs.unlink(osPath(from.path));
                return;
            } catch (err) {
                // Roll back: the source stays, the new name goes; one file keeps one name.
                await fs.unlink(osPath(to.path)).catch(() => undefined);
                throw moveError(err, from, to, from.shown, 'its directory does not allow removing it');
            }
        }
    }
    try {
        // Directories: rename() refuses a non-empty destination; emptiness was checked just before.
        await fs.rename(osPath(from.path), osPath(to.path));
    } catch (err) {
        if (errorCode(err) !== 'EXDEV') throw moveError(err, from, to, errorCode(err) === 'EBUSY' ? from.shown : to.shown);
        await moveAcross(from, to);
    }
}

/** A move failure: the cause, on `at`, and that nothing was moved. */
function moveError(err: unknown, from: Side, to: Side, at: string, why?: string): ToolError {
    const cause = toToolError(err, at);
    return new ToolError(cause.kind, `Could not move ${quotePath(from.shown)} to ${quotePath(to.shown)}${why ? ` (${why})` : ''}: ${cause.message} Nothing was moved.`);
}

/**
 * A move across filesystems, as `mv` does it but never half done: the source is copied under a
 * temporary name next to the destination (modes, times and symlinks as they are; owner and group
 * where the process may set them; extended attributes best effort), put in place only when
 * complete, and the source removed. A copy that fails (no space left) is removed; a source that
 * cannot be removed completely is restored from the copy, then the copy is removed.
 */
async function moveAcross(from: Side, to: Side): Promise<void> {
    const tmp = to.dir.join(debrisName(path.basename(to.path), 'tmp'));
    try {
        await fs.cp(from.path, tmp, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true, preserveTimestamps: true });
        await keepMetadata(from.path, tmp);
    } catch (err) {
        await fs.rm(osPath(tmp), { recursive: true, force: true }).catch(() => undefined);
        throw moveError(err, from, to, to.shown, 'copying it to the other filesystem');
    }
    try {
        if (await exists(to.path)) throw errors.exists(to.shown, 'Destination already exists (move_file never overwrites)');
        if ((await fs.lstat(osPath(tmp))).isDirectory()) {
            await fs.rename(osPath(tmp), osPath(to.path));
        } else {
            // link() never replaces a destination that appeared meanwhile.
            await fs.link(osPath(tmp), osPath(to.path)).catch((err: unknown) => {
                throw errorCode(err) === 'EEXIST' ? errors.exists(to.shown, 'Destination already exists (move_file never overwrites)') : err;
            });
            await fs.unlink(osPath(tmp));
        }
    } catch (err) {
        await fs.rm(osPath(tmp), { recursive: true, force: true }).catch(() => undefined);
        throw err instanceof ToolError ? err : moveError(err, from, to, to.shown);
    }
    try {
        // Never through a link, with bounded descriptors, naming the entry it stopped at.
        await removeTree(from.dir, path.basename(from.path), from.shown);
    } catch (err) {
        // Roll back: what was already removed from the source is copied back from the complete
        // copy (entries still there are left alone), then the copy goes.
        await fs.cp(to.path, from.path, { recursive: true, errorOnExist: false, force: false, verbatimSymlinks: true, preserveTimestamps: true })
            .then(() => keepMetadata(to.path, from.path))
            .then(() => fs.rm(osPath(to.path), { recursive: true }))
            .catch(() => undefined);
        throw moveError(err instanceof PartialRemoval ? err.entry : err, from, to, from.shown, 'the source could not be removed after copying');
    }
}

/**
 * After a copy: owner and group (where the process may set them: root, or a group of its own),
 * extended attributes (best effort), and the modification times of directories, which filling
 * them has changed. Files' times and modes, and symlinks, are kept by the copy itself.
 */
async function keepMetadata(src: string, dst: string): Promise<void> {
    const st = await fs.lstat(osPath(src));
    await fs.lchown(osPath(dst), st.uid, st.gid).catch(() => undefined);
    if (st.isSymbolicLink()) await fs.lutimes(osPath(dst), st.atime, st.mtime).catch(() => undefined);
    else await copyAttributes(src, dst);
    if (st.isDirectory()) {
        for (const name of (await fs.readdir(osPath(src), { encoding: 'buffer' })).map(decodeName)) await keepMetadata(path.join(src, name), path.join(dst, name));
        // chown cleared nothing on a directory, but restores the mode's set-group-ID bit the same way as for files.
        await fs.chmod(osPath(dst), st.mode & 0o7777).catch(() => undefined);
        await fs.utimes(osPath(dst), st.atime, st.mtime);
    } else if (st.isFile()) {
        // chown clears set-user-ID and set-group-ID bits: the mode again, as copied.
        await fs.chmod(osPath(dst), st.mode & 0o7777).catch(() => undefined);
    }
}

/** Copies the extended attributes (ACLs included) of `src` to `dst` where the filesystem and process allow. */
async function copyAttributes(src: string, dst: string): Promise<void> {
    const api = await import('@napi-rs/xattr').catch(() => null);
    if (api === null) return;
    const names = await api.listAttributes(src).catch(() => [] as string[]);
    for (const name of names) {
        const value = await api.getAttribute(src, name).catch(() => null);
        if (value !== null) await api.setAttribute(dst, name, value).catch(() => undefined);
    }
}
