/**
 * analyzePattern: the literal query every matched line satisfies (used by the scan's prefilter
 * and an index's query planner), its case folding, and where it gives up. Soundness against the
 * regex engine over generated patterns is in property-search.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { analyzePattern, anyLiterals, foldChar, MAX_ANY_LITERALS, type LiteralQuery } from '../../../src/search/shared/literals.js';

const lit = (text: string): LiteralQuery => ({ op: 'literal', text });
const query = (p: string, flags = 'i'): LiteralQuery => analyzePattern(p, flags).query;

describe('foldChar', () => {
    it('keeps exactly the ASCII characters whose case-insensitive class is ASCII, per mode', () => {
        // Every non-ASCII code point that matches an ASCII one case-insensitively, by the engine itself.
        const intoAscii = { i: [] as number[], iu: [] as number[] };
        for (let cp = 128; cp <= 0x10ffff; cp++) {
            if (cp >= 0xd800 && cp <= 0xdfff) continue;
            const ch = String.fromCodePoint(cp);
            if (/^[\0-\x7f]$/i.test(ch)) intoAscii.i.push(cp);
            if (/^[\0-\x7f]$/iu.test(ch)) intoAscii.iu.push(cp);
        }
        expect(intoAscii.i).toEqual([]);
        expect(intoAscii.iu).toEqual([0x17f, 0x212a]); // ſ folds to s, the Kelvin sign to k
        for (let c = 0; c < 128; c++) {
            const plain = foldChar(c, false);
            const unicode = foldChar(c, true);
            expect(plain, `${c}`).toBe(c === 10 ? null : String.fromCharCode(c).toLowerCase());
            expect(unicode, `${c}`).toBe(c === 10 || 'kKsS'.includes(String.fromCharCode(c)) ? null : String.fromCharCode(c).toLowerCase());
        }
        expect(foldChar(0xe9, false)).toBeNull();
    });
});

describe('analyzePattern', () => {
    it('gives an AND/OR of lower-cased literals', () => {
        expect(query('Foo|BAR')).toEqual({ op: 'or', of: [lit('foo'), lit('bar')] });
        expect(query('foo.*bar')).toEqual({ op: 'and', of: [lit('foo'), lit('bar')] });
        expect(query('(abc|abd)e')).toEqual({ op: 'or', of: [lit('abce'), lit('abde')] });
        expect(query('x(?=.*needle)')).toEqual({ op: 'and', of: [lit('needle'), lit('x')] });
        expect(query('(?!foo)bar')).toEqual(lit('bar'));
        expect(query('[Aa]b[cC]')).toEqual(lit('abc'));
        expect(query('a+b')).toEqual(lit('ab'));
    });

    it('reads Annex B syntax as JavaScript does without u', () => {
        expect(query('\\x4g')).toEqual(lit('x4g'));
        expect(query('\\u{2}z')).toEqual(lit('uuz'));
        expect(query('\\c')).toEqual(lit('\\c'));
        expect(query('\\cIx')).toEqual(lit('\tx'));
        expect(query('\\c[ab]')).toEqual({ op: 'or', of: [lit('\\ca'), lit('\\cb')] });
        expect(query('\\k<n>x')).toEqual(lit('k<n>x'));
        expect(query('(?<n>a)\\k<n>x')).toEqual({ op: 'and', of: [lit('a'), lit('x')] });
        expect(query('\\101\\8')).toEqual(lit('a8'));
        expect(query('a{1')).toEqual(lit('a{1'));
        expect(query('\\p{L}x')).toEqual(lit('p{l}x'));
        expect(query('\\p{L}x', 'iu')).toEqual(lit('x'));
    });

    it('tells whether the pattern is line-local (no lookaround)', () => {
        expect(analyzePattern('^a\\b.*$', 'i').lineLocal).toBe(true);
        for (const p of ['a(?=b)', 'a(?!\\n)', '(?<=x)a', '(?<!x)a']) expect(analyzePattern(p, 'i').lineLocal, p).toBe(false);
    });

    it('gives up rather than guess', () => {
        const none = { query: { op: 'all' }, lineLocal: false };
        expect(analyzePattern('(', 'i')).toEqual(none); // invalid
        expect(analyzePattern('[a&&b]', 'iv')).toEqual(none); // v flag: not analysed
        expect(analyzePattern('a{', 'iu')).toEqual(none); // invalid with u
        expect(query('\\p{L}*s', 'iu')).toEqual({ op: 'all' });
        expect(query('é')).toEqual({ op: 'all' });
    });
});

describe('anyLiterals', () => {
    const any = (p: string, usable?: (l: string) => boolean): string[] | null => anyLiterals(query(p), usable);

    it('takes every branch of an OR, and of an AND the cheapest member', () => {
        expect(any('Foo|BAR|baz_qux')).toEqual(['foo', 'bar', 'baz_qux']);
        expect(any('(foo|bar).*needle_x')).toEqual(['needle_x']);
        expect(any('(foo_x|bar_y).*ab')).toEqual(['foo_x', 'bar_y']);
        expect(any('(foo|bar)|(baz.*quux)')).toEqual(['foo', 'bar', 'quux']);
    });

    it('takes a part common to all branches when one search of it is cheaper', () => {
        expect(any('(get|set)_user_pages')).toEqual(['et_user_pages']);
        expect(any('foo_x|bar_x')).toEqual(['foo_x', 'bar_x']);
        expect(any('(abc|abd)e')).toEqual(['abce', 'abde']);
    });

    it('gives nothing when a branch requires nothing, a branch has no usable literal, or too many branches', () => {
        expect(any('foo|')).toBeNull();
        expect(any('foo|\\w+')).toBeNull();
        expect(any('.*')).toBeNull();
        expect(any('foo|bar', (l) => l !== 'bar')).toBeNull();
        expect(any('foo.*bar', (l) => l !== 'bar')).toEqual(['foo']);
        // Branches with no character in common: at most MAX_ANY_LITERALS searched.
        const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
        const wide = Array.from({ length: MAX_ANY_LITERALS + 1 }, (_, i) => chars.slice(2 * i, 2 * i + 2));
        expect(any(wide.slice(0, MAX_ANY_LITERALS).join('|'))).toEqual(wide.slice(0, MAX_ANY_LITERALS));
        expect(any(wide.join('|'))).toBeNull();
        // With a part in common, that part.
        expect(any(wide.map((w) => `word_${w}`).join('|'))).toEqual(['word_']);
    });

    it('never gives an empty literal', () => {
        for (const p of ['a|b', '(?:)', 'x?y?', '\\bfoo\\b|^$', '(a|)b', '[ab]c|d']) {
            const set = any(p);
            if (set !== null) for (const l of set) expect(l.length, p).toBeGreaterThan(0);
        }
    });
});

describe('analyzePattern of a pattern seen before', () => {
    it('gives the same analysis, frozen, per pattern and flags, and a fresh one past the kept patterns', () => {
        const first = analyzePattern('(foo|bar)_baz\\d', 'i');
        const again = analyzePattern('(foo|bar)_baz\\d', 'i');
        expect(again).toBe(first);
        expect(again).toEqual({ query: { op: 'and', of: [{ op: 'or', of: [lit('foo_baz'), lit('bar_baz')] }, lit('az'), { op: 'or', of: [lit('fo'), lit('ba')] }] }, lineLocal: true });
        // Shared by every caller: nobody can change it for the next one.
        expect(Object.isFrozen(first)).toBe(true);
        expect(Object.isFrozen(first.query)).toBe(true);
        expect(() => ((first.query as { op: string }).op = 'all')).toThrow(TypeError);
        // The flags are part of the key: `u` reads `\\u{41}` as a code point, without it as `u` repeated.
        expect(analyzePattern('x\\u{41}y', 'iu').query).toEqual(lit('xay'));
        expect(analyzePattern('x\\u{41}y', 'i').query).not.toEqual(lit('xay'));
        // Many other patterns later, it is analysed anew (to the same result).
        for (let k = 0; k < 100; k++) analyzePattern(`other_${k}`, 'i');
        const later = analyzePattern('(foo|bar)_baz\\d', 'i');
        expect(later).not.toBe(first);
        expect(later).toEqual(first);
    });
});
