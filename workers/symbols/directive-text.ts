/**
 * A directive's text read as tree-sitter-c's tokens read it, for the files read without a parse
 * (directives.ts): comments, continued lines, the one `preproc_arg` token of a `#define` or
 * `#undef`, names. Where the text leaves what is read here, {@link PARSE} is thrown.
 */
import { C, continued } from './c-chars.js';
import { isNameCode, isNameStart } from './directive-condition.js';

/** Thrown where the text leaves the forms read here: the file is then parsed. */
export const PARSE = new Error('parse');

/** A character that may follow a name in a token the grammar reads otherwise (`$`, non-ASCII letters): such a file is parsed. */
const oddAfterName = (c: number): boolean => c === 36 || c > 127;

/** A text read from its start, its rows counted as newlines are passed. */
export class DirectiveText {
    row = 0;
    protected readonly n: number;
    constructor(protected readonly t: string) {
        this.n = t.length;
    }

    /** Past the newline at `at`. */
    protected nl(at: number): number {
        this.row++;
        return at + 1;
    }

    /** Past the block comment at `at` (its `/*`). */
    protected block(at: number): number {
        const close = this.t.indexOf('*/', at + 2);
        if (close === -1) throw PARSE;
        for (let k = this.t.indexOf('\n', at); k !== -1 && k < close; k = this.t.indexOf('\n', k + 1)) this.row++;
        return close + 2;
    }

    /** Whether the newline at `at` is escaped by a backslash (`\` or `\` CR before it). */
    protected escaped(at: number): boolean {
        return continued(this.t, at);
    }

    /** The newline ending the line comment at `at` (a backslash continues it; rows counted), or the text's end. */
    protected lineComment(at: number): number {
        for (let k = this.t.indexOf('\n', at); k !== -1; k = this.t.indexOf('\n', k + 1)) {
            if (!this.escaped(k)) return k;
            this.row++;
        }
        return this.n;
    }

    /**
     * The newline ending the directive whose rest begins at `at` (after a `#define`'s name or
     * parameters, an `#undef`, an `#include`'s path), read as the grammar reads it: at most one
     * `preproc_arg` token (`done`: none may come), comments, and a newline right after the last
     * token (`token.immediate`). Spaces before a newline let the newline be skipped as space, and
     * the next line's text is then the token, as in the parse; a second token is an error in the
     * tree, and a `//` that a `/*` or a `/` at the line's end follows may be read either way: such
     * a file is parsed.
     */
    protected rest(at: number, done = false): number {
        const t = this.t;
        for (let i = at; ; ) {
            if (t.charCodeAt(i) === C.Nl) return i;
            if (t.charCodeAt(i) === C.Cr && t.charCodeAt(i + 1) === C.Nl) return i + 1;
            i = this.space(i);
            if (i >= this.n) throw PARSE;
            const [c, d] = [t.charCodeAt(i), t.charCodeAt(i + 1)];
            if (c === C.Slash && d === C.Star) i = this.block(i);
            else if (c === C.Slash && d === C.Slash) {
                const from = i + 2;
                i = this.lineComment(i);
                const line = t.slice(from, i).trimEnd();
                if (i === this.n || line.endsWith('/') || line.includes('/*')) throw PARSE;
            } else {
                if (done) throw PARSE;
                done = true;
                i = this.arg(i);
            }
        }
    }

    /** Past spaces, newlines and backslash-newlines from `at` (rows counted). */
    private space(at: number): number {
        const t = this.t;
        let i = at;
        for (;;) {
            const c = t.charCodeAt(i);
            if (c === C.Nl) i = this.nl(i);
            else if (c === C.Space || c === C.Tab || c === C.Cr || c === 12 || c === 11) i++;
            else if (c === C.Backslash && t.charCodeAt(i + 1) === C.Nl) i = this.nl(i + 1);
            else if (c === C.Backslash && t.charCodeAt(i + 1) === C.Cr && t.charCodeAt(i + 2) === C.Nl) i = this.nl(i + 2);
            else return i;
        }
    }

    /**
     * Past the `preproc_arg` token at `at`: `\S([^/\n]|\/[^*]|\\\r?\n)*`, so a `/*` ends it, and a
     * backslash or a `/` before a newline continues it. A `/` before a backslash, or first before
     * a line's end, is read otherwise by the token's first character: such a file is parsed.
     */
    private arg(at: number): number {
        const t = this.t;
        const first = t.charCodeAt(at + 1);
        if (t.charCodeAt(at) === C.Slash && (first === C.Nl || first === C.Cr || first === C.Backslash)) throw PARSE;
        for (let i = at + 1; ; ) {
            const c = t.charCodeAt(i);
            if (i >= this.n || c === C.Nl) return i;
            const d = t.charCodeAt(i + 1);
            if (c === C.Slash) {
                if (d === C.Star) return i;
                if (i + 1 >= this.n || d === C.Backslash) throw PARSE;
                i = d === C.Nl ? this.nl(i + 1) : i + 2;
            } else if (c === C.Backslash && d === C.Nl) i = this.nl(i + 1);
            else if (c === C.Backslash && d === C.Cr && t.charCodeAt(i + 2) === C.Nl) i = this.nl(i + 2);
            else i++;
        }
    }

    /** The newline after spaces and comments from `at` (the end of `#ifdef X`, `#else`, `#include <x>`); the text's end only when `eof`. */
    protected trailer(at: number, eof = false): number {
        const t = this.t;
        for (let i = at; ; ) {
            if (i >= this.n) {
                if (eof) return this.n;
                throw PARSE;
            }
            const c = t.charCodeAt(i);
            if (c === C.Nl) return i;
            if (c === C.Space || c === C.Tab || (c === C.Cr && t.charCodeAt(i + 1) === C.Nl)) i++;
            else if (c === C.Slash && t.charCodeAt(i + 1) === C.Star) i = this.block(i);
            else if (c === C.Slash && t.charCodeAt(i + 1) === C.Slash) {
                const end = this.lineComment(i);
                if (end === this.n && !eof) throw PARSE;
                return end;
            } else throw PARSE;
        }
    }

    /** The end of a name at `at` (a letter or `_` there), or a throw. */
    protected name(at: number): number {
        if (!isNameStart(this.t.charCodeAt(at))) throw PARSE;
        let i = at + 1;
        while (isNameCode(this.t.charCodeAt(i))) i++;
        if (oddAfterName(this.t.charCodeAt(i))) throw PARSE;
        return i;
    }

    /** Past spaces and tabs from `at`; at least one when `one`. */
    protected spaces(at: number, one: boolean): number {
        let i = at;
        while (this.t.charCodeAt(i) === C.Space || this.t.charCodeAt(i) === C.Tab) i++;
        if (one && i === at) throw PARSE;
        return i;
    }
}
