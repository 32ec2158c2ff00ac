/**
 * The index's case folding and trigram split: the one definition shared by the query planner
 * (which folds the pattern's literals) and the index builder (which folds the decoded text), so
 * both fold and split EXACTLY the same way.
 *
 * ## Folding
 *
 * {@link foldCodePoint} maps each code point to one code point:
 * - ASCII: `A`-`Z` to `a`-`z`, everything else unchanged;
 * - U+017F LATIN SMALL LETTER LONG S to `s`, U+212A KELVIN SIGN to `k` (both fall out of the
 *   general rule below; named here because `/s/iu` matches `ſ` and `/k/iu` matches `K`);
 * - any other code point `c`: `u = toUpperCase(c)` (kept only when it is one code point, else
 *   `u = c`), then `toLowerCase(u)` (kept only when it is one code point, else `u`);
 * - surrogate code units (lone surrogates in decoded text) to U+FFFD, as `Buffer.from(text,
 *   'utf8')` encodes them.
 *
 * The search compiles `new RegExp(pattern, 'i')` or `'iu'` (src/search/regex.ts). Two characters
 * match each other there when their canonical forms are equal: `toUpperCase`-based without `u`
 * (ECMA-262 Canonicalize, where a non-ASCII character never canonicalizes to ASCII), simple case
 * folding (Unicode CaseFolding.txt, statuses C and S) with `u`. The fold is sound for both when
 * every character a pattern character `c` matches folds to `foldCodePoint(c)`; the fold may merge
 * more (it merges `ı` with `i`, which neither mode does), which only costs selectivity.
 * test/unit/search-index/planner.test.ts checks this for every code point in both modes against the regex
 * engine itself. The planner treats a pattern character as unknown when it is a surrogate (in
 * non-Unicode mode a pattern's surrogate code unit can match half of a text's surrogate pair,
 * which the UTF-8 encoding of the text does not show).
 *
 * ## Grams
 *
 * A gram is 3 consecutive bytes of the UTF-8 encoding of the folded text, packed into one
 * number: `(b0 << 16) | (b1 << 8) | b2` (0 to 0xFFFFFF). Byte trigrams (as in Google Code Search,
 * Russ Cox, "Regular Expression Matching with a Trigram Index", 2012) keep the key space at 2^24
 * whatever the script. Grams run across line ends; that only adds grams, which is sound.
 *
 * The builder must apply {@link gramsOf} to the text decoded exactly as the scan decodes it
 * (workers/search/scan.ts: UTF-16 when the file starts with a UTF-16 BOM, else UTF-8 without its BOM
 * when the bytes are valid UTF-8, else Latin-1). For pure ASCII bytes the grams are simply the
 * byte trigrams of the bytes with `A`-`Z` lower-cased.
 */

/** Folded form of each ASCII code. */
const ASCII_FOLD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_FOLD[c] = c >= 65 && c <= 90 ? c + 32 : c;

/** Each byte with A-Z lower-cased: the fold of ASCII text's bytes, read without decoding. */
export const LOWER_BYTES = new Uint8Array(256).map((_, b) => (b >= 65 && b <= 90 ? b + 32 : b));

/**
 * Pairs simple case folding merges (Unicode 15: CaseFolding.txt status S) that the
 * toUpperCase/toLowerCase rule leaves apart, because their upper case is several code points:
 * U+1FD3 with U+0390, U+1FE3 with U+03B0, U+FB05 with U+FB06. Found by the exhaustive check in
 * test/unit/search-index/planner.test.ts.
 */
const EXTRA_FOLDS = new Map<number, number>([
    [0x1fd3, 0x0390],
    [0x1fe3, 0x03b0],
    [0xfb05, 0xfb06],
]);

/**
 * Non-ASCII folds computed so far, by plane of 65,536 code points (a table made on the plane's
 * first fold; 0 where none is computed yet: nothing but U+0000 folds to U+0000). The rule calls
 * toUpperCase/toLowerCase, which allocate; a table lookup is cheaper than a Map's and the
 * collector never walks it, for 256 KB a plane (text rarely reaches more than the first).
 */
const foldPlanes: (Uint32Array | undefined)[] = [];

/** The single code point of `s`, or -1 when `s` is not exactly one code point. */
function single(s: string): number {
    const cp = s.codePointAt(0);
    if (cp === undefined) return -1;
    return s.length === (cp > 0xffff ? 2 : 1) ? cp : -1;
}

/** The index's fold of one code point (see the module's docstring); a code point in, a code point out. */
export function foldCodePoint(cp: number): number {
    if (cp < 128) return ASCII_FOLD[cp]!;
    if (cp >= 0xd800 && cp <= 0xdfff) return 0xfffd;
    const plane = (foldPlanes[cp >> 16] ??= new Uint32Array(0x10000));
    const cached = plane[cp & 0xffff]!;
    if (cached !== 0) return cached;
    const extra = EXTRA_FOLDS.get(cp);
    if (extra !== undefined) return extra;
    const s = String.fromCodePoint(cp);
    let u = single(s.toUpperCase());
    if (u === -1) u = cp;
    let l = single(String.fromCodePoint(u).toLowerCase());
    if (l === -1) l = u;
    plane[cp & 0xffff] = l;
    return l;
}

/** The text with every code point folded by {@link foldCodePoint} (lone surrogates become U+FFFD). */
export function foldForIndex(text: string): string {
    let out = '';
    for (const ch of text) out += String.fromCodePoint(foldCodePoint(ch.codePointAt(0)!));
    return out;
}

/** UTF-8 bytes of one code point as a string of byte-valued characters (U+0000-U+00FF). */
export function utf8Bytes(cp: number): string {
    if (cp < 0x80) return String.fromCharCode(cp);
    if (cp < 0x800) return String.fromCharCode(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    if (cp < 0x10000) return String.fromCharCode(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    return String.fromCharCode(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
}

/**
 * Calls `visit` with each gram of `text` (folded, UTF-8 encoded, every 3-byte window), in text
 * order, repeats included.
 */
export function forEachGram(text: string, visit: (gram: number) => void): void {
    let window = 0;
    let bytes = 0; // bytes seen so far (only compared with 3)
    forEachFoldedByte(text, (b) => {
        window = ((window << 8) | b) & 0xffffff;
        if (++bytes >= 3) visit(window);
    });
}

/** Calls `visit` with each byte of the UTF-8 encoding of the folded `text`, in order. */
export function forEachFoldedByte(text: string, visit: (byte: number) => void): void {
    for (let i = 0; i < text.length; i++) {
        let cp = text.charCodeAt(i);
        if (cp < 128) {
            // Perf: the ASCII path is a table lookup, no fold call.
            visit(ASCII_FOLD[cp]!);
            continue;
        }
        if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
            const lo = text.charCodeAt(i + 1);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i++;
            }
        }
        const f = foldCodePoint(cp);
        const n = f < 0x80 ? 1 : f < 0x800 ? 2 : f < 0x10000 ? 3 : 4;
        for (let k = n - 1; k >= 0; k--) visit(n === 1 ? f : k === n - 1 ? LEAD[n]! | (f >> (6 * k)) : 0x80 | ((f >> (6 * k)) & 63));
    }
}

/** Lead byte marks of a UTF-8 sequence by its length. */
const LEAD = [0, 0, 0xc0, 0xe0, 0xf0];

/** One bit per possible gram (2 MiB), cleared after each use; shared by {@link distinctGrams}. */
let seen: Uint8Array | null = null;

/** Distinct grams found by the current {@link distinctGrams} call, grown as needed. */
let found = new Uint32Array(4096);

/**
 * The distinct grams of `text`, in order of first occurrence (the same grams as
 * {@link forEachGram}).
 * Perf: a 2 MiB bitmap over the 2^24 grams deduplicates several times faster than a Set, and
 * only the bits set are cleared afterwards.
 */
export function distinctGrams(text: string): Uint32Array {
    const bits = (seen ??= new Uint8Array(1 << 21));
    let count = 0;
    forEachGram(text, (g) => {
        const at = g >>> 3;
        const mask = 1 << (g & 7);
        if ((bits[at]! & mask) !== 0) return;
        bits[at] = bits[at]! | mask;
        if (count === found.length) {
            const grown = new Uint32Array(found.length * 2);
            grown.set(found);
            found = grown;
        }
        found[count++] = g;
    });
    const out = found.slice(0, count);
    for (let i = 0; i < count; i++) bits[out[i]! >>> 3] = 0;
    return out;
}

/** The set of grams of `text` (see {@link forEachGram}), added to `into` when given. */
export function gramsOf(text: string, into: Set<number> = new Set()): Set<number> {
    for (const g of distinctGrams(text)) into.add(g);
    return into;
}

/**
 * The gram of the 3 characters at `i` of a byte string: each character's low 8 bits are a byte
 * (U+0000-U+00FF as {@link utf8Bytes} makes them, or the marked U+0100-U+01FF of
 * pattern-analysis.ts).
 */
export function gramAt(bytes: string, i: number): number {
    return ((bytes.charCodeAt(i) & 0xff) << 16) | ((bytes.charCodeAt(i + 1) & 0xff) << 8) | (bytes.charCodeAt(i + 2) & 0xff);
}

/** A gram for display: its 3 bytes, printable ASCII as such, others as `\xHH`. */
export function formatGram(gram: number): string {
    let out = '';
    for (const b of [gram >> 16, (gram >> 8) & 255, gram & 255]) {
        out += b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
    }
    return out;
}
