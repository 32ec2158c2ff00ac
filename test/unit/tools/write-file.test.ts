import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, readText, snapshot, tempDir, writeTree } from '../../support/helpers.js';

describe('write_file', () => {
    it('creates a new file without a prior read and confirms with the absolute path', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const r = await one(tool('write_file'), { path: 'notes.txt', content: 'Hello, world!' });
        expect(r).toMatchObject({ status: 'success', result: `Written: ${root}/notes.txt` });
        expect(readText(path.join(root, 'notes.txt'))).toBe('Hello, world!');
    });

    it('creates missing parent directories', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const r = await one(tool('write_file'), { path: 'a/b/c/new.txt', content: 'x\n' });
        expect(r.result).toBe(`Written: ${root}/a/b/c/new.txt`);
        expect(readText(path.join(root, 'a/b/c/new.txt'))).toBe('x\n');
    });

    it('writes an empty file', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        expect((await one(tool('write_file'), { path: 'empty.txt', content: '' })).status).toBe('success');
        expect(fs.statSync(path.join(root, 'empty.txt')).size).toBe(0);
    });

    it('overwrites an existing file after read_file', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': 'old\n' });
        const { tool } = makePackage(root);
        await one(tool('read_file'), { paths: ['f.txt'] });
        const r = await one(tool('write_file'), { path: 'f.txt', content: 'new\n' });
        expect(r.result).toBe(`Written: ${root}/f.txt`);
        expect(readText(path.join(root, 'f.txt'))).toBe('new\n');
    });

    it('rejects overwriting an existing file that was not read, leaving it unchanged', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': 'old\n' });
        const { tool } = makePackage(root);
        const r = await one(tool('write_file'), { path: 'f.txt', content: 'new\n' });
        expect(r.status).toBe('error');
        expect(r.result).toContain('read_file');
        expect(readText(path.join(root, 'f.txt'))).toBe('old\n');
    });

    it('rejects content above maxCharsPerFile, naming the limit, and writes nothing', async () => {
        const root = tempDir();
        const { tool } = makePackage(root, { maxCharsPerFile: 100 });
        const r = await one(tool('write_file'), { path: 'big.txt', content: 'x'.repeat(101) });
        expect(r.status).toBe('error');
        expect(r.result).toContain('101');
        expect(r.result).toContain('100');
        expect(r.result).toContain('maxCharsPerFile');
        expect(fs.existsSync(path.join(root, 'big.txt'))).toBe(false);
        expect((await one(tool('write_file'), { path: 'ok.txt', content: 'x'.repeat(100) })).status).toBe('success');
    });

    it('rejects a path that is a directory', async () => {
        const root = tempDir();
        fs.mkdirSync(path.join(root, 'dir'));
        const { tool } = makePackage(root);
        const before = snapshot(root);
        const r = await one(tool('write_file'), { path: 'dir', content: 'x' });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/directory/);
        expect(snapshot(root)).toEqual(before);
    });

    it('rejects a parent path that is a file', async () => {
        const root = tempDir();
        writeTree(root, { 'file.txt': 'x' });
        const { tool } = makePackage(root);
        const before = snapshot(root);
        const r = await one(tool('write_file'), { path: 'file.txt/child.txt', content: 'x' });
        expect(r.status).toBe('error');
        expect(snapshot(root)).toEqual(before);
    });

    it('leaves no temporary files behind and keeps the mode of an existing file', async () => {
        const root = tempDir();
        writeTree(root, { 'run.sh': '#!/bin/sh\n' });
        fs.chmodSync(path.join(root, 'run.sh'), 0o755);
        const { tool } = makePackage(root);
        await one(tool('read_file'), { paths: ['run.sh'] });
        expect((await one(tool('write_file'), { path: 'run.sh', content: '#!/bin/sh\necho hi\n' })).status).toBe('success');
        expect(fs.statSync(path.join(root, 'run.sh')).mode & 0o777).toBe(0o755);
        expect(fs.readdirSync(root)).toEqual(['run.sh']);
    });

    it('writes content byte for byte (CRLF and unicode untouched)', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const content = 'a\r\nb\nü€𝄞\r\n';
        await one(tool('write_file'), { path: 'u.txt', content });
        expect(readText(path.join(root, 'u.txt'))).toBe(content);
    });
});

describe('write_file paths that name a directory', () => {
    it('refuses a path with a trailing slash and creates nothing', async () => {
        const root = tempDir();
        const { pkg } = makePackage(root);
        const write = pkg.tools().find((t) => t.name === 'write_file')!;
        const [r] = await write.execute({ path: 'trail/', content: 'x' });
        expect(r!.status).toBe('error');
        expect(r!.result).toContain('ends with a slash');
        expect(fs.existsSync(path.join(root, 'trail'))).toBe(false);
    });
});
