import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AccessType } from '../config/shared/configuration.js';
import { errorCode, ToolError } from '../errors/shared/errors.js';
import { withPathLock } from '../fs/file-pool.js';
import { entryKind, holdDirectory, removeTree } from '../fs/secure.js';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { quotePath } from '../print/shared/display.js';
import { lstatHeld, rootsOf } from './shared.js';
import { osPath } from '../print/shared/byte-names.js';

const schema = z.strictObject({
    path: arg.path('Path of the file or directory'),
    recursive: z.boolean().optional().describe('Set to true to delete directories and their contents recursively'),
});

const declaration = declareTool({
    name: 'delete_file',
    title: 'Delete a file or directory',
    description: 'Deletes a file or directory. Use recursive=true to delete non-empty directories and all their contents.',
    schema,
    behaviour: { readOnly: false, destructive: true, idempotent: true },
});

/**
 * `delete_file`: deletes a file, a symlink (the link itself, never its target) or a directory
 * (non-empty ones only with `recursive: true`). A configured access root, a directory holding
 * one, and the current workspace are refused.
 *
 * Result: `Deleted file: /abs`, `Deleted directory: /abs` or `Deleted symlink: /abs`.
 */
export class DeleteFileTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView): Promise<PartialToolResult> {
        // Security: act on the entry itself; a symlink is removed, never followed.
        const checked = await view.check(args.path, AccessType.Write, this.name, { followFinal: false });
        const roots = await rootsOf(view);
        // Security: an access root (or a directory containing one, or the workspace) is never deleted.
        if (await view.holdsRoot(checked)) {
            throw new ToolError(
                'outside_access',
                `Refused: ${quotePath(checked.abs)} is a configured access root, the current workspace, or contains one; delete what is inside it instead.`,
            );
        }
        return withPathLock(checked.real, async () => {
            // Security: act through the held parent directory, so a parent swapped for a link after
            // the check cannot redirect the delete outside.
            const dir = await holdDirectory(checked.abs, path.dirname(checked.real), roots, AccessType.Write);
            try {
                const { target, st } = await lstatHeld(dir, checked.real, checked.abs);
                if (st.isDirectory()) {
                    if (args.recursive === true) {
                        // Security: links inside the tree are removed, never followed, even if swapped in meanwhile.
                        await removeTree(dir, path.basename(checked.real), checked.abs);
                    } else {
                        try {
                            await fs.rmdir(osPath(target));
                        } catch (err) {
                            if (errorCode(err) === 'ENOTEMPTY' || errorCode(err) === 'EEXIST') {
                                throw new ToolError('invalid_argument', `Directory not empty: ${quotePath(checked.abs)}. Pass recursive: true to delete it with its contents.`);
                            }
                            throw err;
                        }
                    }
                    this.ctx.filePool.forget(checked.real);
                    return ok(`Deleted directory: ${quotePath(checked.abs)}`);
                }
                await fs.unlink(osPath(target));
                this.ctx.filePool.forget(checked.real);
                const kind = entryKind(st);
                return ok(`Deleted ${kind === 'file' ? 'file' : kind === 'symlink' ? 'symlink' : kind}: ${quotePath(checked.abs)}`);
            } finally {
                await dir.close();
            }
        });
    }
}
