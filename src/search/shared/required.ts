/**
 * The required query of a search pattern (./pattern-analysis.ts): an AND/OR of literal strings,
 * their constructors (flattened, without repeats) and their bound in trigrams.
 */

/** An AND/OR tree over leaves `L`: `all` requires nothing, `none` holds nowhere; `and`/`or` have 2 or more members. */
export type AndOr<L> = { op: 'all' } | { op: 'none' } | L | { op: 'and'; of: AndOr<L>[] } | { op: 'or'; of: AndOr<L>[] };

/** An AND/OR of required literals, in the alphabet pattern-analysis.ts describes; `none`: no line can match. */
export type Required = AndOr<{ op: 'lit'; s: string }>;

/** Length of the trigram index's grams: prefix and suffix sets keep N-1 bytes. */
export const N = 3;
/** Most trigrams an OR may keep, and (times 4) a node's `match` while analysing (see {@link bound}). */
export const MAX_GRAMS = 64;

const ALL: Required = { op: 'all' };
const NONE: Required = { op: 'none' };

// ---------------------------------------------------------------------------------------------
// Queries

const keys = new WeakMap<Required, string>();
/** A structural key of a query, to drop repeated members of an and/or. */
function keyOf(q: Required): string {
    if (q.op === 'lit') return `"${q.s}`;
    if (q.op !== 'and' && q.op !== 'or') return q.op;
    // Perf: queries are never mutated, so a node's key is computed once.
    let key = keys.get(q);
    if (key === undefined) keys.set(q, (key = `${q.op}(${q.of.map(keyOf).join(',')})`));
    return key;
}

function distinct(members: Required[]): Required[] {
    if (members.length < 2) return members;
    const seen = new Set<string>();
    return members.filter((m) => !seen.has(keyOf(m)) && seen.add(keyOf(m)) !== undefined);
}

/**
 * Conjunction or disjunction, flattened, without repeats: `and` drops `all` and is `none` with a
 * `none` member; `or` drops `none` and is `all` with an `all` member or more than
 * {@link MAX_GRAMS} members (Perf: wider than the planner's budget, it would end as `all` there
 * anyway; a 300-way alternation stays linear).
 */
function combine(op: 'and' | 'or', qs: Required[]): Required {
    const absorbing = op === 'and' ? NONE : ALL;
    const neutral = op === 'and' ? ALL : NONE;
    const members: Required[] = [];
    for (const q of qs) {
        if (q.op === absorbing.op) return absorbing;
        if (q.op !== neutral.op) members.push(...(q.op === op ? q.of : [q]));
    }
    const of = distinct(members);
    if (op === 'or' && of.length > MAX_GRAMS) return ALL;
    return of.length === 0 ? neutral : of.length === 1 ? of[0]! : { op, of };
}

export const and = (...qs: Required[]): Required => combine('and', qs);
export const or = (...qs: Required[]): Required => combine('or', qs);

/** Trigrams a query stands for (a literal of n bytes: n-2). */
export function gramCount(q: Required): number {
    if (q.op === 'lit') return Math.max(0, q.s.length - N + 1);
    if (q.op === 'and' || q.op === 'or') return q.of.reduce((n, m) => n + gramCount(m), 0);
    return 0;
}

/**
 * `q` weakened to at most `budget` trigrams: an `and` keeps members while they fit (smaller first),
 * a literal keeps its first `budget + 2` bytes, an `or` that does not fit becomes `all`. Sound: the
 * result holds wherever `q` holds.
 */
export function bound(q: Required, budget: number): Required {
    if (gramCount(q) <= budget) return q;
    if (q.op === 'lit') return { op: 'lit', s: q.s.slice(0, budget + N - 1) };
    if (q.op === 'and') {
        const kept: Required[] = [];
        let left = budget;
        for (const m of [...q.of].sort((a, b) => gramCount(a) - gramCount(b))) {
            if (left <= 0) break;
            const b = bound(m, left);
            left -= gramCount(b);
            kept.push(b);
        }
        return and(...kept);
    }
    if (q.op === 'or') {
        const share = Math.floor(budget / q.of.length);
        return share < 1 ? ALL : or(...q.of.map((m) => bound(m, share)));
    }
    return q;
}

/** A text containing any string of `set` satisfies this (`all` when one is empty, `none` for the empty set). */
export function anyOf(set: Iterable<string>): Required {
    const qs: Required[] = [];
    for (const s of set) {
        if (s.length === 0) return ALL;
        qs.push({ op: 'lit', s });
    }
    return or(...qs);
}
