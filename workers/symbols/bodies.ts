/**
 * C text with the inside of its top-level function bodies turned into spaces, for the definitions'
 * parse: a definition never needs what a function's body holds, and bodies are about two thirds of
 * the kernel's C bytes, which tree-sitter then reads as blank. Newlines stay, and so every index,
 * row and column; the braces stay, so a function's node spans what it spans in the text as written.
 * Kept whole: a body that may define something (`struct x {`, `union`, `enum`, `typedef`, as ctags
 * tags them there) or holds an `#else` or `#elif` (each branch may open a block of its own), and
 * every preprocessor line of a body (`#define`). A file whose braces the scan cannot follow as the
 * grammar would (unbalanced braces, a comment or literal not closed) is parsed as written.
 */
import type { Node, Parser, Range, Tree } from 'web-tree-sitter';
import { parseWithin } from './parser.js';
import { regionsHold } from './regions.js';

const enum C {
    Tab = 9,
    Nl = 10,
    Cr = 13,
    Space = 32,
    Quote = 34,
    Hash = 35,
    Apos = 39,
    LParen = 40,
    RParen = 41,
    Star = 42,
    Slash = 47,
    Semi = 59,
    Backslash = 92,
    LBrace = 123,
    RBrace = 125,
}

/** The text to parse for definitions and the blanked bodies, `[open, close, …]`: the indexes of each body's braces. */
export interface Blanked {
    text: string;
    bodies: number[];
}

/** An identifier's character (letters, digits, `_`, `$`, and any non-ASCII). */
function isWordCode(c: number): boolean {
    return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c > 127;
}

/** The index past a `"` or `'` literal opened at `at`, escapes read (a backslash-newline continues it); -1 when a line ends first. */
function literalEnd(text: string, at: number, quote: number): number {
    for (let i = at + 1; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === quote) return i + 1;
        if (c === C.Backslash) i += text.charCodeAt(i + 1) === C.Cr && text.charCodeAt(i + 2) === C.Nl ? 2 : 1;
        else if (c === C.Nl) return -1;
    }
    return -1;
}

/** The index of the newline ending the `//` comment or the directive line at `at` (a backslash continues both), or the text's length. */
function lineEnd(text: string, at: number): number {
    for (let i = text.indexOf('\n', at); i !== -1; i = text.indexOf('\n', i + 1)) {
        const b = text.charCodeAt(i - 1) === C.Cr ? i - 2 : i - 1;
        if (text.charCodeAt(b) !== C.Backslash) return i;
    }
    return text.length;
}

/**
 * The end of the directive at `at` (the index of its last line's newline): its lines continued by
 * a backslash or by a block comment that goes on past them; literals read so that `"/*"` opens
 * none. -1 when a comment is not closed.
 */
function directiveEnd(text: string, at: number): number {
    let end = lineEnd(text, at);
    for (let i = at + 1; i < end; i++) {
        const c = text.charCodeAt(i);
        if (c === C.Slash && text.charCodeAt(i + 1) === C.Star) {
            const close = text.indexOf('*/', i + 2);
            if (close === -1) return -1;
            i = close + 1;
            if (close > end) end = lineEnd(text, close);
        } else if (c === C.Slash && text.charCodeAt(i + 1) === C.Slash) return end;
        else if (c === C.Quote || c === C.Apos) {
            // A lone apostrophe (`#error don't`) ends nothing: the directive's line ends it.
            const close = literalEnd(text, i, c);
            if (close !== -1 && close <= end) i = close - 1;
        }
    }
    return end;
}

const ELSE = /^#[ \t]*(?:else|elif)/;
const LOCAL_TYPE: ReadonlySet<string> = new Set(['struct', 'union', 'enum']);

/**
 * `text` with its top-level function bodies blanked, or `undefined` when none is or the file is
 * parsed as written (see the module's comment). A `{` opens a body at depth 0, outside
 * parentheses, after `)` (also a macro's `FOO(x) {`) or after `;` (a K&R definition's parameter
 * declarations). One pass over the text's character codes; the result is made of slices of it.
 */
export function withoutBodies(text: string): Blanked | undefined {
    const n = text.length;
    let depth = 0;
    /** Parentheses open at depth 0: a `{` in a macro's arguments (`TP_fast_assign(… if (x) {`) opens no body. */
    let parens = 0;
    /** The last character of code outside comments and directives. */
    let prev = 0;
    let lineStart = true;
    /** The open body's `{` (-1: none), whether it is kept whole, its directives `[start, end, …]`. */
    let open = -1;
    let keepBody = false;
    let directives: number[] = [];
    /** `struct`, `union` or `enum` met in a body and no punctuation since but parentheses (`__attribute__((…))`). */
    let typeWord = false;
    const bodies: number[] = [];
    const pieces: string[] = [];
    let from = 0;
    for (let i = 0; i < n; ) {
        const c = text.charCodeAt(i);
        if (c === C.Nl) {
            lineStart = true;
            i++;
        } else if (c === C.Space || c === C.Tab || c === C.Cr || c === 12 || c === 11) i++;
        else if (c === C.Hash && lineStart) {
            const end = directiveEnd(text, i);
            if (end === -1) return undefined;
            if (open !== -1) {
                // Each branch may open or close blocks of its own: such a body is kept as written.
                if (ELSE.test(text.slice(i, i + 12))) keepBody = true;
                directives.push(i, end);
            }
            i = end;
        } else if (c === C.Slash && text.charCodeAt(i + 1) === C.Star) {
            const close = text.indexOf('*/', i + 2);
            if (close === -1) return undefined;
            i = close + 2;
            lineStart = false;
        } else if (c === C.Slash && text.charCodeAt(i + 1) === C.Slash) {
            i = lineEnd(text, i);
        } else {
            lineStart = false;
            if (c === C.Quote || c === C.Apos) {
                i = literalEnd(text, i, c);
                if (i === -1) return undefined;
            } else if (isWordCode(c)) {
                const start = i;
                while (i < n && isWordCode(text.charCodeAt(i))) i++;
                if (open !== -1 && !keepBody && i - start <= 7) {
                    const word = text.slice(start, i);
                    if (word === 'typedef') keepBody = true;
                    else if (LOCAL_TYPE.has(word)) typeWord = true;
                }
                prev = text.charCodeAt(i - 1);
                continue;
            } else {
                if (c === C.LBrace) {
                    if (depth === 0 && parens === 0 && (prev === C.RParen || prev === C.Semi)) [open, keepBody, directives, typeWord] = [i, false, [], false];
                    else if (typeWord) keepBody = true;
                    depth++;
                } else if (c === C.RBrace) {
                    if (--depth < 0) return undefined;
                    if (depth === 0 && open !== -1) {
                        if (!keepBody && i > open + 1) {
                            bodies.push(open, i);
                            from = blank(text, from, open + 1, i, directives, pieces);
                        }
                        open = -1;
                    }
                } else if (depth === 0 && (c === C.LParen || c === C.RParen)) {
                    parens = Math.max(0, parens + (c === C.LParen ? 1 : -1));
                }
                if (c !== C.LParen && c !== C.RParen) typeWord = false;
                i++;
            }
            prev = c;
        }
    }
    if (depth !== 0 || bodies.length === 0) return undefined;
    pieces.push(text.slice(from));
    return { text: pieces.join(''), bodies };
}

let spaces = ' '.repeat(256);

/** Pushes `text` from `from` to `start` as it is, then `start` to `end` blanked but for `kept` (`[start, end, …]`, ascending); returns `end`. */
function blank(text: string, from: number, start: number, end: number, kept: readonly number[], pieces: string[]): number {
    pieces.push(text.slice(from, start));
    let at = start;
    for (let k = 0; k <= kept.length; k += 2) {
        const to = k < kept.length ? kept[k]! : end;
        // Newlines kept, every other character a space.
        for (let i = at; i < to; ) {
            const nl = text.indexOf('\n', i);
            const stop = nl === -1 || nl >= to ? to : nl;
            const len = stop - i;
            if (len > spaces.length) spaces = ' '.repeat(Math.max(len, 2 * spaces.length));
            if (len > 0) pieces.push(spaces.slice(0, len));
            if (stop === to) break;
            pieces.push('\n');
            i = stop + 1;
        }
        if (k < kept.length) {
            pieces.push(text.slice(kept[k], kept[k + 1]));
            at = kept[k + 1]!;
        }
    }
    return end;
}

/** What may hold a function at file scope: the file, its `#if` blocks, and what error recovery made of a construct it could not read. */
const FILE_SCOPE: ReadonlySet<string> = new Set(['translation_unit', 'preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'ERROR']);

/**
 * Whether the parse of the blanked text read each blanked body as a block at file scope: a
 * function's body, or a block of its own where the grammar reads as it does in the text as
 * written what comes before it (`SYSCALL_DEFINE2(…) {`). Otherwise the scan followed the braces
 * otherwise than the grammar, and the text is parsed as written.
 */
export function bodiesHold(root: Node, bodies: readonly number[]): boolean {
    for (let k = 0; k < bodies.length; k += 2) {
        const brace = root.descendantForIndex(bodies[k]!, bodies[k]! + 1);
        const body = brace?.parent;
        if (brace?.type !== '{' || body?.type !== 'compound_statement' || body.startIndex !== bodies[k] || body.endIndex !== bodies[k + 1]! + 1) return false;
        let p = body.parent;
        if (p?.type === 'function_definition') p = p.parent;
        for (; p !== null; p = p.parent) if (!FILE_SCOPE.has(p.type)) return false;
    }
    return true;
}

/**
 * The tree to take definitions from: the parse of `defText` (`text` with parts blanked), unless
 * `bodies` were blanked and that parse did not read them as bodies (see {@link bodiesHold}): then
 * `text`'s, in the time left. With `ranges` (the regions the uses were parsed in), only those,
 * when their parse holds (regions.ts) and so do the bodies in them; else the whole text. `null`
 * when `ms` milliseconds pass first.
 */
export function definitionsTree(parser: Parser, text: string, defText: string, bodies: Blanked | undefined, ms: number, ranges?: Range[]): Tree | null {
    const end = performance.now() + ms;
    if (ranges !== undefined) {
        const tree = parseWithin(parser, defText, ms, ranges);
        if (tree !== null && regionsHold(tree.rootNode, ranges) && (bodies === undefined || bodiesHold(tree.rootNode, bodiesIn(bodies.bodies, ranges)))) return tree;
        tree?.delete();
    }
    const left = end - performance.now();
    const tree = left <= 0 ? null : parseWithin(parser, defText, left);
    if (tree === null || bodies === undefined || bodiesHold(tree.rootNode, bodies.bodies)) return tree;
    tree.delete();
    const rest = end - performance.now();
    return rest <= 0 ? null : parseWithin(parser, text, rest);
}

/** The bodies (`[open, close, …]`) within `ranges` (both ascending; a range's edges lie between top-level items, never in a body). */
function bodiesIn(bodies: readonly number[], ranges: readonly Range[]): number[] {
    const out: number[] = [];
    let r = 0;
    for (let k = 0; k < bodies.length; k += 2) {
        while (r < ranges.length && ranges[r]!.endIndex <= bodies[k]!) r++;
        if (r < ranges.length && ranges[r]!.startIndex <= bodies[k]!) out.push(bodies[k]!, bodies[k + 1]!);
    }
    return out;
}
