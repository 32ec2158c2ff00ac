import type { z } from 'zod';
import type { PartialToolResult } from './llm-chat.js';
import { FileTool } from './base.js';
import { releasedAfter } from '../symbols/released.js';

/**
 * Base of the code-navigation tools: a {@link FileTool} whose calls, once settled, hand the C
 * heap's freed pages back (src/symbols/released.ts).
 */
export abstract class NavigationTool<S extends z.ZodObject> extends FileTool<S> {
    protected override onExecute(args: Record<string, unknown>): Promise<PartialToolResult> {
        return releasedAfter(super.onExecute(args));
    }
}
