/** Character codes the C scanners (c-lexer.ts, bodies.ts, directive-text.ts) test for. */
export const enum C {
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
    Eq = 61,
    Backslash = 92,
    LBrace = 123,
    RBrace = 125,
}

/** Whether the line ending at the newline `nl` is continued by a backslash (`\` or `\` CR before it). */
export function continued(text: string, nl: number): boolean {
    const b = text.charCodeAt(nl - 1) === C.Cr ? nl - 2 : nl - 1;
    return b >= 0 && text.charCodeAt(b) === C.Backslash;
}
