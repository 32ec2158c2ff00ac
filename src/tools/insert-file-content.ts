import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import { errors } from '../errors/shared/errors.js';
import { contentLines, dominantEol, joinLines, splitLines } from '../text/shared/text.js';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok, type ToolCall } from './base.js';
import { numberedContentNote } from './edit-match.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { withDiff } from './edit-diff.js';
import { checkContentSize, editTextFile } from './shared.js';
import { quotePath } from '../print/shared/display.js';

const schema = z.strictObject({
    path: arg.path(),
    content: z.string().min(1).describe('Text content to insert'),
    line: arg.line('Insert before this line number (1-indexed). Omit to append at end of file.').optional(),
});

const declaration = declareTool({
    name: 'insert_file_content',
    title: 'Insert text',
    description: 'Inserts new text content at a specific line in an existing text file without overwriting existing content. Use line (1-indexed) to insert before a given line. Omit line to append at end of file. File must already exist.',
    schema,
    behaviour: { readOnly: false, destructive: false, idempotent: false },
});

/**
 * `insert_file_content`: inserts `content` before line `line` (1-based; `lines + 1` appends), or
 * at the end when `line` is omitted. Inserted lines take the file's dominant line ending; the
 * file keeps its BOM and the presence or absence of a final newline.
 *
 * Result: `Inserted content at line N in /abs/path` (`at end of file` when appending).
 */
export class InsertFileContentTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        checkContentSize(this.ctx, this.name, 'content', args.content);
        let at = 0;
        const edit = await editTextFile(this.ctx, view, call, this.name, args.path, ({ text }) => {
            const file = splitLines(text);
            const total = file.lines.length;
            at = args.line ?? total + 1;
            if (at > total + 1) {
                throw errors.invalidArgument(
                    this.name,
                    `line ${at} is beyond the end of ${quotePath(args.path)}, which has ${total} lines; use a line from 1 to ${total + 1}, or omit line to append.`,
                );
            }
            if (total === 0) return args.content;
            const eol = dominantEol(file.eols);
            const added = contentLines(args.content, eol);
            if (at === total + 1 && file.eols[total - 1] === '') {
                // Appending to a file without a final newline: end the old last line, keep none at the end.
                file.eols[total - 1] = eol;
                added.eols[added.eols.length - 1] = '';
            }
            file.lines.splice(at - 1, 0, ...added.lines);
            file.eols.splice(at - 1, 0, ...added.eols);
            return joinLines(file);
        });
        const numbered = numberedContentNote(args.content);
        if (numbered !== null) call.notes.push(numbered);
        const confirmation = args.line === undefined ? `Inserted content at end of file in ${edit.abs}` : `Inserted content at line ${at} in ${edit.abs}`;
        return ok(withDiff(confirmation, this.ctx.showDiff, edit.before, edit.after));
    }
}
