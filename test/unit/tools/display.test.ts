/** tools/display.ts: how paths are shown in tool output. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byCodePoint, childPrefix, quotePath } from '../../../src/print/shared/display.js';

describe('quotePath', () => {
    it('leaves a path without control characters as it is, spaces, quotes and non-ASCII included', () => {
        for (const p of ['src/a.ts', 'a b/c "d".txt', 'ünï/çødé.md', "it's", '\\back\\slash']) expect(quotePath(p)).toBe(p);
    });

    it('JSON-quotes a path holding a control character or DEL, so it stays on one line and decodes back', () => {
        expect(quotePath('evil\nsecret.txt')).toBe('"evil\\nsecret.txt"');
        expect(quotePath('a\rb')).toBe('"a\\rb"');
        expect(quotePath('esc\x1b[2J')).toBe('"esc\\u001b[2J"');
        expect(quotePath('del\x7f')).toBe('"del\\u007f"');
        expect(quotePath('tab\tand "quote"')).toBe('"tab\\tand \\"quote\\""');
    });

    it('never shows a line break or control character, and quoted output decodes to the path', () => {
        fc.assert(
            fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (p) => {
                const shown = quotePath(p);
                expect(shown).not.toMatch(/[\x00-\x1f\x7f]/);
                if (shown !== p) expect(JSON.parse(shown)).toBe(p);
            }),
            { seed: 9, numRuns: 2000 },
        );
    });
});

describe('childPrefix', () => {
    it('is empty for "." and ends in one slash otherwise', () => {
        expect(childPrefix('.')).toBe('');
        expect(childPrefix('src')).toBe('src/');
        expect(childPrefix('src/')).toBe('src/');
        expect(childPrefix('/abs/dir')).toBe('/abs/dir/');
        expect(childPrefix('/')).toBe('/');
    });
});

describe('byCodePoint', () => {
    it('orders by UTF-16 code unit, independent of locale: upper case before lower, "a" before "a0"', () => {
        expect(['b', 'B', 'a0', 'a', 'é', 'z'].sort(byCodePoint)).toEqual(['B', 'a', 'a0', 'b', 'z', 'é']);
        expect(byCodePoint('x', 'x')).toBe(0);
    });
});
