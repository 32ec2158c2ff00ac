import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import { ToolError } from '../errors.js';
import type { Workspace, WorkspaceView } from '../workspace.js';
import { arg, FileTool, ok, type ToolShared } from './base.js';
import { checkContentSize, editTextFile } from './shared.js';

const schema = z.strictObject({
    path: arg.path(),
    old_content: z.string().min(1).describe('Exact substring to find (literal match, not a regex)'),
    new_content: z.string().describe('Replacement text (empty string deletes the match)'),
    replace_all: z.boolean().optional().describe('Replace all occurrences vs first only. Default false.'),
});

/**
 * `replace_file_content`: find-and-replace of an exact substring (first occurrence, or all with
 * `replace_all`). In a CRLF file, text written with `\n` matches `\r\n` and the replacement is
 * written with `\r\n`, so line endings are kept.
 *
 * Result: `Replaced content in /abs/path`.
 * Errors: the substring is not found (nothing is written).
 */
export class ReplaceFileContentTool extends FileTool<typeof schema> {
    constructor(workspace: Workspace, shared?: ToolShared) {
        super(
            'replace_file_content',
            'Replaces an exact substring in an existing text file with new content (partial edit, unlike write_file which overwrites the whole file). Uses replace_all to replace all occurrences vs only the first. Works like find-and-replace. File must already exist.',
            schema,
            workspace,
            shared,
        );
    }

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView): Promise<PartialToolResult> {
        checkContentSize(this.ctx, this.name, 'new_content', args.new_content);
        // Anchored on exact text, found again in the current content: of parallel replacements in
        // one file each lands on the content the one before left (or fails with "not found").
        const abs = await editTextFile(this.ctx, view, this.name, args.path, ({ text }) => {
            let find = args.old_content;
            let replacement = args.new_content;
            if (!text.includes(find) && /(?<!\r)\n/.test(find) && text.includes('\r\n')) {
                // The model usually writes `\n`; match the file's CRLF lines and keep them.
                find = find.replace(/\r?\n/g, '\r\n');
                replacement = replacement.replace(/\r?\n/g, '\r\n');
            }
            const index = text.indexOf(find);
            if (index === -1) {
                throw new ToolError(
                    'not_found',
                    `old_content not found in ${args.path}: it must match the file exactly, including whitespace and indentation. Call read_file and copy the text to replace.`,
                );
            }
            if (args.replace_all === true) return text.split(find).join(replacement);
            return text.slice(0, index) + replacement + text.slice(index + find.length);
        }, { basis: 'latest' });
        return ok(`Replaced content in ${abs}`);
    }
}
