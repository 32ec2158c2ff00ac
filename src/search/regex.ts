/**
 * Search patterns: how a pattern string becomes a regex (shared by the tool, which validates it,
 * and the workers, which run it), and the literal prefilter extracted from it.
 */
import { analyzePattern, bestLiteral } from './shared/literals.js';
import type { PatternSpec } from './shared/types.js';

export type { PatternSpec } from './shared/types.js';

/** `text` as a regex source matching exactly that text (every syntax character escaped). */
export function escapeRegex(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** An inline flag group (`(?i)`, `(?s)`, `(?i:…)`, `(?-i)`), not escaped: other regex dialects have them, JavaScript's (before Node 23) has not. Groups: the flags on, those off, the end. */
const INLINE_FLAGS = /(?<!\\)(?:\\\\)*\(\?([a-zA-Z]*)(?:-([a-zA-Z]+))?([):])/g;

/**
 * For a pattern that failed to compile: a sentence saying that JavaScript regexes have no inline
 * flags (`''` when the pattern has none). `caseInsensitive`: whether the tool matches either case
 * (the search tools, one line at a time: there `i`, `s` and `m` change nothing, and the pattern
 * without them is given when it compiles so); else a name regex, case-sensitive.
 */
export function inlineFlagsHint(pattern: string, caseInsensitive: boolean, flags: string): string {
    const found = [...pattern.matchAll(INLINE_FLAGS)].filter((m) => m[1] !== '' || m[2] !== undefined);
    if (found.length === 0) return '';
    const on = found.map((m) => m[1]!).join('');
    const off = found.map((m) => m[2] ?? '').join('');
    const lead = `JavaScript regular expressions have no inline flags such as ${JSON.stringify(found[0]![0].replace(/^(?:\\\\)+/, ''))}`;
    if (!caseInsensitive) return `${lead}${on.includes('i') ? ': a name regex matches case-sensitively, so write a class such as [Aa] where either case may appear' : ''}.`;
    if (off.includes('i')) return `${lead}: the search always matches either case.`;
    if (off !== '' || /[^ism]/.test(on)) return `${lead}.`;
    const without = pattern.replace(INLINE_FLAGS, (all: string, _on: string, _off: string | undefined, end: string) => `${all.slice(0, all.indexOf('(?'))}${end === ':' ? '(?:' : ''}`);
    let valid = without.length > 0;
    try {
        new RegExp(without, flags);
    } catch {
        valid = false;
    }
    return `${lead}: the search matches either case, one line at a time, so leave the flag out${valid ? `: ${JSON.stringify(without)}` : ''}.`;
}

/** Syntax only Unicode mode understands (`\p{L}`, `\u{1F600}`); without `u` they would silently mean something else. */
const NEEDS_UNICODE = /\\[pP]\{|\\u\{/;

/**
 * Compiles `pattern` the way search runs it: case-insensitive, Unicode mode only when the pattern
 * needs it (it uses `\p{…}`/`\u{…}`, or is valid only with `u`).
 * @throws SyntaxError from the RegExp constructor when the pattern is invalid in both modes.
 */
export function compilePattern(pattern: string): PatternSpec {
    if (NEEDS_UNICODE.test(pattern)) {
        try {
            new RegExp(pattern, 'iu');
            return withRisk(pattern, 'iu');
        } catch {
            // fall through: report the plain-mode error below if both fail
        }
    }
    try {
        new RegExp(pattern, 'i');
        return withRisk(pattern, 'i');
    } catch (plainError) {
        try {
            new RegExp(pattern, 'iu');
            return withRisk(pattern, 'iu');
        } catch {
            throw plainError;
        }
    }
}

function withRisk(source: string, flags: 'i' | 'iu'): PatternSpec {
    const spec = { source, flags, risky: false };
    spec.risky = mayBacktrack(spec);
    return spec;
}

/**
 * Whether a (valid) pattern may backtrack catastrophically, by a conservative syntactic test:
 * a group repeated more than once (`+`, `*`, `{2}`, `{1,}`...) whose body holds a quantifier or
 * an alternation (`(a+)+`, `(\w+\s?)*`, `(a|aa)+`, `(\d+\.)+`), or a backreference (`\1`,
 * `\k<name>`). These are the exponential shapes of the ReDoS literature (OWASP, "Regular
 * expression Denial of Service"); a pattern this flags may well be harmless (`(foo|bar)+`), and
 * polynomial blow-ups of adjacent quantifiers (`\s*\s*$`) are not flagged. Used to make workers
 * hand back their hits early, never to refuse a pattern.
 */
export function mayBacktrack(spec: Pick<PatternSpec, 'source' | 'flags'>): boolean {
    const src = spec.source;
    const unicode = spec.flags === 'iu';
    /** Per open group: does its body hold a quantifier or alternation so far? */
    const open: boolean[] = [];
    /** The atom just ended was a group whose body held one. */
    let lastGroupRisky = false;
    const mark = (): void => {
        if (open.length > 0) open[open.length - 1] = true;
    };
    let i = 0;
    while (i < src.length) {
        const c = src[i]!;
        let groupEnded = false;
        if (c === '\\') {
            const e = src[i + 1];
            if (e !== undefined && e >= '1' && e <= '9') return true; // backreference (or, with no such group, an octal escape)
            if (e === 'k' && src[i + 2] === '<') return true;
            i += 2;
            // `\u{...}` and `\p{...}` in Unicode mode: the braces are part of the escape, not a quantifier.
            if (unicode && (e === 'u' || e === 'p' || e === 'P') && src[i] === '{') i = src.indexOf('}', i) + 1 || src.length;
        } else if (c === '[') {
            i = skipClass(src, i);
        } else if (c === '(') {
            open.push(false);
            i++;
            // Group syntax, not quantifiers: `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`.
            if (src[i] === '?') {
                if (src[i + 1] === '<' && src[i + 2] !== '=' && src[i + 2] !== '!') i = src.indexOf('>', i) + 1 || src.length;
                else i += src[i + 1] === '<' ? 3 : 2;
            }
        } else if (c === ')') {
            const inner = open.pop() ?? false;
            if (inner) mark(); // a risky body makes the enclosing body hold a quantifier too
            lastGroupRisky = inner;
            groupEnded = true;
            i++;
        } else if (c === '|') {
            mark();
            i++;
        } else {
            i++;
        }
        const q = quantifierAt(src, i);
        if (q !== null) {
            mark();
            if (groupEnded && lastGroupRisky && repeats(src.slice(i, i + q.len))) return true;
            i += q.len;
        }
    }
    return false;
}

/** Does a quantifier allow more than one repetition (`+`, `*`, `{2}`, `{0,}`), unlike `?` and `{0,1}`? */
function repeats(quantifier: string): boolean {
    if (quantifier[0] !== '{') return quantifier[0] !== '?';
    const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(quantifier)!;
    const max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
    return max > 1;
}

/** Index just past the character class starting at `i` (`[`): JavaScript classes end at the first unescaped `]`. */
function skipClass(src: string, i: number): number {
    for (let j = i + 1; j < src.length; j++) {
        if (src[j] === '\\') j++;
        else if (src[j] === ']') return j + 1;
    }
    return src.length;
}

/** Parses a quantifier at `i`: its length and whether it allows zero repetitions; `null` when there is none. */
function quantifierAt(src: string, i: number): { len: number; optional: boolean } | null {
    const c = src[i];
    let len = 0;
    let optional = false;
    if (c === '*' || c === '?') {
        len = 1;
        optional = true;
    } else if (c === '+') {
        len = 1;
    } else if (c === '{') {
        const m = /^\{(\d+)(?:,(\d*))?\}/.exec(src.slice(i, i + 24));
        if (!m) return null;
        len = m[0].length;
        optional = Number(m[1]) === 0;
    } else {
        return null;
    }
    if (src[i + len] === '?') len++;
    return { len, optional };
}

/**
 * One literal every line matched by `spec` must contain, ASCII lower-cased (matched ASCII
 * case-insensitively), or `null` when none can be proven (the scan's prefilter searches
 * `anyLiterals` of the same analysis, which may be several).
 * Derived from {@link analyzePattern} (a full parse of the pattern as JavaScript reads it with
 * `spec.flags`), so it is sound in Unicode mode and for Annex B syntax alike.
 */
export function requiredLiteral(spec: Pick<PatternSpec, 'source' | 'flags'>): string | null {
    return bestLiteral(analyzePattern(spec.source, spec.flags).query);
}
