/**
 * Query planner of the n-gram index: turns a search pattern into an n-gram query, a condition on
 * the set of grams of a file that every file holding a matching line satisfies. The index uses it
 * only to rule files out; the regex still runs on the candidates' current content.
 *
 * ## Contract (shared with the index builder)
 *
 * - Grams: 3 bytes of the UTF-8 encoding of the folded text, packed as a number
 *   `(b0 << 16) | (b1 << 8) | b2`; folding and splitting are defined once in src/search/shared/fold.ts
 *   and the builder must use them on the text decoded as the scan decodes it (see fold.ts).
 * - `planQuery(pattern, flags)` with `flags` as src/search/regex.ts compiles the pattern (`'i'`
 *   or `'iu'`) returns an {@link NgramQuery}:
 *   `{ op: 'all' }` (nothing required: every file is a candidate), `{ op: 'none' }` (no line
 *   can match, e.g. `[]`), `{ op: 'gram', gram }`, `{ op: 'seq', grams }` (the grams of one
 *   literal of 4 bytes or more, in order: gram `i` starts at its byte `i`; as a condition on a
 *   set of grams, all of them), `{ op: 'and', of }`, `{ op: 'or', of }` (`of` has at least 2
 *   members; `all`/`none` never appear inside `and`/`or`).
 * - Soundness: if some line of a text matches `new RegExp(pattern, flags)`, then
 *   `evaluate(planQuery(pattern, flags), (g) => gramsOf(text).has(g))` is true.
 * - Size: at most {@link MAX_QUERY_GRAMS} gram leaves (weakened beyond, which stays sound).
 * - Patterns JavaScript rejects plan to `all` (full scan).
 * - Evaluators: {@link evaluate} (one file, a gram membership test) and `candidates`
 *   (./postings.ts: sorted posting lists of file numbers, intersected and merged).
 *
 * ## Algorithm
 *
 * The required literals of the pattern come from the one pattern analysis the scan's prefilter
 * reads too (src/search/shared/pattern-analysis.ts: Russ Cox, "Regular Expression Matching with a
 * Trigram Index", 2012); each literal of 3 bytes or more requires all its byte trigrams, a
 * shorter one nothing. A literal of two grams or more stays one `seq` node, so that evaluators
 * with per-posting masks (./postings.ts, ./shared/masks.ts) can also require its grams to be
 * adjacent in a file; elsewhere a `seq` is the AND of its grams.
 */
import { analyzeRequired, bound, MAX_GRAMS, type Required } from '../search/shared/pattern-analysis.js';
import type { AndOr } from '../search/shared/required.js';
import { gramAt } from '../search/shared/fold.js';
import { Lru } from '../search/shared/lru.js';

export { distinctGrams, foldCodePoint, foldForIndex, forEachGram, formatGram, gramsOf } from '../search/shared/fold.js';

/** An n-gram query: a monotone condition on a file's set of grams. */
export type NgramQuery = AndOr<{ op: 'gram'; gram: number } | { op: 'seq'; grams: readonly number[] }>;

/** Most gram leaves in a planned query. */
export const MAX_QUERY_GRAMS = MAX_GRAMS;

const ALL: NgramQuery = { op: 'all' };
const NONE: NgramQuery = { op: 'none' };

/** `members` without repeated grams (and/or members are distinct by construction here). */
function distinct(members: NgramQuery[]): NgramQuery[] {
    const seen = new Set<number>();
    return members.filter((m) => m.op !== 'gram' || (!seen.has(m.gram) && seen.add(m.gram) !== undefined));
}

/** Conjunction or disjunction of `qs`, flattened; `all` and `none` absorbed as logic says. */
function combine(op: 'and' | 'or', qs: NgramQuery[]): NgramQuery {
    const absorbing = op === 'and' ? 'none' : 'all';
    const neutral = op === 'and' ? 'all' : 'none';
    const members: NgramQuery[] = [];
    for (const q of qs) {
        if (q.op === absorbing) return q;
        if (q.op !== neutral) members.push(...(q.op === op ? (q as { of: NgramQuery[] }).of : [q]));
    }
    const of = distinct(members);
    if (op === 'or' && of.length > MAX_QUERY_GRAMS) return ALL;
    return of.length === 0 ? (op === 'and' ? ALL : NONE) : of.length === 1 ? of[0]! : { op, of };
}

/** Number of gram leaves. */
export function querySize(q: NgramQuery): number {
    if (q.op === 'gram') return 1;
    if (q.op === 'seq') return q.grams.length;
    if (q.op === 'and' || q.op === 'or') return q.of.reduce((n, m) => n + querySize(m), 0);
    return 0;
}

/** The grams a required query asks for: every trigram of each literal (shorter literals: nothing). */
function gramsOfRequired(q: Required): NgramQuery {
    switch (q.op) {
        case 'all':
            return ALL;
        case 'none':
            return NONE;
        case 'lit': {
            // A literal's characters are bytes, some marked above 0xff (pattern-analysis.ts): the byte is the low 8 bits.
            const grams: number[] = [];
            for (let i = 0; i + 3 <= q.s.length; i++) grams.push(gramAt(q.s, i));
            if (grams.length === 0) return ALL;
            return grams.length === 1 ? { op: 'gram', gram: grams[0]! } : { op: 'seq', grams };
        }
        case 'and':
        case 'or':
            return combine(q.op, q.of.map(gramsOfRequired));
    }
}

/**
 * The n-gram query for a search pattern compiled as `new RegExp(pattern, flags)`.
 * Never throws: a pattern the analysis gives up on gives `all`. See the module's docstring.
 */
export function planQuery(pattern: string, flags: 'i' | 'iu'): NgramQuery {
    const key = `${flags}/${pattern}`;
    let q = planned.get(key);
    if (q === undefined) {
        q = freeze(gramsOfRequired(bound(analyzeRequired(pattern, flags).required, MAX_QUERY_GRAMS)));
        planned.set(key, q);
    }
    return q;
}

/**
 * Queries of the patterns planned last (least recently used dropped first), frozen: a query
 * depends on its pattern and flags alone. Perf: parsing and analysing a pattern takes about 1 ms
 * of a selective search's 10 ms plan on the Linux tree, and agents search the same patterns again.
 */
const planned = new Lru<string, NgramQuery>(256);

function freeze(q: NgramQuery): NgramQuery {
    if (q.op === 'and' || q.op === 'or') {
        for (const c of q.of) freeze(c);
        Object.freeze(q.of);
    }
    if (q.op === 'seq') Object.freeze(q.grams);
    return Object.freeze(q);
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** Whether a file whose grams satisfy `hasGram` may hold a match. */
export function evaluate(q: NgramQuery, hasGram: (gram: number) => boolean): boolean {
    switch (q.op) {
        case 'all':
            return true;
        case 'none':
            return false;
        case 'gram':
            return hasGram(q.gram);
        case 'seq':
            return q.grams.every(hasGram);
        case 'and':
            return q.of.every((m) => evaluate(m, hasGram));
        case 'or':
            return q.of.some((m) => evaluate(m, hasGram));
    }
}
