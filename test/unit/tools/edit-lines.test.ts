import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, readText, setupRead as setup, tempDir, writeTree } from '../../support/helpers.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');

describe('replace_file_lines', () => {
    it('replaces an inclusive line range and confirms with the reference message', async () => {
        const { root, tool, file } = await setup({ 'src/main.ts': numbered(15) });
        const r = await one(tool('replace_file_lines'), { path: 'src/main.ts', content: 'const x = 42;', start_line: 10, end_line: 12 });
        expect(r).toMatchObject({ status: 'success', result: `Replaced lines 10-12 in ${root}/src/main.ts` });
        const lines = readText(file('src/main.ts')).split('\n');
        expect(lines.slice(8, 11)).toEqual(['line 9', 'const x = 42;', 'line 13']);
        expect(readText(file('src/main.ts'))).toBe(numbered(9) + 'const x = 42;\nline 13\nline 14\nline 15\n');
    });

    it('defaults end_line to start_line', async () => {
        const { tool, file } = await setup({ 'f.txt': 'a\nb\nc\n' });
        const r = await one(tool('replace_file_lines'), { path: 'f.txt', content: 'B', start_line: 2 });
        expect(r.status).toBe('success');
        expect(r.result).toMatch(/^Replaced lines 2(-2)? in /);
        expect(readText(file('f.txt'))).toBe('a\nB\nc\n');
    });

    it('replaces one line by several', async () => {
        const { tool, file } = await setup({ 'f.txt': 'a\nb\nc\n' });
        await one(tool('replace_file_lines'), { path: 'f.txt', content: 'x\ny\nz\n', start_line: 2, end_line: 2 });
        expect(readText(file('f.txt'))).toBe('a\nx\ny\nz\nc\n');
    });

    it('deletes the range when content is empty', async () => {
        const { tool, file } = await setup({ 'f.txt': 'a\nb\nc\nd\n' });
        const r = await one(tool('replace_file_lines'), { path: 'f.txt', content: '', start_line: 2, end_line: 3 });
        expect(r.status).toBe('success');
        expect(readText(file('f.txt'))).toBe('a\nd\n');
    });

    it('keeps CRLF line endings, also for the new lines', async () => {
        const { tool, file } = await setup({ 'w.txt': 'a\r\nb\r\nc\r\n' });
        await one(tool('replace_file_lines'), { path: 'w.txt', content: 'X\nY', start_line: 2 });
        expect(readText(file('w.txt'))).toBe('a\r\nX\r\nY\r\nc\r\n');
    });

    it('keeps a UTF-8 BOM', async () => {
        const { tool, file } = await setup({ 'b.txt': Buffer.concat([BOM, Buffer.from('a\nb\n')]) });
        await one(tool('replace_file_lines'), { path: 'b.txt', content: 'A', start_line: 1 });
        expect(fs.readFileSync(file('b.txt'))).toEqual(Buffer.concat([BOM, Buffer.from('A\nb\n')]));
    });

    it('does not add a final newline to a file without one', async () => {
        const { tool, file } = await setup({ 'n.txt': 'a\nb\nc', 'm.txt': 'a\nb\nc' });
        await one(tool('replace_file_lines'), { path: 'n.txt', content: 'C', start_line: 3 });
        expect(readText(file('n.txt'))).toBe('a\nb\nC');
        await one(tool('replace_file_lines'), { path: 'm.txt', content: '', start_line: 3 });
        expect(readText(file('m.txt'))).toBe('a\nb');
    });

    it('rejects a range beyond the end of the file, changing nothing', async () => {
        const { tool, file } = await setup({ 'f.txt': 'a\nb\n' });
        const r = await one(tool('replace_file_lines'), { path: 'f.txt', content: 'x', start_line: 2, end_line: 3 });
        expect(r.status).toBe('error');
        expect(r.result).toContain('2 lines');
        expect(readText(file('f.txt'))).toBe('a\nb\n');
    });

    it('rejects end_line before start_line', async () => {
        const { tool, file } = await setup({ 'f.txt': 'a\nb\nc\n' });
        const r = await one(tool('replace_file_lines'), { path: 'f.txt', content: 'x', start_line: 3, end_line: 2 });
        expect(r.status).toBe('error');
        expect(r.result).toContain('end_line');
        expect(readText(file('f.txt'))).toBe('a\nb\nc\n');
    });

    it('rejects a file that does not exist, creating nothing', async () => {
        const { root, tool } = await setup({});
        const r = await one(tool('replace_file_lines'), { path: 'nope.txt', content: 'x', start_line: 1 });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/not found/i);
        expect(fs.readdirSync(root)).toEqual([]);
    });

    it('rejects a binary file', async () => {
        const bin = Buffer.from([1, 2, 3, 0, 0, 0, 4, 5, 0, 6, 7, 8, 0, 0]);
        const root = tempDir();
        writeTree(root, { 'x.bin': bin });
        const { tool } = makePackage(root, { requireReadBeforeWrite: false });
        const r = await one(tool('replace_file_lines'), { path: 'x.bin', content: 'x', start_line: 1 });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/binary/i);
        expect(fs.readFileSync(path.join(root, 'x.bin'))).toEqual(bin);
    });

    it('rejects content above maxCharsPerFile', async () => {
        const { tool, file } = await setup({ 'f.txt': 'a\n' }, { maxCharsPerFile: 10 });
        const r = await one(tool('replace_file_lines'), { path: 'f.txt', content: 'x'.repeat(11), start_line: 1 });
        expect(r.status).toBe('error');
        expect(r.result).toContain('maxCharsPerFile');
        expect(readText(file('f.txt'))).toBe('a\n');
    });

    it('edits a file larger than maxCharsPerFile after a truncated read', async () => {
        const big = numbered(500); // ~5000 characters
        const { tool, file } = await setup({ 'big.txt': big }, { maxCharsPerFile: 100 });
        const r = await one(tool('replace_file_lines'), { path: 'big.txt', content: 'changed', start_line: 250 });
        expect(r.status).toBe('success');
        expect(readText(file('big.txt'))).toBe(big.replace('line 250\n', 'changed\n'));
    });
});

describe('insert_file_content', () => {
    it('inserts before line 1 and confirms with the reference message', async () => {
        const { root, tool, file } = await setup({ 'src/main.ts': 'const a = 1;\n' });
        const r = await one(tool('insert_file_content'), { path: 'src/main.ts', content: 'import { foo } from "../../bar";', line: 1 });
        expect(r).toMatchObject({ status: 'success', result: `Inserted content at line 1 in ${root}/src/main.ts` });
        expect(readText(file('src/main.ts'))).toBe('import { foo } from "../../bar";\nconst a = 1;\n');
    });

    it('inserts before a middle line without overwriting', async () => {
        const { root, tool, file } = await setup({ 'f.txt': 'a\nb\nc\n' });
        const r = await one(tool('insert_file_content'), { path: 'f.txt', content: 'x\ny\n', line: 3 });
        expect(r.result).toBe(`Inserted content at line 3 in ${root}/f.txt`);
        expect(readText(file('f.txt'))).toBe('a\nb\nx\ny\nc\n');
    });

    it('appends at the end when line is omitted, or is the line after the last', async () => {
        const { tool, file } = await setup({ 'f.txt': 'a\nb\n', 'g.txt': 'a\nb\n' });
        expect((await one(tool('insert_file_content'), { path: 'f.txt', content: 'c' })).status).toBe('success');
        expect(readText(file('f.txt'))).toBe('a\nb\nc\n');
        expect((await one(tool('insert_file_content'), { path: 'g.txt', content: 'c', line: 3 })).status).toBe('success');
        expect(readText(file('g.txt'))).toBe('a\nb\nc\n');
    });

    it('does not add a final newline when appending to a file without one', async () => {
        const { tool, file } = await setup({ 'n.txt': 'a\nb' });
        await one(tool('insert_file_content'), { path: 'n.txt', content: 'c' });
        expect(readText(file('n.txt'))).toBe('a\nb\nc');
    });

    it('inserts into an empty file', async () => {
        const { tool, file } = await setup({ 'e.txt': '' });
        expect((await one(tool('insert_file_content'), { path: 'e.txt', content: 'hello\n', line: 1 })).status).toBe('success');
        expect(readText(file('e.txt'))).toBe('hello\n');
    });

    it('uses CRLF for inserted lines in a CRLF file', async () => {
        const { tool, file } = await setup({ 'w.txt': 'a\r\nb\r\n' });
        await one(tool('insert_file_content'), { path: 'w.txt', content: 'x\ny', line: 2 });
        expect(readText(file('w.txt'))).toBe('a\r\nx\r\ny\r\nb\r\n');
    });

    it('keeps the BOM at the start of the file when inserting at line 1', async () => {
        const { tool, file } = await setup({ 'b.txt': Buffer.concat([BOM, Buffer.from('a\n')]) });
        await one(tool('insert_file_content'), { path: 'b.txt', content: 'first', line: 1 });
        expect(fs.readFileSync(file('b.txt'))).toEqual(Buffer.concat([BOM, Buffer.from('first\na\n')]));
    });

    it('rejects a line beyond the end + 1, changing nothing', async () => {
        const { tool, file } = await setup({ 'f.txt': 'a\nb\n' });
        const r = await one(tool('insert_file_content'), { path: 'f.txt', content: 'x', line: 4 });
        expect(r.status).toBe('error');
        expect(r.result).toContain('2 lines');
        expect(readText(file('f.txt'))).toBe('a\nb\n');
    });

    it('rejects a file that does not exist, creating nothing', async () => {
        const { root, tool } = await setup({});
        const r = await one(tool('insert_file_content'), { path: 'nope.txt', content: 'x' });
        expect(r.status).toBe('error');
        expect(fs.readdirSync(root)).toEqual([]);
    });

    it('rejects content above maxCharsPerFile but edits files larger than it', async () => {
        const big = numbered(300);
        const { tool, file } = await setup({ 'big.txt': big }, { maxCharsPerFile: 50 });
        const tooMuch = await one(tool('insert_file_content'), { path: 'big.txt', content: 'y'.repeat(51), line: 1 });
        expect(tooMuch.status).toBe('error');
        expect(tooMuch.result).toContain('maxCharsPerFile');
        expect(readText(file('big.txt'))).toBe(big);
        const r = await one(tool('insert_file_content'), { path: 'big.txt', content: 'inserted', line: 150 });
        expect(r.status).toBe('success');
        expect(readText(file('big.txt'))).toBe(numbered(149) + 'inserted\n' + big.slice(numbered(149).length));
    });
});
