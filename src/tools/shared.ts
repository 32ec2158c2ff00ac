import { AccessType } from '../config/configuration.js';
import { errors, ToolError } from '../errors.js';
import { withPathLock } from '../file-pool.js';
import { readRegularFile, writeFileAtomic, type RealRoots } from '../fs/secure.js';
import { decodeText, encodeText, type TextEncodingInfo } from '../fs/text.js';
import type { WorkspaceView } from '../workspace.js';
import type { ToolContext } from './base.js';

/** Real access roots for re-checks after opening, or `null` when symlink resolution is off. */
export async function rootsOf(view: WorkspaceView): Promise<RealRoots> {
    return view.resolveSymlinks ? view.realAccesses() : null;
}

/** Refuses model-supplied text longer than `maxCharsPerFile` characters. */
export function checkContentSize(ctx: ToolContext, tool: string, param: string, text: string): void {
    const max = ctx.fileConfig.maxCharsPerFile;
    if (text.length > max) {
        throw errors.invalidArgument(
            tool,
            `${param} is ${text.length} characters, above the limit of ${max} (maxCharsPerFile, LLM_CHAT_FS_MAX_CHARS_PER_FILE). Split the change into smaller edits (replace_file_lines, insert_file_content).`,
        );
    }
}

/** The decoded text of a file under edit and what the edit needs to write it back the same way. */
export interface EditableText {
    text: string;
    info: TextEncodingInfo;
}

/**
 * The read-modify-write cycle every partial edit shares: check write access, take the file's
 * lock, read it safely, verify read-before-write against its current bytes, decode, apply
 * `transform`, encode with the same encoding and BOM, write atomically, record the write.
 * @returns the checked absolute path, for the confirmation message.
 * @throws ToolError from any step; nothing is written then.
 */
export async function editTextFile(
    ctx: ToolContext,
    view: WorkspaceView,
    tool: string,
    input: string,
    transform: (file: EditableText) => string,
): Promise<string> {
    const checked = await view.check(input, AccessType.Write, tool);
    const roots = await rootsOf(view);
    await withPathLock(checked.real, async () => {
        const opened = await readRegularFile(checked.abs, checked.real, roots, ctx.fileConfig.maxFileSize, 'maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)');
        const refusal = await ctx.filePool.verifyWrite(checked.real, { current: opened.bytes, shownPath: checked.abs });
        if (refusal !== null) throw new ToolError(ctx.filePool.has(checked.real) ? 'changed_since_read' : 'not_read', refusal);
        const decoded = decodeText(opened.bytes);
        if (!decoded.ok) throw errors.binary(checked.abs, opened.size);
        const next = transform({ text: decoded.text, info: decoded.info });
        const bytes = encodeText(next, decoded.info);
        await writeFileAtomic(checked.abs, checked.real, bytes, roots);
        ctx.filePool.recordWrite(checked.real, bytes);
    });
    return checked.abs;
}
