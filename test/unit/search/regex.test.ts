/**
 * src/search/regex.ts: the literal every match of a pattern must contain (the scan's prefilter),
 * the flags a pattern compiles with, and the syntactic test for patterns that may backtrack
 * catastrophically (their searches keep checkpoints and count as stuck from the start).
 */
import { describe, expect, it } from 'vitest';
import { compilePattern, mayBacktrack, requiredLiteral } from '../../../src/search/regex.js';

describe('requiredLiteral', () => {
    const lit = (p: string): string | null => requiredLiteral(compilePattern(p));
    it('finds the longest literal run every match must contain, ASCII lower-cased', () => {
        expect(lit('TODO')).toBe('todo');
        expect(lit('(a+)+$')).toBe('a'); // a repetition of a group still requires its body once
        expect(lit('\\p{L}+x')).toBe('x'); // Unicode mode: only s and k fold to non-ASCII letters
        expect(lit('(?:FOO|foobar)\\d')).toBe('foo');
        expect(lit('foo.*barbaz')).toBe('barbaz');
        expect(lit('\\bmutex_lock\\(')).toBe('mutex_lock(');
        expect(lit('ab+c')).toBe('ab');
        expect(lit('abc?d')).toBe('ab');
        expect(lit('x{0,3}yz')).toBe('yz');
        expect(lit('[a-z]+_lock\\(')).toBe('_lock(');
        expect(lit('(foo|bar)baz')).toBe('baz');
        expect(lit('\\d{3}-\\d{4}')).toBe('-');
    });
    it('gives none when no literal is certain', () => {
        expect(lit('foo|bar')).toBeNull();
        expect(lit('(a|b)+$')).toBeNull();
        expect(lit('[abc]')).toBeNull();
        expect(lit('\\p{L}+s')).toBeNull(); // Unicode mode: `s` also matches ſ (U+017F)
        expect(lit('\\p{L}+k')).toBeNull(); // and `k` the Kelvin sign (U+212A)
        expect(lit('(?=foo)?x{0}')).toBeNull(); // an optional lookahead requires nothing
        expect(lit('\\12')).toBeNull();
    });
    it('compiles with the u flag only when needed', () => {
        expect(compilePattern('abc').flags).toBe('i');
        expect(compilePattern('\\p{Lu}').flags).toBe('iu');
        expect(() => compilePattern('(')).toThrow(SyntaxError);
    });
});

describe('mayBacktrack', () => {
    it('flags a repeated group holding a quantifier or alternation, and backreferences', () => {
        for (const p of ['(a+)+', '(a+)+$', '(\\w+\\s?)*', '(a|aa)+', '(\\d+\\.)+', '(x+x+)+y', '((ab)*c)+', '(?:a*b)*', '(?<w>a+){2,}', '(a+){3}', '(\\w)\\1', '(?<q>["\'])x\\k<q>', 'needle|(a+)+$', '\\p{L}(a|b)*']) {
            expect(mayBacktrack(compilePattern(p)), p).toBe(true);
        }
        expect(compilePattern('(a+)+$').risky).toBe(true);
    });
    it('leaves plain patterns alone', () => {
        for (const p of ['needle', 'a+b*c?', '(foo|bar)baz', '(abc)+', '(a+)?', '(a|b)?x', '[(a+)+]', '\\(a+\\)+', 'mutex_lock\\(', '(?:foo)+', 'x{2}y{1,3}', '\\u{1F600}{2}', '\\p{Lu}{3}', '\\0']) {
            expect(mayBacktrack(compilePattern(p)), p).toBe(false);
        }
        expect(compilePattern('needle').risky).toBe(false);
    });
});
