/**
 * The scan's prefilter for an OR of literals (workers/search/literal-set.ts): LiteralSet.find against a
 * naive case-insensitive search, and the scan through it against the oracle (test/support/oracle.ts) on
 * generated alternations and texts: case variants, non-ASCII bytes, literals overlapping or
 * prefixes of each other, and the patterns that give no usable set (the whole-text regex then).
 * Files above the reusable buffer, streamed from disk in chunks, are
 * test/integration/search/literal-set-files.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePattern, escapeRegex, type PatternSpec } from '../../../src/search/regex.js';
import { LiteralSet, type LiteralSearch } from '../../../workers/search/literal-set.js';
import { countBytes, makeMatcher, scanBytes, type ContentMatcher, type LineHit } from '../../../workers/search/scan.js';
import { foldAscii, oracleDecode, oracleLines, oracleTextLines } from '../../support/oracle.js';

const SEED = 20_260_412;

/** `bytes` as {@link naive} searches them: Latin-1 (one character per byte), ASCII letters folded. */
function hayOf(bytes: Buffer): string {
    return foldAscii(bytes.toString('latin1'));
}

/** First start at or after `from` of any literal in `hay` ({@link hayOf}), ASCII case-insensitively, the obvious way. */
function naive(hay: string, literals: string[], from: number): number {
    let best = -1;
    for (const l of literals) {
        const i = hay.indexOf(l, from);
        if (i !== -1 && (best === -1 || i < best)) best = i;
    }
    return best;
}

/** Literals over a small alphabet, so that they overlap, repeat and are prefixes of each other. */
const literalArb = fc.string({ unit: fc.constantFrom('a', 'b', '_', 'x', '('), minLength: 1, maxLength: 9 });
const literalsArb = fc.uniqueArray(literalArb, { minLength: 1, maxLength: 5 });

/** Text bytes: the literals' letters in both cases, line ends, and non-ASCII bytes (UTF-8 `é`, Latin-1 `é`, `ÿ`). */
function bytesArb(literals: string[]): fc.Arbitrary<Buffer> {
    const piece = fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('a', 'A', 'b', 'B', '_', 'x', 'X', '(', ' ', '\n', '\r\n') },
        { weight: 1, arbitrary: fc.constantFrom('\u00c3\u00a9', '\u00e9', '\u00ff', '\u00c1') },
        // A literal in a random case.
        { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...literals), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 })).map(([l, up]) => [...l].map((c, i) => (up[i] ? c.toUpperCase() : c)).join('')) },
    );
    return fc.array(piece, { maxLength: 60 }).map((ps) => Buffer.from(ps.join(''), 'latin1'));
}

/** Every search the literals allow: anchors always, SIMD for at most 8, blocks for at most 8 none shorter than 2 bytes. */
function ways(literals: readonly string[]): LiteralSearch[] {
    if (literals.length > 8) return ['anchors'];
    return literals.every((l) => l.length >= 2) ? ['anchors', 'blocks', 'simd'] : ['anchors', 'simd'];
}

describe('LiteralSet.find', () => {
    it('finds the first occurrence of any literal at or after each position, as a naive search does', () => {
        fc.assert(
            fc.property(
                literalsArb.chain((ls) => fc.tuple(fc.constant(ls), bytesArb(ls))),
                fc.array(fc.nat({ max: 300 }), { maxLength: 12 }),
                ([literals, bytes], jumps) => {
                    const hay = hayOf(bytes);
                    for (const how of ways(literals)) {
                        const set = new LiteralSet(literals, how);
                        const label = `${how}: ${JSON.stringify(literals)} in ${JSON.stringify(bytes.toString('latin1'))}`;
                        set.reset();
                        // expect() only on a difference: its message is built for every position otherwise.
                        const agree = (from: number): number => {
                            const got = set.find(bytes, from);
                            const want = naive(hay, literals, from);
                            if (got !== want) expect(got, `${label} from ${from}`).toBe(want);
                            return got;
                        };
                        // As the scan calls it: from after each hit's line, never decreasing.
                        for (let from = 0; from <= bytes.length + 1; ) {
                            const got = agree(from);
                            if (got === -1) break;
                            from = got + 1;
                        }
                        // Any order of positions, also backwards, after a reset or not.
                        for (const from of jumps) agree(from);
                        set.reset();
                        for (const from of [...jumps].reverse()) agree(from);
                    }
                },
            ),
            { seed: SEED, numRuns: 1000 },
        );
    });

    it('finds occurrences at the very start and end, none in a buffer shorter than every literal, and starts anew at each reset', () => {
        const set = new LiteralSet(['token_42', 'ab']);
        expect(set.longest).toBe(8);
        const first = (text: string | Buffer, ...froms: number[]): number[] => {
            set.reset();
            const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1');
            return froms.map((from) => set.find(bytes, from));
        };
        expect(first('TOKEN_42', 0)).toEqual([0]);
        expect(first('xx tOkEn_42 aB', 0, 4, 13)).toEqual([3, 12, -1]);
        expect(first('a', 0)).toEqual([-1]);
        expect(first('', 0)).toEqual([-1]);
        // The same buffer object with new content (the reusable read buffer) after a reset.
        const buf = Buffer.from('ab......');
        expect(first(buf, 0)).toEqual([0]);
        buf.fill('.');
        expect(first(buf, 0)).toEqual([-1]);
    });

    it('searches by SIMD every set of up to 8 literals but one literal with a rare anchor', () => {
        expect(new LiteralSet(['command', 'parameters']).how).toBe('simd');
        expect(new LiteralSet(['htt_alloc_frag_desc']).how).toBe('simd');
        expect(new LiteralSet(['command', 'code']).how).toBe('simd');
        expect(new LiteralSet(['command', 'xyzzy_token']).how).toBe('simd');
        expect(new LiteralSet(['mutex_lock']).how).toBe('anchors'); // k is rare enough for memchr
        const nine = ['aa', 'bb', 'cc', 'dd', 'ee', 'ff', 'gg', 'hh', 'ii'];
        expect(new LiteralSet(nine).how).toBe('anchors');
        expect(new LiteralSet(nine.map((l) => l.repeat(4))).how).toBe('anchors'); // blocks take 8 at most too
    });

    it('finds occurrences across the SIMD search\'s 1 MiB windows, in every case, with non-ASCII bytes around', () => {
        const MiB = 1 << 20;
        const literals = ['needle_x', 'q7', '\u00e9t'];
        const set = new LiteralSet(literals, 'simd');
        const buf = Buffer.alloc(3 * MiB + 100, 'z');
        const put = (at: number, text: string): void => void buf.write(text, at, 'latin1');
        // Straddling the first window's end, at the second's first byte, at the very end, and a near miss.
        put(MiB - 4, 'NEEDLE_X');
        put(MiB + 8, 'q7');
        put(2 * MiB - 1, 'needle_');
        put(2 * MiB + 6, '\u00c9T'); // Latin-1 É is not an ASCII letter: no match
        put(2 * MiB + 20, '\u00e9T');
        put(buf.length - 2, 'Q7');
        const got: number[] = [];
        set.reset();
        for (let from = 0; ; ) {
            const at = set.find(buf, from);
            if (at === -1) break;
            got.push(at);
            from = at + 1;
        }
        expect(got).toEqual([MiB - 4, MiB + 8, 2 * MiB + 20, buf.length - 2]);
        const expected: number[] = [];
        const hay = hayOf(buf);
        for (let at = naive(hay, literals, 0); at !== -1; at = naive(hay, literals, at + 1)) expected.push(at);
        expect(got).toEqual(expected);
        // Backwards into an earlier window, and a new content in the same buffer after a reset.
        expect(set.find(buf, 5)).toBe(MiB - 4);
        buf.fill('z');
        set.reset();
        expect(set.find(buf, 0)).toBe(-1);
    });

    it('refuses an empty set and an empty literal (it would hold everywhere: no prefilter instead), and blocks it cannot make', () => {
        expect(() => new LiteralSet([])).toThrow(RangeError);
        expect(() => new LiteralSet(['foo', ''])).toThrow(RangeError);
        expect(() => new LiteralSet(['foo', 'x'], 'blocks')).toThrow(RangeError);
        expect(() => new LiteralSet(['aa', 'bb', 'cc', 'dd', 'ee', 'ff', 'gg', 'hh', 'ii'], 'blocks')).toThrow(RangeError);
    });
});

function scanLines(bytes: Buffer, spec: PatternSpec | ContentMatcher): { line: number; text: string }[] {
    const out: LineHit[] = [];
    scanBytes(bytes, 'source' in spec ? makeMatcher(spec) : spec, Number.MAX_SAFE_INTEGER, out);
    return out.map((h) => ({ line: h.line, text: h.text }));
}

/** The same lines, numbers and texts, in the same order. */
function sameLines(a: readonly { line: number; text: string }[], b: readonly { line: number; text: string }[]): boolean {
    return a.length === b.length && a.every((x, i) => x.line === b[i]!.line && x.text === b[i]!.text);
}

/** Alternations of the literals as patterns: plain, in a group with a common part, with a class or a quantifier around. */
function alternations(literals: string[]): string[] {
    const alt = literals.map(escapeRegex).join('|');
    return [alt, `(?:${alt})b`, `x(${alt})`, `(${alt})+_`, `[ab](?:${alt})`, `(?:${alt}).*\\(`, `^(?:${alt})$`];
}

/** The places of `buf`'s newlines, in order, found byte by byte (once per buffer's content: the test's buffers do not change while checked). */
function newlinesOf(buf: Buffer): number[] {
    const at: number[] = [];
    for (let i = 0; i < buf.length; i++) if (buf[i] === 10) at.push(i);
    return at;
}

/** The line bookkeeping's answers from the list of newlines: how many in `[from, to)`, the line start of `pos` from `floor`, the next newline. */
function lineOracle(nls: readonly number[]) {
    const firstAtOrAfter = (p: number): number => {
        let lo = 0;
        let hi = nls.length;
        while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if (nls[mid]! < p) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    };
    return {
        newlines: (from: number, to: number): number => Math.max(0, firstAtOrAfter(to) - firstAtOrAfter(from)),
        lineStart: (pos: number, floor: number): number => {
            const k = firstAtOrAfter(pos) - 1;
            return k >= 0 && nls[k]! >= floor ? nls[k]! + 1 : floor;
        },
        nextNewline: (from: number): number => nls[firstAtOrAfter(from)] ?? -1,
    };
}

/** Checks the set's line methods on `buf` at the given places against {@link lineOracle}, as the set stands (after a find, or a reset). */
function agreeOnLines(set: LiteralSet, buf: Buffer, places: readonly number[], label: string): void {
    const oracle = lineOracle(newlinesOf(buf));
    for (const a of places) {
        for (const b of places) {
            if (a > b) continue;
            const got = [set.newlines(buf, a, b), set.lineStart(buf, b, a), set.nextNewline(buf, a)];
            const want = [oracle.newlines(a, b), oracle.lineStart(b, a), oracle.nextNewline(a)];
            // expect() only on a difference: its message is built for every pair otherwise.
            if (got.some((g, i) => g !== want[i])) expect(got, `${label}: [${a}, ${b})`).toEqual(want);
        }
    }
}

describe('LiteralSet line bookkeeping', () => {
    it('counts and finds newlines as the obvious way does, for every search, before and after each find', () => {
        fc.assert(
            fc.property(
                literalsArb.chain((ls) => fc.tuple(fc.constant(ls), bytesArb(ls))),
                fc.array(fc.nat({ max: 300 }), { maxLength: 6 }),
                ([literals, bytes], jumps) => {
                    for (const how of ways(literals)) {
                        const set = new LiteralSet(literals, how);
                        const label = `${how}: ${JSON.stringify(literals)} in ${JSON.stringify(bytes.toString('latin1'))}`;
                        const places = [...new Set([0, 1, bytes.length - 1, bytes.length, ...jumps.map((j) => Math.min(j, bytes.length))])].filter((p) => p >= 0);
                        set.reset();
                        agreeOnLines(set, bytes, places, `${label}, reset`);
                        for (const from of jumps) {
                            set.find(bytes, from);
                            agreeOnLines(set, bytes, places, `${label}, found from ${from}`);
                        }
                    }
                },
            ),
            { seed: SEED, numRuns: 300 },
        );
    });

    it('answers across the SIMD search\'s 1 MiB windows: ranges reaching before, after and over the window in memory', () => {
        const MiB = 1 << 20;
        const set = new LiteralSet(['needle_x', 'q7'], 'simd');
        const buf = Buffer.alloc(3 * MiB + 100, 'z');
        // Newlines at each window's edges and inside, none for long stretches.
        const newlines = [0, 15, 16, 17, MiB - 17, MiB - 1, MiB, MiB + 1, MiB + 40, 2 * MiB - 3, 2 * MiB + 7, buf.length - 1];
        for (const at of newlines) buf[at] = 10;
        buf.write('needle_x', MiB + 2, 'latin1');
        buf.write('Q7', 2 * MiB + 9, 'latin1');
        const places = [...new Set([0, 1, 16, 31, MiB - 16, MiB - 1, MiB, MiB + 2, MiB + 3, MiB + 41, 2 * MiB - 2, 2 * MiB, 2 * MiB + 8, 2 * MiB + 9, 3 * MiB, buf.length - 1, buf.length])];
        set.reset();
        for (const from of [0, MiB + 1, MiB + 3, 2 * MiB + 1, 5]) {
            const at = set.find(buf, from);
            expect(at, `find from ${from}`).toBe(from <= MiB + 2 ? MiB + 2 : 2 * MiB + 9);
            agreeOnLines(set, buf, places, `found from ${from}`);
        }
    });
});

describe('the scan through a literal set, against the oracle', () => {
    it('finds exactly the oracle lines for generated alternations, plain and Unicode mode', () => {
        fc.assert(
            fc.property(
                fc.uniqueArray(fc.string({ unit: fc.constantFrom('a', 'B', '_', 'x', '(', 'é', 'k', 'S'), minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 4 }).chain((ls) => fc.tuple(fc.constant(ls), bytesArb(ls.map((l) => l.toLowerCase())))),
                ([literals, latin1]) => {
                    // Each text decoded once and each pattern's matchers made once, for every pair
                    // of them: a scan reuses one matcher for every file, as a worker does.
                    const texts = [latin1, Buffer.from(latin1.toString('latin1'), 'utf8')].map((bytes) => ({ bytes, text: oracleDecode(bytes) }));
                    // One set per literals and way, shared by the patterns that give the same
                    // literals, as a worker's matcher serves file after file (the scan resets it
                    // for each buffer): a set per pattern made a SIMD instance and its 1 MiB window each.
                    const sets = new Map<string, LiteralSet>();
                    const setOf = (ls: readonly string[], how: LiteralSearch): LiteralSet => {
                        const key = `${how} ${JSON.stringify(ls)}`;
                        let set = sets.get(key);
                        if (set === undefined) sets.set(key, (set = new LiteralSet(ls, how)));
                        return set;
                    };
                    for (const source of alternations(literals)) {
                        for (const flags of ['i', 'iu'] as const) {
                            const spec: PatternSpec = { source, flags, risky: false };
                            const m = makeMatcher(spec);
                            const matchers = (m.literals === null ? [null] : ways(m.literals.literals)).map((how) => ({ how, matcher: how === null ? m : { ...m, literals: setOf(m.literals!.literals, how) } }));
                            for (const { bytes, text } of texts) {
                                const expected = oracleTextLines(text, source, flags);
                                for (const { how, matcher } of matchers) {
                                    // expect() only on a difference, as above: its message and deep
                                    // comparison were most of this test's time.
                                    const got = scanLines(bytes, matcher);
                                    const count = countBytes(bytes, matcher);
                                    if (count !== expected.length || !sameLines(got, expected)) {
                                        const label = `/${source}/${flags} (${how ?? 'no literals'}) on ${JSON.stringify(bytes.toString('latin1'))}`;
                                        expect(got, label).toEqual(expected);
                                        expect(count, label).toBe(expected.length);
                                    }
                                }
                            }
                        }
                    }
                },
            ),
            { seed: SEED, numRuns: 120 },
        );
    });

    it('searches all the literals of an alternation at once, a common part when cheaper', () => {
        expect(makeMatcher(compilePattern('Foo|bar_baz')).literals?.literals).toEqual(['foo', 'bar_baz']);
        expect(makeMatcher(compilePattern('(get|set)_user_pages')).literals?.literals).toEqual(['et_user_pages']);
        // A literal found inside another needs no search of its own.
        expect(makeMatcher(compilePattern('ab|xaby|ab')).literals?.literals).toEqual(['ab']);
        // Non-ASCII: the ASCII runs of each branch.
        expect(makeMatcher(compilePattern('caf日|na本')).literals?.literals).toEqual(['caf', 'na']);
        // A character with two normal forms (é, ï): lines are tested in NFC too, with no byte prefilter.
        expect(makeMatcher(compilePattern('café|naïve')).literals).toBeNull();
    });

    it('falls back to the whole-text regex when a branch requires nothing or only a too common character', () => {
        const text = Buffer.from('foo\nbar\n\ne here\nnone\n');
        for (const source of ['foo|', '(?:)|foo', 'foo|x*', 'foo|e', 'foo|.', 'é|foo']) {
            const spec = compilePattern(source);
            expect(makeMatcher(spec).literals, source).toBeNull();
            expect(scanLines(text, spec), source).toEqual(oracleLines(text, source, spec.flags));
        }
    });
});
