import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

describe('read_file', () => {
    it('returns the header with the absolute path and line range, then the content', async () => {
        const root = tempDir();
        const body = Array.from({ length: 42 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
        writeTree(root, { 'src/index.ts': body });
        const { tool } = makePackage(root);
        const r = await one(tool('read_file'), { paths: ['src/index.ts'] });
        expect(r.status).toBe('success');
        expect(r.result).toBe(`--- ${root}/src/index.ts (lines 1-42 of 42) ---\n${body}`);
    });

    it('counts lines without an extra line for the trailing newline', async () => {
        const root = tempDir();
        writeTree(root, { 'a.txt': 'a\nb\n', 'b.txt': 'a\nb', 'c.txt': 'one line' });
        const { tool } = makePackage(root);
        expect((await one(tool('read_file'), { paths: ['a.txt'] })).result).toBe(`--- ${root}/a.txt (lines 1-2 of 2) ---\na\nb\n`);
        expect((await one(tool('read_file'), { paths: ['b.txt'] })).result).toBe(`--- ${root}/b.txt (lines 1-2 of 2) ---\na\nb`);
        expect((await one(tool('read_file'), { paths: ['c.txt'] })).result).toBe(`--- ${root}/c.txt (lines 1-1 of 1) ---\none line`);
    });

    it('reads an empty file as 0 lines', async () => {
        const root = tempDir();
        writeTree(root, { 'empty.txt': '' });
        const { tool } = makePackage(root);
        const r = await one(tool('read_file'), { paths: ['empty.txt'] });
        expect(r.status).toBe('success');
        expect(r.result).toMatch(new RegExp(`^--- ${root}/empty\\.txt \\(lines 0-0 of 0\\) ---\\n?$`));
    });

    it('reads an absolute path inside the workspace', async () => {
        const root = tempDir();
        writeTree(root, { 'x.txt': 'x\n' });
        const { tool } = makePackage(root);
        const r = await one(tool('read_file'), { paths: [path.join(root, 'x.txt')] });
        expect(r.result).toBe(`--- ${root}/x.txt (lines 1-1 of 1) ---\nx\n`);
    });

    it('returns only the requested line range, with the range in the header', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': '1\n2\n3\n4\n5\n' });
        const { tool } = makePackage(root);
        expect((await one(tool('read_file'), { paths: ['f.txt'], start_line: 2, end_line: 4 })).result).toBe(
            `--- ${root}/f.txt (lines 2-4 of 5) ---\n2\n3\n4\n`,
        );
        expect((await one(tool('read_file'), { paths: ['f.txt'], start_line: 4 })).result).toBe(`--- ${root}/f.txt (lines 4-5 of 5) ---\n4\n5\n`);
        expect((await one(tool('read_file'), { paths: ['f.txt'], end_line: 1 })).result).toBe(`--- ${root}/f.txt (lines 1-1 of 5) ---\n1\n`);
        // An end beyond the file is clamped to the last line.
        expect((await one(tool('read_file'), { paths: ['f.txt'], start_line: 5, end_line: 99 })).result).toBe(
            `--- ${root}/f.txt (lines 5-5 of 5) ---\n5\n`,
        );
    });

    it('rejects a start_line beyond the end of the file, saying how many lines it has', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': '1\n2\n' });
        const { tool } = makePackage(root);
        const r = await one(tool('read_file'), { paths: ['f.txt'], start_line: 3 });
        expect(r.status).toBe('error');
        expect(r.result).toContain('start_line 3');
        expect(r.result).toContain('2 lines');
    });

    it('truncates at max_chars with a note saying where to continue', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': 'aaaa\nbbbb\ncccc\n' });
        const { tool } = makePackage(root);
        const r = await one(tool('read_file'), { paths: ['f.txt'], max_chars: 7 });
        expect(r.status).toBe('success');
        const [header, ...rest] = r.result.split('\n');
        expect(header).toBe(`--- ${root}/f.txt (lines 1-1 of 3) ---`);
        const body = rest.join('\n');
        expect(body.startsWith('aaaa\nbb')).toBe(true);
        expect(body).not.toContain('cccc');
        expect(body).toMatch(/Truncated at 7 characters/);
        expect(body).toMatch(/start_line=2/);
    });

    it('caps output at maxCharsPerFile even when max_chars asks for more', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': 'x'.repeat(50) + '\n' + 'y'.repeat(50) + '\n' });
        const { tool } = makePackage(root, { maxCharsPerFile: 60 });
        const r = await one(tool('read_file'), { paths: ['f.txt'], max_chars: 1000 });
        expect(r.status).toBe('success');
        expect(r.result).toMatch(/Truncated at 60 characters/);
        expect(r.result).not.toContain('y'.repeat(50));
    });

    it('returns one result per path, in order, each with its own status (batch with partial failure)', async () => {
        const root = tempDir();
        writeTree(root, { 'exists.txt': '1\n2\n3\n4\n5\n', 'b.txt': 'b\n' });
        const { tool } = makePackage(root);
        const results = await tool('read_file').execute({ paths: ['exists.txt', 'missing.txt', 'b.txt'] });
        expect(results).toHaveLength(3);
        expect(results.map((r) => r.status)).toEqual(['success', 'error', 'success']);
        expect(results[0]!.result).toBe(`--- ${root}/exists.txt (lines 1-5 of 5) ---\n1\n2\n3\n4\n5\n`);
        expect(results[1]!.result).toBe(`File not found: ENOENT: no such file or directory, stat '${root}/missing.txt'`);
        expect(results[2]!.result).toBe(`--- ${root}/b.txt (lines 1-1 of 1) ---\nb\n`);
        for (const r of results) expect(r.tool).toBe('read_file');
    });

    it('reports a single missing file with the reference message', async () => {
        const root = tempDir();
        const { tool } = makePackage(root);
        const r = await one(tool('read_file'), { paths: ['missing.txt'] });
        expect(r.status).toBe('error');
        expect(r.result).toBe(`File not found: ENOENT: no such file or directory, stat '${root}/missing.txt'`);
    });

    it('keeps order in a large batch read in parallel', async () => {
        const root = tempDir();
        const files: Record<string, string> = {};
        for (let i = 0; i < 20; i++) files[`f${i}.txt`] = `content ${i}\n`;
        writeTree(root, files);
        const { tool } = makePackage(root);
        const names = Object.keys(files).reverse();
        const results = await tool('read_file').execute({ paths: names });
        expect(results.map((r) => r.result)).toEqual(names.map((n) => `--- ${root}/${n} (lines 1-1 of 1) ---\n${files[n]}`));
    });

    it('rejects a binary file, naming its size', async () => {
        const root = tempDir();
        const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 7, 8]);
        writeTree(root, { 'img.bin': bytes, 'img.png': bytes, 'ok.txt': 'ok\n' });
        const { tool } = makePackage(root);
        // A file named as an image is read as one, and refused by the image library with its size.
        const image = await one(tool('read_file'), { paths: ['img.png'] });
        expect(image).toMatchObject({ status: 'error', kind: 'binary' });
        expect(image.result).toMatch(new RegExp(`^Cannot read image: ${root}/img\\.png \\(${bytes.length} bytes\\) is not an image`));
        const r = await one(tool('read_file'), { paths: ['img.bin'] });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/binary/i);
        expect(r.result).toContain(`${bytes.length} bytes`);
        expect(r.result).toContain(`${root}/img.bin`);
        // In a batch too, without spoiling the other file.
        const batch = await tool('read_file').execute({ paths: ['img.bin', 'ok.txt'] });
        expect(batch.map((x) => x.status)).toEqual(['error', 'success']);
        expect(batch[0]!.result).toContain(`${bytes.length} bytes`);
    });

    it('decides text by content, not by extension', async () => {
        const root = tempDir();
        writeTree(root, { 'data.bin': 'plain text\n', 'noext': 'more text\n' });
        const { tool } = makePackage(root);
        expect((await one(tool('read_file'), { paths: ['data.bin'] })).status).toBe('success');
        expect((await one(tool('read_file'), { paths: ['noext'] })).status).toBe('success');
    });

    it('rejects a file above maxFileSize, naming size, limit and setting', async () => {
        const root = tempDir();
        writeTree(root, { 'big.txt': 'x'.repeat(2000), 'small.txt': 'x' });
        const { tool } = makePackage(root, { maxFileSize: 1000 });
        const r = await one(tool('read_file'), { paths: ['big.txt'] });
        expect(r.status).toBe('error');
        expect(r.result).toContain('2000 bytes');
        expect(r.result).toContain('1000');
        expect(r.result).toContain('maxFileSize');
        const batch = await tool('read_file').execute({ paths: ['big.txt', 'small.txt'] });
        expect(batch.map((x) => x.status)).toEqual(['error', 'success']);
        expect(batch[0]!.result).toContain('maxFileSize');
    });

    it('rejects a FIFO without hanging, alone and in a batch', async () => {
        const root = tempDir();
        writeTree(root, { 'ok.txt': 'ok\n' });
        execFileSync('mkfifo', [path.join(root, 'pipe')]);
        const { tool } = makePackage(root);
        const r = await one(tool('read_file'), { paths: ['pipe'] });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/FIFO|pipe/i);
        const batch = await tool('read_file').execute({ paths: ['pipe', 'ok.txt'] });
        expect(batch.map((x) => x.status)).toEqual(['error', 'success']);
        expect(batch[0]!.result).toMatch(/FIFO|named pipe/i);
    });

    it('rejects a directory', async () => {
        const root = tempDir();
        fs.mkdirSync(path.join(root, 'dir'));
        const { tool } = makePackage(root);
        const r = await one(tool('read_file'), { paths: ['dir'] });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/directory/);
    });

    it('keeps CRLF line endings in the returned text and counts CRLF lines', async () => {
        const root = tempDir();
        writeTree(root, { 'crlf.txt': 'a\r\nb\r\n' });
        const { tool } = makePackage(root);
        expect((await one(tool('read_file'), { paths: ['crlf.txt'] })).result).toBe(`--- ${root}/crlf.txt (lines 1-2 of 2) ---\na\r\nb\r\n`);
    });

    it('does not show a UTF-8 byte-order mark as content', async () => {
        const root = tempDir();
        writeTree(root, { 'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\n')]) });
        const { tool } = makePackage(root);
        expect((await one(tool('read_file'), { paths: ['bom.txt'] })).result).toBe(`--- ${root}/bom.txt (lines 1-1 of 1) ---\nhéllo\n`);
    });
});
