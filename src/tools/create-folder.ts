import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import { z } from 'zod';
import { realPathOf } from '../access/resolve.js';
import { AccessType } from '../config/configuration.js';
import { errorCode, errors, ToolError } from '../errors.js';
import { entryKind } from '../fs/secure.js';
import type { Workspace, WorkspaceView } from '../workspace.js';
import { arg, FileTool, ok, type ToolShared } from './base.js';

const schema = z.strictObject({ path: arg.path('Directory path') });

/**
 * `create_folder`: creates a directory and any missing parents (`mkdir -p`).
 *
 * Result: `Created directory: /abs/path/` (or `Directory already exists: /abs/path/`).
 * Errors: a file is in the way; the path is not in a write access.
 */
export class CreateFolderTool extends FileTool<typeof schema> {
    constructor(workspace: Workspace, shared?: ToolShared) {
        super('create_folder', 'Creates a directory and any necessary parent directories.', schema, workspace, shared);
    }

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView): Promise<PartialToolResult> {
        const checked = await view.check(args.path, AccessType.Write, this.name);
        const existing = await fs.stat(checked.real).catch(() => undefined);
        if (existing?.isDirectory()) return ok(`Directory already exists: ${withSlash(checked.abs)}`);
        if (existing) throw errors.wrongType(checked.abs, 'directory', entryKind(existing));
        try {
            await fs.mkdir(checked.real, { recursive: true });
        } catch (err) {
            if (errorCode(err) === 'EEXIST' || errorCode(err) === 'ENOTDIR') {
                throw new ToolError('wrong_type', `Cannot create ${checked.abs}: a file is in the way on its path.`);
            }
            throw err;
        }
        // Security: what was created must be inside a write access (a parent swapped for a link is caught).
        if (view.resolveSymlinks) await view.check(await realPathOf(checked.real), AccessType.Write, this.name);
        return ok(`Created directory: ${withSlash(checked.abs)}`);
    }
}

function withSlash(p: string): string {
    return p.endsWith('/') ? p : `${p}/`;
}
