/**
 * search_entries' optional agent-facing options: respect_gitignore, include/exclude globs,
 * context_lines and output_mode. Each is off by default, and the reference's output is then
 * unchanged (search-entries.test.ts guards it in full). The pure parts (glob compilation, the
 * .gitignore chain, the context and count scans) are tested directly too.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SearchConfiguration } from '../../../src/index.js';
import { Engine } from '../../../src/engine/engine.js';
import { ancestorIgnores, compileGlobs, IgnoreCache } from '../../../src/search/shared/filters.js';
import { compilePattern } from '../../../src/search/regex.js';
import type { SearchRequest } from '../../../src/search/shared/types.js';
import type { SearchEntriesTool } from '../../../src/tools/search-entries.js';
import { countBytes, makeMatcher, scanBytes, type LineHit } from '../../../workers/search/scan.js';
import { makePackage, search, searchProject, tempDir, writeTree } from '../../support/helpers.js';
import { searchRootAt } from '../../../src/search/prepare.js';

const lines = (r: { result: string }): string[] => r.result.split('\n');

function project(): string {
    return searchProject('lcf-opts-', { 'src/lib/notes.md': 'TODO lib notes\n' });
}

describe('search_entries options: defaults', () => {
    it('keeps the reference output when every option is left out or set to its default', async () => {
        const fx = makePackage(project());
        for (const base of [{}, { content_pattern: 'todo' }, { name_pattern: '\\.ts$' }, { content_pattern: 'todo', max_results: 2 }]) {
            const plain = await search(fx, base);
            const explicit = await search(fx, { ...base, respect_gitignore: false, context_lines: 0, output_mode: 'content', include: [], exclude: [] });
            expect(explicit).toEqual(plain);
        }
        expect((await search(fx, { content_pattern: 'todo' })).result).toBe(
            ['docs/guide.md:2: TODO: write more', 'src/lib/notes.md:1: TODO lib notes', 'src/main.ts:3:    // TODO: implement this', 'src/utils.ts:2: // todo: add error handling'].join('\n'),
        );
    });

    it('shows each option to the model with its type, range and description', () => {
        const fx = makePackage(project());
        const schema = (fx.tool('search_entries') as SearchEntriesTool).jsonSchema() as { properties: Record<string, Record<string, unknown>>; required?: string[] };
        const p = schema.properties;
        expect(p.respect_gitignore).toMatchObject({ type: 'boolean' });
        expect(p.include!.anyOf).toEqual([{ type: 'string' }, { type: 'array', items: { type: 'string' } }]);
        expect(p.exclude!.anyOf).toEqual([{ type: 'string' }, { type: 'array', items: { type: 'string' } }]);
        expect(p.context_lines).toMatchObject({ type: 'integer', minimum: 0, maximum: 10 });
        expect(p.output_mode).toMatchObject({ type: 'string', enum: ['content', 'files_with_matches', 'count'] });
        for (const k of ['respect_gitignore', 'include', 'exclude', 'context_lines', 'output_mode']) {
            expect(String(p[k]!.description).length, k).toBeGreaterThan(40);
        }
        expect(schema.required ?? []).toEqual([]);
    });
});

describe('search_entries respect_gitignore', () => {
    function ignoredTree(): string {
        const dir = tempDir('lcf-gi-');
        writeTree(dir, {
            '.gitignore': '# comment\n*.log\n!keep.log\nbuild/\n/top-only.txt\n',
            'a.log': 'needle\n',
            'keep.log': 'needle\n',
            'top-only.txt': 'needle\n',
            'build/out.js': 'needle\n',
            'src/build/x.js': 'needle\n',
            'src/top-only.txt': 'needle\n',
            'src/.gitignore': '*.tmp\n!important.log\ngen/*.ts\n',
            'src/important.log': 'needle\n',
            'src/x.tmp': 'needle\n',
            'src/sub/y.tmp': 'needle\n',
            'src/gen/a.ts': 'needle\n',
            'src/sub/gen/b.ts': 'needle\n',
            'other/x.tmp': 'needle\n',
            'gen/c.ts': 'needle\n',
        });
        return dir;
    }

    it('leaves out ignored files and directories, with negation and nested files relative to their directory', async () => {
        const fx = makePackage(ignoredTree());
        const r = await search(fx, { respect_gitignore: true });
        expect(r.status).toBe('success');
        expect(lines(r)).toEqual([
            '.gitignore',
            'gen/',
            'gen/c.ts',
            'keep.log',
            'other/',
            'other/x.tmp',
            'src/',
            'src/.gitignore',
            'src/gen/',
            'src/important.log',
            'src/sub/',
            'src/sub/gen/',
            'src/sub/gen/b.ts',
            'src/top-only.txt',
        ]);
        // Off by default: everything is listed.
        expect(lines(await search(fx, {}))).toHaveLength(23);
    });

    it('content-searches .gitignore files themselves and keeps the matches of files not ignored', async () => {
        const fx = makePackage(ignoredTree());
        const r = await search(fx, { content_pattern: 'needle|\\.tmp', respect_gitignore: true });
        expect(lines(r)).toEqual([
            'gen/c.ts:1: needle',
            'keep.log:1: needle',
            'other/x.tmp:1: needle',
            'src/.gitignore:1: *.tmp',
            'src/important.log:1: needle',
            'src/sub/gen/b.ts:1: needle',
            'src/top-only.txt:1: needle',
        ]);
    });

    it('cannot re-include a file inside an ignored directory, like git', async () => {
        const dir = tempDir('lcf-gi-neg-');
        writeTree(dir, { '.gitignore': 'build/\n!build/keep.js\nlogs/*\n!logs/keep.txt\n', 'build/keep.js': 'x\n', 'logs/a.txt': 'x\n', 'logs/keep.txt': 'x\n' });
        const fx = makePackage(dir);
        expect(lines(await search(fx, { respect_gitignore: true, type: 'file' }))).toEqual(['.gitignore', 'logs/keep.txt']);
    });

    it('applies the .gitignore files above a searched subdirectory, up to the repository root only', async () => {
        const dir = tempDir('lcf-gi-up-');
        writeTree(dir, {
            '.gitignore': '*.txt\n', // above the repository: not applied
            'repo/.git/HEAD': 'ref: refs/heads/main\n',
            'repo/.gitignore': '*.log\n/src/gen/\nsrc/pkg/*.tmp\n',
            'repo/src/a.log': 'x\n',
            'repo/src/a.txt': 'x\n',
            'repo/src/gen/g.ts': 'x\n',
            'repo/src/pkg/p.tmp': 'x\n',
            'repo/src/pkg/p.ts': 'x\n',
        });
        const fx = makePackage(dir);
        expect(lines(await search(fx, { path: 'repo/src', respect_gitignore: true }))).toEqual(['repo/src/a.txt', 'repo/src/pkg/', 'repo/src/pkg/p.ts']);
        expect(lines(await search(fx, { path: 'repo/src/pkg', respect_gitignore: true }))).toEqual(['repo/src/pkg/p.ts']);
        // A searched directory that is itself ignored: nothing in it counts, and the result says why.
        expect(await search(fx, { path: 'repo/src/gen', respect_gitignore: true })).toMatchObject({
            status: 'success',
            result:
                'No entries found in repo/src/gen: it is itself ignored by the rule "/src/gen/" in repo/.gitignore, and respect_gitignore ' +
                'leaves out everything git ignores. Search again without respect_gitignore to see its entries.',
        });
        expect(lines(await search(fx, { path: 'repo/src/gen' }))).toEqual(['repo/src/gen/g.ts']);
        // Without a .git, every .gitignore up to the accessible directory applies.
        fs.rmSync(path.join(dir, 'repo', '.git'), { recursive: true });
        expect(lines(await search(fx, { path: 'repo/src', respect_gitignore: true }))).toEqual(['repo/src/pkg/', 'repo/src/pkg/p.ts']);
        // Never above the accessible directories.
        const fxSub = makePackage(path.join(dir, 'repo', 'src'));
        expect(lines(await search(fxSub, { respect_gitignore: true, type: 'file' }))).toEqual(['a.log', 'a.txt', 'gen/g.ts', 'pkg/p.tmp', 'pkg/p.ts']);
    });

    it('does not walk an ignored directory, so it does not count toward maxTotalEntries', async () => {
        const dir = tempDir('lcf-gi-total-');
        for (let f = 0; f < 120; f++) writeTree(dir, { [`vendor/f${f}.txt`]: 'x\n' });
        writeTree(dir, { '.gitignore': 'vendor/\n', 'main.txt': 'needle\n' });
        const fx = makePackage(dir, { search: new SearchConfiguration(50, 200, 50, 120_000) });
        expect((await search(fx, { content_pattern: 'needle' })).status).toBe('error');
        const r = await search(fx, { content_pattern: 'needle', respect_gitignore: true });
        expect(r).toEqual({ tool: 'search_entries', status: 'success', result: 'main.txt:1: needle' });
    });

    it('applies a directory .gitignore to every part of a large directory handed out in chunks', async () => {
        const dir = tempDir('lcf-gi-big-');
        // The directory's own .gitignore: its rules must reach every chunk of it handed to another task.
        const files: Record<string, string> = { 'big/.gitignore': '*.skip\n!f0006.skip\n' };
        for (let f = 0; f < 1500; f++) files[`big/f${String(f).padStart(4, '0')}.${f % 3 === 0 ? 'skip' : 'txt'}`] = f % 100 === 6 || f % 100 === 7 ? 'needle\n' : 'hay\n';
        for (let d = 0; d < 20; d++) files[`big/d${d}/n.skip`] = 'needle\n';
        writeTree(dir, files);
        const fx = makePackage(dir, { search: new SearchConfiguration(5000, 5000, 100_000, 120_000) });
        const kept = Object.keys(files)
            .filter((p) => p.startsWith('big/') && (!p.endsWith('.skip') || p === 'big/f0006.skip'))
            .sort();
        expect(kept.length).toBeGreaterThan(1000);
        expect(lines(await search(fx, { respect_gitignore: true, type: 'file', path: 'big' }))).toEqual(kept);
        const content = await search(fx, { respect_gitignore: true, content_pattern: 'needle', output_mode: 'files_with_matches' });
        const withNeedle = kept.filter((p) => files[p] === 'needle\n');
        expect(withNeedle.slice(0, 3)).toEqual(['big/f0006.skip', 'big/f0007.txt', 'big/f0106.txt']);
        expect(lines(content)).toEqual(withNeedle);
    });

    it('agrees with git itself on a repository with nested .gitignore files', async () => {
        const dir = tempDir('lcf-gi-git-');
        writeTree(dir, {
            '.gitignore': '*.o\n/out/\ndocs/**/*.draft\n!keep.o\ntmp*\n!tmp/\n',
            'a.o': '', 'keep.o': '', 'b.c': '', 'out/x.c': '', 'lib/out/y.c': '', 'docs/a.draft': '', 'docs/x/b.draft': '', 'docs/x/c.md': '',
            'tmp/t.c': '', 'tmpfile': '', 'lib/.gitignore': '!*.o\n*.c\n!main.c\n', 'lib/z.o': '', 'lib/main.c': '', 'lib/util.c': '',
            'lib/sub/.gitignore': 'main.c\n', 'lib/sub/main.c': '', 'lib/sub/w.h': '', 'Mixed.TXT': '', '.gitignore2': '',
        });
        try {
            execFileSync('git', ['init', '-q', dir]);
        } catch {
            return; // no git on this machine
        }
        const git = execFileSync('git', ['-C', dir, 'ls-files', '--others', '--exclude-standard'], { encoding: 'utf8' }).trim().split('\n').sort();
        const fx = makePackage(dir);
        const ours = lines(await search(fx, { respect_gitignore: true, type: 'file' }));
        expect(ours).toEqual(git);
    });
});

describe('search_entries include/exclude', () => {
    it('include matches file names at any depth without a slash, the relative path with one; directories are still walked', async () => {
        const fx = makePackage(project());
        expect(lines(await search(fx, { include: '*.ts' }))).toEqual(['src/lib/deep.ts', 'src/main.ts', 'src/utils.ts']);
        expect(lines(await search(fx, { include: ['*.md', '*.TXT'] }))).toEqual(['docs/guide.md', 'readme.txt', 'src/lib/notes.md']);
        expect(lines(await search(fx, { include: 'src/*.ts' }))).toEqual(['src/main.ts', 'src/utils.ts']);
        expect(lines(await search(fx, { include: 'src/**' }))).toEqual(['src/', 'src/lib/', 'src/lib/deep.ts', 'src/lib/notes.md', 'src/main.ts', 'src/utils.ts']);
        expect(lines(await search(fx, { include: '**/lib/*', type: 'file' }))).toEqual(['src/lib/deep.ts', 'src/lib/notes.md']);
        expect(lines(await search(fx, { include: '*.{md,txt}', content_pattern: 'todo' }))).toEqual(['docs/guide.md:2: TODO: write more', 'src/lib/notes.md:1: TODO lib notes']);
    });

    it('matches globs against the path relative to the searched directory, and anchors a leading /', async () => {
        const dir = project();
        writeTree(dir, { 'src/readme.txt': 'x\n' });
        const fx = makePackage(dir);
        expect(lines(await search(fx, { path: 'src', include: 'lib/*.ts' }))).toEqual(['src/lib/deep.ts']);
        expect(lines(await search(fx, { include: '/readme.txt' }))).toEqual(['readme.txt']);
        expect(lines(await search(fx, { include: 'readme.txt' }))).toEqual(['readme.txt', 'src/readme.txt']);
        expect(lines(await search(fx, { path: 'src', include: './readme.txt' }))).toEqual(['src/readme.txt']);
    });

    it('exclude leaves out files and prunes directories; a trailing slash matches directories only', async () => {
        const dir = project();
        writeTree(dir, { 'docs/lib': 'a file named lib\n' });
        const fx = makePackage(dir);
        expect(lines(await search(fx, { exclude: 'lib' }))).toEqual(['docs/', 'docs/guide.md', 'readme.txt', 'src/', 'src/main.ts', 'src/utils.ts']);
        expect(lines(await search(fx, { exclude: 'lib/' }))).toEqual(['docs/', 'docs/guide.md', 'docs/lib', 'readme.txt', 'src/', 'src/main.ts', 'src/utils.ts']);
        expect(lines(await search(fx, { exclude: ['*.md', 'src/lib/**'], type: 'file' }))).toEqual(['docs/lib', 'readme.txt', 'src/main.ts', 'src/utils.ts']);
        expect(lines(await search(fx, { content_pattern: 'todo', exclude: '*.ts' }))).toEqual(['docs/guide.md:2: TODO: write more', 'src/lib/notes.md:1: TODO lib notes']);
    });

    it('combines include, exclude, name_pattern, type and respect_gitignore with AND', async () => {
        const dir = project();
        writeTree(dir, { '.gitignore': 'utils.ts\n', 'src/lib/extra.ts': '// TODO extra\n' });
        const fx = makePackage(dir);
        const r = await search(fx, { include: '*.ts', exclude: 'deep*', name_pattern: '^[eu]', respect_gitignore: true });
        expect(lines(r)).toEqual(['src/lib/extra.ts']);
        const c = await search(fx, { include: 'src/**', exclude: 'main.ts', content_pattern: 'todo', respect_gitignore: true, context_lines: 1 });
        expect(lines(c)).toEqual(['src/lib/extra.ts:1: // TODO extra', '--', 'src/lib/notes.md:1: TODO lib notes']);
    });

    it('does not count excluded entries toward maxTotalEntries', async () => {
        const dir = tempDir('lcf-glob-total-');
        for (let f = 0; f < 120; f++) writeTree(dir, { [`fixtures/f${f}.txt`]: 'x\n' });
        writeTree(dir, { 'main.txt': 'needle\n' });
        const fx = makePackage(dir, { search: new SearchConfiguration(50, 200, 50, 120_000) });
        expect((await search(fx, { content_pattern: 'needle', exclude: 'fixtures/' })).result).toBe('main.txt:1: needle');
        expect((await search(fx, { content_pattern: 'needle', include: 'main.txt' })).status).toBe('error');
    });

    it('says which filters found nothing', async () => {
        const fx = makePackage(project());
        const r = await search(fx, { include: '*.rs', exclude: ['target/'], respect_gitignore: true });
        expect(r).toMatchObject({ status: 'success', result: 'No entries found in . matching include *.rs, exclude target/, not ignored by .gitignore.' });
    });
});

describe('search_entries context_lines', () => {
    function numbered(n: number, match: number[]): string {
        return Array.from({ length: n }, (_, i) => (match.includes(i + 1) ? `line ${i + 1} needle` : `line ${i + 1}`)).join('\n') + '\n';
    }

    it('shows context around matches, merges overlapping context and separates groups with --', async () => {
        const dir = tempDir('lcf-ctx-');
        writeTree(dir, { 'a.txt': numbered(20, [3, 5, 12, 15]), 'b.txt': numbered(3, [2]) });
        const fx = makePackage(dir);
        const r = await search(fx, { content_pattern: 'needle', context_lines: 2 });
        expect(r.status).toBe('success');
        expect(lines(r)).toEqual([
            'a.txt-1- line 1',
            'a.txt-2- line 2',
            'a.txt:3: line 3 needle',
            'a.txt-4- line 4',
            'a.txt:5: line 5 needle',
            'a.txt-6- line 6',
            'a.txt-7- line 7',
            '--',
            'a.txt-10- line 10',
            'a.txt-11- line 11',
            'a.txt:12: line 12 needle',
            'a.txt-13- line 13',
            'a.txt-14- line 14',
            'a.txt:15: line 15 needle',
            'a.txt-16- line 16',
            'a.txt-17- line 17',
            '--',
            'b.txt-1- line 1',
            'b.txt:2: line 2 needle',
            'b.txt-3- line 3',
        ]);
    });

    it('joins adjacent groups without a separator and stops at the start and end of a file', async () => {
        const dir = tempDir('lcf-ctx-edges-');
        writeTree(dir, {
            'a.txt': numbered(8, [1, 4, 8]),
            'b.txt': 'first needle\nsecond\nlast needle', // no final newline
            'c.txt': 'only needle\n',
            'd.txt': 'one\r\ntwo needle\r\nthree\r\n',
        });
        const fx = makePackage(dir);
        expect(lines(await search(fx, { content_pattern: 'needle', context_lines: 1, path: '.', include: 'a.txt' }))).toEqual([
            'a.txt:1: line 1 needle',
            'a.txt-2- line 2',
            'a.txt-3- line 3',
            'a.txt:4: line 4 needle',
            'a.txt-5- line 5',
            '--',
            'a.txt-7- line 7',
            'a.txt:8: line 8 needle',
        ]);
        expect(lines(await search(fx, { content_pattern: 'needle', context_lines: 3, exclude: 'a.txt' }))).toEqual([
            'b.txt:1: first needle',
            'b.txt-2- second',
            'b.txt:3: last needle',
            '--',
            'c.txt:1: only needle',
            '--',
            'd.txt-1- one',
            'd.txt:2: two needle',
            'd.txt-3- three',
        ]);
    });

    it('does not count context lines toward max_results', async () => {
        const dir = tempDir('lcf-ctx-max-');
        writeTree(dir, { 'a.txt': numbered(10, [2, 6, 9]) });
        const fx = makePackage(dir);
        const r = await search(fx, { content_pattern: 'needle', context_lines: 1, max_results: 2 });
        expect(lines(r)).toEqual([
            'a.txt-1- line 1',
            'a.txt:2: line 2 needle',
            'a.txt-3- line 3',
            '--',
            'a.txt-5- line 5',
            'a.txt:6: line 6 needle',
            'a.txt-7- line 7',
            '[Showing the first 2 results (max_results = 2); there may be more. Raise max_results or narrow the search; for the next page, call again with offset=2.]',
        ]);
    });

    it('is ignored by the files_with_matches and count modes', async () => {
        const dir = tempDir('lcf-ctx-mode-');
        writeTree(dir, { 'a.txt': numbered(5, [2, 3]) });
        const fx = makePackage(dir);
        expect((await search(fx, { content_pattern: 'needle', context_lines: 2, output_mode: 'count' })).result).toBe('a.txt: 2');
        expect((await search(fx, { content_pattern: 'needle', context_lines: 2, output_mode: 'files_with_matches' })).result).toBe('a.txt');
    });
});

describe('search_entries output_mode', () => {
    function manyFiles(): string {
        const dir = tempDir('lcf-mode-');
        for (let i = 0; i < 12; i++) writeTree(dir, { [`d${String(i).padStart(2, '0')}/f.txt`]: 'needle\nhay\nneedle needle\n'.repeat(i % 3 === 0 ? 0 : i) });
        writeTree(dir, { 'top.txt': 'NEEDLE\n' });
        return dir;
    }

    it('files_with_matches lists each file with a match once, in path order', async () => {
        const fx = makePackage(manyFiles());
        const r = await search(fx, { content_pattern: 'needle', output_mode: 'files_with_matches' });
        expect(lines(r)).toEqual(['d01/f.txt', 'd02/f.txt', 'd04/f.txt', 'd05/f.txt', 'd07/f.txt', 'd08/f.txt', 'd10/f.txt', 'd11/f.txt', 'top.txt']);
    });

    it('count lists path: N, the number of matching lines per file', async () => {
        const fx = makePackage(manyFiles());
        const r = await search(fx, { content_pattern: 'needle', output_mode: 'count' });
        expect(lines(r)).toEqual(['d01/f.txt: 2', 'd02/f.txt: 4', 'd04/f.txt: 8', 'd05/f.txt: 10', 'd07/f.txt: 14', 'd08/f.txt: 16', 'd10/f.txt: 20', 'd11/f.txt: 22', 'top.txt: 1']);
    });

    it('max_results counts files in both modes; counts stay whole', async () => {
        const fx = makePackage(manyFiles());
        const files = await search(fx, { content_pattern: 'needle', output_mode: 'files_with_matches', max_results: 3 });
        expect(lines(files)).toEqual([
            'd01/f.txt',
            'd02/f.txt',
            'd04/f.txt',
            '[Showing the first 3 files (max_results = 3); there may be more. Raise max_results or narrow the search; for the next page, call again with offset=3.]',
        ]);
        const count = await search(fx, { content_pattern: 'needle', output_mode: 'count', max_results: 2 });
        expect(lines(count)).toEqual(['d01/f.txt: 2', 'd02/f.txt: 4', '[Showing the first 2 files (max_results = 2); there may be more. Raise max_results or narrow the search; for the next page, call again with offset=2.]']);
    });

    it('files_with_matches without content_pattern lists the matching entries as usual', async () => {
        const fx = makePackage(project());
        expect(await search(fx, { name_pattern: 'lib', output_mode: 'files_with_matches' })).toEqual(await search(fx, { name_pattern: 'lib' }));
    });

    it('appends times to count lines under a time filter, and summarizes many files', async () => {
        const fx = makePackage(manyFiles(), { search: new SearchConfiguration(50, 5, 5000, 120_000) });
        const r = await search(fx, { content_pattern: 'needle', output_mode: 'count', modified_after: '2000-01-01T00:00:00Z', include: 'top.txt' });
        expect(r.result).toMatch(/^top\.txt: 1 {2}\(created: .*, modified: .*\)$/);
        const many = await search(fx, { content_pattern: 'needle', output_mode: 'count' });
        expect(many.result).toContain('Found 97 matching lines in 9 files in .');
    });
});

describe('search_entries options: bad values', () => {
    it('rejects bad globs naming the parameter and the glob', async () => {
        const fx = makePackage(project());
        const cases: [unknown, RegExp][] = [
            [{ include: '[abc' }, /include: "\[abc" is not a valid glob: Missing closing: "\]"/],
            [{ exclude: ['*.ts', '{a,b'] }, /exclude: "\{a,b" is not a valid glob/],
            [{ include: '' }, /include: "" matches no path/],
            [{ exclude: '/' }, /exclude: "\/" matches no path/],
            [{ include: 5 }, /include: expected a glob string or a list of glob strings/],
            [{ exclude: [1] }, /exclude: expected a glob string or a list of glob strings/],
        ];
        for (const [args, message] of cases) {
            const r = await search(fx, args);
            expect(r.status, JSON.stringify(args)).toBe('error');
            expect(r.result, JSON.stringify(args)).toMatch(/^Invalid arguments for search_entries: /);
            expect(r.result, JSON.stringify(args)).toMatch(message);
        }
    });

    it('rejects context_lines out of range, a wrong output_mode and respect_gitignore that is not a boolean', async () => {
        const fx = makePackage(project());
        for (const [args, param] of [
            [{ content_pattern: 'x', context_lines: 11 }, 'context_lines'],
            [{ content_pattern: 'x', context_lines: -1 }, 'context_lines'],
            [{ content_pattern: 'x', context_lines: 1.5 }, 'context_lines'],
            [{ content_pattern: 'x', output_mode: 'lines' }, 'output_mode'],
            [{ respect_gitignore: 'yes' }, 'respect_gitignore'],
        ] as const) {
            const r = await search(fx, args);
            expect(r.status, JSON.stringify(args)).toBe('error');
            expect(r.result).toMatch(new RegExp(`^Invalid arguments for search_entries: ${param}: `));
        }
    });

    it('rejects context_lines and count without a content_pattern, saying what to set', async () => {
        const fx = makePackage(project());
        const ctx = await search(fx, { name_pattern: 'x', context_lines: 2 });
        expect(ctx).toMatchObject({ status: 'error', result: expect.stringMatching(/context_lines shows lines around content matches: set content_pattern too/) });
        const count = await search(fx, { output_mode: 'count' });
        expect(count).toMatchObject({ status: 'error', result: expect.stringMatching(/output_mode "count" counts matching lines per file: set content_pattern too/) });
    });
});

describe('path filters, directly', () => {
    it('compileGlobs: names without a slash, paths with one, anchors and directory-only globs', () => {
        const t = compileGlobs(['*.ts', 'docs/**/*.md', '/top', 'out/', './lit']);
        expect(t('a/b/c.ts', 'c.ts', false)).toBe(true);
        expect(t('docs/x/y.md', 'y.md', false)).toBe(true);
        expect(t('a/docs/y.md', 'y.md', false)).toBe(false);
        expect(t('top', 'top', false)).toBe(true);
        expect(t('a/top', 'top', false)).toBe(false);
        expect(t('a/out', 'out', true)).toBe(true);
        expect(t('a/out', 'out', false)).toBe(false);
        expect(t('lit', 'lit', false)).toBe(true);
        expect(t('x/lit', 'lit', false)).toBe(false);
        expect(t('.hidden.ts', '.hidden.ts', false)).toBe(true);
        expect(() => compileGlobs(['a(b'])).toThrow(/"a\(b" is not a valid glob/);
    });

    it('IgnoreCache: the deepest .gitignore with a rule decides', () => {
        const cache = new IgnoreCache();
        const frames = [
            { base: '', up: 'pkg/', rules: '*.log\n/pkg/gen/\n' },
            { base: 'sub/', up: '', rules: '!keep.log\n*.tmp\n' },
        ];
        expect(cache.ignored(frames, 'a.log', false)).toBe(true);
        expect(cache.ignored(frames, 'sub/keep.log', false)).toBe(false);
        expect(cache.ignored(frames, 'sub/x.log', false)).toBe(true);
        expect(cache.ignored(frames, 'x.tmp', false)).toBe(false);
        expect(cache.ignored(frames, 'sub/deeper/x.tmp', false)).toBe(true);
        expect(cache.ignored(frames, 'gen', true)).toBe(true);
        expect(cache.ignored(frames, 'gen', false)).toBe(false);
        expect(cache.ignored(frames, 'Upper.LOG', false)).toBe(false); // case-sensitive like git on Linux
    });

    it('ancestorIgnores: parents up to the repository top, outermost first, inside the access roots', async () => {
        const dir = tempDir('lcf-anc-');
        writeTree(dir, { '.gitignore': 'outer\n', 'r/.git/HEAD': '', 'r/.gitignore': 'top\n', 'r/a/.gitignore': 'mid\n', 'r/a/b/c/x': '' });
        const root = path.join(dir, 'r', 'a', 'b', 'c');
        expect(await ancestorIgnores(root, [{ path: dir }])).toEqual([
            { base: '', up: 'a/b/c/', rules: 'top\n' },
            { base: '', up: 'b/c/', rules: 'mid\n' },
        ]);
        expect(await ancestorIgnores(root, [{ path: path.join(dir, 'r', 'a', 'b') }])).toEqual([]);
        expect(await ancestorIgnores(path.join(dir, 'r'), [{ path: dir }])).toEqual([]);
    });
});

describe('content scan with context and counts, directly', () => {
    const m = (p: string) => makeMatcher(compilePattern(p));
    const scan = (buf: Buffer, pattern: string, context: number, max = 1000): LineHit[] => {
        const out: LineHit[] = [];
        scanBytes(buf, m(pattern), max, out, context);
        return out;
    };

    it('gives the lines around each hit, in UTF-8, Latin-1 and UTF-16, with and without a literal', () => {
        const text = 'ä one\ntwo\nthree x\nfour\n';
        for (const buf of [Buffer.from(text), Buffer.from(text, 'latin1'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])]) {
            for (const p of ['three', 'thr(e)e', 'three|zzz']) {
                expect(scan(buf, p, 2)).toEqual([{ line: 3, text: 'three x', before: ['ä one', 'two'], after: ['four'] }]);
            }
        }
        expect(scan(Buffer.from('a\r\nb\r\nc'), 'b', 5)).toEqual([{ line: 2, text: 'b', before: ['a'], after: ['c'] }]);
        expect(scan(Buffer.from('\n\nhit\n\n'), 'hit', 1)).toEqual([{ line: 3, text: 'hit', before: [''], after: [''] }]);
        expect(scan(Buffer.from('hit\nhit\n'), 'hit', 0)).toEqual([{ line: 1, text: 'hit' }, { line: 2, text: 'hit' }]);
    });

    it('counts every matching line, one per line', () => {
        expect(countBytes(Buffer.from('a needle needle\nb\nNEEDLE\n'), m('needle'))).toBe(2);
        expect(countBytes(Buffer.from('x\n'.repeat(10_000)), m('^x$'))).toBe(10_000);
        expect(countBytes(Buffer.from('none\n'), m('zz|yy'))).toBe(0);
    });
});

describe('engine with options, in parallel', () => {
    const engine = new Engine({ maxThreads: 2 });
    afterAll(async () => engine.close());

    it('returns the same ordered results as a sequential filter, at every max_results', async () => {
        const dir = tempDir('lcf-opts-engine-');
        const files: Record<string, string> = { '.gitignore': 'skip*/\n*.bak\n' };
        for (let a = 0; a < 6; a++) {
            for (let b = 0; b < 5; b++) {
                for (let f = 0; f < 40; f++) {
                    const name = `${a % 2 ? 'skip' : 'keep'}${a}/d${b}/f${f}.${f % 5 === 0 ? 'bak' : f % 4 === 0 ? 'md' : 'txt'}`;
                    files[name] = f % 3 === 0 ? 'x\nneedle\nneedle again\n' : 'hay\n';
                }
            }
        }
        writeTree(dir, files);
        const request = (over: Partial<SearchRequest>): SearchRequest => ({
            root: searchRootAt(dir),
            type: 'both',
            maxResults: 1_000_000,
            maxFileSize: 1 << 20,
            maxTotalEntries: 1_000_000,
            skipDirs: [],
            respectGitignore: true,
            exclude: ['*.md'],
            contentPattern: 'needle',
            ...over,
        });
        const kept = Object.keys(files)
            .filter((p) => p.startsWith('keep') && !p.endsWith('.bak') && !p.endsWith('.md') && files[p]!.includes('needle'))
            .sort();
        const all = await engine.search(request({ outputMode: 'count' }), { timeoutMs: 120_000 });
        expect(all.hits.map((h) => `${h.path}: ${h.count}`)).toEqual(kept.map((p) => `${p}: 2`));
        for (const max of [1, 7, 50]) {
            const some = await engine.search(request({ outputMode: 'files_with_matches', maxResults: max }), { timeoutMs: 120_000 });
            expect(some.stop).toBe('max_results');
            expect(some.hits.map((h) => h.path)).toEqual(kept.slice(0, max));
            const content = await engine.search(request({ contextLines: 1, maxResults: max }), { timeoutMs: 120_000 });
            expect(content.hits.map((h) => `${h.path}:${h.line}`)).toEqual(kept.flatMap((p) => [`${p}:2`, `${p}:3`]).slice(0, max));
            expect(content.hits[0]).toMatchObject({ before: ['x'], after: ['needle again'] });
        }
    });

    it('rejects an invalid glob like an invalid pattern', async () => {
        const dir = tempDir('lcf-opts-engine-bad-');
        const req: SearchRequest = { root: searchRootAt(dir), type: 'both', maxResults: 10, maxFileSize: 1000, maxTotalEntries: 1000, skipDirs: [], include: ['[x'] };
        await expect(engine.search(req, { timeoutMs: 5000 })).rejects.toThrow(/not a valid glob/);
    });
});
