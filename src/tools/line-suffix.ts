import fs from 'node:fs/promises';
import { AccessType } from '../config/shared/configuration.js';
import type { WorkspaceView } from '../access/workspace.js';
import { osPath } from '../print/shared/byte-names.js';
import { quotePath } from '../print/shared/display.js';

/** A path followed by `:line` or `:line:column`, as search output and compilers print a place. */
const PLACE = /^(.*?[^:\\/]):(\d+)(?::(\d+))?$/;

/**
 * For a path that was not found: a line saying that the path without its `:line` suffix exists
 * (`''` when the path has no such suffix, or the path without it does not exist or is outside the
 * accesses, so nothing is said of what the caller may not see).
 */
export async function lineSuffixNote(view: WorkspaceView, input: string, tool: string): Promise<string> {
    const m = PLACE.exec(input);
    if (m === null) return '';
    try {
        const checked = await view.check(m[1]!, AccessType.Read, tool);
        const st = await fs.stat(osPath(checked.real));
        const suffix = input.slice(m[1]!.length);
        const what = m[3] === undefined ? 'a line number' : 'a line and column';
        const read = tool === 'read_file' && st.isFile() ? `, with start_line: ${m[2]} to read from that line` : '';
        return `[${quotePath(checked.abs)} exists: ${JSON.stringify(suffix)} looks like ${what}. Pass the path alone${read}.]`;
    } catch {
        return '';
    }
}
