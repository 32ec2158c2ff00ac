import { hasEscapedBytes } from './byte-names.js';

/**
 * How tools show paths in their line-based text output.
 *
 * A file name may contain any byte but `/` and NUL, so a name holding a newline would otherwise
 * read as two entries (`evil\nsecret.txt` shown as `evil` and `secret.txt`), and a carriage
 * return or escape sequence could overwrite what the model or a terminal sees.
 */

// Security: C0 control characters and DEL; any of them can break or disguise a line of output.
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * A path as shown in tool output: unchanged when it holds no control character and no byte that
 * is not UTF-8, otherwise JSON-quoted (`"evil\nsecret.txt"`), each invalid byte as `\xHH`
 * (`"caf\xe9.txt"`, see byte-names.ts), so it stays on one line and every tool takes it back,
 * quotes included (`unquotePath`).
 */
export function quotePath(p: string): string {
    const bytes = hasEscapedBytes(p);
    if (!bytes && !CONTROL.test(p)) return p;
    // JSON.stringify escapes U+0000-U+001F but leaves DEL as is: escape it too, so it shows.
    const json = JSON.stringify(p).replace(/\x7f/g, '\\u007f');
    // A lone surrogate comes out as `\udcHH`; an escaped byte is shown as `\xHH` (an odd run of
    // backslashes before `udc` is an escape, an even one a literal backslash).
    return bytes ? json.replace(/(\\+)udc([89a-f][0-9a-f])/g, (m, bs: string, hh: string) => (bs.length % 2 === 1 ? `${bs.slice(1)}\\x${hh}` : m)) : json;
}

/** What goes before a child's name in the listing form of the directory shown as `display`: `''` for `.`, else `display/`. */
export function childPrefix(display: string): string {
    return display === '.' ? '' : display.endsWith('/') ? display : `${display}/`;
}

/** Code-point order, the same on every machine and locale. */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
