/**
 * search_entries as models call it: literal (fixed-string) patterns, invalid-pattern advice,
 * patterns with a line break, and paging through a cut result.
 */
import { describe, expect, it } from 'vitest';
import { makePackage, search, tempDir, writeTree } from './helpers.js';

function tree(): string {
    const dir = tempDir('lcf-agent-search-');
    writeTree(dir, {
        'a.js': 'call foo(1);\nconst v = a[0];\nprice: $5.00\n',
        'b.txt': 'nothing\n',
        'c[1].txt': 'bracket name\n',
    });
    return dir;
}

describe('search_entries literal mode', () => {
    it('finds "foo(", "a[0]" and "$5.00" as written with literal: true', async () => {
        const fx = makePackage(tree());
        expect((await search(fx, { content_pattern: 'foo(', literal: true })).result).toBe('a.js:1: call foo(1);');
        expect((await search(fx, { content_pattern: 'a[0]', literal: true })).result).toBe('a.js:2: const v = a[0];');
        expect((await search(fx, { content_pattern: '$5.00', literal: true })).result).toBe('a.js:3: price: $5.00');
        expect((await search(fx, { name_pattern: 'c[1]', literal: true })).result).toBe('c[1].txt');
        // A literal "." matches a dot only.
        expect((await search(fx, { content_pattern: '5x00', literal: true })).result).toMatch(/^No entries found/);
    });

    it('says how to escape an invalid regex or use literal mode', async () => {
        const fx = makePackage(tree());
        const r = await search(fx, { content_pattern: 'foo(' });
        expect(r.status).toBe('error');
        expect(r.result).toBe(
            'Invalid arguments for search_entries: content_pattern is not a valid JavaScript regular expression: Invalid regular expression: /foo(/i: Unterminated group. ' +
                'To search for the text as written, set literal: true, or escape the special characters with a backslash: "foo\\\\(".',
        );
        const n = await search(fx, { name_pattern: '[' });
        expect(n.result).toContain('name_pattern is not a valid JavaScript regular expression');
        expect(n.result).toContain('set literal: true');
    });

    it('suggests literal mode when a regex with special characters finds nothing', async () => {
        const fx = makePackage(tree());
        const r = await search(fx, { content_pattern: 'a[0]' });
        expect(r.status).toBe('success');
        expect(r.result.split('\n')).toEqual([
            'No entries found in . matching content_pattern /a[0]/i.',
            '[content_pattern is a regular expression, in which characters such as [ ] ( ) $ ^ * + ? | have special meanings. To search for the text as written, set literal: true.]',
        ]);
        // No note when the regex found something, or has no special characters.
        expect((await search(fx, { content_pattern: 'a\\[0\\]' })).result).toBe('a.js:2: const v = a[0];');
        expect((await search(fx, { content_pattern: 'zzz' })).result).toBe('No entries found in . matching content_pattern /zzz/i.');
    });
});

describe('search_entries pattern with a line break', () => {
    it('says that matching is per line and how to search across lines, for \\n escapes and real newlines', async () => {
        const fx = makePackage(tree());
        const note =
            '[content_pattern contains a line break, but contents are matched one line at a time, so no match can span lines. Search for one line of the text (context_lines shows its neighbours), then read_file the lines around a hit.]';
        for (const content_pattern of ['foo\\(1\\);\\nconst', 'foo(1);\nconst']) {
            const r = await search(fx, { content_pattern, literal: content_pattern.includes('\n') });
            expect(r.result.split('\n').at(-1)).toBe(note);
            expect(r.result).toMatch(/^No entries found/);
        }
        // An escaped backslash before n is not a line break.
        expect((await search(fx, { content_pattern: 'x\\\\n' })).result).not.toContain('line break');
    });
});
