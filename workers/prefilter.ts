/**
 * The scan's literal prefilter: a literal every matched line contains, found in the raw bytes
 * (ASCII case-insensitively, through its rarest byte) before any decoding or regex runs.
 */

/**
 * A case-insensitive ASCII literal, searched through a short piece of it: every case variant of
 * that piece is found with `Buffer#indexOf` (native), and each place one is found is checked for
 * the whole literal.
 */
export interface LiteralPlan {
    /** The literal's bytes, ASCII letters lower-cased. */
    folded: Uint8Array;
    /** Where the searched piece starts in the literal. */
    offset: number;
    /** The piece's case variants: a byte (one-byte piece) or the bytes (two-byte piece). */
    needles: (number | Buffer)[];
    /** Next position of each needle during one search (reused: findLiteral is not re-entered). */
    next: Float64Array;
}

/**
 * Printable ASCII (32..126) in source code and docs: occurrences per 100,000 bytes of each byte,
 * measured over 12,000 files (130 MB) under drivers/ of the Linux 6.1 tree. Other bytes count 1.
 */
const FREQ = [
    10667, 60, 357, 258, 7, 57, 221, 20, 1126, 1127, 1120, 99, 1399, 723, 501, 428, 1385, 586, 548, 328, 250, 201, 212, 130, 226, 120, 147, 1103, 141, 706,
    580, 10, 33, 926, 324, 905, 738, 1187, 386, 405, 288, 959, 11, 192, 690, 684, 684, 677, 659, 57, 926, 926, 965, 375, 243, 143, 172, 134, 38, 125, 86,
    125, 1, 5186, 1, 2964, 817, 2708, 2631, 5448, 1397, 962, 949, 3572, 66, 540, 1851, 1534, 2897, 2407, 1643, 206, 3506, 3007, 4445, 1814, 1028, 429, 673,
    376, 107, 302, 75, 302, 9,
];

/** Occurrences of byte `b` per 100,000 bytes of source text ({@link FREQ}). */
function freq(b: number): number {
    return b >= 32 && b <= 126 ? FREQ[b - 32]! : 1;
}

/**
 * Relative costs of the prefilter's search, in units of one `indexOf` pass over a byte: each
 * place a one-byte needle is found costs a return to JavaScript (~450 passes' worth of a byte),
 * each place a two-byte needle's first byte is found a native comparison (~150). Measured with
 * `Buffer#indexOf` over the same 130 MB (Node 20, one thread): one pass over an absent byte ran
 * at ~8 GB/s; finding every `4` (2.5 per 1,000 bytes) took 2.5× that pass, the first `42` 1.1×.
 */
const JS_HIT = 450;
const NATIVE_HIT = 150;

/** The ASCII case variants of byte `b` (lower-cased already): one, or two for a letter. */
function cases(b: number): number[] {
    return b >= 97 && b <= 122 ? [b, b - 32] : [b];
}

/**
 * Plans the search of `literal` (ASCII case-insensitive): of its one- and two-byte pieces (at most
 * four case variants), the one whose variants are cheapest to find in source text per
 * {@link FREQ}: e.g. `42` in `xyzzy_no_such_token_42` (one native pass) rather than `z` and `Z`
 * (two passes, a return to JavaScript at each), `x_`/`X_` in `mutex_lock`.
 */
export function planLiteral(literal: string): LiteralPlan {
    const folded = Buffer.from(literal.toLowerCase(), 'latin1');
    let best: { cost: number; offset: number; needles: (number | Buffer)[] } | undefined;
    for (let i = 0; i < folded.length; i++) {
        const one = cases(folded[i]!);
        const oneCost = one.reduce((sum, b) => sum + 1 + (freq(b) / 1e5) * JS_HIT, 0);
        if (best === undefined || oneCost < best.cost) best = { cost: oneCost, offset: i, needles: one };
        if (i + 1 >= folded.length) continue;
        const second = cases(folded[i + 1]!);
        const pairs = one.flatMap((a) => second.map((b) => Buffer.from([a, b])));
        const pairCost = pairs.reduce((sum, p) => sum + 1 + (freq(p[0]!) / 1e5) * NATIVE_HIT, 0);
        if (pairCost < best.cost) best = { cost: pairCost, offset: i, needles: pairs };
    }
    const needles = best?.needles ?? [];
    return { folded, offset: best?.offset ?? 0, needles, next: new Float64Array(needles.length) };
}

/**
 * A one-character literal among the commonest in source text (both cases together at least 2.4%
 * of the bytes in {@link FREQ}: `_`, space and the letters a c d e i l n o r s t) is in nearly
 * every line: deciding, decoding and testing each such line alone costs far more than one regex
 * pass over the decoded text (`\u00e9t\u00e9`, literal `t`: 122 s against 1.2 s over the Linux
 * tree's 1.3 GB, one thread, load 5), so such a literal drives no prefilter. Rarer ones still do
 * (`\w+\s*=\s*\d+;` with `=`: 16 s through the prefilter, 37 s without).
 */
export function worthPrefilter(literal: string): boolean {
    if (literal.length !== 1) return true;
    const b = literal.toLowerCase().charCodeAt(0);
    return cases(b).reduce((sum, c) => sum + freq(c), 0) < 2400;
}

function foldedAt(buf: Uint8Array, start: number, folded: Uint8Array): boolean {
    for (let i = 0; i < folded.length; i++) {
        let b = buf[start + i]!;
        if (b >= 65 && b <= 90) b |= 0x20;
        if (b !== folded[i]) return false;
    }
    return true;
}

/**
 * Start of the first occurrence of the literal (ASCII case-insensitively) at or after `from`,
 * or -1.
 * Perf: `Buffer#indexOf` runs natively (memchr for a byte, ~8 GB/s); finding the plan's piece
 * and verifying around it beats decoding the file and running the regex (~1.5 GB/s) by far on
 * files that do not contain it, which is most of them.
 */
export function findLiteral(buf: Buffer, plan: LiteralPlan, from: number): number {
    const { folded, offset, needles, next } = plan;
    const last = buf.length - folded.length; // last possible start
    if (from > last) return -1;
    if (folded.length === 0) return from;
    const k = needles.length;
    for (let j = 0; j < k; j++) next[j] = buf.indexOf(needles[j]!, from + offset);
    for (;;) {
        // The earliest place a needle is found.
        let at = -1;
        let p = Infinity;
        for (let j = 0; j < k; j++) {
            const q = next[j]!;
            if (q !== -1 && q < p) {
                p = q;
                at = j;
            }
        }
        if (at === -1) return -1;
        const start = p - offset;
        if (start > last) return -1;
        if (foldedAt(buf, start, folded)) return start;
        next[at] = buf.indexOf(needles[at]!, p + 1);
    }
}
