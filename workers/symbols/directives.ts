/**
 * C files of nothing but preprocessor directives and comments (generated register headers: a
 * third of the kernel's C bytes), read in one pass over the text instead of a parse: their
 * `#define`s, and the checkpoints (regions.ts) between their top-level items. Only forms
 * tree-sitter-c reads without an error are taken, each read as the grammar reads it (a `/*` in a
 * directive opens a comment even within quotes; a `/` before a newline continues the line, as its
 * `preproc_arg` token does); any other form or token sends the file to the parse, so the result is
 * always the parse's (test/unit/symbols/directives.test.ts compares the two).
 */
import type { Definition } from '../../src/symbols/shared/types.js';
import { C } from './c-chars.js';
import { CHECKPOINT_GAP } from './regions.js';
import { signatureOf } from './signature-of.js';
import { expression, isNameCode, isNameStart, NUMBER, operatorAt } from './directive-condition.js';
import { DirectiveText, PARSE } from './directive-text.js';

/** A file's `#define`s, `[hash, nameStart, nameEnd, line, endLine, …]` (lines 1-based), and its checkpoints `[index, row, …]`. */
export interface DirectiveFile {
    macros: number[];
    checkpoints: number[];
}

/** Directives the grammar reads as a `preproc_call`: a name and the rest of the line. */
const CALLS: ReadonlySet<string> = new Set(['undef', 'pragma', 'error', 'warning', 'line']);

class Scan extends DirectiveText {
    readonly macros: number[] = [];
    /** Top-level items: `[start, row, column]`. */
    readonly items: number[] = [];

    /** Reads the file; throws PARSE where it leaves the forms known. */
    run(): void {
        const t = this.t;
        /** Per open conditional, whether its `#else` was met. */
        const open: boolean[] = [];
        let lineStart = 0;
        /** Whether a comment stands before `i` on its line. */
        let used = false;
        for (let i = 0; i < this.n; ) {
            const c = t.charCodeAt(i);
            if (c === C.Nl) {
                i = this.nl(i);
                [lineStart, used] = [i, false];
            } else if (c === C.Space || c === C.Tab || c === 12 || c === 11 || (c === C.Cr && t.charCodeAt(i + 1) === C.Nl)) i++;
            else if (c === C.Slash && (t.charCodeAt(i + 1) === C.Star || t.charCodeAt(i + 1) === C.Slash)) {
                if (open.length === 0) this.items.push(i, this.row, i - lineStart);
                const [row, block] = [this.row, t.charCodeAt(i + 1) === C.Star];
                i = block ? this.block(i) : this.lineComment(i);
                if (this.row !== row) lineStart = t.lastIndexOf('\n', i - 1) + 1;
                used = block;
            } else if (c === C.Hash && !used) {
                if (open.length === 0) this.items.push(i, this.row, i - lineStart);
                i = this.directive(i, open);
                lineStart = t.lastIndexOf('\n', i - 1) + 1;
                used = false;
            } else throw PARSE;
        }
        if (open.length > 0) throw PARSE;
    }

    /** The directive at `at` (its `#`) read; the index past it (past its newline, or the text's end after an `#endif`). */
    private directive(at: number, open: boolean[]): number {
        const t = this.t;
        const w = this.spaces(at + 1, false);
        let e = w;
        while (isNameCode(t.charCodeAt(e))) e++;
        const word = t.slice(w, e);
        if (word === 'define') {
            const ns = this.spaces(e, true);
            const ne = this.name(ns);
            const line = this.row + 1;
            const end = this.rest(t.charCodeAt(ne) === C.LParen ? this.params(ne) : this.afterName(ne));
            this.macros.push(at, ns, ne, line, this.row + 1);
            return this.nl(end);
        }
        if (word === 'ifdef' || word === 'ifndef') {
            open.push(false);
            return this.nl(this.trailer(this.name(this.spaces(e, true))));
        }
        if (word === 'if' || word === 'elif') {
            if (word === 'elif' && (open.length === 0 || open[open.length - 1])) throw PARSE;
            if (word === 'if') open.push(false);
            return this.nl(this.condition(this.spaces(e, true)));
        }
        if (word === 'else') {
            if (open.length === 0 || open[open.length - 1]) throw PARSE;
            open[open.length - 1] = true;
            return this.nl(this.trailer(e));
        }
        if (word === 'endif') {
            if (open.pop() === undefined) throw PARSE;
            const end = this.trailer(e, true);
            return end === this.n ? end : this.nl(end);
        }
        if (word === 'include') return this.nl(this.rest(this.path(this.spaces(e, true)), true));
        if (CALLS.has(word)) return this.nl(this.rest(e));
        throw PARSE;
    }

    /** Where a macro's value begins after its name: a space, a tab or the line's end must follow the name. */
    private afterName(at: number): number {
        const c = this.t.charCodeAt(at);
        if (c === C.Space || c === C.Tab || c === C.Nl || (c === C.Cr && this.t.charCodeAt(at + 1) === C.Nl)) return at;
        throw PARSE;
    }

    /** Past a function-like macro's parameters at `at` (`(a, b, ...)`, on one line, no comments). */
    private params(at: number): number {
        const t = this.t;
        let i = this.spaces(at + 1, false);
        if (t.charCodeAt(i) === C.RParen) return i + 1;
        for (;;) {
            i = t.startsWith('...', i) ? i + 3 : this.name(i);
            i = this.spaces(i, false);
            const c = t.charCodeAt(i);
            if (c === C.RParen) return i + 1;
            if (c !== 44) throw PARSE;
            i = this.spaces(i + 1, false);
        }
    }

    /** Past an `#include`'s `<path>` or `"path"` at `at` (no escapes, comment marks or line ends in it). */
    private path(at: number): number {
        const t = this.t;
        const c = t.charCodeAt(at);
        const close = c === 60 ? t.indexOf('>', at + 1) : c === C.Quote ? t.indexOf('"', at + 1) : -1;
        if (close === -1) throw PARSE;
        const inner = t.slice(at + 1, close);
        if (/[\n\\"<>]|\/\*|\/\//.test(inner)) throw PARSE;
        return close + 1;
    }

    /** The newline ending an `#if` or `#elif` condition at `at`, checked to be an expression the grammar reads. */
    private condition(at: number): number {
        const t = this.t;
        const tokens: string[] = [];
        let i = at;
        for (;;) {
            if (i >= this.n) throw PARSE;
            const c = t.charCodeAt(i);
            if (c === C.Nl) {
                if (!this.escaped(i)) break;
                i = this.nl(i);
            } else if (c === C.Space || c === C.Tab || c === C.Backslash || (c === C.Cr && t.charCodeAt(i + 1) === C.Nl)) {
                // A backslash only before its line's end (checked at the newline).
                if (c === C.Backslash && !/^\r?\n/.test(t.slice(i + 1, i + 3))) throw PARSE;
                i++;
            } else if (c === C.Slash && t.charCodeAt(i + 1) === C.Star) i = this.block(i);
            else if (c === C.Slash && t.charCodeAt(i + 1) === C.Slash) {
                i = this.lineComment(i);
                if (i === this.n) throw PARSE;
                break;
            } else if (isNameStart(c)) {
                const e = this.name(i);
                tokens.push(t.slice(i, e));
                i = e;
            } else if (c >= 48 && c <= 57) {
                let e = i + 1;
                while (isNameCode(t.charCodeAt(e)) || t.charCodeAt(e) === 46) e++;
                if (!NUMBER.test(t.slice(i, e))) throw PARSE;
                tokens.push('0');
                i = e;
            } else {
                const op = operatorAt(t, i);
                if (op === undefined) throw PARSE;
                tokens.push(op);
                i += op.length;
            }
        }
        if (!expression(tokens)) throw PARSE;
        return i;
    }
}

/**
 * The `#define`s and checkpoints of `text` when it holds only directives and comments of the
 * forms read here (see the module's comment), else `null`: the file is then parsed.
 */
export function directiveFile(text: string): DirectiveFile | null {
    const scan = new Scan(text);
    try {
        scan.run();
    } catch (err) {
        if (err === PARSE) return null;
        throw err;
    }
    // As checkpointsOf takes them from the root's children: every item here is read cleanly.
    const checkpoints: number[] = [];
    const items = scan.items;
    let last = 0;
    for (let k = 3; k < items.length; k += 3) {
        if (items[k + 2] === 0 && items[k]! - last >= CHECKPOINT_GAP) {
            checkpoints.push(items[k]!, items[k + 1]!);
            last = items[k]!;
        }
    }
    return { macros: scan.macros, checkpoints };
}

/** The definitions of a {@link directiveFile}'s macros, as the parse gives them (the signature's span added to `spans`). */
export function macroDefinitions(text: string, macros: readonly number[], spans?: number[]): Definition[] {
    const out: Definition[] = [];
    for (let k = 0; k < macros.length; k += 5) {
        const [at, ns, ne] = [macros[k]!, macros[k + 1]!, macros[k + 2]!];
        out.push({ kind: 'macro', name: text.slice(ns, ne), container: [], line: macros[k + 3]!, endLine: macros[k + 4]!, signature: signatureOf(text, at, ne, spans) });
    }
    return out;
}
