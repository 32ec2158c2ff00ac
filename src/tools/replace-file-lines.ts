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

const schema = z
    .strictObject({
        path: arg.path(),
        content: z.string().describe('Text content to replace the lines with (empty string deletes the range)'),
        start_line: arg.line('First line number to replace (1-indexed, inclusive)'),
        end_line: arg.line('Last line number to replace (1-indexed, inclusive). Defaults to start_line').optional(),
    })
    .refine((a) => a.end_line === undefined || a.end_line >= a.start_line, {
        message: 'end_line must be greater than or equal to start_line',
        path: ['end_line'],
    });

const declaration = declareTool({
    name: 'replace_file_lines',
    title: 'Replace lines',
    description: 'Replaces a range of lines in an existing text file with new content (partial edit, unlike write_file which overwrites the whole file). Uses start_line/end_line (1-indexed, inclusive) to specify the range. Empty content deletes the range. File must already exist.',
    schema,
    behaviour: { readOnly: false, destructive: true, idempotent: false },
});

/**
 * `replace_file_lines`: replaces lines `start_line..end_line` (1-based, inclusive) with `content`;
 * empty content deletes them. New lines take the file's dominant line ending; untouched lines,
 * the BOM and the presence or absence of a final newline are kept.
 *
 * Result: `Replaced lines 10-12 in /abs/path`.
 */
export class ReplaceFileLinesTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        checkContentSize(this.ctx, this.name, 'content', args.content);
        const start = args.start_line;
        const end = args.end_line ?? start;
        const edit = await editTextFile(this.ctx, view, call, this.name, args.path, ({ text }) => {
            const file = splitLines(text);
            const total = file.lines.length;
            if (end > total) {
                throw errors.invalidArgument(
                    this.name,
                    `the range ${start}-${end} is beyond the end of ${quotePath(args.path)}, which has ${total} lines. Use insert_file_content to add lines at the end.`,
                );
            }
            const lastEol = file.eols[end - 1]!;
            const replacement = args.content === '' ? { lines: [], eols: [] } : contentLines(args.content, dominantEol(file.eols));
            // The last replaced line's terminator carries over, so a missing final newline stays missing.
            if (replacement.eols.length > 0) replacement.eols[replacement.eols.length - 1] = lastEol;
            else if (lastEol === '' && start > 1) file.eols[start - 2] = '';
            file.lines.splice(start - 1, end - start + 1, ...replacement.lines);
            file.eols.splice(start - 1, end - start + 1, ...replacement.eols);
            return joinLines(file);
        });
        const numbered = numberedContentNote(args.content);
        if (numbered !== null) call.notes.push(numbered);
        return ok(withDiff(`Replaced lines ${start}-${end} in ${edit.abs}`, this.ctx.showDiff, edit.before, edit.after));
    }
}
