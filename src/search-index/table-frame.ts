import { readGitignoreFile } from '../search/shared/filters.js';
import type { IgnoreFrame } from '../search/shared/types.js';
import { Kind } from './shared/format.js';
import type { Table } from './table.js';

/**
 * The frames of a search answered from the table (answer.ts): each shows and filters the entries
 * below one table directory under its own display path, so that a linked directory the table holds
 * is walked once more under the link, as the scan path walks it.
 */

/**
 * Where entries are shown and filtered from: the searched directory, or a symlinked directory's
 * target (its entries shown under the link, as the walk shows them).
 */
export interface Frame {
    rootId: number;
    /** Characters of a table path before the part below the frame's root. */
    relCut: number;
    /** Path of the frame's root relative to the searched directory, with `/` (or `''`). */
    subPrefix: string;
    /** Display path of the frame's root. */
    display: string;
    jumps: string[];
    dirOk: Map<number, boolean>;
    /** `.gitignore` frames in force in a directory of this frame (with `respect_gitignore`). */
    ignores: Map<number, IgnoreFrame[]>;
    /** The frames the frame's root was entered with. */
    entered: IgnoreFrame[];
}

/** Entry `i`'s path below the root of frame `f`. */
function below(table: Table, i: number, f: Frame): string {
    return table.pathOf(i).slice(f.relCut);
}

/** Entry `i`'s path relative to the searched directory, as the path filters see it. */
export function subOf(table: Table, i: number, f: Frame): string {
    return f.subPrefix + below(table, i, f);
}

/** Entry `i`'s display path. */
export function displayOf(table: Table, i: number, f: Frame): string {
    const d = f.display;
    const rest = below(table, i, f);
    return d === '.' ? rest : d.endsWith('/') ? d + rest : `${d}/${rest}`;
}

/**
 * The `.gitignore` frames in force in directory `d` of frame `f`, as the walk builds them:
 * those it was entered with, then each directory's own `.gitignore` on the way down (read
 * now, through no link, at the real path `realOf` gives; the table says which directories have one).
 */
export function framesIn(table: Table, d: number, f: Frame, realOf: (rel: string) => string): IgnoreFrame[] {
    let frames = f.ignores.get(d);
    if (frames !== undefined) return frames;
    frames = d === f.rootId ? f.entered : framesIn(table, table.t.parent[d]!, f, realOf);
    const gi = table.childOf(d, '.gitignore');
    if (gi !== undefined && table.t.kind[gi] === Kind.File) {
        const rules = readGitignoreFile(realOf(table.pathOf(gi)));
        // The root of the searched directory's frame has the base '' (its subPrefix).
        if (rules !== null) frames = [...frames, { base: d !== f.rootId ? `${subOf(table, d, f)}/` : f.subPrefix, up: '', rules }];
    }
    f.ignores.set(d, frames);
    return frames;
}
