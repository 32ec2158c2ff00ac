import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import { z } from 'zod';
import { isInside } from '../access/contain.js';
import { AccessType } from '../config/configuration.js';
import { errorCode, errors, ToolError } from '../errors.js';
import { withPathLock } from '../file-pool.js';
import { entryKind } from '../fs/secure.js';
import type { Workspace, WorkspaceView } from '../workspace.js';
import { arg, FileTool, ok, type ToolShared } from './base.js';

const schema = z.strictObject({
    path: arg.path('Path of the file or directory'),
    recursive: z.boolean().optional().describe('Set to true to delete directories and their contents recursively'),
});

/**
 * `delete_file`: deletes a file, a symlink (the link itself, never its target) or a directory
 * (non-empty ones only with `recursive: true`). A configured access root, a directory holding
 * one, and the current workspace are refused.
 *
 * Result: `Deleted file: /abs`, `Deleted directory: /abs` or `Deleted symlink: /abs`.
 */
export class DeleteFileTool extends FileTool<typeof schema> {
    constructor(workspace: Workspace, shared?: ToolShared) {
        super(
            'delete_file',
            'Deletes a file or directory. Use recursive=true to delete non-empty directories and all their contents.',
            schema,
            workspace,
            shared,
        );
    }

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView): Promise<PartialToolResult> {
        // Security: act on the entry itself; a symlink is removed, never followed.
        const checked = await view.check(args.path, AccessType.Write, this.name, { followFinal: false });
        const realRoots = view.resolveSymlinks ? await view.realAccesses() : view.accesses;
        const protectedRoots = [...realRoots.map((a) => a.path), ...view.accesses.map((a) => a.path), view.root];
        // Security: an access root (or a directory containing one, or the workspace) is never deleted.
        if (protectedRoots.some((root) => isInside(root, checked.real) || isInside(root, checked.abs))) {
            throw new ToolError(
                'outside_access',
                `Refused: ${checked.abs} is a configured access root, the current workspace, or contains one; delete what is inside it instead.`,
            );
        }
        return withPathLock(checked.real, async () => {
            let st;
            try {
                st = await fs.lstat(checked.real);
            } catch (err) {
                throw errors.notFound('Path', err instanceof Error ? err.message.replace(checked.real, checked.abs) : String(err));
            }
            if (st.isDirectory()) {
                if (args.recursive === true) {
                    // fs.rm removes links inside the tree without following them.
                    await fs.rm(checked.real, { recursive: true });
                } else {
                    try {
                        await fs.rmdir(checked.real);
                    } catch (err) {
                        if (errorCode(err) === 'ENOTEMPTY' || errorCode(err) === 'EEXIST') {
                            throw new ToolError('invalid_argument', `Directory not empty: ${checked.abs}. Pass recursive: true to delete it with its contents.`);
                        }
                        throw err;
                    }
                }
                this.ctx.filePool.forget(checked.real);
                return ok(`Deleted directory: ${checked.abs}`);
            }
            await fs.unlink(checked.real);
            this.ctx.filePool.forget(checked.real);
            const kind = entryKind(st);
            return ok(`Deleted ${kind === 'file' ? 'file' : kind === 'symlink' ? 'symlink' : kind}: ${checked.abs}`);
        });
    }
}
