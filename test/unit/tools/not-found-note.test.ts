/**
 * Paths that name nothing but mean something that exists: a file with a line number after it
 * (`src/a.c:12`, as search output and compilers print it), a glob (`src/*.c`). The not-found
 * error says what exists and how to ask for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccessType } from '../../../src/index.js';
import { makePackage, tempDir, writeTree } from '../../support/helpers.js';

function tree(): string {
    const root = tempDir('lcf-line-suffix-');
    writeTree(root, { 'src/a.c': 'int a;\nint b;\n', 'docs/x.md': '# x\n', 'b.c:7': 'a file with a colon\n' });
    return root;
}

describe('a path with a line number after it', () => {
    it('read_file: names the file and start_line, in the result of that path alone', async () => {
        const root = tree();
        const fx = makePackage(root);
        const [first, second] = await fx.run('read_file', { paths: ['docs/x.md', 'src/a.c:2'] });
        expect(first!.status).toBe('success');
        expect(second).toMatchObject({ status: 'error', kind: 'not_found' });
        expect(second!.result.split('\n')).toEqual([
            `File not found: ENOENT: no such file or directory, stat '${root}/src/a.c:2'`,
            `[${root}/src/a.c exists: ":2" looks like a line number. Pass the path alone, with start_line: 2 to read from that line.]`,
        ]);
        // Line and column too.
        const [lc] = await fx.run('read_file', { paths: ['src/a.c:2:5'] });
        expect(lc!.result).toContain(`[${root}/src/a.c exists: ":2:5" looks like a line and column. Pass the path alone, with start_line: 2 to read from that line.]`);
    });

    it('other tools: names the file; a directory or a missing file gets no line', async () => {
        const root = tree();
        const fx = makePackage(root);
        const [edit] = await fx.run('replace_file_lines', { path: 'src/a.c:1', start_line: 1, content: 'x' });
        expect(edit).toMatchObject({ status: 'error', kind: 'not_found' });
        expect(edit!.result.split('\n').at(-1)).toBe(`[${root}/src/a.c exists: ":1" looks like a line number. Pass the path alone.]`);
        const [list] = await fx.run('list_directory', { path: 'src:3' });
        expect(list!.result.split('\n').at(-1)).toBe(`[${root}/src exists: ":3" looks like a line number. Pass the path alone.]`);
        // Nothing exists without the suffix either: the error as before, one line.
        const [none] = await fx.run('read_file', { paths: ['src/none.c:3'] });
        expect(none!.result).toBe(`File not found: ENOENT: no such file or directory, stat '${root}/src/none.c:3'`);
        // Line 0 is no line to read from: the path alone.
        const [zero] = await fx.run('read_file', { paths: ['src/a.c:0'] });
        expect(zero!.result.split('\n').at(-1)).toBe(`[${root}/src/a.c exists: ":0" looks like a line number. Pass the path alone.]`);
        // The code-navigation tools say the same, the path not being found before its language is asked.
        const nav = makePackage(root, { packageOptions: { navigation: true } });
        for (const [tool, args] of [['file_outline', { path: 'src/a.c:3' }], ['read_symbol', { path: 'src/a.c:3', name: 'a' }]] as const) {
            const [r] = await nav.run(tool, args);
            expect(r, tool).toMatchObject({ status: 'error', kind: 'not_found' });
            expect(r!.result.split('\n').at(-1)).toBe(`[${root}/src/a.c exists: ":3" looks like a line number. Pass the path alone.]`);
        }
        const [noGrammar] = await nav.run('file_outline', { path: 'docs/none.md' });
        expect(noGrammar).toMatchObject({ status: 'error', kind: 'not_found' });
        // write_file makes a file so named, as asked, and says which file exists.
        const [w] = await fx.run('write_file', { path: 'src/a.c:2', content: 'x\n' });
        expect(w!.result.split('\n')).toEqual([
            `Written: ${root}/src/a.c:2`,
            `[Written as named; ${root}/src/a.c exists and ":2" looks like a line number. To change that file at a line, call replace_file_lines or insert_file_content on it, and delete_file this one.]`,
        ]);
        expect(fs.readFileSync(path.join(root, 'src/a.c:2'), 'utf8')).toBe('x\n');
        const [again] = await fx.run('write_file', { path: 'src/a.c:2', content: 'y\n' });
        expect(again!.result).toBe(`Written: ${root}/src/a.c:2`);
        // A file whose name has the colon is read as named.
        const [colon] = await fx.run('read_file', { paths: ['b.c:7'] });
        expect(colon!.status).toBe('success');
        expect(fs.readFileSync(path.join(root, 'src/a.c'), 'utf8')).toBe('int a;\nint b;\n');
    });

    it('says nothing of a file outside the accesses', async () => {
        const root = tree();
        const outside = tempDir('lcf-line-suffix-out-');
        writeTree(outside, { 'secret.c': 'x\n' });
        const fx = makePackage(root, { accesses: [{ type: AccessType.Write, path: root }] });
        const [r] = await fx.run('read_file', { paths: [`${outside}/secret.c:1`] });
        expect(r!.status).toBe('error');
        expect(r!.result).not.toContain('exists');
        expect(r!.result.split('\n')).toHaveLength(1);
    });
});

describe('a glob given as a path', () => {
    it('says paths are not globs and gives the search_entries call, for every tool', async () => {
        const root = tree();
        const fx = makePackage(root);
        const note = (dir: string, glob: string): string => `[Paths are taken as written, not as globs. To find the files "${glob}" matches, call search_entries with path: "${dir}" and include: "${glob}".]`;
        const [read] = await fx.run('read_file', { paths: ['src/*.c'] });
        expect(read).toMatchObject({ status: 'error', kind: 'not_found' });
        expect(read!.result.split('\n')).toEqual([`File not found: ENOENT: no such file or directory, stat '${root}/src/*.c'`, note(`${root}/src`, '*.c')]);
        const [search] = await fx.run('search_entries', { path: 'src/**/*.c', content_pattern: 'int' });
        expect(search!.result.split('\n').at(-1)).toBe(note(`${root}/src`, '**/*.c'));
        const [list] = await fx.run('list_directory', { path: '*' });
        expect(list!.result.split('\n').at(-1)).toBe(note(root, '*'));
        // The suggested call finds them.
        const [found] = await fx.run('search_entries', { path: `${root}/src`, include: '*.c' });
        expect(found!.result).toBe('src/a.c');
    });

    it('says nothing when the directory before the glob does not exist or is outside the accesses', async () => {
        const root = tree();
        const outside = tempDir('lcf-glob-out-');
        const fx = makePackage(root);
        // A name with brackets (a web route's [id]) is a name, not a glob.
        for (const p of ['nothere/*.c', `${outside}/*.c`, 'src/a.c/*', 'src/[id]/page.tsx']) {
            const [r] = await fx.run('read_file', { paths: [p] });
            expect(r!.status).toBe('error');
            expect(r!.result.split('\n'), p).toHaveLength(1);
        }
    });
});

