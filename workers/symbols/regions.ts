import type { Node, Query, QueryMatch, Range } from 'web-tree-sitter';
import { isWord } from './words.js';

/** Checkpoints at least this many characters apart: fewer to store, regions a little larger. */
export const CHECKPOINT_GAP = 512;
/** Regions covering more of a file than this share are not worth it: the file is parsed whole. */
const MOST = 0.5;

/**
 * Places where a parse of the whole file stands between two top-level items, outside any
 * comment, string or construct: `[index, row, index, row, …]` (UTF-16 index, 0-based row), each at
 * the start of a line. A parse that starts there sees what the whole parse saw. Only between
 * items the whole parse read cleanly (no error in either), and never after a TypeScript
 * signature, which joins the next item as one overloaded definition (`signatures`: the grammar
 * has such nodes; only TypeScript's do, and looking costs a list of each item's children).
 */
export function checkpointsOf(root: Node, signatures = true): number[] {
    const out: number[] = [];
    let last = 0;
    let prev: Node | null = null;
    for (const node of root.children) {
        if (node === null) continue;
        // Perf: the place first (its index is the node's own); each look at errors is a call into the WebAssembly module.
        if (prev !== null && node.startIndex - last >= CHECKPOINT_GAP && node.startPosition.column === 0 && !prev.hasError && !node.hasError && !node.isError && !prev.isError && !(signatures && signatureLike(prev))) {
            out.push(node.startIndex, node.startPosition.row);
            last = node.startIndex;
        }
        prev = node;
    }
    return out;
}

function signatureLike(node: Node): boolean {
    if (node.type.endsWith('signature')) return true;
    // `export function f(): void;`, `declare function f(): void;`
    for (const c of node.namedChildren) if (c !== null && c.type.endsWith('signature')) return true;
    return false;
}

/**
 * The parts of `text` to parse to find every use of `name`: for each whole-word occurrence, the
 * text from the checkpoint at or before it to the next one, merged; `undefined` when they cover
 * most of the file (the whole parse then costs little more), or when a checkpoint used is not at
 * the start of its line in `text` (a file changed since they were taken). Every occurrence lies in
 * a range.
 */
export function regionsFor(text: string, name: string, checkpoints: readonly number[]): Range[] | undefined {
    // Rows counted up to each checkpoint used, in order: one pass over the text at most.
    let [nl, rows, checked] = [-1, 0, -1];
    const fits = (k: number): boolean => {
        if (k <= checked) return true;
        checked = k;
        const [at, row] = [checkpoints[2 * k]!, checkpoints[2 * k + 1]!];
        if (at > text.length || (at > 0 && text.charCodeAt(at - 1) !== 10)) return false;
        for (let i = text.indexOf('\n', nl + 1); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) [nl, rows] = [i, rows + 1];
        return rows === row;
    };
    const ranges: Range[] = [];
    const n = checkpoints.length / 2;
    let k = 0;
    let covered = 0;
    for (let i = text.indexOf(name); i !== -1; i = text.indexOf(name, i + name.length)) {
        if ((i > 0 && isWord(text, i - 1)) || isWord(text, i + name.length)) continue;
        // The last checkpoint at or before i (k counts those passed: region k-1 .. k).
        while (k < n && checkpoints[2 * k]! <= i) k++;
        const start = k === 0 ? 0 : checkpoints[2 * (k - 1)]!;
        const startRow = k === 0 ? 0 : checkpoints[2 * (k - 1) + 1]!;
        const end = k === n ? 0xffffffff : checkpoints[2 * k]!;
        const endRow = k === n ? 0xffffffff : checkpoints[2 * k + 1]!;
        const endColumn = k === n ? 0xffffffff : 0;
        if ((k > 0 && !fits(k - 1)) || (k < n && !fits(k))) return undefined;
        const last = ranges[ranges.length - 1];
        if (last !== undefined && last.endIndex >= start) {
            if (last.endIndex < end) {
                covered += Math.min(end, text.length) - last.endIndex;
                [last.endIndex, last.endPosition] = [end, { row: endRow, column: endColumn }];
            }
        } else {
            covered += Math.min(end, text.length) - start;
            ranges.push({ startIndex: start, endIndex: end, startPosition: { row: startRow, column: 0 }, endPosition: { row: endRow, column: endColumn } });
        }
        // The rest of this region holds no other start: skip to its end.
        if (end >= text.length) break;
        i = Math.max(i, end - name.length);
    }
    if (ranges.length === 0 || covered > MOST * text.length) return undefined;
    return ranges;
}

/**
 * Whether a parse of `ranges` read their edges as the whole parse did: each range starts with a
 * top-level item and ends after one, both read without error (as the checkpoints were chosen).
 * Errors inside a range are the file's own; an error across an edge means the parse went
 * otherwise, and the file is then parsed whole.
 */
export function regionsHold(root: Node, ranges: readonly Range[]): boolean {
    const kids = root.children;
    let k = 0;
    for (const r of ranges) {
        while (k < kids.length && kids[k]!.endIndex <= r.startIndex) k++;
        const first = kids[k];
        if (first === undefined || first === null || first.startIndex !== r.startIndex || first.hasError) return false;
        let last = first;
        while (k + 1 < kids.length && kids[k + 1]!.startIndex < r.endIndex) last = kids[++k]!;
        if (last.hasError || last.endIndex > r.endIndex) return false;
    }
    return true;
}

/** Reference lines past which the whole tree is queried at once (each range's query walks down from the root). */
const MAX_QUERIED_LINES = 64;

/**
 * The matches of `query` whose nodes hold a part of the lines `rows` (0-based, ascending) or of
 * the lines next to each (a C definition whose node begins on the next line may begin on this one,
 * see repairs.ts `patchedStart`): every definition enclosing those lines, at a fraction of the
 * whole tree's query. Ranges by rows: the query's indexes are the grammar's bytes, not the text's
 * characters. Duplicates are left to the caller, which keeps one definition per node.
 */
export function matchesAround(query: Query, root: Node, rows: readonly number[]): QueryMatch[] {
    if (rows.length > MAX_QUERIED_LINES) return query.matches(root);
    const out: QueryMatch[] = [];
    let k = 0;
    while (k < rows.length) {
        const first = Math.max(0, rows[k]! - 1);
        let last = rows[k]!;
        // Ranges that touch are queried as one.
        for (k++; k < rows.length && rows[k]! - 1 <= last + 2; k++) last = rows[k]!;
        out.push(...query.matches(root, { startPosition: { row: first, column: 0 }, endPosition: { row: last + 2, column: 0 } }));
    }
    return out;
}
