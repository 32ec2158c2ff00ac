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
 * A path as shown in tool output: unchanged when it holds no control character, otherwise
 * JSON-quoted (`"evil\nsecret.txt"`), so it stays on one line and the model can pass it back as
 * a JSON string that decodes to the real name.
 */
export function quotePath(p: string): string {
    // JSON.stringify escapes U+0000-U+001F but leaves DEL as is: escape it too, so it shows.
    return CONTROL.test(p) ? JSON.stringify(p).replace(/\x7f/g, '\\u007f') : p;
}

/** What goes before a child's name in the listing form of the directory shown as `display`: `''` for `.`, else `display/`. */
export function childPrefix(display: string): string {
    return display === '.' ? '' : display.endsWith('/') ? display : `${display}/`;
}

/** Code-point order, the same on every machine and locale. */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
