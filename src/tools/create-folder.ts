import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import { z } from 'zod';
import { AccessType } from '../config/shared/configuration.js';
import { errors } from '../errors/shared/errors.js';
import { entryKind, holdDirectory } from '../fs/secure.js';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { quotePath } from '../print/shared/display.js';
import { rootsOf } from './shared.js';
import { osPath } from '../print/shared/byte-names.js';

const schema = z.strictObject({ path: arg.path('Directory path') });

const declaration = declareTool({
    name: 'create_folder',
    title: 'Create a directory',
    description: 'Creates a directory and any necessary parent directories.',
    schema,
    behaviour: { readOnly: false, destructive: false, idempotent: true },
});

/**
 * `create_folder`: creates a directory and any missing parents (`mkdir -p`).
 *
 * Result: `Created directory: /abs/path/` (or `Directory already exists: /abs/path/`).
 * Errors: a file is in the way; the path is not in a write access.
 */
export class CreateFolderTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView): Promise<PartialToolResult> {
        const checked = await view.check(args.path, AccessType.Write, this.name);
        const existing = await fs.stat(osPath(checked.real)).catch(() => undefined);
        if (existing?.isDirectory()) return ok(`Directory already exists: ${withSlash(checked.abs)}`);
        if (existing) throw errors.wrongType(checked.abs, 'directory', entryKind(existing));
        // Security: each missing directory is made inside the verified one before it, so a parent
        // swapped for a link after the check cannot make it land outside.
        const dir = await holdDirectory(checked.abs, checked.real, await rootsOf(view), AccessType.Write, { create: true });
        await dir.close();
        return ok(`Created directory: ${withSlash(checked.abs)}`);
    }
}

function withSlash(p: string): string {
    return quotePath(p.endsWith('/') ? p : `${p}/`);
}
