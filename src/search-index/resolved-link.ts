import type fs from 'node:fs';

/**
 * A link's target: its real path and its stat (lstat of the target, following the link). answer.ts
 * (`TableWalk`) resolves links; table.ts (`LinkCache`) keeps them for later searches.
 */
export interface ResolvedLink {
    target: string;
    st: fs.Stats;
    /** The target's path relative to the index's root and its table id (`undefined` outside the table), once asked (`TableWalk`'s `#inTable`). */
    inTable?: { tRel: string; tId: number | undefined };
}
