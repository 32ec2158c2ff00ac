/**
 * The parts of a C text the definitions' parse reads: all but the inside of its top-level function
 * bodies and file-scope initializer lists (`= { … }`). A definition never needs what a function's
 * body holds, and bodies are about two thirds of the kernel's C bytes; a variable's name, lines and
 * signature lie outside its list's braces, and such lists (device-id, register and ops tables) are
 * a fifth of what the bodies leave. Tree-sitter parses the rest as included ranges, so every index,
 * row and column is the text's, and the braces stay, so a node spans what it spans in the text as
 * written. Read whole: a body that may define something (`struct x {`, `union`, `enum`, `typedef`,
 * as ctags tags them there) or holds an `#else` or `#elif` (each branch may open a block of its
 * own), a list holding any directive, and every preprocessor line of a body (`#define`). A file
 * whose braces the scan cannot follow as the grammar would (unbalanced braces, a comment or
 * literal not closed) is parsed whole.
 */
import type { Range } from 'web-tree-sitter';
import { C, continued } from './c-chars.js';
import { ASCII_WORD } from './words.js';

/**
 * What the definitions' parse reads: the text's `ranges`, or (many bodies) a `text` with the rest
 * blanked; the blocks left out, `[open, close, …]`: the indexes of each one's braces; and which of
 * them (by `open`) are initializer lists, not function bodies.
 */
export type Blanked = ({ ranges: Range[]; text?: undefined } | { ranges?: undefined; text: string }) & { bodies: number[]; inits: ReadonlySet<number> };

/** An identifier's character (letters, digits, `_`, `$`, and any non-ASCII). */
function isWordCode(c: number): boolean {
    return c > 127 || ASCII_WORD[c] === 1;
}

/**
 * The characters the scan's look-aheads (literals, lines, the next `#`) have read, summed over
 * every call: once per search, not per character. Tests check that a text costs a bounded
 * multiple of its length (test/unit/symbols/c-bodies-linear.test.ts).
 */
export const scanRead = { chars: 0 };

/**
 * The index past a `"` or `'` literal opened at `at`, escapes read (a backslash-newline continues
 * it); when a line ends first, `~stop`: the index of that newline (or the text's length).
 */
function literalScan(text: string, at: number, quote: number): number {
    let i = at + 1;
    for (; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === quote) break;
        if (c === C.Backslash) i += text.charCodeAt(i + 1) === C.Cr && text.charCodeAt(i + 2) === C.Nl ? 2 : 1;
        else if (c === C.Nl) break;
    }
    scanRead.chars += Math.min(i, text.length) - at;
    return i < text.length && text.charCodeAt(i) === quote ? i + 1 : ~Math.min(i, text.length);
}

/** The index past a `"` or `'` literal opened at `at` (see {@link literalScan}); -1 when a line ends first. */
function literalEnd(text: string, at: number, quote: number): number {
    const end = literalScan(text, at, quote);
    return end < 0 ? -1 : end;
}

/** The index of the newline ending the `//` comment or the directive line at `at` (a backslash continues both), or the text's length. */
function lineEnd(text: string, at: number): number {
    let i = text.indexOf('\n', at);
    while (i !== -1 && continued(text, i)) i = text.indexOf('\n', i + 1);
    const end = i === -1 ? text.length : i;
    scanRead.chars += end - at;
    return end;
}

/**
 * The end of the directive at `at` (the index of its last line's newline): its lines continued by
 * a backslash or by a block comment that goes on past them; literals read so that `"/*"` opens
 * none. -1 when a comment is not closed.
 */
function directiveEnd(text: string, at: number): number {
    let end = lineEnd(text, at);
    // Where a literal of each kind last found no close: a later quote of that kind before it is
    // one the failed scan read as escaped (`'\'\'…`), and from the character after it both scans
    // read alike, so it finds no close either. Without this each such quote read to the line's end.
    let [noQuote, noApos] = [-1, -1];
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
            if (i < (c === C.Quote ? noQuote : noApos)) continue;
            const close = literalScan(text, i, c);
            if (close < 0) {
                if (c === C.Quote) noQuote = ~close;
                else noApos = ~close;
            } else if (close <= end) i = close - 1;
        }
    }
    return end;
}

const ELSE = /^#[ \t]*(?:else|elif)/;
/**
 * Past this many blocks the text is parsed with them blanked (spaces, newlines kept) rather than
 * without them: tree-sitter's lexer looks a position's range up among all the ranges, so a parse
 * of a file of 45,000 small functions took longer with 1,024 ranges than the whole text.
 */
const MAX_RANGES = 256;
const DEFINE_LINE = /\n[ \t]*#[ \t]*define/;

/** Whether the word `text[start, end)` is `word`. */
function isWordAt(text: string, start: number, end: number, word: string): boolean {
    return end - start === word.length && text.startsWith(word, start);
}

/**
 * The ranges of `text` without its top-level function bodies (and `initializers`: lists), or
 * `undefined` when none is left out or the file is parsed whole (see the module's comment). A `{`
 * at depth 0, outside parentheses, opens a body after `)` (also a macro's `FOO(x) {`) or after `;`
 * (a K&R definition's parameter declarations), and a list after `=`. One pass over the text's
 * character codes, one more over its newlines for the ranges' rows.
 */
export function withoutBodies(text: string, initializers = true): Blanked | undefined {
    const n = text.length;
    let depth = 0;
    /** Parentheses open at depth 0: a `{` in a macro's arguments (`TP_fast_assign(… if (x) {`) opens no body. */
    let parens = 0;
    /** The last character of code outside comments and directives. */
    let prev = 0;
    let lineStart = true;
    /** The open body's `{` (-1: none), whether it is read whole, its directives `[start, end, …]`. */
    let open = -1;
    /** Whether the open block is a file-scope initializer (`= {`), not a function's body. */
    let init = false;
    let keepBody = false;
    let directives: number[] = [];
    /** `struct`, `union` or `enum` met in a body and no punctuation since but parentheses (`__attribute__((…))`). */
    let typeWord = false;
    const bodies: number[] = [];
    const inits = new Set<number>();
    /** The parts read, `[start, end, …]`; the last one's end is the text's. */
    const kept: number[] = [0];
    /** The first `#` at or after the last block comment in a body looked at (2^32 - 1: none). */
    let hash = -1;
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
                // Each branch may open or close blocks of its own: such a body is read whole; so is
                // an initializer holding any directive (the grammar reads none in a list).
                if (init || ELSE.test(text.slice(i, i + 12))) keepBody = true;
                // From the newline before it, as the grammar reads a directive at a line's start.
                directives.push(text.lastIndexOf('\n', i), Math.min(n, end + 1));
            }
            i = end;
        } else if (c === C.Slash && (text.charCodeAt(i + 1) === C.Star || text.charCodeAt(i + 1) === C.Slash)) {
            const block = text.charCodeAt(i + 1) === C.Star;
            const close = block ? text.indexOf('*/', i + 2) : lineEnd(text, i);
            if (close === -1) return undefined;
            // A `#define` line in a body's comment: read whole, so the tree shows the comment
            // (repairs.ts `lostMacros` reads the text's `#define` lines and skips those in comments).
            if (open !== -1 && !keepBody) {
                // The next `#` is looked for once per `#`, not once per comment: a body of many
                // comments and no `#` after them read the rest of the text for each.
                if (hash < i) {
                    hash = text.indexOf('#', i) >>> 0;
                    scanRead.chars += Math.min(hash, n) - i;
                }
                if (hash < close && DEFINE_LINE.test(text.slice(i, close))) keepBody = true;
            }
            i = block ? close + 2 : close;
            if (block) lineStart = false;
        } else {
            lineStart = false;
            if (c === C.Quote || c === C.Apos) {
                i = literalEnd(text, i, c);
                if (i === -1) return undefined;
            } else if (isWordCode(c)) {
                const start = i;
                while (i < n && isWordCode(text.charCodeAt(i))) i++;
                // Perf: compared in place, not as a string made of each short word of every body (15% of the scan's time).
                if (open !== -1 && !keepBody && i - start >= 4 && i - start <= 7) {
                    if (isWordAt(text, start, i, 'typedef')) keepBody = true;
                    else if (isWordAt(text, start, i, 'struct') || isWordAt(text, start, i, 'union') || isWordAt(text, start, i, 'enum')) typeWord = true;
                }
                prev = text.charCodeAt(i - 1);
                continue;
            } else {
                if (c === C.LBrace) {
                    if (depth === 0 && parens === 0 && (prev === C.RParen || prev === C.Semi || (initializers && prev === C.Eq))) [open, init, keepBody, directives, typeWord] = [i, prev === C.Eq, false, [], false];
                    else if (typeWord) keepBody = true;
                    depth++;
                } else if (c === C.RBrace) {
                    if (--depth < 0) return undefined;
                    if (depth === 0 && open !== -1) {
                        if (!keepBody && i > open + 1) {
                            bodies.push(open, i);
                            if (init) inits.add(open);
                            // One by one: a body's directives may be more than a call's arguments can be.
                            kept.push(open + 1);
                            for (const d of directives) kept.push(d);
                            kept.push(i);
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
    kept.push(n);
    return bodies.length <= 2 * MAX_RANGES ? { ranges: rangesOf(text, kept), bodies, inits } : { text: blankedText(text, kept), bodies, inits };
}

let spaces = ' '.repeat(256);

/** `text` with what lies outside `kept` (`[start, end, …]`, ascending) made spaces, newlines kept: the same indexes, rows and columns. */
export function blankedText(text: string, kept: readonly number[]): string {
    const pieces: string[] = [];
    // The next newline is looked for once per line (as in rangesOf).
    let nl = text.indexOf('\n');
    const blank = (from: number, to: number): void => {
        for (let i = from; i < to; ) {
            if (nl !== -1 && nl < i) nl = text.indexOf('\n', i);
            const stop = nl === -1 || nl >= to ? to : nl;
            if (stop - i > spaces.length) spaces = ' '.repeat(Math.max(stop - i, 2 * spaces.length));
            pieces.push(spaces.slice(0, stop - i));
            if (stop === to) break;
            pieces.push('\n');
            i = stop + 1;
        }
    };
    let at = 0;
    for (let k = 0; k < kept.length; k += 2) {
        // Parts may touch or overlap (a directive's range begins at the newline ending the one before).
        blank(at, kept[k]!);
        if (kept[k + 1]! > at) pieces.push(text.slice(Math.max(at, kept[k]!), kept[k + 1]));
        at = Math.max(at, kept[k + 1]!);
    }
    return pieces.join('');
}

/** `[start, end, …]` (ascending; parts that touch or overlap are joined) as ranges with their rows and columns. */
function rangesOf(text: string, kept: readonly number[]): Range[] {
    const out: Range[] = [];
    // The next newline is looked for once per line, not once per range (a minified line holds thousands).
    let [row, lineStart, nl] = [0, 0, text.indexOf('\n')];
    const point = (index: number): { row: number; column: number } => {
        for (; nl !== -1 && nl < index; nl = text.indexOf('\n', nl + 1)) [row, lineStart] = [row + 1, nl + 1];
        return { row, column: index - lineStart };
    };
    for (let k = 0; k < kept.length; k += 2) {
        const [start, end] = [kept[k]!, kept[k + 1]!];
        const last = out[out.length - 1];
        if (last !== undefined && start <= last.endIndex) {
            if (end > last.endIndex) [last.endIndex, last.endPosition] = [end, point(end)];
        } else if (end > start) {
            const startPosition = point(start);
            out.push({ startIndex: start, endIndex: end, startPosition, endPosition: point(end) });
        }
    }
    return out;
}
