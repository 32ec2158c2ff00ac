import { SIGNATURE_CHARS, signatureText } from '../../src/symbols/shared/signature.js';

/**
 * The lines of a definition up to the end of its name's line, as one line: `export function f(a)`,
 * or a C definition whose return type stands on the line before its name.
 */
export function signatureOf(source: string, start: number, nameEnd: number, spans?: number[]): string {
    // Perf: only SIGNATURE_CHARS around the definition are looked at. Scanning to the line's ends
    // made a minified file's outline quadratic (a 2 MB line of 70,000 definitions: minutes).
    let from = start;
    for (let i = start - 1; i >= 0 && start - i <= SIGNATURE_CHARS; i--) {
        if (source.charCodeAt(i) === 10) break;
        from = i;
    }
    // A definition far into a long line starts its own signature, as does one after a statement
    // or block ended on its line (`function a(){…}function b(){` in minified code).
    if (from > 0 && source.charCodeAt(from - 1) !== 10) from = start;
    else if (from < start && /[;}]/.test(source.slice(from, start))) from = start;
    const ahead = source.slice(nameEnd, nameEnd + SIGNATURE_CHARS + 1);
    const nl = ahead.indexOf('\n');
    const to = nl === -1 ? nameEnd + ahead.length : nameEnd + nl;
    const cut = nl === -1 && to < source.length;
    spans?.push(from, to, cut ? 1 : 0);
    return signatureText(source.slice(from, to), cut);
}
