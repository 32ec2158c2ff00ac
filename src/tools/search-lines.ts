import type { HitList, Run } from '../search/shared/hit-list.js';
import { runHit } from '../search/shared/hit-list.js';
import type { SearchHit } from '../search/shared/types.js';
import { quotePath } from '../print/shared/display.js';
import type { Turns } from '../engine/turns.js';
import { BLOCK_BYTES, Utf16Writer } from '../print/utf16-writer.js';
import { OutputBudget } from '../print/budget.js';

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
export async function* hitBlocks(
    list: HitList,
    start: number,
    line: (hit: SearchHit) => string,
    turns: Turns,
    blockBytes = BLOCK_BYTES,
    budget: OutputBudget = UNLIMITED,
): AsyncGenerator<string, void, undefined> {
    const out = new Utf16Writer(blockBytes);
    let n = 0;
    for (const { run, from, to } of list.ranges(start)) {
        const packed = run.packed;
        /** `quotePath(path) + ':'` of each path of a packed run, made when first used. */
        const heads = packed === undefined ? undefined : new Array<string | undefined>(packed.paths.length);
        for (let j = from; j < to; j++) {
            if (packed !== undefined) {
                const p = packed.pathOf[j]!;
                const head = (heads![p] ??= `${quotePath(packed.paths[p]!)}:`);
                const textStart = j === 0 ? 0 : packed.ends[j - 1]!;
                // The line's length without making it: head, number, ": ", text, line break.
                if (!budget.take(head.length + digits(packed.lines[j]!) + 3 + packed.ends[j]! - textStart)) break;
                out.startLine();
                out.string(head);
                out.number(packed.lines[j]!);
                out.char(58);
                out.char(32);
                out.bytes(packed.text, 2 * textStart, 2 * packed.ends[j]!);
            } else {
                const text = line(runHit(run, j));
                if (!budget.take(text.length + 1)) break;
                out.startLine();
                out.string(text);
            }
            const full = out.takeFull();
            if (full !== undefined) yield full;
            if ((++n & 255) === 0 && turns.due) await turns.yield();
        }
    }
    if (out.size > 0) yield out.take();
}

/** A budget nothing exhausts, for callers without one. */
const UNLIMITED = new OutputBudget(Number.POSITIVE_INFINITY);

/** Decimal digits of a positive whole number. */
function digits(n: number): number {
    let d = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) d++;
    return d;
}

/** One output line for a hit. Security: a path with a control character is JSON-quoted, so a newline in a name cannot fake entries. */
export function lineOf(hit: SearchHit, timed: boolean): string {
    const base =
        hit.line !== undefined
            ? `${quotePath(hit.path)}:${hit.line}: ${hit.text ?? ''}`
            : hit.count !== undefined
              ? `${quotePath(hit.path)}: ${hit.count}`
              : hit.kind === 'directory'
                ? quotePath(`${hit.path}/`)
                : quotePath(hit.path);
    if (!timed) return base;
    return `${base}  (created: ${iso(hit.birthtimeMs)}, modified: ${iso(hit.mtimeMs)})`;
}

/**
 * Content hits with their context lines, as ripgrep prints them: `path:line: text` for matches,
 * `path-line- text` for context, `--` between groups that are not adjacent. Overlapping context
 * is shown once, and a context line that is itself a match is shown as the match.
 */
export async function withContext(hits: readonly SearchHit[], timed: boolean, turns: Turns, budget: OutputBudget = UNLIMITED): Promise<string[]> {
    const out: string[] = [];
    let file: string | undefined;
    /** The last line shown of `file`. */
    let last = 0;
    for (let i = 0; i < hits.length; i++) {
        if ((i & 255) === 255 && turns.due) await turns.yield();
        const h = hits[i]!;
        if (h.line === undefined) {
            const line = lineOf(h, timed);
            if (!budget.take(line.length + 1)) break;
            out.push(line);
            file = undefined;
            continue;
        }
        // A hit and its context lines are shown whole or not at all.
        const group = out.length;
        const before = h.before ?? [];
        const first = h.line - before.length;
        const same = h.path === file;
        const start = same ? Math.max(first, last + 1) : first;
        if (out.length > 0 && (!same || start > last + 1)) out.push('--');
        const shownPath = quotePath(h.path);
        for (let n = start; n < h.line; n++) out.push(`${shownPath}-${n}- ${before[n - first]}`);
        out.push(lineOf(h, timed));
        last = h.line;
        const next = hits[i + 1];
        const nextLine = next !== undefined && next.path === h.path && next.line !== undefined ? next.line : Number.POSITIVE_INFINITY;
        const after = h.after ?? [];
        for (let k = 0; k < after.length && h.line + 1 + k < nextLine; k++) {
            last = h.line + 1 + k;
            out.push(`${shownPath}-${last}- ${after[k]}`);
        }
        let size = 0;
        for (let k = group; k < out.length; k++) size += out[k]!.length + 1;
        if (!budget.take(size)) {
            out.length = group;
            break;
        }
        file = h.path;
    }
    return out;
}

function iso(ms: number | undefined): string {
    return ms === undefined || !Number.isFinite(ms) ? 'unknown' : new Date(ms).toISOString();
}

