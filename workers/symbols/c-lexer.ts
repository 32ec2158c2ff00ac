/**
 * Which whole-word occurrences of a name in a C file are code, told by a lexer instead of a parse:
 * comments, string and character literals are not. It starts only where a whole parse stood
 * between top-level items (the file's start, its checkpoints: regions.ts), so it starts outside
 * any comment or literal. It answers only where tree-sitter-c reads the text the same way: an
 * occurrence on a preprocessor line (a macro's body is one token to the grammar), after a literal
 * not closed on its line, a block comment opened in a directive and not closed there, a raw
 * string or a digit separator is not told, and the caller parses the file instead.
 */
import { isWord } from './words.js';
import { C, continued } from './c-chars.js';


/** Prefixes of a string or character literal (`L"…"`, `u8'…'`); one ending in R before a quote is a raw string. */
const PREFIXES: ReadonlySet<string> = new Set(['L', 'u', 'U', 'u8']);
const RAW: ReadonlySet<string> = new Set(['R', 'LR', 'uR', 'UR', 'u8R']);

/** Where a literal or comment opened at `at` ends (the index past it), or -1 when it is not closed as the grammar would close it. */
function literalEnd(text: string, at: number, quote: number): number {
    let i = at + 1;
    if (quote === C.Apos && text.charCodeAt(i) === C.Apos) return -1;
    for (; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === quote) return i + 1;
        if (c === C.Backslash) i++;
        else if (c === C.Nl || c === C.Cr) return -1;
    }
    return -1;
}

/** The end of a `//` comment opened at `at`: its line's end, a backslash continuing it. */
function lineCommentEnd(text: string, at: number): number {
    for (let i = at + 2; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === C.Backslash && (text.charCodeAt(i + 1) === C.Nl || (text.charCodeAt(i + 1) === C.Cr && text.charCodeAt(i + 2) === C.Nl))) i += text.charCodeAt(i + 1) === C.Cr ? 2 : 1;
        else if (c === C.Nl) return i;
    }
    return text.length;
}

/**
 * The occurrences (of `occurrencesOf`, words.ts) that are code, or `null` when one is not told (see the
 * module's comment). `starts`: indexes where a parse of the whole file stood between top-level
 * items, ascending; the file's start is one.
 */
export function codeOccurrences(text: string, name: string, occurrences: readonly number[], starts: readonly number[]): number[] | null {
    const out: number[] = [];
    let pos = 0;
    let s = 0;
    /** In a preprocessor directive (to its line's end, continued by a backslash). */
    let directive = false;
    /** Where the comment or literal holding the last occurrence began (-1: none). */
    let otherFrom = -1;
    for (const at of occurrences) {
        // From the last start at or before the occurrence when it is past the lexer's place.
        while (s < starts.length && starts[s]! <= at) s++;
        const start = s === 0 ? 0 : starts[s - 1]!;
        // No start lies between the lexer's place and the occurrence: what it cannot tell there is the occurrence's.
        if (start > pos) [pos, directive, otherFrom] = [start, false, -1];
        // Within the comment or literal the last occurrence was found in.
        let verdict: 'code' | 'other' | undefined = at < pos && at >= otherFrom ? 'other' : undefined;
        while (verdict === undefined) {
            if (pos > at) return null;
            const c = text.charCodeAt(pos);
            let end: number;
            if (pos === at) {
                if (directive) return null;
                verdict = 'code';
                end = at + name.length;
            } else if (c === C.Slash && text.charCodeAt(pos + 1) === C.Slash) {
                end = lineCommentEnd(text, pos);
                if (at < end) verdict = 'other';
            } else if (c === C.Slash && text.charCodeAt(pos + 1) === C.Star) {
                const close = text.indexOf('*/', pos + 2);
                end = close === -1 ? text.length : close + 2;
                // A comment opened in a directive and closed on a later line: what follows it is the grammar's guess.
                if (close === -1 || (directive && /[\r\n]/.test(text.slice(pos, end)))) return null;
                if (at < end) verdict = 'other';
            } else if (c === C.Quote || c === C.Apos) {
                end = literalEnd(text, pos, c);
                if (end === -1) return null;
                if (at < end) verdict = 'other';
            } else if (c === C.Hash) {
                directive = true;
                end = pos + 1;
            } else if (c === C.Nl) {
                if (!directive || !continued(text, pos)) directive = false;
                end = pos + 1;
            } else if (isWord(text, pos)) {
                end = pos + 1;
                while (end < text.length && isWord(text, end)) end++;
                const next = text.charCodeAt(end);
                if (next === C.Quote || next === C.Apos) {
                    const word = text.slice(pos, end);
                    if (c >= 48 && c <= 57) return null;
                    if (RAW.has(word) && next === C.Quote) return null;
                    if (PREFIXES.has(word)) {
                        const close = literalEnd(text, end, next);
                        if (close === -1) return null;
                        if (at < close) verdict = 'other';
                        end = close;
                    }
                }
                if (verdict === undefined && at < end) return null;
            } else end = pos + 1;
            if (verdict === 'other') otherFrom = pos;
            pos = end;
        }
        if (verdict === 'code') out.push(at);
    }
    return out;
}

