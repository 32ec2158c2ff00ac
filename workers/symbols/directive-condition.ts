/**
 * The conditions of `#if` and `#elif` that tree-sitter-c reads without an error, for the files
 * read without a parse (directives.ts): names, numbers, `defined`, calls, parentheses, unary and
 * binary operators, as tokens.
 */

export const isNameStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
export const isNameCode = (c: number): boolean => isNameStart(c) || (c >= 48 && c <= 57);

const BINARY: ReadonlySet<string> = new Set(['||', '&&', '|', '^', '&', '==', '!=', '<', '>', '<=', '>=', '<<', '>>', '+', '-', '*', '/', '%']);
const UNARY: ReadonlySet<string> = new Set(['!', '~', '-', '+']);
/** Longest first, as the lexer takes them. */
const OPERATORS = ['||', '&&', '==', '!=', '<=', '>=', '<<', '>>', '|', '^', '&', '<', '>', '+', '-', '*', '/', '%', '!', '~', '(', ')', ','];
/** The integer literals taken: decimal or hexadecimal with an optional `u`, `l` or `ll` suffix; any other number leaves the file to the parse. */
export const NUMBER = /^(?:0[xX][0-9a-fA-F]+|[0-9]+)(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?$/;

/** The operator at `at` in `text`, or `undefined`. */
export function operatorAt(text: string, at: number): string | undefined {
    return OPERATORS.find((o) => text.startsWith(o, at));
}

/**
 * Whether `tokens` are one expression of tree-sitter-c's preprocessor expressions: names, numbers,
 * `defined X` and `defined(X)`, calls `F(a, b)`, parentheses, unary and binary operators (no
 * `?:`, characters or strings).
 */
export function expression(tokens: readonly string[]): boolean {
    let k = 0;
    const isName = (s: string | undefined): boolean => s !== undefined && isNameStart(s.charCodeAt(0)) && s !== 'defined';
    const expr = (): boolean => {
        if (!unary()) return false;
        while (BINARY.has(tokens[k] ?? '')) {
            k++;
            if (!unary()) return false;
        }
        return true;
    };
    const unary = (): boolean => {
        while (UNARY.has(tokens[k] ?? '')) k++;
        const s = tokens[k++];
        if (s === '0') return true;
        if (s === '(') return expr() && tokens[k++] === ')';
        if (s === 'defined') {
            if (tokens[k] !== '(') return isName(tokens[k++]);
            k++;
            return isName(tokens[k++]) && tokens[k++] === ')';
        }
        if (!isName(s)) return false;
        if (tokens[k] !== '(') return true;
        k++;
        if (tokens[k] === ')') {
            k++;
            return true;
        }
        for (;;) {
            if (!expr()) return false;
            const next = tokens[k++];
            if (next === ')') return true;
            if (next !== ',') return false;
        }
    };
    return expr() && k === tokens.length;
}

