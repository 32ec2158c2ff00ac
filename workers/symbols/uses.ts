import type { Node } from 'web-tree-sitter';
import type { Reference } from '../../src/symbols/shared/types.js';
import { shownLine } from './lexed.js';
import { occurrencesOf } from './words.js';

/** Node types that are a name in code, in the grammars parsed (a comment or string never is one). */
function isIdentifier(type: string): boolean {
    return type.endsWith('identifier') || type === 'constant' || type === 'name';
}

/**
 * Uses of `name` as an identifier: each whole-word occurrence in the text whose smallest node is
 * an identifier of exactly that text; `around` gets the row of each line with one, `at` each
 * use's character index. Perf: only the occurrences are looked up in the tree, not every node walked.
 */
export function referencesIn(root: Node, text: string, name: string, around: number[], at: number[]): Reference[] {
    const out: Reference[] = [];
    // The line of the last reference: found once per line, so many references on one long line
    // (minified code) cost no scan of the line each.
    let lineStart = 0;
    let lineEnd = -1;
    for (const i of occurrencesOf(text, name)) {
        const node = root.descendantForIndex(i, i + name.length);
        if (node === null || node.text !== name || !isIdentifier(node.type)) continue;
        if (i > lineEnd) {
            lineStart = text.lastIndexOf('\n', i) + 1;
            const nl = text.indexOf('\n', i);
            lineEnd = nl === -1 ? text.length : nl;
            around.push(node.startPosition.row);
        }
        at.push(i);
        out.push({ line: node.startPosition.row + 1, column: i - lineStart + 1, text: shownLine(text, lineStart, lineEnd, i) });
    }
    return out;
}

/**
 * Per use (its character `at`, ascending), the definition holding it in the fewest characters (its
 * index; `ranges` holds each one's `[start, end)`, in order of start), or -1: it tells two
 * definitions on one line apart where their lines cannot. Perf: one sweep over both, keeping the
 * definitions open at the use (as deep as they nest), not every definition per use.
 */
export function withinDefinitions(at: readonly number[], ranges: readonly number[]): number[] {
    const open: number[] = [];
    let d = 0;
    return at.map((i) => {
        for (; d < ranges.length && ranges[d]! <= i; d += 2) {
            while (open.length > 0 && ranges[open[open.length - 1]! + 1]! <= ranges[d]!) open.pop();
            open.push(d);
        }
        while (open.length > 0 && ranges[open[open.length - 1]! + 1]! <= i) open.pop();
        let best = -1;
        for (const o of open) if (i < ranges[o + 1]! && (best === -1 || ranges[o + 1]! - ranges[o]! < ranges[best + 1]! - ranges[best]!)) best = o;
        return best === -1 ? -1 : best / 2;
    });
}
