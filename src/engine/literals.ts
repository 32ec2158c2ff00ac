import { RegExpParser, type AST } from '@eslint-community/regexpp';

/**
 * Required literals of a regular expression: what every line it matches must contain, used to
 * rule out text without running the regex (the scan's byte prefilter; an index's query planner).
 *
 * The pattern is parsed by `@eslint-community/regexpp` exactly as JavaScript reads it with the
 * given flags, Annex B included (without `u`: incomplete `\x`/`\u`/`\c`, octal escapes, identity
 * escapes, `\u{…}` as a quantified `u`, lone braces). The analysis is the one of Russ Cox,
 * "Regular Expression Matching with a Trigram Index" (2012): per node the exact set of strings
 * it can match when small, else prefixes, suffixes and a required AND/OR of literals.
 *
 * Sound by construction, never by guessing: a character is used only when it matches nothing
 * but its ASCII case variants under case-insensitive matching (see {@link foldChar}); anything
 * else counts as an unknown character. A pattern the parser cannot read as the RegExp
 * constructor does (a disagreement on validity or on the number of capturing groups) and the
 * `v` flag give up: `{ op: 'all' }`.
 */

/**
 * A query over literals, ASCII lower-cased: a text can hold a match only if it satisfies it.
 * `all`: nothing is required (every text is a candidate). `literal`: the text contains `text`
 * ASCII case-insensitively (it is at least 1 character). `and`/`or`: all or one of `of` (2 or more).
 */
export type LiteralQuery =
    | { op: 'all' }
    | { op: 'literal'; text: string }
    | { op: 'and'; of: LiteralQuery[] }
    | { op: 'or'; of: LiteralQuery[] };

/** What {@link analyzePattern} proves about a pattern. */
export interface PatternAnalysis {
    /** Every line (string without `\n`) the pattern matches satisfies this query. */
    query: LiteralQuery;
    /**
     * The pattern holds no lookaround, so whether it matches within a line never depends on the
     * text around that line: a line it matches on its own is also matched at the same place by
     * the pattern with `m` over the whole text (the scan's whole-text shortcut relies on this).
     */
    lineLocal: boolean;
}

const ALL: LiteralQuery = { op: 'all' };
const GIVE_UP: PatternAnalysis = { query: ALL, lineLocal: false };
/** Largest set of strings tracked per node before it is summarised (Cox uses 16 too). */
const MAX_SET = 16;

/**
 * The literals every line matched by `new RegExp(source, flags)` must contain (case-folded as
 * the search matches, ASCII case-insensitively), and whether the pattern is line-local.
 * Never throws: a pattern the analysis cannot be sure of gives `{ query: { op: 'all' }, lineLocal: false }`.
 */
export function analyzePattern(source: string, flags: string): PatternAnalysis {
    if (flags.includes('v')) return GIVE_UP;
    const unicode = flags.includes('u');
    let pattern: AST.Pattern;
    let v8Groups: number;
    try {
        pattern = new RegExpParser({ strict: false, ecmaVersion: 2025 }).parsePattern(source, 0, source.length, { unicode });
        // The engine's own count of capturing groups; a parser that reads the pattern
        // differently (a `\1` taken for an octal escape, a `(` for a literal) is caught here.
        v8Groups = new RegExp(`(?:${source})|`, flags.replace(/[gy]/g, '')).exec('')!.length - 1;
    } catch {
        return GIVE_UP;
    }
    const state = { groups: 0, lookaround: false, unicode };
    let info: Info;
    try {
        info = analyzeNode(pattern, state);
    } catch {
        return GIVE_UP;
    }
    if (state.groups !== v8Groups) return GIVE_UP;
    return { query: simplify(full(info)), lineLocal: !state.lookaround };
}

/**
 * The ASCII lower-case form of code point `c` when case-insensitive matching of `c` finds only
 * its ASCII case variants, else `null`. Without `u`, RegExp canonicalises by `toUpperCase` and
 * never maps a non-ASCII character to an ASCII one (ECMA-262 Canonicalize), so every ASCII
 * character qualifies; with `u` it uses simple case folding, where `ſ` (U+017F) folds to `s` and
 * the Kelvin sign (U+212A) to `k`, so those two letters do not. `\n` never occurs inside a line.
 */
export function foldChar(c: number, unicode: boolean): string | null {
    if (c >= 128 || c === 10) return null;
    const lower = c >= 65 && c <= 90 ? c + 32 : c;
    if (unicode && (lower === 107 || lower === 115)) return null;
    return String.fromCharCode(lower);
}

/**
 * Per-node facts, strings ASCII lower-cased. `exact`: every match is one of these (null when
 * unknown or too many). `prefix`/`suffix`: every match starts/ends with one of these (`''`
 * among them says nothing). `match`: a query every line holding a match satisfies.
 */
interface Info {
    exact: string[] | null;
    prefix: string[];
    suffix: string[];
    match: LiteralQuery;
}

const EMPTY: Info = { exact: [''], prefix: [''], suffix: [''], match: ALL };
const UNKNOWN: Info = { exact: null, prefix: [''], suffix: [''], match: ALL };

interface State {
    groups: number;
    lookaround: boolean;
    unicode: boolean;
}

function analyzeNode(node: AST.Node, st: State): Info {
    switch (node.type) {
        case 'Pattern':
        case 'Group':
            return alternation(node.alternatives.map((a) => analyzeNode(a, st)));
        case 'CapturingGroup':
            st.groups++;
            return alternation(node.alternatives.map((a) => analyzeNode(a, st)));
        case 'Alternative':
            return node.elements.reduce<Info>((acc, e) => concat(acc, analyzeNode(e, st)), EMPTY);
        case 'Character': {
            const f = foldChar(node.value, st.unicode);
            return f === null ? UNKNOWN : { exact: [f], prefix: [f], suffix: [f], match: ALL };
        }
        case 'CharacterClass':
            return characterClass(node, st);
        case 'CharacterSet':
        case 'Backreference':
            return UNKNOWN;
        case 'Assertion': {
            if (node.kind !== 'lookahead' && node.kind !== 'lookbehind') return EMPTY;
            st.lookaround = true;
            // Zero-width, but a positive lookaround's body matched within the same line.
            const body = alternation(node.alternatives.map((a) => analyzeNode(a, st)));
            return node.negate ? EMPTY : { ...EMPTY, match: full(body) };
        }
        case 'Quantifier':
            return quantifier(analyzeNode(node.element, st), node.min, node.max);
        default:
            // A node kind this analysis does not know (a newer parser version): not sure, give up.
            throw new Error(`unexpected regex node ${node.type}`);
    }
}

/** A class of a few plain characters (`[aA_]`) is a small exact set; anything else (ranges, negation, escapes like `\w`) one unknown character. */
function characterClass(node: AST.CharacterClass, st: State): Info {
    if (node.negate || node.unicodeSets) return UNKNOWN;
    const set = new Set<string>();
    for (const e of node.elements) {
        if (e.type !== 'Character') return UNKNOWN;
        const f = foldChar(e.value, st.unicode);
        if (f === null) return UNKNOWN;
        set.add(f);
    }
    if (set.size === 0) return UNKNOWN; // `[]` matches nothing; treating it as any character is still sound
    const chars = [...set];
    return { exact: chars, prefix: chars, suffix: chars, match: ALL };
}

function quantifier(x: Info, min: number, max: number): Info {
    if (max === 0) return EMPTY;
    if (min === 0) return max === 1 ? alternation([EMPTY, x]) : UNKNOWN;
    if (x.exact !== null && min === max && min <= 4) {
        let acc: Info = EMPTY;
        for (let i = 0; i < min; i++) acc = concat(acc, x);
        return acc;
    }
    // At least one repetition: a match starts with one of x and ends with one.
    return { exact: null, prefix: pre(x), suffix: suf(x), match: full(x) };
}

function concat(x: Info, y: Info): Info {
    if (x.exact !== null && y.exact !== null) {
        const exact = cross(x.exact, y.exact);
        if (exact !== null && exact.length <= MAX_SET) return { exact, prefix: exact, suffix: exact, match: and([x.match, y.match]) };
    }
    const joint = cross(suf(x), pre(y));
    const match = and([x.match, y.match, joint === null ? and([anyOf(suf(x)), anyOf(pre(y))]) : anyOf(joint)]);
    const prefix = x.exact !== null ? (cross(x.exact, y.prefix) ?? x.exact) : x.prefix;
    const suffix = y.exact !== null ? (cross(x.suffix, y.exact) ?? y.exact) : y.suffix;
    return { exact: null, prefix: trim(prefix, false), suffix: trim(suffix, true), match };
}

function alternation(xs: Info[]): Info {
    if (xs.length === 1) return xs[0]!;
    if (xs.every((x) => x.exact !== null)) {
        const exact = unique(xs.flatMap((x) => x.exact!));
        if (exact.length <= MAX_SET) return { exact, prefix: exact, suffix: exact, match: or(xs.map((x) => x.match)) };
    }
    return {
        exact: null,
        prefix: trim(unique(xs.flatMap(pre)), false),
        suffix: trim(unique(xs.flatMap(suf)), true),
        match: or(xs.map(full)),
    };
}

const pre = (x: Info): string[] => x.exact ?? x.prefix;
const suf = (x: Info): string[] => x.exact ?? x.suffix;

/** Everything known about a node as one query. */
function full(x: Info): LiteralQuery {
    if (x.exact !== null) return and([x.match, anyOf(x.exact)]);
    return and([x.match, anyOf(x.prefix), anyOf(x.suffix)]);
}

/** Every concatenation of one of `a` and one of `b`, or null when there would be too many. */
function cross(a: string[], b: string[]): string[] | null {
    if (a.length * b.length > MAX_SET * MAX_SET) return null;
    const out: string[] = [];
    for (const s of a) for (const t of b) out.push(s + t);
    return unique(out);
}

/** Shortens a prefix (or suffix) set until it has at most MAX_SET strings: a prefix of a prefix is still one. */
function trim(set: string[], suffixes: boolean): string[] {
    let cur = set;
    while (cur.length > MAX_SET) {
        const longest = Math.max(...cur.map((s) => s.length));
        cur = unique(cur.map((s) => (s.length < longest ? s : suffixes ? s.slice(1) : s.slice(0, -1))));
    }
    return cur;
}

function unique(xs: string[]): string[] {
    return [...new Set(xs)];
}

function anyOf(strings: string[]): LiteralQuery {
    if (strings.length === 0 || strings.includes('')) return ALL;
    return or(strings.map((text) => ({ op: 'literal', text })));
}

function and(of: LiteralQuery[]): LiteralQuery {
    const parts = of.flatMap((q) => (q.op === 'and' ? q.of : q.op === 'all' ? [] : [q]));
    return parts.length === 0 ? ALL : parts.length === 1 ? parts[0]! : { op: 'and', of: parts };
}

function or(of: LiteralQuery[]): LiteralQuery {
    if (of.some((q) => q.op === 'all')) return ALL;
    const parts = of.flatMap((q) => (q.op === 'or' ? q.of : [q]));
    return parts.length === 1 ? parts[0]! : { op: 'or', of: parts };
}

/**
 * Drops what other parts imply: in an AND a literal contained in a longer one, in an OR a
 * literal containing a shorter one (the shorter is weaker); repeated parts in both.
 */
function simplify(q: LiteralQuery): LiteralQuery {
    if (q.op === 'all' || q.op === 'literal') return q;
    const parts = q.of.map(simplify);
    const lits = parts.filter((p): p is { op: 'literal'; text: string } => p.op === 'literal').map((p) => p.text);
    const kept: LiteralQuery[] = [];
    const seen = new Set<string>();
    for (const p of parts) {
        const key = JSON.stringify(p);
        if (seen.has(key)) continue;
        if (p.op === 'literal') {
            const implied =
                q.op === 'and'
                    ? lits.some((t) => t.length > p.text.length && t.includes(p.text))
                    : lits.some((t) => t.length < p.text.length && p.text.includes(t));
            if (implied) continue;
        }
        seen.add(key);
        kept.push(p);
    }
    return q.op === 'and' ? and(kept) : or(kept);
}

/**
 * One literal every matched line contains, for a single-literal byte search, or null: the
 * longest literal of the query's top-level AND (the first among equals), or the longest
 * substring common to all the literals of a top-level OR of literals (`(foo|bar)baz` gives `baz`).
 */
export function bestLiteral(q: LiteralQuery): string | null {
    const pick = (x: LiteralQuery): string | null => {
        if (x.op === 'literal') return x.text;
        if (x.op === 'or' && x.of.every((p) => p.op === 'literal')) return commonSubstring(x.of.map((p) => (p as { text: string }).text));
        return null;
    };
    const candidates = (q.op === 'and' ? q.of : [q]).map(pick).filter((s): s is string => s !== null && s.length > 0);
    let best: string | null = null;
    for (const c of candidates) if (best === null || c.length > best.length) best = c;
    return best;
}

/** The longest string contained in every one of `strings` (the first found among equals), or null. */
function commonSubstring(strings: string[]): string | null {
    const shortest = strings.reduce((a, b) => (b.length < a.length ? b : a));
    for (let len = shortest.length; len > 0; len--) {
        for (let i = 0; i + len <= shortest.length; i++) {
            const sub = shortest.slice(i, i + len);
            if (strings.every((s) => s.includes(sub))) return sub;
        }
    }
    return null;
}
