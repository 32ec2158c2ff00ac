/**
 * `find_references` in a C file without a parse: the name's occurrences that are code, told by
 * the lexer (c-lexer.ts) from the places the symbol table's checkpoints give, for a name the
 * grammar reads as an identifier wherever it stands in code. The enclosing definitions then come
 * from the table (the host's part); a file the lexer cannot tell is parsed as before.
 */
import type { Parser } from 'web-tree-sitter';
import { capped, SIGNATURE_CHARS } from '../../src/symbols/shared/signature.js';
import type { Reference } from '../../src/symbols/shared/types.js';
import { codeOccurrences } from './c-lexer.js';
import { occurrencesOf } from './words.js';

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
 * The uses of `name` in `text` as the parse would list them (symbols.ts, `referencesIn`) and the
 * text's count of lines, or `null` when the lexer cannot tell one of its occurrences or a
 * checkpoint does not start its line at its row (as regions.ts checks them). `checkpoints`:
 * `[index, row, …]`, taken of this very text (its length and CRC checked).
 */
export function lexedReferences(text: string, name: string, checkpoints: readonly number[]): { references: Reference[]; lines: number } | null {
    const starts: number[] = [];
    for (let k = 0; k < checkpoints.length; k += 2) {
        const at = checkpoints[k]!;
        if (at > text.length || (at > 0 && text.charCodeAt(at - 1) !== 10)) return null;
        starts.push(at);
    }
    const code = codeOccurrences(text, name, occurrencesOf(text, name), starts);
    if (code === null) return null;
    const references: Reference[] = [];
    // Perf: one pass over the line ends checks the checkpoints' rows, gives each use its row and counts the lines.
    let row = 0;
    let k = 0;
    let u = 0;
    let lineStart = 0;
    // The next place a line holds something to do: a checkpoint or a use.
    let next = Math.min(starts[0] ?? Infinity, code[0] ?? Infinity);
    for (let nl = text.indexOf('\n'); ; nl = text.indexOf('\n', nl + 1)) {
        const end = nl === -1 ? text.length : nl;
        if (next <= end) {
            for (; k < starts.length && starts[k]! <= end; k++) if (checkpoints[2 * k + 1] !== row) return null;
            for (; u < code.length && code[u]! < end + (nl === -1 ? 1 : 0); u++) {
                references.push({ line: row + 1, column: code[u]! - lineStart + 1, text: shownLine(text, lineStart, end, code[u]!) });
            }
            next = Math.min(starts[k] ?? Infinity, code[u] ?? Infinity);
        }
        if (nl === -1 || nl === text.length - 1) break;
        row++;
        lineStart = nl + 1;
    }
    if (k < starts.length || u < code.length) return null;
    return { references, lines: text.length === 0 ? 0 : row + 1 };
}

/** The line from `lineStart` to `lineEnd` as a reference at `at` shows it: trimmed, its first SIGNATURE_CHARS, from the reference where that is further into the line. */
export function shownLine(text: string, lineStart: number, lineEnd: number, at: number): string {
    let from = at - lineStart > SIGNATURE_CHARS ? at : lineStart;
    while (from < lineEnd && /\s/.test(text[from]!)) from++;
    const to = Math.min(lineEnd, from + SIGNATURE_CHARS + 1);
    return capped(text.slice(from, to).trim(), to < lineEnd);
}
