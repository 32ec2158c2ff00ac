/** bench/common.ts `rgPattern`: a JavaScript pattern rewritten so ripgrep reads the same ASCII word classes. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { have, rgPattern } from '../../../bench/common.js';
import { tempDir } from '../../support/helpers.js';


describe('rgPattern', () => {
    it('wraps word boundaries and word/digit classes outside character classes in (?-u:...)', () => {
        expect(rgPattern('GFP_(KERNEL|ATOMIC)\\b')).toBe('GFP_(KERNEL|ATOMIC)(?-u:\\b)');
        expect(rgPattern('a\\Bb\\D\\W')).toBe('a(?-u:\\B)b(?-u:\\D)(?-u:\\W)');
        expect(rgPattern('\\w+\\d{2}')).toBe('(?-u:\\w)+(?-u:\\d){2}');
    });

    it('leaves escaped backslashes, classes, other escapes and unparsable patterns alone', () => {
        expect(rgPattern('\\\\b')).toBe('\\\\b');
        expect(rgPattern('[\\w-]+')).toBe('[\\w-]+');
        expect(rgPattern('\\u00e9t\\u00e9')).toBe('\\u00e9t\\u00e9');
        expect(rgPattern('(unclosed')).toBe('(unclosed');
    });

    it.runIf(have('rg'))('makes ripgrep count the lines JavaScript matches next to a CJK letter', () => {
        const dir = tempDir('lcf-rgpat-');
        fs.writeFileSync(path.join(dir, 'a.txt'), 'GFP_KERNEL分配\nGFP_KERNEL)\nGFP_KERNELX\n');
        const lines = fs.readFileSync(path.join(dir, 'a.txt'), 'utf8').split('\n').filter((l) => /GFP_KERNEL\b/i.test(l)).length;
        const rgCount = (p: string): number => {
            try {
                return Number(execFileSync('rg', ['-uu', '-i', '-c', p, path.join(dir, 'a.txt')], { encoding: 'utf8' }).trim() || 0);
            } catch {
                return 0;
            }
        };
        expect(lines).toBe(2);
        expect(rgCount('GFP_KERNEL\\b')).toBe(1);
        expect(rgCount(rgPattern('GFP_KERNEL\\b'))).toBe(lines);
    });
});
