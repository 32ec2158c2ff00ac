import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../access/shared/contain.js';

/**
 * A link's target: its real path and its stat (lstat of the target, following the link). answer.ts
 * (`TableWalk`) resolves links with {@link resolveLink}; table.ts (`LinkCache`) keeps them for
 * later searches.
 */
export interface ResolvedLink {
    target: string;
    st: fs.Stats;
    /** The target's path relative to the index's root and its table id (`undefined` outside the table), once asked ({@link linkInTable}). */
    inTable?: { tRel: string; tId: number | undefined };
}

/**
 * Where link `i` (at `abs`, in the directory `parentReal`) leads now, `null` when it cannot be
 * followed (the caller looks in `cache` first). Kept for later searches (in `cache`) only when its target is reached inside the
 * index's root (`root`) through no other link: the link text, read relative to its directory,
 * names the real target. Every entry whose change could then move or alter the target is inside
 * the watched tree, and any change noted empties the cache (table.ts LinkCache). Perf: resolving
 * the 56 links of the Linux tree on every search would take about 5 ms of a 20 ms selective search.
 */
export function resolveLink(i: number, abs: string, parentReal: string, root: string, cache: Map<number, ResolvedLink> | null): ResolvedLink | null {
    let r: ResolvedLink;
    try {
        r = { st: fs.statSync(abs), target: fs.realpathSync.native(abs) };
    } catch {
        return null;
    }
    if (cache !== null && isInside(r.target, root)) {
        try {
            if (path.resolve(parentReal, fs.readlinkSync(abs)) === r.target) cache.set(i, r);
        } catch {
            // changed meanwhile: not kept
        }
    }
    return r;
}

/** The target of a resolved link as a path of the table rooted at `root` and its id by `idOf` (kept with the link when it is cached). */
export function linkInTable(r: ResolvedLink, root: string, idOf: (rel: string) => number | undefined): { tRel: string; tId: number | undefined } {
    if (r.inTable === undefined) {
        const tRel = path.relative(root, r.target).split(path.sep).join('/');
        r.inTable = { tRel, tId: tRel.startsWith('..') || path.isAbsolute(tRel) ? undefined : idOf(tRel) };
    }
    return r.inTable;
}
