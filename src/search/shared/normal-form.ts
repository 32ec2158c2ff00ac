/**
 * One Unicode normal form for matching. macOS stores names decomposed (NFD), models and keyboards
 * send composed text (NFC): patterns and globs are made NFC once (prepare.ts), and when one holds
 * a character with two forms ({@link hasTwoForms}), a name, a path or a line that fails it is
 * tested again in NFC. Paths and lines are printed as on disk.
 * Perf: a pattern or glob without such a character costs nothing more (the ASCII letters of a
 * name or line are the same in either form); with one, an ASCII string or one that passed costs
 * no normalization.
 */

const NON_ASCII = /[^\x00-\x7f]/;

/** `text` holds a character spelled differently in NFC and NFD (so text on disk may hold the other form). */
export function hasTwoForms(text: string): boolean {
    return NON_ASCII.test(text) && text.normalize('NFD') !== text.normalize('NFC');
}

/** `re` matches `s`, or `s` in NFC. */
export function testNfc(re: RegExp, s: string): boolean {
    if (re.test(s)) return true;
    if (!NON_ASCII.test(s)) return false;
    const nfc = s.normalize('NFC');
    return nfc !== s && re.test(nfc);
}

/** A path test (a glob's) that also passes for the path and name in NFC. */
export function nfcPathTest<T extends (sub: string, name: string, isDir: boolean) => boolean>(test: T): T {
    return ((sub: string, name: string, isDir: boolean): boolean => {
        if (test(sub, name, isDir)) return true;
        if (!NON_ASCII.test(sub) && !NON_ASCII.test(name)) return false;
        const s = sub.normalize('NFC');
        const n = name.normalize('NFC');
        return (s !== sub || n !== name) && test(s, n, isDir);
    }) as T;
}

/**
 * A line regex that also matches a line in NFC (a RegExp, so the scan's callers keep their
 * `test` and `exec`); for patterns that {@link hasTwoForms}.
 */
export class NfcLineRegExp extends RegExp {
    override test(s: string): boolean {
        if (super.test(s)) return true;
        if (!NON_ASCII.test(s)) return false;
        const nfc = s.normalize('NFC');
        return nfc !== s && super.test(nfc);
    }
}
