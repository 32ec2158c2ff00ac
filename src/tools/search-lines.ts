import type { HitList, Run } from '../search/shared/hit-list.js';
import { runHit } from '../search/shared/hit-list.js';
import type { SearchHit } from '../search/shared/types.js';
import { quotePath } from '../print/shared/display.js';
import type { Turns } from '../engine/turns.js';
import { BLOCK_BYTES, Utf16Writer } from '../print/utf16-writer.js';

/**
 * The hit lines of `search_entries` (`path:line: text`, `path`, `path/`, `path: N`) in blocks of
 * whole lines joined by `\n`, each block written as UTF-16LE into one reused buffer and decoded
 * once when it holds `blockBytes` or more (see {@link BLOCK_BYTES}). A packed run's texts are
 * copied as the bytes the worker sent (see PackedHits in src/search/shared/walk-output.ts) and each
 * path's head is made once per run, so no object or string is made per hit. Memory / event loop:
 * a few short-lived objects per hit (hit, text, the parts of its line) would make young-generation
 * collections the longest delays in printing many hits.
 *
 * @param line - a hit's line as `lineOf` prints it, for hits of runs that are not packed.
 */
export async function* hitBlocks(list: HitList, start: number, line: (hit: SearchHit) => string, turns: Turns, blockBytes = BLOCK_BYTES): AsyncGenerator<string, void, undefined> {
    const out = new Utf16Writer(blockBytes);
    let n = 0;
    for (const { run, from, to } of list.ranges(start)) {
        const packed = run.packed;
        /** `quotePath(path) + ':'` of each path of a packed run, made when first used. */
        const heads = packed === undefined ? undefined : new Array<string | undefined>(packed.paths.length);
        for (let j = from; j < to; j++) {
            out.startLine();
            if (packed !== undefined) {
                const p = packed.pathOf[j]!;
                out.string((heads![p] ??= `${quotePath(packed.paths[p]!)}:`));
                out.number(packed.lines[j]!);
                out.char(58);
                out.char(32);
                out.bytes(packed.text, 2 * (j === 0 ? 0 : packed.ends[j - 1]!), 2 * packed.ends[j]!);
            } else {
                out.string(line(runHit(run, j)));
            }
            const full = out.takeFull();
            if (full !== undefined) yield full;
            if ((++n & 255) === 0 && turns.due) await turns.yield();
        }
    }
    if (out.size > 0) yield out.take();
}

