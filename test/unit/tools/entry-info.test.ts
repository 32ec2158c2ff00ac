import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

const FIELDS = ['Path', 'Type', 'Size', 'Permissions', 'Created', 'Modified (content)', 'Accessed', 'Changed (metadata)'];

/** The result's `Field: value` lines as a map, checking the reference's field order first. */
function fields(result: string): Map<string, string> {
    const lines = result.split('\n');
    expect(lines.slice(0, FIELDS.length).map((l) => l.slice(0, l.indexOf(': ')))).toEqual(FIELDS);
    return new Map(lines.map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]));
}

describe('entry_info', () => {
    it('returns the reference fields of a file, one per line, from lstat', async () => {
        const root = tempDir();
        writeTree(root, { 'src/index.ts': 'x'.repeat(1240) });
        fs.chmodSync(path.join(root, 'src/index.ts'), 0o644);
        const { tool } = makePackage(root);
        const r = await one(tool('entry_info'), { path: 'src/index.ts' });
        expect(r.status).toBe('success');
        const st = fs.lstatSync(path.join(root, 'src/index.ts'));
        const f = fields(r.result);
        expect(f.get('Path')).toBe(`${root}/src/index.ts`);
        expect(f.get('Type')).toBe('file');
        expect(f.get('Size')).toBe('1240 bytes');
        expect(f.get('Permissions')).toBe('rw-r--r--');
        expect(f.get('Created')).toBe(st.birthtime.toISOString());
        expect(f.get('Modified (content)')).toBe(st.mtime.toISOString());
        expect(f.get('Changed (metadata)')).toBe(st.ctime.toISOString());
        expect(f.get('Accessed')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(r.result.split('\n')).toHaveLength(8);
    });

    it('formats permissions as rwx triples', async () => {
        const root = tempDir();
        writeTree(root, { 'a': '', 'b': '' });
        fs.chmodSync(path.join(root, 'a'), 0o750);
        fs.chmodSync(path.join(root, 'b'), 0o604);
        const { tool } = makePackage(root);
        expect(fields((await one(tool('entry_info'), { path: 'a' })).result).get('Permissions')).toBe('rwxr-x---');
        expect(fields((await one(tool('entry_info'), { path: 'b' })).result).get('Permissions')).toBe('rw----r--');
    });

    it('describes a directory', async () => {
        const root = tempDir();
        fs.mkdirSync(path.join(root, 'dir'));
        const { tool } = makePackage(root);
        const f = fields((await one(tool('entry_info'), { path: 'dir' })).result);
        expect(f.get('Type')).toBe('directory');
        expect(f.get('Path')).toBe(`${root}/dir`);
    });

    it('describes the workspace root itself', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const f = fields((await one(tool('entry_info'), { path: '.' })).result);
        expect(f.get('Path')).toBe(root);
        expect(f.get('Type')).toBe('directory');
    });

    it('describes a symlink itself, with its target', async () => {
        const root = tempDir();
        writeTree(root, { 'target.txt': 'hello' });
        fs.symlinkSync('target.txt', path.join(root, 'link'));
        const { tool } = makePackage(root);
        const r = await one(tool('entry_info'), { path: 'link' });
        const f = fields(r.result);
        expect(f.get('Type')).toBe('symlink');
        expect(r.result).toMatch(/target: target\.txt/i);
    });

    it('describes a broken symlink', async () => {
        const root = tempDir();
        fs.symlinkSync('nowhere.txt', path.join(root, 'broken'));
        const { tool } = makePackage(root);
        const r = await one(tool('entry_info'), { path: 'broken' });
        expect(r.status).toBe('success');
        expect(fields(r.result).get('Type')).toBe('symlink');
        expect(r.result).toMatch(/broken/);
    });

    it('describes a FIFO without opening it', async () => {
        const root = tempDir();
        execFileSync('mkfifo', [path.join(root, 'pipe')]);
        const { tool } = makePackage(root);
        const r = await one(tool('entry_info'), { path: 'pipe' });
        expect(r.status).toBe('success');
        expect(fields(r.result).get('Type')).toMatch(/FIFO/);
    });

    it('reports a missing path', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const r = await one(tool('entry_info'), { path: 'missing.txt' });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/not found/i);
        expect(r.result).toContain(`${root}/missing.txt`);
    });
});
