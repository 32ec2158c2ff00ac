import path from 'node:path';

/** Relative paths inside an indexed tree, as its changed paths and watchers name them. */

/** A skipped name the walk can meet (readdir gives no `''`, `.`, `..` or name with a slash). */
export const isEntryName = (name: string): boolean => name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');

/** The relative, `/`-separated path of `abs` in the tree at `root`; `null` outside it. */
export function relOf(root: string, abs: string): string | null {
    const rel = path.relative(root, abs);
    if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep).join('/');
}

/**
 * `rel` as a watcher that gives paths as strings reports it (@parcel/watcher): a name that is not
 * UTF-8 comes with U+FFFD for its bytes, a path no call finds. The directory above the first such
 * name stands for it (`''`: the root), walked whole from disk; a valid name is kept as is.
 */
export function lossyRelTop(rel: string): string {
    const at = rel.indexOf('\uFFFD');
    return at === -1 ? rel : rel.slice(0, Math.max(0, rel.lastIndexOf('/', at)));
}

/**
 * The top-most directory of a name in `skip` holding `rel` (a component before the last one),
 * or `null`: no search enters one, so nothing inside it is noted.
 */
export function skippedAbove(skip: ReadonlySet<string>, rel: string): string | null {
    if (skip.size === 0) return null;
    let at = 0;
    for (let slash = rel.indexOf('/'); slash !== -1; at = slash + 1, slash = rel.indexOf('/', at)) if (skip.has(rel.slice(at, slash))) return rel.slice(0, slash);
    return null;
}
