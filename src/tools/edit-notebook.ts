import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import { errors } from '../errors/shared/errors.js';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok, type ToolCall } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { checkContentSize, editTextFile } from './shared.js';
import { parseNotebook } from '../media/shared/notebook.js';
import { cellSpans, deleteCell, insertCell, newCell, replaceCellSource } from '../media/shared/notebook-edit.js';
import { mediaKindOf } from '../media/shared/kinds.js';

const schema = z
    .strictObject({
        path: arg.path(),
        action: z.enum(['replace', 'insert', 'delete']).describe('replace: cell\'s source becomes source (its outputs are kept); insert: a new cell before cell (cell = count + 1 appends); delete: removes cell'),
        cell: arg.line('Cell number (1-based), as read_file with cells shows it'),
        source: z.string().optional().describe('The cell\'s new source (replace, insert)'),
        cell_type: z.enum(['code', 'markdown', 'raw']).optional().describe('Type of an inserted cell (default code)'),
    })
    .refine((a) => a.action === 'delete' || a.source !== undefined, { message: 'replace and insert need source', path: ['source'] });

const declaration = declareTool({
    name: 'edit_notebook',
    title: 'Edit a notebook cell',
    description:
        'Edits one cell of a Jupyter notebook (.ipynb) by its number: replace its source, insert a new cell before it, or delete it. Read the notebook first with read_file (cells shows the numbers). Every other byte of the file stays as it is.',
    schema,
    behaviour: { readOnly: false, destructive: true, idempotent: false },
});

/**
 * `edit_notebook` (package option `notebooks`): one cell of a notebook replaced, inserted or
 * deleted on the file's JSON text (src/media/shared/notebook-edit.ts), behind the read-before-write
 * guard every edit has.
 *
 * Result: `Replaced the source of cell 3 (code) in /abs/nb.ipynb; it has 12 cells.`
 */
export class EditNotebookTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        if (args.source !== undefined) checkContentSize(this.ctx, this.name, 'source', args.source);
        if (mediaKindOf(args.path) !== 'notebook') throw errors.invalidArgument(this.name, `${args.path} is not a Jupyter notebook (.ipynb); use the text edit tools for it.`);
        let count = 0;
        let type = '';
        const edit = await editTextFile(this.ctx, view, call, this.name, args.path, ({ text }) => {
            const nb = parseNotebook(args.path, text);
            count = nb.cells.length;
            const max = args.action === 'insert' ? count + 1 : count;
            if (args.cell > max) {
                throw errors.invalidArgument(this.name, `cell ${args.cell} is beyond the end: the notebook has ${count} cells${args.action === 'insert' ? `; cell ${count + 1} appends` : ''}.`);
            }
            const spans = cellSpans(text);
            if (args.action === 'replace') {
                type = nb.cells[args.cell - 1]!.cell_type ?? 'unknown';
                return replaceCellSource(text, spans, args.cell, args.source!);
            }
            if (args.action === 'delete') {
                type = nb.cells[args.cell - 1]!.cell_type ?? 'unknown';
                count--;
                return deleteCell(text, spans, args.cell);
            }
            type = args.cell_type ?? 'code';
            count++;
            const withId = nb.cells.some((c) => typeof (c as { id?: unknown }).id === 'string');
            return insertCell(text, spans, args.cell, newCell(args.cell_type ?? 'code', args.source!, withId));
        });
        const what = args.action === 'replace' ? 'Replaced the source of' : args.action === 'insert' ? 'Inserted' : 'Deleted';
        return ok(`${what} cell ${args.cell} (${type}) in ${edit.abs}; it has ${count} cells.`);
    }
}
