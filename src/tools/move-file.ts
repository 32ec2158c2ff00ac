import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { isInside } from '../access/contain.js';
import { AccessType } from '../config/configuration.js';
import { errorCode, errors, ToolError } from '../errors.js';
import { withPathLock } from '../file-pool.js';
import { holdDirectory } from '../fs/secure.js';
import type { Workspace, WorkspaceView } from '../workspace.js';
import { arg, FileTool, ok, type ToolShared } from './base.js';
import { quotePath } from './display.js';
import { rootsOf } from './shared.js';

const schema = z.strictObject({
    source: arg.path('Source path'),
    destination: arg.path('Destination path'),
});

/**
 * `move_file`: moves or renames a file, symlink or directory. Never overwrites an existing
 * destination (files move by link-then-unlink, which fails atomically if the name is taken),
 * refuses to move a directory into itself, creates missing destination parents.
 *
 * Result: `Moved: /abs/source -> /abs/destination`.
 */
export class MoveFileTool extends FileTool<typeof schema> {
    constructor(workspace: Workspace, shared?: ToolShared) {
        super('move_file', 'Moves or renames a file or directory.', schema, workspace, shared);
    }

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
                    const source = from.join(path.basename(src.real));
                    let st;
                    try {
                        st = await fs.lstat(source);
                    } catch (err) {
                        throw errors.statFailed('Path', err, source, src.abs);
                    }
                    if (st.isDirectory() && isInside(dst.real, src.real)) {
                        throw errors.invalidArgument(this.name, `cannot move the directory ${quotePath(src.abs)} into itself (${quotePath(dst.abs)}).`);
                    }
                    const to = await holdDirectory(dst.abs, path.dirname(dst.real), roots, AccessType.Write, { create: true });
                    try {
                        const destination = to.join(path.basename(dst.real));
                        if (await exists(destination)) {
                            throw errors.exists(dst.abs, 'Destination already exists (move_file never overwrites); delete it first or choose another name');
                        }
                        await moveNoReplace(source, destination, st.isDirectory(), dst.abs);
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
        await fs.lstat(p);
        return true;
    } catch {
        return false;
    }
}

/** Rename without replacing an existing destination. */
async function moveNoReplace(from: string, to: string, isDir: boolean, shownTo: string): Promise<void> {
    if (!isDir) {
        try {
            // link() fails with EEXIST if the name is taken: no window in which a file is overwritten.
            await fs.link(from, to);
            await fs.unlink(from);
            return;
        } catch (err) {
            if (errorCode(err) === 'EEXIST') throw errors.exists(shownTo, 'Destination already exists (move_file never overwrites)');
            if (errorCode(err) !== 'EXDEV' && errorCode(err) !== 'EPERM' && errorCode(err) !== 'ENOTSUP') throw err;
        }
    }
    try {
        // Directories: rename() refuses a non-empty destination; emptiness was checked just before.
        await fs.rename(from, to);
    } catch (err) {
        if (errorCode(err) !== 'EXDEV') throw err;
        await fs.cp(from, to, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
        await fs.rm(from, { recursive: true });
    }
}
