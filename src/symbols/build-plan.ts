import { Kind } from '../search-index/shared/format.js';
import { EntryPaths } from '../search-index/shared/entry-paths.js';
import { decodeNames } from '../search-index/shared/table-names.js';
import { languageOf } from './shared/languages.js';
import { BIG_FILE } from './parse.js';
import type { BuildPart } from './table-build.js';

/**
 * The build's parts, planned in the build process from the columns of the generation's file table
 * that the host copies to it (build-process.ts). On the host the plan made a path string for every
 * source file, kept until sent: on the Linux tree its scavenges took up to 7 ms and its messages'
 * serialization 4 ms a turn, in the turns beside the fork.
 */

/**
 * Bytes of source per part task: a few seconds of parsing, so the build's threads stop soon when
 * asked. Memory: a part holds its definitions until written sorted (2 MB of the kernel's
 * generated headers: some 30,000, a thread's peak about 60 MB; 4 MB took 90).
 */
const PART_BYTES = 2 << 20;

/** The file table's columns a plan is made from (format.ts FileTable's). */
export interface PlanColumns {
    /** The entries' names' bytes, joined by NUL. */
    names: Buffer;
    parent: Int32Array;
    kind: Uint8Array;
    size: Float64Array;
}

/** The columns' names, in the order the host sends them. */
export const PLAN_COLUMNS = ['names', 'parent', 'kind', 'size'] as const;

/**
 * The source files of the table (files of a language the table knows, `maxFileSize` bytes at
 * most) in parts of `partFiles` files and {@link PART_BYTES} at most, then a part for each file
 * over BIG_FILE; each with its ids and its paths relative to the root, as the table's `pathOf`.
 */
export async function planParts(cols: PlanColumns, maxFileSize: number, partFiles: number): Promise<{ parts: BuildPart[]; big: number; files: number }> {
    const { parent, kind, size } = cols;
    const names = await decodeNames(cols.names, 0, cols.names.length, async () => undefined);
    if (names.length !== parent.length) throw new Error(`the table's columns disagree: ${names.length} names for ${parent.length} entries`);
    const paths = new EntryPaths({ names, parent, kind });
    const parts: BuildPart[] = [];
    const big: BuildPart[] = [];
    let cur: BuildPart = { ids: [], paths: [] };
    let bytes = 0;
    let files = 0;
    for (let id = 1; id < names.length; id++) {
        if (kind[id] !== Kind.File || size[id]! > maxFileSize) continue;
        const name = names.get(id);
        if (languageOf(name) === undefined) continue;
        files++;
        const rel = paths.pathOf(id);
        if (size[id]! > BIG_FILE) {
            big.push({ ids: [id], paths: [rel] });
            continue;
        }
        cur.ids.push(id);
        cur.paths.push(rel);
        bytes += size[id]!;
        if (bytes >= PART_BYTES || cur.ids.length >= partFiles) {
            parts.push(cur);
            [cur, bytes] = [{ ids: [], paths: [] }, 0];
        }
    }
    if (cur.ids.length > 0) parts.push(cur);
    return { parts: [...parts, ...big], big: big.length, files };
}
