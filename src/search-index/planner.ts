/**
 * Query planner of the n-gram index: turns a search pattern into an n-gram query, a condition on
 * the set of grams of a file that every file holding a matching line satisfies. The index uses it
 * only to rule files out; the regex still runs on the candidates' current content.
 *
 * ## Contract (shared with the index builder)
 *
 * - Grams: 3 bytes of the UTF-8 encoding of the folded text, packed as a number
 *   `(b0 << 16) | (b1 << 8) | b2`; folding and splitting are defined once in ./fold.ts
 *   ({@link foldCodePoint}, {@link foldForIndex}, {@link forEachGram}, {@link distinctGrams}
 *   (a file's distinct grams as a Uint32Array, the fast path for the builder), {@link gramsOf})
 *   and the builder must use them on the text decoded as the scan decodes it (see fold.ts).
 * - `planQuery(pattern, flags)` with `flags` as src/engine/regex.ts compiles the pattern (`'i'`
 *   or `'iu'`) returns an {@link NgramQuery}:
 *   `{ kind: 'all' }` (nothing required: every file is a candidate), `{ kind: 'none' }` (no line
 *   can match, e.g. `[]`), `{ kind: 'gram', gram }`, `{ kind: 'and', of }`, `{ kind: 'or', of }`
 *   (`of` has at least 2 members; `all`/`none` never appear inside `and`/`or`).
 * - Soundness: if some line of a text matches `new RegExp(pattern, flags)`, then
 *   `evaluate(planQuery(pattern, flags), (g) => gramsOf(text).has(g))` is true. The planner
 *   relies on lines only in that a match lies inside the text (the scan tests each line, a
 *   substring of the text, and grams of a substring are grams of the text).
 * - Size: at most {@link MAX_QUERY_GRAMS} gram leaves; beyond that subtrees are weakened (an
 *   `and` loses members, an `or` becomes `all`), which stays sound.
 * - Patterns the parser rejects, or that JavaScript rejects, plan to `all` (full scan).
 * - Evaluators: {@link evaluate} (one file, a gram membership test) and `candidates`
 *   (./postings.ts: sorted posting lists of file numbers, intersected and merged).
 *
 * ## Algorithm
 *
 * Russ Cox, "Regular Expression Matching with a Trigram Index" (2012), written from its
 * description: each node of the regex's syntax tree gets `emptyable`, `exact` (the set of all
 * strings it matches, when small), `prefix`/`suffix` (sets of strings every match starts/ends
 * with) and `match` (a query every text containing a match satisfies). Strings are folded UTF-8
 * byte strings. Sets are bounded ({@link MAX_EXACT}, {@link MAX_SET}); when a set grows too large
 * its information moves into `match` and the set is trimmed. Characters: a literal or a small
 * class ({@link MAX_CLASS} folded characters) is a set of strings; `.`, `\w`, `\s`, negated and
 * large classes, property escapes and backreferences are unknown; anchors, `\b`, `\B` and
 * lookarounds match the empty string (they consume nothing, so leaving them out only weakens
 * the query). Quantifiers: `x?` is `x|`, `x*` and `x{0,n}` require nothing, `x+` requires `x`,
 * `x{n}` with small n repeats `x`, `x{n,m}` requires n-1 copies of `x` then `x+`.
 *
 * Parser: `@eslint-community/regexpp` (ECMAScript's grammar including Annex B when not strict,
 * which is how `new RegExp(…, 'i')` parses: `\c1`, `\x4`, `\u{41}` as `u` repeated, `{` and `]`
 * as literals, `\8`, octal escapes, identity escapes, `\k` without named groups).
 */
import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { foldCodePoint, gramAt, utf8Bytes } from './fold.js';

export { distinctGrams, foldCodePoint, foldForIndex, forEachGram, formatGram, gramsOf } from './fold.js';
export { candidates, type PostingList } from './postings.js';

/** An n-gram query: a monotone condition on a file's set of grams. */
export type NgramQuery =
    | { kind: 'all' }
    | { kind: 'none' }
    | { kind: 'gram'; gram: number }
    | { kind: 'and'; of: NgramQuery[] }
    | { kind: 'or'; of: NgramQuery[] };

/** Most strings kept in a node's exact set before it becomes a query. */
export const MAX_EXACT = 16;
/** Most strings kept in a prefix or suffix set. */
export const MAX_SET = 16;
/** Most folded characters a class may stand for and still count as known. */
export const MAX_CLASS = 8;
/** Most code points of a class range enumerated to fold it. */
const MAX_RANGE = 64;
/** Most gram leaves in a planned query. */
export const MAX_QUERY_GRAMS = 64;
/** Most gram leaves a node's `match` keeps while planning (weakened beyond, see {@link bound}). */
const MAX_WORK_GRAMS = 4 * MAX_QUERY_GRAMS;
/** Longest exact string kept, in bytes: longer ones move into `match` (their grams are certain). */
const MAX_EXACT_BYTES = 1024;
/** Gram length in bytes. */
const N = 3;

const ALL: NgramQuery = { kind: 'all' };
const NONE: NgramQuery = { kind: 'none' };

/** What the planner knows about one node (see the module's docstring). Sets hold folded UTF-8 byte strings. */
interface Info {
    emptyable: boolean;
    /** Every string the node matches, or null when unknown or too many. */
    exact: Set<string> | null;
    /** When `exact` is null: every match starts with one of these. */
    prefix: Set<string>;
    /** When `exact` is null: every match ends with one of these. */
    suffix: Set<string>;
    /** Holds for every text containing a match (with `exact` known: `all`). */
    match: NgramQuery;
}

// ---------------------------------------------------------------------------------------------
// Query construction and simplification

/** A structural key of a query, to drop repeated members of an and/or. */
function keyOf(q: NgramQuery): string {
    if (q.kind === 'gram') return String(q.gram);
    if (q.kind !== 'and' && q.kind !== 'or') return q.kind;
    // Perf: queries are never mutated, so a node's key is computed once.
    let key = keys.get(q);
    if (key === undefined) {
        key = `${q.kind}(${q.of.map(keyOf).join(',')})`;
        keys.set(q, key);
    }
    return key;
}

const keys = new WeakMap<NgramQuery, string>();

/** `members` without repeats (grams by value, and/or by structure). */
function distinct(members: NgramQuery[]): NgramQuery[] {
    if (members.length < 2) return members;
    const seen = new Set<number | string>();
    return members.filter((m) => {
        const key = m.kind === 'gram' ? m.gram : keyOf(m);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
    });
}

/** Conjunction, flattened, without `all`, `none` if any member is `none`. */
export function and(...qs: NgramQuery[]): NgramQuery {
    const members: NgramQuery[] = [];
    for (const q of qs) {
        if (q.kind === 'none') return NONE;
        if (q.kind === 'all') continue;
        if (q.kind === 'and') members.push(...q.of);
        else members.push(q);
    }
    const of = distinct(members);
    return of.length === 0 ? ALL : of.length === 1 ? of[0]! : { kind: 'and', of };
}

/** Disjunction, flattened, without `none`, `all` if any member is `all`. */
export function or(...qs: NgramQuery[]): NgramQuery {
    const members: NgramQuery[] = [];
    for (const q of qs) {
        if (q.kind === 'all') return ALL;
        if (q.kind === 'none') continue;
        if (q.kind === 'or') members.push(...q.of);
        else members.push(q);
    }
    const of = distinct(members);
    // A disjunction wider than the output's budget cannot keep a gram per member: it would end as
    // `all` in bound(), so it is `all` now (Perf: keeps a 300-way alternation linear).
    if (of.length > MAX_QUERY_GRAMS) return ALL;
    return of.length === 0 ? NONE : of.length === 1 ? of[0]! : { kind: 'or', of };
}

/** All grams of one byte string (`all` when shorter than a gram). */
function gramsOfBytes(s: string): NgramQuery {
    const qs: NgramQuery[] = [];
    for (let i = 0; i + N <= s.length; i++) qs.push({ kind: 'gram', gram: gramAt(s, i) });
    return and(...qs);
}

/** A text containing any string of `set` satisfies this (`none` for the empty set). */
function anyOf(set: Iterable<string>): NgramQuery {
    const qs: NgramQuery[] = [];
    for (const s of set) {
        if (s.length < N) return ALL;
        qs.push(gramsOfBytes(s));
    }
    return or(...qs);
}

/** Number of gram leaves. */
export function querySize(q: NgramQuery): number {
    if (q.kind === 'gram') return 1;
    if (q.kind === 'and' || q.kind === 'or') return q.of.reduce((n, m) => n + querySize(m), 0);
    return 0;
}

/**
 * `q` weakened to at most `budget` gram leaves: an `and` keeps members while they fit (dropping a
 * conjunct weakens), an `or` that does not fit becomes `all`. Sound: the result holds wherever
 * `q` holds.
 */
function bound(q: NgramQuery, budget: number): NgramQuery {
    const size = querySize(q);
    if (size <= budget) return q;
    if (q.kind === 'and') {
        const kept: NgramQuery[] = [];
        let left = budget;
        // Smaller members first: more of them fit, and a short OR or a gram is selective.
        for (const m of [...q.of].sort((a, b) => querySize(a) - querySize(b))) {
            if (left <= 0) break;
            const b = bound(m, left);
            left -= querySize(b);
            kept.push(b);
        }
        return and(...kept);
    }
    if (q.kind === 'or') {
        // Every member must survive; give each a fair share, else give up on the disjunction.
        const share = Math.floor(budget / q.of.length);
        if (share < 1) return ALL;
        return or(...q.of.map((m) => bound(m, share)));
    }
    return q;
}

// ---------------------------------------------------------------------------------------------
// Node information

const EMPTY_STRING: Info = { emptyable: true, exact: new Set(['']), prefix: new Set(), suffix: new Set(), match: ALL };
/** Unknown, possibly empty (`x*`, backreferences). */
const ANY_STRING: Info = { emptyable: true, exact: null, prefix: new Set(['']), suffix: new Set(['']), match: ALL };
/** One unknown character. */
const ANY_CHAR: Info = { emptyable: false, exact: null, prefix: new Set(['']), suffix: new Set(['']), match: ALL };

function exactInfo(exact: Set<string>): Info {
    return normalize({ emptyable: exact.has(''), exact, prefix: new Set(), suffix: new Set(), match: ALL });
}

const prefixOf = (x: Info): Set<string> => x.exact ?? x.prefix;
const suffixOf = (x: Info): Set<string> => x.exact ?? x.suffix;
const matchOf = (x: Info): NgramQuery => (x.exact ? and(x.match, anyOf(x.exact)) : x.match);

function cross(a: Set<string>, b: Set<string>): Set<string> {
    const out = new Set<string>();
    for (const x of a) for (const y of b) out.add(x + y);
    return out;
}

function union(a: Set<string>, b: Set<string>): Set<string> {
    const out = new Set(a);
    for (const y of b) out.add(y);
    return out;
}

/** Trims every string to its first (`end` false) or last `len` bytes. */
function trim(set: Set<string>, len: number, end: boolean): Set<string> {
    const out = new Set<string>();
    for (const s of set) out.add(s.length <= len ? s : end ? s.slice(s.length - len) : s.slice(0, len));
    return out;
}

/**
 * Keeps the sets bounded: a too large exact set becomes a query plus prefix and suffix sets;
 * prefix (suffix) strings longer than N-1 bytes put their grams into `match` and keep only their
 * first (last) N-1 bytes, the part that can form a gram with a neighbour.
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
    // Perf: keeps planning linear in the pattern's length (a 300-way alternation, a long literal).
    if (querySize(match) > MAX_WORK_GRAMS) match = bound(match, MAX_WORK_GRAMS);
    return { emptyable: x.emptyable, exact: null, prefix, suffix, match };
}

function concat(x: Info, y: Info): Info {
    if (x.exact && y.exact && x.exact.size * y.exact.size <= MAX_EXACT) {
        return exactInfo(cross(x.exact, y.exact));
    }
    const px = prefixOf(x);
    const py = prefixOf(y);
    const sx = suffixOf(x);
    const sy = suffixOf(y);
    const prefix = x.exact && x.exact.size * py.size <= MAX_EXACT * MAX_SET ? cross(x.exact, py) : px;
    const suffix = y.exact && sx.size * y.exact.size <= MAX_EXACT * MAX_SET ? cross(sx, y.exact) : sy;
    // Grams across the boundary: the end of x's match meets the start of y's.
    const tails = trim(sx, N - 1, true);
    const heads = trim(py, N - 1, false);
    const boundary = tails.size * heads.size <= MAX_EXACT * MAX_SET ? anyOf(cross(tails, heads)) : ALL;
    return normalize({
        emptyable: x.emptyable && y.emptyable,
        exact: null,
        prefix,
        suffix,
        match: and(matchOf(x), matchOf(y), boundary),
    });
}

function alternate(x: Info, y: Info): Info {
    if (x.exact && y.exact) return exactInfo(union(x.exact, y.exact));
    return normalize({
        emptyable: x.emptyable || y.emptyable,
        exact: null,
        prefix: union(prefixOf(x), prefixOf(y)),
        suffix: union(suffixOf(x), suffixOf(y)),
        match: x.match.kind === 'all' && x.exact === null ? ALL : or(matchOf(x), matchOf(y)),
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
function repeat(x: Info, min: number, max: number): Info {
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

// ---------------------------------------------------------------------------------------------
// Characters and classes

/** Folded UTF-8 bytes of a pattern character, or null when the fold cannot represent it (surrogates). */
function foldedChar(cp: number): string | null {
    if (cp >= 0xd800 && cp <= 0xdfff) return null;
    return utf8Bytes(foldCodePoint(cp));
}

function charInfo(cp: number): Info {
    const s = foldedChar(cp);
    return s === null ? ANY_CHAR : exactInfo(new Set([s]));
}

/** A class as the set of its members' folded strings, or null when unknown or larger than {@link MAX_CLASS}. */
function classSet(node: AST.CharacterClass): Set<string> | null {
    if (node.negate) return null;
    const out = new Set<string>();
    const add = (cp: number): boolean => {
        const s = foldedChar(cp);
        if (s === null) return false;
        out.add(s);
        return out.size <= MAX_CLASS;
    };
    for (const e of node.elements) {
        if (e.type === 'Character') {
            if (!add(e.value)) return null;
        } else if (e.type === 'CharacterClassRange') {
            if (e.max.value - e.min.value >= MAX_RANGE) return null;
            for (let cp = e.min.value; cp <= e.max.value; cp++) if (!add(cp)) return null;
        } else {
            return null; // \d \w \s, property escapes, nested classes and set operations (v mode)
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Walk of the syntax tree

function alternativesInfo(alts: AST.Alternative[]): Info {
    // A disjunction of more alternatives than the output's gram budget ends as `all` (see or()):
    // Perf: knowing nothing about it (the weakest, always sound, information) is then as good.
    if (alts.length > MAX_QUERY_GRAMS) return ANY_STRING;
    let out: Info | null = null;
    for (const alt of alts) {
        let seq: Info = EMPTY_STRING;
        // Perf: a run of plain characters is joined once, not concatenated a character at a time.
        let run = '';
        for (const e of alt.elements) {
            const s = e.type === 'Character' ? foldedChar(e.value) : null;
            if (s !== null) {
                run += s;
                continue;
            }
            if (run !== '') seq = concat(seq, exactInfo(new Set([run])));
            run = '';
            seq = concat(seq, elementInfo(e));
        }
        if (run !== '') seq = concat(seq, exactInfo(new Set([run])));
        out = out === null ? seq : alternate(out, seq);
    }
    return out ?? EMPTY_STRING;
}

function elementInfo(e: AST.Element): Info {
    switch (e.type) {
        case 'Character':
            return charInfo(e.value);
        case 'CharacterClass': {
            const set = classSet(e);
            if (set === null) return ANY_CHAR;
            return exactInfo(set); // an empty class matches nothing: exact set {}
        }
        case 'CharacterSet':
        case 'ExpressionCharacterClass':
            return ANY_CHAR;
        case 'Assertion':
            // ^ $ \b \B and lookarounds consume nothing: as the empty string the query only weakens.
            return EMPTY_STRING;
        case 'Backreference':
            return ANY_STRING;
        case 'Group':
        case 'CapturingGroup':
            return alternativesInfo(e.alternatives);
        case 'Quantifier':
            return repeat(elementInfo(e.element), e.min, e.max);
        default:
            return ANY_STRING;
    }
}

const parser = new RegExpParser({ strict: false, ecmaVersion: 2025 });

/**
 * The n-gram query for a search pattern compiled as `new RegExp(pattern, flags)`.
 * Never throws: a pattern the parser or JavaScript rejects gives `all`. See the module's
 * docstring for the contract and the algorithm's source.
 */
export function planQuery(pattern: string, flags: 'i' | 'iu'): NgramQuery {
    let ast: AST.Pattern;
    try {
        new RegExp(pattern, flags);
        ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: flags === 'iu' });
    } catch {
        return ALL;
    }
    return bound(matchOf(alternativesInfo(ast.alternatives)), MAX_QUERY_GRAMS);
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** Whether a file whose grams satisfy `hasGram` may hold a match. */
export function evaluate(q: NgramQuery, hasGram: (gram: number) => boolean): boolean {
    switch (q.kind) {
        case 'all':
            return true;
        case 'none':
            return false;
        case 'gram':
            return hasGram(q.gram);
        case 'and':
            return q.of.every((m) => evaluate(m, hasGram));
        case 'or':
            return q.of.some((m) => evaluate(m, hasGram));
    }
}
