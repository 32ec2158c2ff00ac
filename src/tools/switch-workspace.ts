import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';

const schema = z.strictObject({ path: arg.path('Target directory path') });

const declaration = declareTool({
    name: 'switch_workspace',
    title: 'Switch workspace',
    description: 'Changes the current workspace path to a new directory within configured accessible directories. Must be called before any other filesystem tool when changing workspace. Do NOT call this tool in parallel with any other filesystem tool.',
    schema,
    behaviour: { readOnly: false, destructive: false, idempotent: true },
});

/**
 * `switch_workspace`: makes a directory inside the configured accesses the current workspace.
 * Calls already running keep the workspace they started with.
 *
 * Result: `Switched workspace to: /abs/path`.
 */
export class SwitchWorkspaceTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, _view: WorkspaceView): Promise<PartialToolResult> {
        const target = await this.ctx.workspace.switchTo(args.path, this.name);
        return ok(`Switched workspace to: ${target}`);
    }
}
