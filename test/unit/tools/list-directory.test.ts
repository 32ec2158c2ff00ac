import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccessType, SearchConfiguration } from '../../../src/index.js';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

describe('list_directory', () => {
    it('lists one entry per line, directories with a trailing slash (reference example)', async () => {
        const root = tempDir();
        writeTree(root, { 'file1.txt': '1', 'file2.txt': '2', 'subdir/inner.txt': 'x' });
        const { tool } = makePackage(root);
        const r = await one(tool('list_directory'), { path: '.' });
        expect(r).toMatchObject({ status: 'success', result: 'file1.txt\nfile2.txt\nsubdir/' });
    });

    it('sorts entries deterministically by name', async () => {
        const root = tempDir();
        writeTree(root, { 'b.txt': '', 'B.txt': '', 'a.txt': '', '_x.txt': '', '10.txt': '', '9.txt': '' });
        const { tool } = makePackage(root);
        const r = await one(tool('list_directory'), { path: '.' });
        expect(r.result.split('\n')).toEqual(['10.txt', '9.txt', 'B.txt', '_x.txt', 'a.txt', 'b.txt']);
    });

    it('shows workspace-relative paths for a subdirectory', async () => {
        const root = tempDir();
        writeTree(root, { 'src/a.ts': '', 'src/lib/b.ts': '' });
        const { tool } = makePackage(root);
        expect((await one(tool('list_directory'), { path: 'src' })).result).toBe('src/a.ts\nsrc/lib/');
        expect((await one(tool('list_directory'), { path: './src/' })).result).toBe('src/a.ts\nsrc/lib/');
        expect((await one(tool('list_directory'), { path: path.join(root, 'src') })).result).toBe('src/a.ts\nsrc/lib/');
    });

    it('lists recursively depth-first', async () => {
        const root = tempDir();
        writeTree(root, { 'a/x.txt': '', 'a/b/y.txt': '', 'c.txt': '', 'd/z.txt': '' });
        const { tool } = makePackage(root);
        const r = await one(tool('list_directory'), { path: '.', recursive: true });
        expect(r.result).toBe(['a/', 'a/b/', 'a/b/y.txt', 'a/x.txt', 'c.txt', 'd/', 'd/z.txt'].join('\n'));
    });

    it('skips skipDirs contents when recursive', async () => {
        const root = tempDir();
        writeTree(root, { 'node_modules/pkg/index.js': '', '.git/HEAD': '', 'src/a.ts': '' });
        const { tool } = makePackage(root);
        const r = await one(tool('list_directory'), { path: '.', recursive: true });
        expect(r.result).not.toContain('node_modules/pkg');
        expect(r.result).not.toContain('.git/HEAD');
        expect(r.result).toContain('src/a.ts');
    });

    it('does not follow symlinked directories when recursive', async () => {
        const root = tempDir();
        writeTree(root, { 'real/f.txt': '' });
        fs.symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
        const { tool } = makePackage(root);
        const r = await one(tool('list_directory'), { path: '.', recursive: true });
        expect(r.result).toContain('link');
        expect(r.result).not.toContain('link/f.txt');
    });

    it('shows absolute paths for a directory outside the workspace', async () => {
        const root = tempDir();
        const other = tempDir();
        writeTree(other, { 'o.txt': '' });
        const { tool } = makePackage(root, { accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Read, path: other }] });
        const r = await one(tool('list_directory'), { path: other });
        expect(r.result).toBe(`${other}/o.txt`);
    });

    it('reports an empty directory as success', async () => {
        const root = tempDir();
        fs.mkdirSync(path.join(root, 'empty'));
        const { tool } = makePackage(root);
        const r = await one(tool('list_directory'), { path: 'empty' });
        expect(r.status).toBe('success');
        expect(r.result).toMatch(/empty/);
    });

    it('rejects a missing directory and a file', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': '' });
        const { tool } = makePackage(root);
        const missing = await one(tool('list_directory'), { path: 'missing' });
        expect(missing.status).toBe('error');
        expect(missing.result).toMatch(/not found/i);
        expect(missing.result).toContain(`${root}/missing`);
        const file = await one(tool('list_directory'), { path: 'f.txt' });
        expect(file.status).toBe('error');
        expect(file.result).toMatch(/Not a directory/);
    });

    it('cuts a listing above maxDisplayEntries with a note saying so', async () => {
        const root = tempDir();
        const files: Record<string, string> = {};
        for (let i = 0; i < 30; i++) files[`f${String(i).padStart(2, '0')}.txt`] = '';
        writeTree(root, files);
        const { tool } = makePackage(root, { search: new SearchConfiguration(50, 10, 5000, 120_000) });
        const r = await one(tool('list_directory'), { path: '.' });
        expect(r.status).toBe('success');
        const lines = r.result.split('\n');
        expect(lines.slice(0, 10)).toEqual(Object.keys(files).slice(0, 10));
        expect(lines.slice(10).join('\n')).toMatch(/10 of 30/);
        expect(r.result).toContain('maxDisplayEntries');
    });

    it('lists a tree of a few thousand entries exactly, in slices and blocks, page by page', async () => {
        const root = tempDir();
        const files: Record<string, string> = {};
        // 3,000 files in one folder (more than a sort run and many line blocks) and 20 folders of 100 with odd names.
        for (let i = 0; i < 3000; i++) files[`flat/e${(i * 7919) % 3000}.txt`] = '';
        for (let d = 0; d < 20; d++) for (let f = 0; f < 100; f++) files[`d${d}/${f % 7 === 0 ? 'É' : ''}f${f}${f === 3 ? '\nnl' : ''}`] = '';
        writeTree(root, files);
        // The expected text: depth-first, names in code-point order, directories with a slash, control characters JSON-quoted.
        const expected: string[] = [];
        const walk = (rel: string): void => {
            const names = fs.readdirSync(path.join(root, rel)).sort();
            for (const name of names) {
                const r = rel === '' ? name : `${rel}/${name}`;
                const isDir = fs.statSync(path.join(root, r)).isDirectory();
                const shown = `${r}${isDir ? '/' : ''}`;
                expected.push(/[\x00-\x1f\x7f]/.test(shown) ? JSON.stringify(shown) : shown);
                if (isDir) walk(r);
            }
        };
        walk('');
        expect(expected).toHaveLength(5021);
        const { tool } = makePackage(root, { search: new SearchConfiguration(50, 10_000, 10_000, 120_000) });
        const r = await one(tool('list_directory'), { path: '.', recursive: true });
        expect(r.status).toBe('success');
        expect(r.result).toBe(expected.join('\n'));
        const paged = makePackage(root, { search: new SearchConfiguration(50, 2000, 10_000, 120_000) });
        const page = await one(paged.tool('list_directory'), { path: '.', recursive: true, offset: 2000 });
        expect(page.result).toBe(
            `${expected.slice(2000, 4000).join('\n')}\n[Showing entries 2001-4000 of 5021 (offset = 2000; maxDisplayEntries, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES). For the next page, call again with offset=4000.]`,
        );
    });

    it('fails above maxTotalEntries saying which setting to raise and how to narrow', async () => {
        const root = tempDir();
        const files: Record<string, string> = {};
        for (let i = 0; i < 20; i++) files[`d${i}/f.txt`] = '';
        writeTree(root, files);
        const { tool } = makePackage(root, { search: new SearchConfiguration(50, 200, 15, 120_000) });
        const r = await one(tool('list_directory'), { path: '.', recursive: true });
        expect(r.status).toBe('error');
        expect(r.result).toContain('maxTotalEntries');
        expect(r.result).toContain('LLM_CHAT_FS_MAX_TOTAL_ENTRIES');
        expect(r.result).toMatch(/raise/i);
        expect(r.result).toMatch(/subdirectory|narrow/);
    });
});

describe('list_directory names with control characters', () => {
    it('shows a name holding a newline JSON-quoted on one line, and the quoted form reads the file', async () => {
        const root = tempDir();
        fs.writeFileSync(path.join(root, 'evil\nsecret.txt'), 'hello\n');
        fs.writeFileSync(path.join(root, 'plain.txt'), 'x\n');
        const { pkg } = makePackage(root);
        const list = pkg.tools().find((t) => t.name === 'list_directory')!;
        const [r] = await list.execute({ path: '.' });
        expect(r!.result.split('\n')).toEqual(['"evil\\nsecret.txt"', 'plain.txt']);
        const read = pkg.tools().find((t) => t.name === 'read_file')!;
        const [back] = await read.execute({ paths: [JSON.parse(r!.result.split('\n')[0]!) as string] });
        expect(back!.status).toBe('success');
    });
});
