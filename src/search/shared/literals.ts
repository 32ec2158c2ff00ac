import { Lru } from './lru.js';
import { analyzeRequired, asciiExact, type Required } from './pattern-analysis.js';

/**
 * Required literals of a regular expression as the scan's byte prefilter uses them: what every
 * line the pattern matches contains, ASCII case-insensitively. Read from the one analysis of a
 * pattern (./pattern-analysis.ts, which the search index's planner reads too): each required
 * literal keeps its runs of characters that match only their ASCII case variants; the rest
 * (non-ASCII characters, `\n`, and with `u` the letters `k` and `s`) counts as unknown.
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
    /** See pattern-analysis.ts `Analysis.lineLocal`. */
    lineLocal: boolean;
}

const ALL: LiteralQuery = { op: 'all' };

/**
 * The literals every line matched by `new RegExp(source, flags)` must contain (case-folded as
 * the search matches, ASCII case-insensitively), and whether the pattern is line-local.
 * Never throws: a pattern the analysis cannot be sure of gives `{ query: { op: 'all' }, lineLocal: false }`.
 */
export function analyzePattern(source: string, flags: string): PatternAnalysis {
    const key = `${flags}/${source}`;
    let out = analyzed.get(key);
    if (out === undefined) {
        const a = analyzeRequired(source, flags);
        out = frozen({ query: simplify(asciiQuery(a.required)), lineLocal: a.lineLocal });
        analyzed.set(key, out);
    }
    return out;
}

/**
 * The analyses of the last patterns, by flags and source, frozen (callers share them). Perf: a
 * pool thread compiles each search's pattern anew; a pattern searched again (the next page, the
 * same search in another directory) skips its parse, as the index's planner does (planner.ts).
 */
const analyzed = new Lru<string, PatternAnalysis>(32);

function frozen<T extends object>(o: T): T {
    for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) frozen(v as object);
    return Object.freeze(o);
}

/** ASCII lower-case form of `c` when it matches only its ASCII case variants (see pattern-analysis.ts `asciiExact`). */
export const foldChar = asciiExact;

/** The prefilter's view of a required query: each literal's unmarked runs (a line that matches holds them all). */
function asciiQuery(q: Required): LiteralQuery {
    switch (q.op) {
        case 'all':
        case 'none': // no line can match: requiring nothing is still sound
            return ALL;
        case 'lit': {
            const runs = q.s.split(/[^\0-\x7f]+/).filter((r) => r.length > 0);
            return and(runs.map((text) => ({ op: 'literal', text })));
        }
        case 'and':
            return and(q.of.map(asciiQuery));
        case 'or':
            return or(q.of.map(asciiQuery));
    }
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

/**
 * Most literals an OR prefilter searches: each is one more search over the bytes, and past a few
 * one regex pass over the decoded text costs less. Perf: counting the matching lines of random
 * alternations of kernel identifiers in 100 MB of drivers/, 4 ran 1.3-2.3× faster through the
 * literals than through that pass, 8 slower in 2 of 3 samples.
 */
export const MAX_ANY_LITERALS = 6;

/**
 * Literals of which every matched line contains at least one, for a multi-literal byte search,
 * or null when the query gives none (`all`, or sets wider than {@link MAX_ANY_LITERALS}): an OR
 * takes one set of each member and their union, an AND the cheapest set of its members. Only
 * literals `usable` accepts are taken. Cheapest: the fewest byte searches, a short literal
 * counted as several (it makes more candidate lines to decode and test), so `(get|set)_page`
 * searches the one `et_page` and `foo|bar` both literals.
 */
export function anyLiterals(q: LiteralQuery, usable: (literal: string) => boolean = () => true): string[] | null {
    const cost = (set: string[]): number => set.reduce((n, t) => n + Math.max(1, 8 >> (t.length - 1)), 0);
    const cheapest = (sets: (string[] | null)[]): string[] | null => {
        let best: string[] | null = null;
        for (const s of sets) if (s !== null && (best === null || cost(s) < cost(best))) best = s;
        return best;
    };
    const pick = (x: LiteralQuery): string[] | null => {
        switch (x.op) {
            case 'all':
                return null;
            case 'literal':
                return usable(x.text) ? [x.text] : null;
            case 'and':
                return cheapest(x.of.map(pick));
            case 'or': {
                const parts = x.of.map(pick);
                const union = parts.every((p) => p !== null) ? withoutImplied(parts.flat()) : null;
                const common = bestLiteral(x);
                return cheapest([union !== null && union.length <= MAX_ANY_LITERALS ? union : null, common !== null && usable(common) ? [common] : null]);
            }
        }
    };
    return pick(q);
}

/** `set` without repeats and without literals containing a shorter one of it (an OR of literals: the shorter is found wherever the longer is). */
function withoutImplied(set: string[]): string[] {
    const distinct = [...new Set(set)];
    return distinct.filter((t) => !distinct.some((u) => u.length < t.length && t.includes(u)));
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
