/**
 * `find_references` in a C file without a parse: the name's occurrences that are code, told by
 * the lexer (c-lexer.ts) from the places the symbol table's checkpoints give, for a name the
 * grammar reads as an identifier wherever it stands in code. The enclosing definitions then come
 * from the table (the host's part); a file the lexer cannot tell is parsed as before.
 */
import type { Parser } from 'web-tree-sitter';
import { capped, SIGNATURE_CHARS } from '../../src/symbols/shared/signature.js';
import type { Reference } from '../../src/symbols/shared/types.js';
import { codeOccurrences, occurrencesOf } from './c-lexer.js';

/** Names tried per thread, and whether the grammar reads each as an identifier in every place code puts one. */
const plain = new Map<string, boolean>();
const PLAIN_CACHE = 1024;

/**
 * Whether tree-sitter-c reads `name` as an identifier as a type, a declarator, an operand and a
 * callee, with no error: not a keyword (`while`, `asm`, `NULL`, `defined`) nor a primitive type
 * (`size_t`, `bool`), whose nodes are not identifiers.
 */
export function plainIdentifier(parser: Parser, name: string): boolean {
    const known = plain.get(name);
    if (known !== undefined) return known;
    let ok = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && parser.language!.idForNodeType(name, false) === null;
    if (ok) {
        const src = `${name} x;\nint ${name};\nvoid f(void) { x = ${name}; ${name}(x); }\n`;
        const tree = parser.parse(src);
        try {
            const places = [0, src.indexOf('int ') + 4, src.indexOf('x = ') + 4, src.lastIndexOf(`${name}(`)];
            ok = tree !== null && !tree.rootNode.hasError && places.every((i) => {
                const node = tree.rootNode.descendantForIndex(i, i + name.length);
                return node !== null && node.text === name && node.type.endsWith('identifier');
            });
        } finally {
            tree?.delete();
        }
    }
    if (plain.size >= PLAIN_CACHE) plain.clear();
    plain.set(name, ok);
    return ok;
}

/**
 * The uses of `name` in `text` as the parse would list them (symbols.ts, `referencesIn`), or
 * `null` when the lexer cannot tell one of its occurrences. `checkpoints`: `[index, row, …]`,
 * taken of this very text.
 */
export function lexedReferences(text: string, name: string, checkpoints: readonly number[]): Reference[] | null {
    const starts: number[] = [];
    // Each checkpoint starts a line, at its row (as regions.ts checks them): else the parse decides.
    let [nl, row] = [-1, 0];
    for (let k = 0; k < checkpoints.length; k += 2) {
        const at = checkpoints[k]!;
        if (at > text.length || (at > 0 && text.charCodeAt(at - 1) !== 10)) return null;
        for (let i = text.indexOf('\n', nl + 1); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) [nl, row] = [i, row + 1];
        if (row !== checkpoints[k + 1]) return null;
        starts.push(at);
    }
    const code = codeOccurrences(text, name, occurrencesOf(text, name), starts);
    if (code === null) return null;
    const out: Reference[] = [];
    [nl, row] = [-1, 0];
    let lineEnd = -1;
    for (const i of code) {
        for (let j = text.indexOf('\n', nl + 1); j !== -1 && j < i; j = text.indexOf('\n', j + 1)) [nl, row] = [j, row + 1];
        const lineStart = nl + 1;
        if (i > lineEnd) {
            const next = text.indexOf('\n', i);
            lineEnd = next === -1 ? text.length : next;
        }
        out.push({ line: row + 1, column: i - lineStart + 1, text: shownLine(text, lineStart, lineEnd, i) });
    }
    return out;
}

/** The line from `lineStart` to `lineEnd` as a reference at `at` shows it: trimmed, its first SIGNATURE_CHARS, from the reference where that is further into the line. */
export function shownLine(text: string, lineStart: number, lineEnd: number, at: number): string {
    let from = at - lineStart > SIGNATURE_CHARS ? at : lineStart;
    while (from < lineEnd && /\s/.test(text[from]!)) from++;
    const to = Math.min(lineEnd, from + SIGNATURE_CHARS + 1);
    return capped(text.slice(from, to).trim(), to < lineEnd);
}
