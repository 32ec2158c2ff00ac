import { and, anyOf, bound, gramCount, MAX_GRAMS, N, or, type Required } from './required.js';

/**
 * The node information of the pattern analysis (./pattern-analysis.ts) and its algebra, from
 * Russ Cox, "Regular Expression Matching with a Trigram Index" (2012): for each node of a
 * pattern's syntax tree, `emptyable`, `exact` (all strings it matches, when few), `prefix` and
 * `suffix` sets and `match` (a query every text holding a match satisfies); how concatenation,
 * alternation and repetition combine them, the sets kept bounded ({@link normalize}). Strings are
 * in the analysis's literal alphabet (one character per byte of folded UTF-8, see there).
 */

/** Most strings kept in a node's exact set before it becomes a query. */
export const MAX_EXACT = 16;
/** Most strings kept in a prefix or suffix set. */
export const MAX_SET = 16;
/** Longest exact string kept, in bytes: longer ones move into `match`. */
const MAX_EXACT_BYTES = 1024;

/** Requires nothing. */
export const ALL: Required = { op: 'all' };

export interface Info {
    emptyable: boolean;
    /** Every string the node matches, or null when unknown or too many. */
    exact: Set<string> | null;
    /** When `exact` is null: every match starts with one of these. */
    prefix: Set<string>;
    /** When `exact` is null: every match ends with one of these. */
    suffix: Set<string>;
    /** Holds for every text containing a match. */
    match: Required;
}

export const EMPTY_STRING: Info = { emptyable: true, exact: new Set(['']), prefix: new Set(), suffix: new Set(), match: ALL };
/** Unknown, possibly empty (`x*`, backreferences). */
export const ANY_STRING: Info = { emptyable: true, exact: null, prefix: new Set(['']), suffix: new Set(['']), match: ALL };
/** One unknown character. */
export const ANY_CHAR: Info = { emptyable: false, exact: null, prefix: new Set(['']), suffix: new Set(['']), match: ALL };

export function exactInfo(exact: Set<string>, match: Required = ALL): Info {
    return normalize({ emptyable: exact.has(''), exact, prefix: new Set(), suffix: new Set(), match });
}

const prefixOf = (x: Info): Set<string> => x.exact ?? x.prefix;
const suffixOf = (x: Info): Set<string> => x.exact ?? x.suffix;
const matchOf = (x: Info): Required => (x.exact ? and(x.match, anyOf(x.exact)) : x.match);
/** Everything known about a node as one query. */
export const full = (x: Info): Required => (x.exact ? matchOf(x) : and(x.match, anyOf(x.prefix), anyOf(x.suffix)));

function cross(a: Set<string>, b: Set<string>): Set<string> {
    const out = new Set<string>();
    for (const x of a) for (const y of b) out.add(x + y);
    return out;
}

function union(a: Set<string>, b: Set<string>): Set<string> {
    return new Set([...a, ...b]);
}

/** Trims every string to its first (`end` false) or last `len` bytes. */
function trim(set: Set<string>, len: number, end: boolean): Set<string> {
    const out = new Set<string>();
    for (const s of set) out.add(s.length <= len ? s : end ? s.slice(s.length - len) : s.slice(0, len));
    return out;
}

/**
 * Keeps the sets bounded: a too large exact set becomes a query plus prefix and suffix sets;
 * prefix (suffix) strings of N bytes or more go into `match` and keep only their first (last)
 * N-1 bytes, the part that can form a gram with a neighbour.
 */
function normalize(x: Info): Info {
    if (x.exact !== null) {
        if (x.exact.size <= MAX_EXACT && ![...x.exact].some((s) => s.length > MAX_EXACT_BYTES)) return x;
        // The prefix step below adds anyOf(exact) to match (anyOf(prefix) with prefix = exact).
        x = { emptyable: x.emptyable, exact: null, prefix: x.exact, suffix: x.exact, match: x.match };
    }
    let { prefix, suffix, match } = x;
    if ([...prefix].some((s) => s.length >= N)) {
        match = and(match, anyOf(prefix));
        prefix = trim(prefix, N - 1, false);
    }
    if ([...suffix].some((s) => s.length >= N)) {
        match = and(match, anyOf(suffix));
        suffix = trim(suffix, N - 1, true);
    }
    for (let len = N - 2; prefix.size > MAX_SET && len >= 0; len--) prefix = trim(prefix, len, false);
    for (let len = N - 2; suffix.size > MAX_SET && len >= 0; len--) suffix = trim(suffix, len, true);
    // Perf: keeps the analysis linear in the pattern's length (a 300-way alternation, a long literal).
    if (gramCount(match) > 4 * MAX_GRAMS) match = bound(match, 4 * MAX_GRAMS);
    return { emptyable: x.emptyable, exact: null, prefix, suffix, match };
}

export function concat(x: Info, y: Info): Info {
    if (x.exact && y.exact && x.exact.size * y.exact.size <= MAX_EXACT) return exactInfo(cross(x.exact, y.exact), and(x.match, y.match));
    const px = prefixOf(x);
    const py = prefixOf(y);
    const sx = suffixOf(x);
    const sy = suffixOf(y);
    const prefix = x.exact && x.exact.size * py.size <= MAX_EXACT * MAX_SET ? cross(x.exact, py) : px;
    const suffix = y.exact && sx.size * y.exact.size <= MAX_EXACT * MAX_SET ? cross(sx, y.exact) : sy;
    // Across the boundary: the end of x's match meets the start of y's.
    const tails = trim(sx, N - 1, true);
    const heads = trim(py, N - 1, false);
    const boundary = tails.size * heads.size <= MAX_EXACT * MAX_SET ? anyOf(cross(tails, heads)) : ALL;
    return normalize({ emptyable: x.emptyable && y.emptyable, exact: null, prefix, suffix, match: and(matchOf(x), matchOf(y), boundary) });
}

export function alternate(x: Info, y: Info): Info {
    if (x.exact && y.exact) return exactInfo(union(x.exact, y.exact), x.match.op === 'all' || y.match.op === 'all' ? ALL : or(x.match, y.match));
    return normalize({
        emptyable: x.emptyable || y.emptyable,
        exact: null,
        prefix: union(prefixOf(x), prefixOf(y)),
        suffix: union(suffixOf(x), suffixOf(y)),
        match: or(matchOf(x), matchOf(y)),
    });
}

/** `x+`: at least one match of x, so what every match of x holds. */
function plus(x: Info): Info {
    return normalize({ emptyable: x.emptyable, exact: null, prefix: prefixOf(x), suffix: suffixOf(x), match: matchOf(x) });
}

/**
 * `x{min,max}`: `x{0,1}` is `x|`; other optional repetitions require nothing; `x{n}` with n up to
 * N repeats x; otherwise at least min-1 copies (at most N-1 kept) followed by `x+`, which every
 * longer repetition also is.
 */
export function repeat(x: Info, min: number, max: number): Info {
    if (max === 0) return EMPTY_STRING;
    if (min === 0) return max === 1 ? alternate(x, EMPTY_STRING) : ANY_STRING;
    if (max === min && min <= N) {
        let out = x;
        for (let i = 1; i < min; i++) out = concat(out, x);
        return out;
    }
    let out = plus(x);
    for (let i = Math.min(min - 1, N - 1); i > 0; i--) out = concat(x, out);
    return out;
}
