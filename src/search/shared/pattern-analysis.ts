import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { foldCodePoint, utf8Bytes } from './fold.js';
import { ALL, alternate, ANY_CHAR, ANY_STRING, concat, EMPTY_STRING, exactInfo, full, repeat, type Info } from './pattern-info.js';
import { MAX_GRAMS, type Required } from './required.js';

export { bound, MAX_GRAMS, type Required } from './required.js';
export { MAX_EXACT, MAX_SET } from './pattern-info.js';

/**
 * What every line a search pattern matches must contain: the one analysis of a pattern that both
 * the scan's byte prefilter (./literals.ts) and the search index's query planner
 * (src/search-index/planner.ts) read, each in its own terms.
 *
 * ## Output: a required query over folded strings
 *
 * {@link analyzeRequired} gives an AND/OR of literal strings ({@link Required}): some text
 * holding a match contains, for each `lit`, a string whose fold (./fold.ts: case folding, then
 * UTF-8) is the literal. Each character of a literal stands for one byte of that folded UTF-8:
 * - `U+0000`-`U+007F`: an ASCII byte the pattern character matches only in its ASCII case
 *   variants under the search's case-insensitive flags ({@link asciiExact}), lower-cased;
 * - `U+0100`-`U+01FF` ("marked"): byte `c - 0x100` of the fold of any other character
 *   (non-ASCII, `\n`, and with `u` the letters `k` and `s`, which `K` (U+212A) and `ſ` match).
 * The planner splits literals into byte trigrams (`c & 0xff`); the scan keeps the unmarked runs.
 *
 * ## Algorithm
 *
 * Russ Cox, "Regular Expression Matching with a Trigram Index" (2012), written from its
 * description: each node of the syntax tree gets `emptyable`, `exact` (the set of all strings it
 * matches, when small), `prefix`/`suffix` (sets of strings every match starts/ends with) and
 * `match` (a query every text containing a match satisfies). Sets are bounded ({@link MAX_EXACT},
 * {@link MAX_SET}); when a set grows too large its information moves into `match` and the set is
 * trimmed. Characters: a literal or a small class ({@link MAX_CLASS} folded characters) is a set
 * of strings; `.`, `\w`, `\s`, negated and large classes, property escapes and backreferences are
 * unknown; anchors, `\b`, `\B` and negative lookarounds match the empty string, a positive
 * lookaround also requires what its body requires (matched within the same line). Quantifiers:
 * `x?` is `x|`, `x*` and `x{0,n}` require nothing, `x+` requires `x`, `x{n}` with small n repeats
 * `x`, `x{n,m}` requires n-1 copies of `x` then `x+`.
 *
 * Parser: `@eslint-community/regexpp`, as JavaScript reads the pattern (Annex B without `u`:
 * `\c1`, `\x4`, `\u{41}` as `u` repeated, `{` and `]` as literals, `\8`, octal and identity
 * escapes, `\k` without named groups). A pattern JavaScript rejects, or that the parser reads with
 * another number of capturing groups than the engine, gives up: `all`.
 */

/** Most folded characters a class may stand for and still count as known. */
export const MAX_CLASS = 8;
/** Most code points of a class range enumerated to fold it. */
const MAX_RANGE = 64;
/** Added to a byte that is not an ASCII-exact character (see the module's docstring). */
export const MARK = 0x100;

// ---------------------------------------------------------------------------------------------
// Characters

/**
 * The ASCII lower-case form of code point `c` when case-insensitive matching of `c` finds only its
 * ASCII case variants, else `null`. Without `u`, RegExp canonicalises by `toUpperCase` and never
 * maps a non-ASCII character to an ASCII one (ECMA-262 Canonicalize), so every ASCII character
 * qualifies; with `u` it uses simple case folding, where `ſ` (U+017F) folds to `s` and the Kelvin
 * sign (U+212A) to `k`, so those two letters do not. `\n` never occurs inside a line.
 */
export function asciiExact(c: number, unicode: boolean): string | null {
    if (c >= 128 || c === 10) return null;
    const lower = c >= 65 && c <= 90 ? c + 32 : c;
    if (unicode && (lower === 107 || lower === 115)) return null;
    return String.fromCharCode(lower);
}

interface State {
    unicode: boolean;
    groups: number;
    lookaround: boolean;
}

/** A pattern character as a literal string (see the module's docstring), or null for a surrogate (unknown). */
function charString(cp: number, st: State): string | null {
    const exact = asciiExact(cp, st.unicode);
    if (exact !== null) return exact;
    if (cp >= 0xd800 && cp <= 0xdfff) return null;
    let out = '';
    for (const b of utf8Bytes(foldCodePoint(cp))) out += String.fromCharCode(MARK + b.charCodeAt(0));
    return out;
}

/** A class as the set of its members' strings, or null when unknown or larger than {@link MAX_CLASS}. */
function classSet(node: AST.CharacterClass, st: State): Set<string> | null {
    if (node.negate) return null;
    const out = new Set<string>();
    const add = (cp: number): boolean => {
        const s = charString(cp, st);
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

function alternativesInfo(alts: AST.Alternative[], st: State): Info {
    // Perf: a disjunction wider than the budget ends as `all` (see or()): knowing nothing is then as good.
    if (alts.length > MAX_GRAMS) {
        for (const alt of alts) for (const e of alt.elements) elementInfo(e, st); // groups and lookarounds still count
        return ANY_STRING;
    }
    let out: Info | null = null;
    for (const alt of alts) {
        let seq: Info = EMPTY_STRING;
        // Perf: a run of plain characters is joined once, not concatenated a character at a time.
        let run = '';
        for (const e of alt.elements) {
            const s = e.type === 'Character' ? charString(e.value, st) : null;
            if (s !== null) {
                run += s;
                continue;
            }
            if (run !== '') seq = concat(seq, exactInfo(new Set([run])));
            run = '';
            seq = concat(seq, elementInfo(e, st));
        }
        if (run !== '') seq = concat(seq, exactInfo(new Set([run])));
        out = out === null ? seq : alternate(out, seq);
    }
    return out ?? EMPTY_STRING;
}

function elementInfo(e: AST.Element, st: State): Info {
    switch (e.type) {
        case 'Character': {
            const s = charString(e.value, st);
            return s === null ? ANY_CHAR : exactInfo(new Set([s]));
        }
        case 'CharacterClass': {
            const set = classSet(e, st);
            return set === null ? ANY_CHAR : exactInfo(set); // an empty class matches nothing: exact set {}
        }
        case 'CharacterSet':
        case 'ExpressionCharacterClass':
            return ANY_CHAR;
        case 'Assertion': {
            if (e.kind !== 'lookahead' && e.kind !== 'lookbehind') return EMPTY_STRING; // ^ $ \b \B consume nothing
            st.lookaround = true;
            // Zero-width, but a positive lookaround's body matched within the same line.
            const body = alternativesInfo(e.alternatives, st);
            return e.negate ? EMPTY_STRING : exactInfo(new Set(['']), full(body));
        }
        case 'Backreference':
            return ANY_STRING;
        case 'CapturingGroup':
            st.groups++;
            return alternativesInfo(e.alternatives, st);
        case 'Group':
            return alternativesInfo(e.alternatives, st);
        case 'Quantifier':
            return repeat(elementInfo(e.element, st), e.min, e.max);
        default:
            throw new Error(`unexpected regex node ${(e as AST.Node).type}`);
    }
}

const parser = new RegExpParser({ strict: false, ecmaVersion: 2025 });

/** What {@link analyzeRequired} proves about a pattern. */
export interface Analysis {
    /** Every text holding a line the pattern matches satisfies this. */
    required: Required;
    /**
     * The pattern holds no lookaround, so whether it matches within a line never depends on the
     * text around that line (the scan's whole-text shortcut relies on this).
     */
    lineLocal: boolean;
}

const GIVE_UP: Analysis = { required: ALL, lineLocal: false };

/**
 * The analysis of `new RegExp(source, flags)` (flags `i` or `iu`, as src/search/regex.ts
 * compiles). Never throws: a pattern it cannot be sure of gives `{ required: all, lineLocal: false }`.
 */
export function analyzeRequired(source: string, flags: string): Analysis {
    if (flags.includes('v')) return GIVE_UP;
    const unicode = flags.includes('u');
    let ast: AST.Pattern;
    let v8Groups: number;
    try {
        ast = parser.parsePattern(source, 0, source.length, { unicode });
        // The engine's own count of capturing groups: a parser that reads the pattern differently
        // (a `\1` taken for an octal escape, a `(` for a literal) is caught here.
        v8Groups = new RegExp(`(?:${source})|`, flags.replace(/[gy]/g, '')).exec('')!.length - 1;
    } catch {
        return GIVE_UP;
    }
    const st: State = { unicode, groups: 0, lookaround: false };
    let info: Info;
    try {
        info = alternativesInfo(ast.alternatives, st);
    } catch {
        return GIVE_UP;
    }
    if (st.groups !== v8Groups) return GIVE_UP;
    return { required: full(info), lineLocal: !st.lookaround };
}
