import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import { accessFor } from '../access/shared/contain.js';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok } from './base.js';
import { declareTool } from './declaration.js';

const schema = z.strictObject({});

const declaration = declareTool({
    name: 'file_access_info',
    title: 'Accessible directories',
    description: 'Returns a list of all configured directories with their access levels (read/write) and indicates which one is the current workspace path. Useful for discovering which parts of the filesystem are available.',
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/**
 * `file_access_info`: the configured directories with their access (`read` or `write`), the
 * current workspace marked `(current workspace)`. Takes no arguments.
 */
export class FileAccessInfoTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(_args: z.infer<typeof schema>, view: WorkspaceView): Promise<PartialToolResult> {
        const lines = ['Configured file system access:'];
        let marked = false;
        for (const a of view.accesses) {
            const current = a.path === view.root;
            marked ||= current;
            lines.push(`  ${a.path.padEnd(56)} ${a.type.padStart(5)}${current ? '  (current workspace)' : ''}`);
        }
        // A workspace below an access root gets its own line, with the access that covers it.
        if (!marked) lines.push(`  ${view.root.padEnd(56)} ${(accessFor(view.root, view.accesses) ?? '').padStart(5)}  (current workspace)`);
        return ok(lines.join('\n'));
    }
}
