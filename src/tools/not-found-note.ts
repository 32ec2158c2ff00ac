import fs from 'node:fs/promises';
import { AccessType } from '../config/shared/configuration.js';
import type { WorkspaceView } from '../access/workspace.js';
import { osPath } from '../print/shared/byte-names.js';
import { quotePath } from '../print/shared/display.js';

/** A path followed by `:line` or `:line:column`, as search output and compilers print a place. */
const PLACE = /^(.*?[^:\\/]):(\d+)(?::(\d+))?$/;
/** A path component holding glob syntax (`[` left out: real names hold it, such as `[id]` in web routes). */
const GLOB = /[*?{]/;

/**
 * For a path that was not found, a line saying what the caller probably meant (`''` when nothing
 * fits): a file's path with `:line` after it, or a glob (paths are taken as written). Said only
 * when the path meant exists and is accessible, so nothing is told of what the caller may not see.
 */
export async function notFoundNote(view: WorkspaceView, input: string, tool: string): Promise<string> {
    if (PLACE.test(input)) {
        const at = await placeOf(view, input, tool);
        if (at === null) return '';
        const what = at.column ? 'a line and column' : 'a line number';
        const read = tool === 'read_file' && at.file && at.line >= 1 ? `, with start_line: ${at.line} to read from that line` : '';
        return `[${quotePath(at.shown)} exists: ${at.suffix} looks like ${what}. Pass the path alone${read}.]`;
    }
    const parts = input.split('/');
    const first = parts.findIndex((p) => GLOB.test(p));
    if (first < 0) return '';
    const base = parts.slice(0, first).join('/') || (input.startsWith('/') ? '/' : '.');
    const at = await existing(view, base, tool);
    if (at === null || at.file) return '';
    const glob = parts.slice(first).join('/');
    return `[Paths are taken as written, not as globs. To find the files ${JSON.stringify(glob)} matches, call search_entries with path: ${JSON.stringify(at.shown)} and include: ${JSON.stringify(glob)}.]`;
}

/** For `input` of the form `path:line[:column]`: the entry `path` names when it exists and is readable, with the suffix (JSON-quoted) and the line; else `null`. */
async function placeOf(view: WorkspaceView, input: string, tool: string): Promise<{ shown: string; file: boolean; suffix: string; line: number; column: boolean } | null> {
    const place = PLACE.exec(input);
    const at = place === null ? null : await existing(view, place[1]!, tool);
    if (at === null) return null;
    return { ...at, suffix: JSON.stringify(input.slice(place![1]!.length)), line: Number(place![2]), column: place![3] !== undefined };
}

/** The checked path `input` names when it exists and is readable, else `null`. */
async function existing(view: WorkspaceView, input: string, tool: string): Promise<{ shown: string; file: boolean } | null> {
    try {
        const checked = await view.check(input, AccessType.Read, tool);
        const st = await fs.stat(osPath(checked.real));
        return { shown: checked.abs, file: st.isFile() };
    } catch {
        return null;
    }
}

/**
 * For a file just created under a name such as `a.c:12` while `a.c` exists: a line saying so
 * (`''` otherwise), since the caller most likely meant a place in `a.c`.
 */
export async function createdPlaceNote(view: WorkspaceView, input: string, tool: string): Promise<string> {
    const at = await placeOf(view, input, tool);
    if (at === null || !at.file) return '';
    return `[Written as named; ${quotePath(at.shown)} exists and ${at.suffix} looks like a line number. To change that file at a line, call replace_file_lines or insert_file_content on it, and delete_file this one.]`;
}

