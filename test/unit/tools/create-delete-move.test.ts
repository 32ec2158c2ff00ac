import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccessType } from '../../../src/index.js';
import { makePackage, one, readText, snapshot, tempDir, writeTree } from '../../support/helpers.js';

describe('create_folder', () => {
    it('creates a directory with its parents and confirms with a trailing slash', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const r = await one(tool('create_folder'), { path: 'src/components' });
        expect(r).toMatchObject({ status: 'success', result: `Created directory: ${root}/src/components/` });
        expect(fs.statSync(path.join(root, 'src/components')).isDirectory()).toBe(true);
    });

    it('succeeds on an existing directory', async () => {
        const root = tempDir();
        fs.mkdirSync(path.join(root, 'd'));
        const { tool } = makePackage(root);
        const r = await one(tool('create_folder'), { path: 'd' });
        expect(r.status).toBe('success');
        expect(r.result).toContain(`${root}/d/`);
    });

    it('rejects a path where a file is in the way, changing nothing', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': 'x' });
        const { tool } = makePackage(root);
        const before = snapshot(root);
        expect((await one(tool('create_folder'), { path: 'f.txt' })).status).toBe('error');
        expect((await one(tool('create_folder'), { path: 'f.txt/sub' })).status).toBe('error');
        expect(snapshot(root)).toEqual(before);
    });
});

describe('delete_file', () => {
    it('deletes a file with the reference message', async () => {
        const root = tempDir();
        writeTree(root, { 'old-file.txt': 'x' });
        const { tool } = makePackage(root);
        const r = await one(tool('delete_file'), { path: 'old-file.txt' });
        expect(r).toMatchObject({ status: 'success', result: `Deleted file: ${root}/old-file.txt` });
        expect(fs.existsSync(path.join(root, 'old-file.txt'))).toBe(false);
    });

    it('deletes a non-empty directory with recursive: true', async () => {
        const root = tempDir();
        writeTree(root, { 'old-dir/a.txt': 'a', 'old-dir/sub/b.txt': 'b' });
        const { tool } = makePackage(root);
        const r = await one(tool('delete_file'), { path: 'old-dir', recursive: true });
        expect(r).toMatchObject({ status: 'success', result: `Deleted directory: ${root}/old-dir` });
        expect(fs.existsSync(path.join(root, 'old-dir'))).toBe(false);
    });

    it('deletes an empty directory without recursive', async () => {
        const root = tempDir();
        fs.mkdirSync(path.join(root, 'empty'));
        const { tool } = makePackage(root);
        expect((await one(tool('delete_file'), { path: 'empty' })).result).toBe(`Deleted directory: ${root}/empty`);
    });

    it('rejects a non-empty directory without recursive, saying to pass it, and keeps it', async () => {
        const root = tempDir();
        writeTree(root, { 'dir/a.txt': 'a' });
        const { tool } = makePackage(root);
        const before = snapshot(root);
        const r = await one(tool('delete_file'), { path: 'dir' });
        expect(r.status).toBe('error');
        expect(r.result).toContain('recursive');
        expect(snapshot(root)).toEqual(before);
    });

    it('rejects deleting an access root or the workspace, in any spelling', async () => {
        const root = tempDir();
        const other = tempDir();
        writeTree(root, { 'keep.txt': 'k', 'sub/x.txt': 'x' });
        writeTree(other, { 'o.txt': 'o' });
        const { tool, run } = makePackage(root, {
            accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Write, path: other }],
        });
        const before = [snapshot(root), snapshot(other)];
        for (const p of ['.', './', root, `${root}/`, other, `${root}/sub/..`]) {
            const r = await one(tool('delete_file'), { path: p, recursive: true });
            expect(r.status, p).toBe('error');
        }
        await run('switch_workspace', { path: 'sub' });
        expect((await one(tool('delete_file'), { path: '.', recursive: true })).status).toBe('error');
        expect([snapshot(root), snapshot(other)]).toEqual(before);
    });

    it('deletes a symlink to a file, not its target', async () => {
        const root = tempDir();
        writeTree(root, { 'target.txt': 'keep me' });
        fs.symlinkSync(path.join(root, 'target.txt'), path.join(root, 'link.txt'));
        const { tool } = makePackage(root);
        const r = await one(tool('delete_file'), { path: 'link.txt' });
        expect(r.status).toBe('success');
        expect(r.result).toContain(`${root}/link.txt`);
        expect(fs.existsSync(path.join(root, 'link.txt'))).toBe(false);
        expect(readText(path.join(root, 'target.txt'))).toBe('keep me');
    });

    it('deletes a symlink to a directory, even with recursive, leaving the directory and its contents', async () => {
        const root = tempDir();
        writeTree(root, { 'real/a.txt': 'a' });
        fs.symlinkSync(path.join(root, 'real'), path.join(root, 'dirlink'));
        const { tool } = makePackage(root);
        const r = await one(tool('delete_file'), { path: 'dirlink', recursive: true });
        expect(r.status).toBe('success');
        expect(fs.existsSync(path.join(root, 'dirlink'))).toBe(false);
        expect(readText(path.join(root, 'real/a.txt'))).toBe('a');
    });

    it('deletes a symlink pointing outside the accesses without touching the target', async () => {
        const root = tempDir();
        const outside = tempDir();
        writeTree(outside, { 'secret.txt': 's' });
        fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'out-link'));
        const { tool } = makePackage(root);
        const r = await one(tool('delete_file'), { path: 'out-link' });
        expect(r.status).toBe('success');
        expect(fs.existsSync(path.join(root, 'out-link'))).toBe(false);
        expect(readText(path.join(outside, 'secret.txt'))).toBe('s');
    });

    it('reports a missing path', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const r = await one(tool('delete_file'), { path: 'nope' });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/not found/i);
        expect(r.result).toContain(`${root}/nope`);
    });
});

describe('move_file', () => {
    it('renames a file with the reference message', async () => {
        const root = tempDir();
        writeTree(root, { 'old-name.txt': 'content' });
        const { tool } = makePackage(root);
        const r = await one(tool('move_file'), { source: 'old-name.txt', destination: 'new-name.txt' });
        expect(r).toMatchObject({ status: 'success', result: `Moved: ${root}/old-name.txt -> ${root}/new-name.txt` });
        expect(fs.existsSync(path.join(root, 'old-name.txt'))).toBe(false);
        expect(readText(path.join(root, 'new-name.txt'))).toBe('content');
    });

    it('moves a directory with its contents, creating missing destination parents', async () => {
        const root = tempDir();
        writeTree(root, { 'a/x.txt': 'x', 'a/b/y.txt': 'y' });
        const { tool } = makePackage(root);
        const r = await one(tool('move_file'), { source: 'a', destination: 'new/place/a2' });
        expect(r.result).toBe(`Moved: ${root}/a -> ${root}/new/place/a2`);
        expect(readText(path.join(root, 'new/place/a2/b/y.txt'))).toBe('y');
        expect(fs.existsSync(path.join(root, 'a'))).toBe(false);
    });

    it('never overwrites an existing file or directory', async () => {
        const root = tempDir();
        writeTree(root, { 'a.txt': 'A', 'b.txt': 'B', 'd1/x': '1', 'd2/y': '2', 'emptydir/.keep': '' });
        fs.rmSync(path.join(root, 'emptydir/.keep'));
        const { tool } = makePackage(root);
        const before = snapshot(root);
        for (const [source, destination] of [
            ['a.txt', 'b.txt'],
            ['d1', 'd2'],
            ['d1', 'emptydir'],
            ['a.txt', 'd1'],
            ['d1', 'b.txt'],
        ] as const) {
            const r = await one(tool('move_file'), { source, destination });
            expect(r.status, `${source} -> ${destination}`).toBe('error');
            expect(r.result).toMatch(/exists/);
        }
        expect(snapshot(root)).toEqual(before);
    });

    it('refuses to move a directory into itself', async () => {
        const root = tempDir();
        writeTree(root, { 'd/x.txt': 'x' });
        const { tool } = makePackage(root);
        const before = snapshot(root);
        for (const destination of ['d/inner', 'd/a/b/c']) {
            const r = await one(tool('move_file'), { source: 'd', destination });
            expect(r.status).toBe('error');
            expect(r.result).toMatch(/into itself/);
        }
        expect(snapshot(root)).toEqual(before);
    });

    it('rejects the same source and destination', async () => {
        const root = tempDir();
        writeTree(root, { 'a.txt': 'A' });
        const { tool } = makePackage(root);
        const r = await one(tool('move_file'), { source: 'a.txt', destination: './a.txt' });
        expect(r.status).toBe('error');
        expect(readText(path.join(root, 'a.txt'))).toBe('A');
    });

    it('reports a missing source', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const r = await one(tool('move_file'), { source: 'nope', destination: 'x' });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/not found/i);
        expect(fs.readdirSync(root)).toEqual([]);
    });

    it('moves a symlink itself, not its target', async () => {
        const root = tempDir();
        writeTree(root, { 'target.txt': 't' });
        fs.symlinkSync('target.txt', path.join(root, 'link'));
        const { tool } = makePackage(root);
        expect((await one(tool('move_file'), { source: 'link', destination: 'link2' })).status).toBe('success');
        expect(fs.lstatSync(path.join(root, 'link2')).isSymbolicLink()).toBe(true);
        expect(readText(path.join(root, 'target.txt'))).toBe('t');
    });

    it('refuses to move an access root or the workspace', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const r = await one(tool('move_file'), { source: '.', destination: 'elsewhere' });
        expect(r.status).toBe('error');
        expect(fs.existsSync(root)).toBe(true);
    });
});
