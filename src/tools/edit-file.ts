import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok, type ToolCall } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { compactDiff, withDiff } from './edit-diff.js';
import { ambiguityNote, numberedContentNote, replaceText } from './edit-match.js';
import { textEditFields } from './replace-file-content.js';
import { checkContentSize, editTextFile } from './shared.js';

/** Most edits one edit_file call applies. */
export const MAX_EDITS = 50;

const schema = z.strictObject({
    path: arg.path(),
    edits: z
        .array(z.strictObject(textEditFields))
        .min(1)
        .max(MAX_EDITS)
        .describe(`Replacements applied in order, each to the text the one before left (1-${MAX_EDITS})`),
    dry_run: z.boolean().optional().describe('Report what the edits would change (a diff) without writing. Default false.'),
});

const declaration = declareTool({
    name: 'edit_file',
    title: 'Edit a file',
    description: 'Applies several exact-substring replacements to one existing text file in one call, all or nothing: edits apply in order, each to the result of the one before; if any old_content is not found, nothing is written. Set dry_run to see the diff without writing. Needs a prior read_file like the other edit tools.',
    schema,
    behaviour: { readOnly: false, destructive: true, idempotent: false },
});

/**
 * `edit_file` (enabled by the `editFile` package option): several exact-text replacements of one
 * file in one call, all or nothing: each edit works like `replace_file_content` on the text the
 * previous edit left, and if any `old_content` is not found nothing is written (the error names
 * the edit and lists the nearest candidates). `dry_run: true` reports the diff without writing.
 *
 * Result: `Applied 2 edits to /abs/path`, then a note for each edit whose text occurred more than
 * once, then the diff when `showDiff` is on. Dry run: `Dry run: 2 edits would change /abs/path
 * (nothing written)` and the diff.
 */
export class EditFileTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        args.edits.forEach((e, i) => checkContentSize(this.ctx, this.name, `edits[${i}].new_content`, e.new_content));
        const notes: string[] = [];
        const edit = await editTextFile(this.ctx, view, call, this.name, args.path, ({ text }) => {
            notes.length = 0;
            let next = text;
            args.edits.forEach((e, i) => {
                const done = replaceText(next, e, args.path, `edits[${i}].old_content`);
                const note = ambiguityNote(done, `edits[${i}].old_content`);
                if (note !== '') notes.push(note);
                next = done.text;
            });
            return next;
        }, { basis: 'latest', dryRun: args.dry_run === true });
        const n = args.edits.length;
        const what = `${n} ${n === 1 ? 'edit' : 'edits'}`;
        args.edits.forEach((e, i) => {
            const numbered = args.dry_run === true ? null : numberedContentNote(e.new_content);
            if (numbered !== null) notes.push(numbered.replace('[content', `[edits[${i}].new_content`));
        });
        const lines = [args.dry_run === true ? `Dry run: ${what} would change ${edit.abs} (nothing written)` : `Applied ${what} to ${edit.abs}`, ...notes];
        if (args.dry_run === true) {
            lines.push(compactDiff(edit.before, edit.after) || '(no change)');
            return ok(lines.join('\n'));
        }
        return ok(withDiff(lines.join('\n'), this.ctx.showDiff, edit.before, edit.after));
    }
}
