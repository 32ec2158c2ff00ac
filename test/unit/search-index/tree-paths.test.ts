/** Paths a string-only watcher reports for names that are not UTF-8 (watch/tree-paths.ts). */
import { describe, expect, it } from 'vitest';
import { lossyRelTop } from '../../../src/search-index/watch/tree-paths.js';

describe('lossyRelTop', () => {
    it('keeps a path without U+FFFD', () => {
        expect(lossyRelTop('src/café/x.c')).toBe('src/café/x.c');
        expect(lossyRelTop('a')).toBe('a');
    });
    it('gives the directory above the first name holding U+FFFD', () => {
        expect(lossyRelTop('W/caf\uFFFD.c')).toBe('W');
        expect(lossyRelTop('a/b/D\uFFFD/in/x\uFFFD.c')).toBe('a/b');
    });
    it('gives the root for such a name at the top', () => {
        expect(lossyRelTop('caf\uFFFD.c')).toBe('');
        expect(lossyRelTop('N\uFFFDw/f.c')).toBe('');
    });
});
