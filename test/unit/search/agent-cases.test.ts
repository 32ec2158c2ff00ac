/**
 * search_entries as models call it: literal (fixed-string) patterns, invalid-pattern advice,
 * patterns with a line break, and paging through a cut result.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SearchConfiguration } from '../../../src/index.js';
import { makePackage, one, search, tempDir, writeTree } from '../../support/helpers.js';

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

    it('says that JavaScript regexes have no inline flags such as (?i), and gives the pattern without them', async () => {
        const fx = makePackage(tree());
        const r = await search(fx, { content_pattern: '(?i)FOO\\(' });
        expect(r.status).toBe('error');
        expect(r.result).toBe(
            'Invalid arguments for search_entries: content_pattern is not a valid JavaScript regular expression: Invalid regular expression: /(?i)FOO\\(/i: Invalid group. ' +
                'JavaScript regular expressions have no inline flags such as "(?i)": the search matches either case, one line at a time, so leave the flag out: "FOO\\\\(". ' +
                'To search for the text as written, set literal: true, or escape the special characters with a backslash: "\\\\(\\\\?i\\\\)FOO\\\\\\\\\\\\(".',
        );
        // The pattern it gives runs as it says; a scoped group (?s:…) becomes (?:…).
        expect((await search(fx, { content_pattern: 'FOO\\(' })).result).toBe('a.js:1: call foo(1);');
        expect((await search(fx, { name_pattern: '(?s:B)\\.txt' })).result).toContain('leave the flag out: "(?:B)\\\\.txt"');
        // No sentence when the pattern has no flag group, or when leaving it out still leaves an invalid pattern.
        expect((await search(fx, { content_pattern: '(?<n>x' })).result).not.toContain('inline flags');
        // Flags that change what matches get no pattern: (?x) drops the spaces, (?-i) asks for a case the search does not have.
        expect((await search(fx, { content_pattern: '(?x)fo o(' })).result).toContain('no inline flags such as "(?x)". To search');
        expect((await search(fx, { content_pattern: '(?ix)fo o(' })).result).toContain('no inline flags such as "(?ix)". To search');
        expect((await search(fx, { content_pattern: '(?-i)Foo(' })).result).toContain('no inline flags such as "(?-i)": the search always matches either case. To search');
        // An escaped parenthesis is no flag group; an escaped backslash before one is.
        expect((await search(fx, { content_pattern: '\\(?i)' })).result).not.toContain('inline flags');
        expect((await search(fx, { content_pattern: '\\\\(?i)x' })).result).toContain('no inline flags such as "(?i)"');
        const both = await search(fx, { content_pattern: '(?i)foo(' });
        expect(both.result).toContain('no inline flags such as "(?i)": the search matches either case, one line at a time, so leave the flag out. To search');
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

describe('search_entries given a glob for a pattern', () => {
    function globTree(): string {
        const dir = tempDir('lcf-agent-glob-');
        writeTree(dir, { 'a.txt': 'TODO one\n', 'b.js': 'x\n', 'test_a.py': 'y\n', 'test.py': 'z\n', 'src/c.txt': 'TODO two\n' });
        return dir;
    }

    it('says a name_pattern that cannot compile is a regex, not a glob, and gives the regex and the include glob', async () => {
        const fx = makePackage(globTree());
        const r = await search(fx, { name_pattern: '*.txt' });
        expect(r.status).toBe('error');
        expect(r.result).toBe(
            'Invalid arguments for search_entries: name_pattern is not a valid JavaScript regular expression: Invalid regular expression: /*.txt/i: Nothing to repeat. ' +
                'name_pattern is a regular expression matched against each name, not a glob: for the glob "*.txt" write "\\\\.txt$", or pass the glob as include: "*.txt". ' +
                'To search for the text as written, set literal: true, or escape the special characters with a backslash: "\\\\*\\\\.txt".',
        );
        // Both suggestions find what the glob means.
        expect((await search(fx, { name_pattern: '\\.txt$' })).result.split('\n')).toEqual(['a.txt', 'src/c.txt']);
        expect((await search(fx, { include: '*.txt' })).result.split('\n')).toEqual(['a.txt', 'src/c.txt']);
        // Braces, a class with "!", "?" and a glob that is all stars.
        expect((await search(fx, { name_pattern: '*.{js,txt}' })).result).toContain('for the glob "*.{js,txt}" write "\\\\.(?:js|txt)$"');
        expect((await search(fx, { name_pattern: '*.[!t]?' })).result).toContain('write "\\\\.[^t].$"');
        expect((await search(fx, { name_pattern: '*' })).result).toContain('for the glob "*" write ".",');
        expect((await search(fx, { name_pattern: '?.txt' })).result).toContain('for the glob "?.txt" write "^.\\\\.txt$"');
        // A glob with a slash matches paths: only include can take it.
        expect((await search(fx, { name_pattern: '**/*.txt' })).result).toContain(
            'name_pattern is a regular expression matched against each name, not a glob: pass the glob as include: "**/*.txt" (a glob with "/" matches the path relative to path). ',
        );
    });

    it('says a content_pattern that cannot compile is matched anywhere in a line, not a glob', async () => {
        const fx = makePackage(globTree());
        const r = await search(fx, { content_pattern: '*TODO*' });
        expect(r.status).toBe('error');
        expect(r.result).toContain('content_pattern is a regular expression matched anywhere in a line, not a glob: for "*TODO*" write "TODO". To search');
        expect((await search(fx, { content_pattern: 'TODO' })).result.split('\n')).toEqual(['a.txt:1: TODO one', 'src/c.txt:1: TODO two']);
    });

    it('adds a note when a name_pattern that compiles reads as a glob, found or not', async () => {
        const fx = makePackage(globTree());
        const note = '[name_pattern is a regular expression matched against each name, not a glob: if you meant the glob "test_*.py", write "^test_.*\\\\.py$", or pass the glob as include: "test_*.py".]';
        // As a regex, "test_*.py" matches "test.py" (no underscore, any character, "py") and misses "test_a.py".
        const r = await search(fx, { name_pattern: 'test_*.py' });
        expect(r.result.split('\n')).toEqual(['test.py', note]);
        expect((await search(fx, { name_pattern: '^test_.*\\.py$' })).result).toBe('test_a.py');
        const none = await search(fx, { name_pattern: 'zz_*.py' });
        expect(none.result.split('\n')).toEqual([
            'No entries found in . matching name_pattern /zz_*.py/i.',
            '[name_pattern is a regular expression matched against each name, not a glob: if you meant the glob "zz_*.py", write "^zz_.*\\\\.py$", or pass the glob as include: "zz_*.py".]',
        ]);
        // Regex idioms are not globs: ".*", an escape, an anchor, a group.
        for (const name_pattern of ['test.*py', 'test_\\w*\\.py', '^te*st', '(test)*']) {
            expect((await search(fx, { name_pattern })).result).not.toContain('not a glob');
        }
        // A content_pattern such as "a*b" is an ordinary regex: no note.
        expect((await search(fx, { content_pattern: 'TOD*O' })).result).not.toContain('not a glob');
    });
});

describe('search_entries given globs as one comma-separated string', () => {
    it('says an include that found nothing is one glob, and gives the list', async () => {
        const dir = tempDir('lcf-agent-comma-');
        writeTree(dir, { 'a.c': 'kvm\n', 'b.h': 'kvm\n', 'c.txt': 'kvm\n', 'dist/d.c': 'kvm\n' });
        const fx = makePackage(dir);
        const r = await search(fx, { content_pattern: 'kvm', include: '*.c,*.h' });
        expect(r.result.split('\n')).toEqual([
            'No entries found in . matching content_pattern /kvm/i, include *.c,*.h.',
            '[include "*.c,*.h" is one glob, which matches names holding a comma; for several globs pass a list: ["*.c","*.h"].]',
        ]);
        // The list it gives, and braces, find the files; braces get no note.
        expect((await search(fx, { content_pattern: 'kvm', include: ['*.c', '*.h'] })).result.split('\n')).toEqual(['a.c:1: kvm', 'b.h:1: kvm', 'dist/d.c:1: kvm']);
        expect((await search(fx, { content_pattern: 'kvm', include: '*.{c,h}' })).result).not.toContain('one glob');
        // A comma that separates no two globs gets no list.
        for (const include of [',', '*.c,', ',*.c']) expect((await search(fx, { content_pattern: 'kvm', include })).result, include).not.toContain('one glob');
        // An exclude written so leaves out nothing: said after the results.
        const x = await search(fx, { content_pattern: 'kvm', exclude: 'dist, *.txt' });
        expect(x.result.split('\n')).toEqual([
            'a.c:1: kvm',
            'b.h:1: kvm',
            'c.txt:1: kvm',
            'dist/d.c:1: kvm',
            '[exclude "dist, *.txt" is one glob, which matches names holding a comma; for several globs pass a list: ["dist","*.txt"].]',
        ]);
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

describe('paging search_entries and list_directory', () => {
    function many(): string {
        const dir = tempDir('lcf-agent-page-');
        const files: Record<string, string> = {};
        for (let i = 0; i < 7; i++) files[`d${i}/f${i}.txt`] = 'needle\nhay\nneedle\n';
        writeTree(dir, files);
        return dir;
    }

    it('search: offset gets the next page of the same order, and the cut note says which offset', async () => {
        const fx = makePackage(many());
        const all = (await search(fx, { content_pattern: 'needle' })).result.split('\n');
        expect(all).toHaveLength(14);
        const got: string[] = [];
        let offset = 0;
        for (let page = 0; page < 10; page++) {
            const r = (await search(fx, { content_pattern: 'needle', max_results: 4, offset })).result.split('\n');
            const note = r.at(-1)!;
            const m = /for the next page, call again with offset=(\d+)\.\]$/.exec(note);
            if (m === null) {
                got.push(...r);
                break;
            }
            got.push(...r.slice(0, -1));
            expect(note).toBe(
                offset === 0
                    ? '[Showing the first 4 results (max_results = 4); there may be more. Raise max_results or narrow the search; for the next page, call again with offset=4.]'
                    : `[Showing results ${offset + 1}-${offset + 4} (offset = ${offset}, max_results = 4); there may be more. Raise max_results or narrow the search; for the next page, call again with offset=${offset + 4}.]`,
            );
            offset = Number(m[1]);
        }
        expect(got).toEqual(all);
        const past = await search(fx, { content_pattern: 'needle', offset: 20 });
        expect(past.result.split('\n')).toEqual(['No entries found in . matching content_pattern /needle/i.', '[offset 20 is past the last result: the search has 14 results.]']);
    });

    it('search: a count summary says how to list the results page by page', async () => {
        const fx = makePackage(many(), { search: new SearchConfiguration(50, 5, 5000, 120_000) });
        const r = await search(fx, { content_pattern: 'needle' });
        expect(r.result).toContain('Found 14 matching lines in 7 files');
        expect(r.result.split('\n').at(-1)).toBe('[To list them page by page, call again with max_results=5 and offset=0, then offset=5, and so on.]');
    });

    it('list_directory: offset pages through a listing cut at maxDisplayEntries', async () => {
        const dir = tempDir('lcf-agent-list-');
        const files: Record<string, string> = {};
        for (let i = 0; i < 12; i++) files[`f${String(i).padStart(2, '0')}.txt`] = '';
        writeTree(dir, files);
        const fx = makePackage(dir, { search: new SearchConfiguration(50, 5, 5000, 120_000) });
        const first = (await one(fx.tool('list_directory'), { path: '.' })).result.split('\n');
        expect(first).toEqual([
            'f00.txt', 'f01.txt', 'f02.txt', 'f03.txt', 'f04.txt',
            '[Showing 5 of 12 entries (maxDisplayEntries, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES). List a subdirectory or use search_entries to narrow; for the next page, call again with offset=5.]',
        ]);
        const second = (await one(fx.tool('list_directory'), { path: '.', offset: 5 })).result.split('\n');
        expect(second.at(-1)).toBe('[Showing entries 6-10 of 12 (offset = 5; maxDisplayEntries, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES). For the next page, call again with offset=10.]');
        const third = (await one(fx.tool('list_directory'), { path: '.', offset: 10 })).result.split('\n');
        expect(third).toEqual(['f10.txt', 'f11.txt', '[Showing entries 11-12 of 12 (offset = 10; maxDisplayEntries, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES). This is the last page.]']);
        expect([...first.slice(0, 5), ...second.slice(0, 5), ...third.slice(0, 2)]).toEqual(Object.keys(files).sort());
    });
});

describe('a flat directory with more than maxTotalEntries entries', () => {
    function flat(n: number): string {
        const dir = tempDir('lcf-agent-flat-');
        for (let i = 0; i < n; i++) fs.writeFileSync(path.join(dir, `e${String(i).padStart(4, '0')}.log`), '');
        return dir;
    }

    it('list_directory (not recursive) shows the first entries and the total instead of an error', async () => {
        const fx = makePackage(flat(150), { search: new SearchConfiguration(50, 10, 100, 120_000) });
        const r = await one(fx.tool('list_directory'), { path: '.' });
        expect(r.status).toBe('success');
        const lines = r.result.split('\n');
        expect(lines.slice(0, 2)).toEqual(['e0000.log', 'e0001.log']);
        expect(lines.at(-1)).toBe(
            '[Showing 10 of 150 entries (maxDisplayEntries, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES). List a subdirectory or use search_entries to narrow; for the next page, call again with offset=10.]',
        );
        // Recursive listing keeps the hard limit.
        const rec = await one(fx.tool('list_directory'), { path: '.', recursive: true });
        expect(rec.status).toBe('error');
    });

    it('a name search there does not advise the name_pattern it already has', async () => {
        const fx = makePackage(flat(150), { search: new SearchConfiguration(50, 10, 100, 120_000) });
        const r = await search(fx, { name_pattern: 'e00[0-1]' });
        expect(r.status).toBe('error');
        expect(r.result).toContain('The directory itself holds 150 entries, more than the limit');
        expect(r.result).not.toContain('a `name_pattern`');
        expect(r.result).toContain('Matches found before stopping (20):');
    });
});
