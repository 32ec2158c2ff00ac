/**
 * The scan's literal prefilter: a literal every matched line contains, found in the raw bytes
 * (ASCII case-insensitively, through its rarest byte) before any decoding or regex runs.
 */

/** A case-insensitive ASCII literal, searched through its rarest byte. */
export interface LiteralPlan {
    /** The literal's bytes, ASCII letters lower-cased. */
    folded: Uint8Array;
    /** Index in `folded` of the byte searched with `indexOf` (the rarest in source text). */
    anchor: number;
    /** The anchor byte and its other ASCII case (equal for non-letters). */
    lo: number;
    hi: number;
    /** The anchor's place in {@link RARITY} (0: the rarest; its length: a byte not listed). */
    rank: number;
}

/**
 * Printable ASCII from rarest to most common in source code and docs (letters counted with both
 * cases), measured over 20k files of the Linux 6.1 tree.
 */
const RARITY = "^?$~@'`Jj!\\%|+<][Zz79&#56Qq:}{\"843/.2>Yy1KkWw=*Vv;()-GgBbHhXx,MmUuFfPp0LlDdCcOoNnAaSsIi_RrTtEe ";

/** Rank of `g`, from which on a byte is among the commonest letters (and `_`, space) of source text. */
export const COMMON_RANK = RARITY.indexOf('g');

/**
 * A one-character literal among the commonest in source text (the end of {@link RARITY}) is in
 * nearly every line: deciding, decoding and testing each such line alone costs far more than one
 * regex pass over the decoded text (`\u00e9t\u00e9`, literal `t`: 122 s against 1.2 s over the
 * Linux tree's 1.3 GB, one thread, load 5), so such a literal drives no prefilter. Rarer ones
 * still do (`\w+\s*=\s*\d+;` with `=`: 16 s through the prefilter, 37 s without).
 */
export function worthPrefilter(literal: string): boolean {
    return literal.length > 1 || RARITY.indexOf(literal) < RARITY.length - 24;
}

/** Rank of byte `b` in {@link RARITY} (0: the rarest; its length: a byte not listed). */
export function byteRank(b: number): number {
    const r = RARITY.indexOf(String.fromCharCode(b));
    return r === -1 ? RARITY.length : r;
}

export function planLiteral(literal: string): LiteralPlan {
    const folded = Buffer.from(literal.toLowerCase(), 'latin1');
    let anchor = 0;
    let bestRank = Infinity;
    for (let i = 0; i < literal.length; i++) {
        const r = byteRank(literal.charCodeAt(i));
        if (r < bestRank) {
            bestRank = r;
            anchor = i;
        }
    }
    const lo = folded[anchor]!;
    const hi = lo >= 97 && lo <= 122 ? lo - 32 : lo;
    return { folded, anchor, lo, hi, rank: bestRank };
}

/** Whether `folded` (ASCII lower-cased) is at `start` of `buf`, ASCII case-insensitively; the caller checks that it fits. */
export function foldedAt(buf: Uint8Array, start: number, folded: Uint8Array): boolean {
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
 * Perf: `Buffer#indexOf` of one byte is a native memchr (~10 GB/s); scanning for the literal's
 * rarest byte in both cases and verifying around it beats decoding the file and running the
 * regex (~1.5 GB/s) by far on files that do not contain it, which is most of them.
 */
export function findLiteral(buf: Buffer, plan: LiteralPlan, from: number): number {
    const { folded, anchor, lo, hi } = plan;
    const last = buf.length - folded.length; // last possible start
    if (from > last) return -1;
    let n1 = buf.indexOf(lo, from + anchor);
    let n2 = hi === lo ? -1 : buf.indexOf(hi, from + anchor);
    for (;;) {
        let p: number;
        if (n1 === -1) {
            if (n2 === -1) return -1;
            p = n2;
            n2 = buf.indexOf(hi, p + 1);
        } else if (n2 === -1 || n1 < n2) {
            p = n1;
            n1 = buf.indexOf(lo, p + 1);
        } else {
            p = n2;
            n2 = buf.indexOf(hi, p + 1);
        }
        const start = p - anchor;
        if (start > last) return -1;
        if (foldedAt(buf, start, folded)) return start;
    }
}
