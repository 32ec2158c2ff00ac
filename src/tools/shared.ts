import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AccessType } from '../config/shared/configuration.js';
import { errors, ToolError } from '../errors/shared/errors.js';
import { withPathLock } from '../fs/file-pool.js';
import { readRegularFile, writeFileSafely, type HeldDirectory, type RealRoots, type WriteOutcome } from '../fs/secure.js';
import { decodeText, type TextEncodingInfo } from '../text/shared/text.js';
import { reencode, type Reencoded } from '../text/shared/reencode.js';
import type { WorkspaceView } from '../access/workspace.js';
import type { ToolCall, ToolContext } from './base.js';
import { quotePath } from '../print/shared/display.js';
import { osPath } from '../print/shared/byte-names.js';

/** Real access roots for re-checks after opening, or `null` when symlink resolution is off. */
export async function rootsOf(view: WorkspaceView): Promise<RealRoots> {
    return view.resolveSymlinks ? view.realAccesses() : null;
}

/**
 * Says after the result when a write reached more than one name: a file with hard links is
 * written in place, so every name shows the new content (never silently).
 */
export function noteWrite(call: ToolCall, abs: string, outcome: WriteOutcome): void {
    if (outcome.links > 1) {
        call.notes.push(`Note: ${quotePath(abs)} has ${outcome.links} hard links; it was written in place, so all ${outcome.links} names show the new content.`);
    }
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

/** What an edit did: the checked absolute path (for the confirmation) and the text before and after it. */
export interface EditOutcome {
    abs: string;
    before: string;
    after: string;
}

/** The decoded text of a file under edit and what the edit needs to write it back the same way. */
export interface EditableText {
    text: string;
    info: TextEncodingInfo;
}

/**
 * The read-modify-write cycle every partial edit shares: check write access, take the file's
 * lock, read it safely, verify read-before-write against its current bytes, decode, apply
 * `transform`, encode with the same encoding and BOM, write it (`writeFileSafely`), record the write.
 *
 * Call this synchronously at the start of the call: it takes the FilePool mark there. With
 * `basis: 'call'` (default) the file must still hold what was read or written before the call
 * began, so of two parallel edits based on one read the later is refused as stale (line numbers
 * of a stale read would point at the wrong lines). `basis: 'latest'` accepts the content left by
 * an edit that finished meanwhile; for edits anchored on exact text, which are found again in it.
 * With `dryRun`, every step but the write (and its FilePool record) runs: the outcome says what
 * the edit would change.
 * @returns the checked absolute path as shown in output ({@link quotePath}), for the confirmation
 *   message, and the text before and after.
 * @throws ToolError from any step; nothing is written then.
 */
export async function editTextFile(
    ctx: ToolContext,
    view: WorkspaceView,
    call: ToolCall,
    tool: string,
    input: string,
    transform: (file: EditableText) => string,
    options: { basis?: 'call' | 'latest'; dryRun?: boolean } = {},
): Promise<EditOutcome> {
    // Taken before the first await, so an edit finishing meanwhile is not mistaken for this call's basis.
    const since = options.basis === 'latest' ? undefined : ctx.filePool.mark();
    const checked = await view.check(input, AccessType.Write, tool);
    const roots = await rootsOf(view);
    let before = '';
    let after = '';
    await withPathLock(checked.real, async () => {
        const opened = await readRegularFile(checked.abs, checked.real, roots, ctx.fileConfig.maxFileSize, 'maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)');
        const refusal = await ctx.filePool.verifyWrite(checked.real, { current: opened.bytes, shownPath: checked.abs, since });
        if (refusal !== null) throw new ToolError(ctx.filePool.has(checked.real) ? 'changed_since_read' : 'not_read', refusal);
        const decoded = decodeText(opened.bytes);
        if (!decoded.ok) throw errors.binary(checked.abs, opened.size);
        let next = transform({ text: decoded.text, info: decoded.info });
        // Text starting with U+FEFF in a file that has a BOM is that BOM, never a second one.
        if (decoded.info.bom && next.startsWith('\uFEFF')) next = next.slice(1);
        // Written back in the file's own encoding, the lines the edit left alone byte for byte.
        const encoded = reencode(opened.bytes, decoded.text, next, decoded.info);
        if (!encoded.ok) throw unencodable(tool, checked.abs, encoded);
        before = decoded.text;
        after = next;
        if (options.dryRun === true) return;
        const bytes = encoded.bytes;
        noteWrite(call, checked.abs, await writeFileSafely(checked.abs, checked.real, bytes, roots));
        ctx.filePool.recordWrite(checked.real, bytes);
    });
    return { abs: quotePath(checked.abs), before, after };
}

/**
 * The refusal of text the file's encoding cannot hold, naming the character and the encoding
 * (a character above U+00FF written as Latin-1, or as `?` by a legacy code page, would corrupt it).
 */
export function unencodable(tool: string, abs: string, r: Extract<Reencoded, { ok: false }>): ToolError {
    const code = `U+${r.char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    if (r.encoding.startsWith('Latin-1')) {
        return errors.invalidArgument(
            tool,
            `${quotePath(abs)} is Latin-1 (ISO-8859-1) text, which cannot hold ${JSON.stringify(r.char)} (${code}); nothing was written. Use Latin-1 characters only, or rewrite the whole file with write_file (which writes UTF-8).`,
        );
    }
    return errors.invalidArgument(
        tool,
        `${quotePath(abs)} is ${r.encoding} text, which cannot hold ${JSON.stringify(r.char)} (${code}); nothing was written. Use characters ${r.encoding.replace(/ \(.*\)$/, '')} holds (edits write the file back in its own encoding), or delete the file and write it anew with write_file to make it UTF-8.`,
    );
}

/**
 * The entry `real` names, reached through its held parent directory `dir` (so a parent swapped
 * for a link after the check cannot redirect it): the path to act on and its `lstat` (a link is
 * described, never followed).
 * @throws ToolError `not_found` naming `shown` when the entry is gone.
 */
export async function lstatHeld(dir: HeldDirectory, real: string, shown: string): Promise<{ target: string; st: Stats }> {
    const target = dir.join(path.basename(real));
    try {
        return { target, st: await fs.lstat(osPath(target)) };
    } catch (err) {
        throw errors.statFailed('Path', err, target, shown);
    }
}
