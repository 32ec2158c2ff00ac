import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import path from 'node:path';
import { z } from 'zod';
import { AccessType } from '../config/shared/configuration.js';
import { errors, ToolError } from '../errors/shared/errors.js';
import { withPathLock } from '../fs/file-pool.js';
import { holdDirectory, readRegularFile, writeFileSafely, type RealRoots } from '../fs/secure.js';
import { decodeText, encodeText, type TextEncodingInfo } from '../text/shared/text.js';
import { reencode } from '../text/shared/reencode.js';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok, type ToolCall } from './base.js';
import { numberedContentNote } from './edit-match.js';
import { createdPlaceNote } from './not-found-note.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { quotePath } from '../print/shared/display.js';
import { checkContentSize, noteWrite, rootsOf, unencodable } from './shared.js';

const schema = z.strictObject({
    path: arg.path(),
    content: z.string().describe('Text content to write (the whole file)'),
});

const declaration = declareTool({
    name: 'write_file',
    title: 'Write a file',
    description: 'Creates a new file or overwrites the entire content of an existing text file. For partial edits (line range or substring replacement) use replace_file_lines, insert_file_content, or replace_file_content instead. Creates parent directories automatically.',
    schema,
    behaviour: { readOnly: false, destructive: true, idempotent: true },
});

/**
 * `write_file`: creates a file or replaces its whole content, creating parent directories.
 * A new file needs no prior read; an existing one must have been read (or written by the tool)
 * and be unchanged since. An existing file keeps its byte-order mark or its detected legacy
 * encoding (a character that encoding cannot hold is refused), and (written in place,
 * guarded by a backup copy) its owner, group, mode, extended attributes and hard links; a file
 * without any write bit is refused. A new file is written atomically (temporary file, rename).
 * Content above `maxCharsPerFile` characters is refused.
 *
 * Result: `Written: /abs/path`.
 */
export class WriteFileTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        // What was read or written before this call began is its basis: a write finishing
        // meanwhile makes this whole-file replacement stale (it would silently undo that write).
        const since = this.ctx.filePool.mark();
        checkContentSize(this.ctx, this.name, 'content', args.content);
        const checked = await view.check(args.path, AccessType.Write, this.name);
        if (/[\\/]$/.test(args.path)) {
            throw errors.invalidArgument(this.name, `path ${JSON.stringify(args.path)} ends with a slash, which names a directory: pass the file path without it (create_folder creates directories).`);
        }
        const roots = await rootsOf(view);
        let created = false;
        await withPathLock(checked.real, async () => {
            let current: Buffer | null = null;
            try {
                current = (await readRegularFile(checked.abs, checked.real, roots, Number.MAX_SAFE_INTEGER)).bytes;
            } catch (err) {
                if (!(err instanceof ToolError && err.kind === 'not_found')) throw err;
            }
            const refusal = await this.ctx.filePool.verifyWrite(checked.real, { current, allowNew: true, shownPath: checked.abs, since });
            // An existing file never read is `not_read`; one read, then changed, `changed_since_read`.
            if (refusal !== null) throw new ToolError(this.ctx.filePool.has(checked.real) ? 'changed_since_read' : 'not_read', refusal);
            let info: TextEncodingInfo = { encoding: 'utf8', bom: false };
            let text = args.content;
            if (text.startsWith('\uFEFF')) {
                text = text.slice(1);
                info = { encoding: 'utf8', bom: true };
            }
            let bytes: Buffer | undefined;
            if (current !== null) {
                const decoded = decodeText(current);
                // Keep an existing BOM and the encoding it marks (UTF-8, UTF-16LE/BE): never dropped, never doubled.
                if (decoded.ok && decoded.info.bom) info = decoded.info;
                // A file in a detected legacy encoding (Shift-JIS, GBK, Windows-1251, ...) stays in it,
                // the lines left alone byte for byte, as the partial edits write it; Latin-1 text
                // (nothing detected) becomes UTF-8 as it always did.
                if (decoded.ok && decoded.info.encoding === 'legacy') {
                    const encoded = reencode(current, decoded.text, text, decoded.info);
                    if (!encoded.ok) throw unencodable(this.name, checked.abs, encoded);
                    bytes = encoded.bytes;
                }
            }
            created = current === null;
            if (current === null) await this.makeParents(checked.abs, checked.real, roots);
            bytes ??= encodeText(text, info);
            noteWrite(call, checked.abs, await writeFileSafely(checked.abs, checked.real, bytes, roots));
            this.ctx.filePool.recordWrite(checked.real, bytes);
        });
        const numbered = numberedContentNote(args.content);
        if (numbered !== null) call.notes.push(numbered);
        const place = created ? await createdPlaceNote(view, args.path, this.name) : '';
        if (place !== '') call.notes.push(place);
        return ok(`Written: ${quotePath(checked.abs)}`);
    }

    private async makeParents(shown: string, real: string, roots: RealRoots): Promise<void> {
        // Security: each missing directory is made inside the verified one before it, so a parent
        // swapped for a link meanwhile cannot make them (or the file) land outside.
        const dir = await holdDirectory(shown, path.dirname(real), roots, AccessType.Write, { create: true });
        await dir.close();
    }
}
