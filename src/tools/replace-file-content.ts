import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok, type ToolCall } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { withDiff } from './edit-diff.js';
import { ambiguityNote, numberedContentNote, replaceText, type Replacement } from './edit-match.js';
import { checkContentSize, editTextFile } from './shared.js';

/** The fields of one exact-text replacement, shared with edit_file's `edits`. */
export const textEditFields = {
    old_content: z.string().min(1).describe('Exact substring to find (literal match, not a regex)'),
    new_content: z.string().describe('Replacement text (empty string deletes the match)'),
    replace_all: z.boolean().optional().describe('Replace all occurrences vs first only. Default false.'),
};

const schema = z.strictObject({ path: arg.path(), ...textEditFields });

const declaration = declareTool({
    name: 'replace_file_content',
    title: 'Replace text',
    description: 'Replaces an exact substring in an existing text file with new content (partial edit, unlike write_file which overwrites the whole file). Uses replace_all to replace all occurrences vs only the first. Works like find-and-replace. File must already exist.',
    schema,
    behaviour: { readOnly: false, destructive: true, idempotent: false },
});

/**
 * `replace_file_content`: find-and-replace of an exact substring (first occurrence, or all with
 * `replace_all`). In a CRLF file, text written with `\n` matches `\r\n`; the replacement's line
 * breaks take the file's dominant ending whichever the model wrote, so line endings are kept.
 *
 * Result: `Replaced content in /abs/path`; when `old_content` occurs more than once and only the
 * first was replaced, a second line gives the count, the lines left unchanged and how to target
 * them (see `ambiguityNote`).
 * Errors: the substring is not found (nothing is written); the message lists up to three nearest
 * candidates with their line numbers (other whitespace, indentation or line endings; one line
 * different), never applied.
 */
export class ReplaceFileContentTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        checkContentSize(this.ctx, this.name, 'new_content', args.new_content);
        // Anchored on exact text, found again in the current content: of parallel replacements in
        // one file each lands on the content the one before left (or fails with "not found").
        let done: Replacement | undefined;
        const edit = await editTextFile(this.ctx, view, call, this.name, args.path, ({ text }) => {
            done = replaceText(text, args, args.path);
            return done.text;
        }, { basis: 'latest' });
        const note = done === undefined ? '' : ambiguityNote(done);
        const numbered = numberedContentNote(args.new_content);
        if (numbered !== null) call.notes.push(numbered.replace('[content', '[new_content'));
        return ok(withDiff(`Replaced content in ${edit.abs}${note === '' ? '' : `\n${note}`}`, this.ctx.showDiff, edit.before, edit.after));
    }
}
