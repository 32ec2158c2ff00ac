import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { one, readText, setupRead as setup } from '../../support/helpers.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('replace_file_content', () => {
    it('replaces the first occurrence only by default, with the reference message', async () => {
        const { root, tool, file } = await setup({ 'src/main.ts': 'foo foo\nfoo\n' });
        const r = await one(tool('replace_file_content'), { path: 'src/main.ts', old_content: 'foo', new_content: 'bar' });
        // The reference's line, then (the text occurs 3 times) the note on the occurrences left unchanged.
        expect(r).toMatchObject({
            status: 'success',
            result:
                `Replaced content in ${root}/src/main.ts\n[old_content occurs 3 times: replaced the first, at line 1; left unchanged at lines 1, 2. ` +
                'To change every occurrence set replace_all: true; to change another one, include more of its surrounding text in old_content so that it matches only there.]',
        });
        expect(readText(file('src/main.ts'))).toBe('bar foo\nfoo\n');
    });

    it('replaces every occurrence with replace_all', async () => {
        const { root, tool, file } = await setup({ 'src/main.ts': 'foo foo\nfoo\n' });
        const r = await one(tool('replace_file_content'), { path: 'src/main.ts', old_content: 'foo', new_content: 'bar', replace_all: true });
        expect(r.result).toBe(`Replaced content in ${root}/src/main.ts`);
        expect(readText(file('src/main.ts'))).toBe('bar bar\nbar\n');
    });

    it('matches literally, not as a regex, and inserts the replacement literally', async () => {
        const { tool, file } = await setup({ 'f.txt': 'axb a.b\n' });
        await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'a.b', new_content: "$& $1 $$ $'" });
        expect(readText(file('f.txt'))).toBe("axb $& $1 $$ $'\n");
    });

    it('deletes the match when new_content is empty', async () => {
        const { tool, file } = await setup({ 'f.txt': 'keep DROP keep\n' });
        await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'DROP ', new_content: '' });
        expect(readText(file('f.txt'))).toBe('keep keep\n');
    });

    it('replaces across lines', async () => {
        const { tool, file } = await setup({ 'f.txt': 'a\nb\nc\n' });
        await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'a\nb\n', new_content: 'ab\n' });
        expect(readText(file('f.txt'))).toBe('ab\nc\n');
    });

    it('reports old_content not found and changes nothing', async () => {
        const { tool, file } = await setup({ 'f.txt': 'hello\n' });
        const r = await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'absent', new_content: 'x' });
        expect(r.status).toBe('error');
        expect(r.result).toContain('not found');
        expect(r.result).toContain('read_file');
        expect(readText(file('f.txt'))).toBe('hello\n');
    });

    it('keeps CRLF line endings when the model writes \\n', async () => {
        const { tool, file } = await setup({ 'w.txt': 'one\r\ntwo\r\nthree\r\n' });
        const r = await one(tool('replace_file_content'), { path: 'w.txt', old_content: 'one\ntwo', new_content: 'uno\ndos' });
        expect(r.status).toBe('success');
        expect(readText(file('w.txt'))).toBe('uno\r\ndos\r\nthree\r\n');
    });

    it('keeps a UTF-8 BOM', async () => {
        const { tool, file } = await setup({ 'b.txt': Buffer.concat([BOM, Buffer.from('hello\n')]) });
        await one(tool('replace_file_content'), { path: 'b.txt', old_content: 'hello', new_content: 'bye' });
        expect(fs.readFileSync(file('b.txt'))).toEqual(Buffer.concat([BOM, Buffer.from('bye\n')]));
    });

    it('keeps a file without a final newline without one', async () => {
        const { tool, file } = await setup({ 'n.txt': 'a\nb' });
        await one(tool('replace_file_content'), { path: 'n.txt', old_content: 'b', new_content: 'c' });
        expect(readText(file('n.txt'))).toBe('a\nc');
    });

    it('rejects a file that does not exist, creating nothing', async () => {
        const { root, tool } = await setup({});
        const r = await one(tool('replace_file_content'), { path: 'nope.txt', old_content: 'a', new_content: 'b' });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/not found/i);
        expect(fs.readdirSync(root)).toEqual([]);
    });

    it('rejects new_content above maxCharsPerFile but edits files larger than it', async () => {
        const big = 'x'.repeat(5000) + '\nMARK\n' + 'y'.repeat(5000) + '\n';
        const { tool, file } = await setup({ 'big.txt': big }, { maxCharsPerFile: 100 });
        const tooMuch = await one(tool('replace_file_content'), { path: 'big.txt', old_content: 'MARK', new_content: 'z'.repeat(101) });
        expect(tooMuch.status).toBe('error');
        expect(tooMuch.result).toContain('maxCharsPerFile');
        expect(readText(file('big.txt'))).toBe(big);
        const r = await one(tool('replace_file_content'), { path: 'big.txt', old_content: 'MARK', new_content: 'DONE' });
        expect(r.status).toBe('success');
        expect(readText(file('big.txt'))).toBe(big.replace('MARK', 'DONE'));
    });
});
