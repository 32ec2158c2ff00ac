/**
 * read_file of files above 256 KiB, through a package on the worker pool (real files, the pool's
 * threads): the text shown is exactly the pure formatter's, the read counts for read-before-write,
 * and errors are those of a small file. The windowed reads of files above 1 MiB, called directly,
 * are test/unit/tools/read-large.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatRead } from '../../../src/text/shared/read-render.js';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

describe('read_file of large files (formatted on the worker pool)', () => {
    const big = (lines: number, eol = '\n'): string => Array.from({ length: lines }, (_, i) => `line ${i + 1} ${'x'.repeat(60)}`).join(eol) + eol;

    it('shows the same text as the pure formatter, for whole reads, ranges, last_lines, line numbers and start_char', async () => {
        const root = tempDir();
        const body = big(6000, '\r\n');
        writeTree(root, { 'big.txt': body, 'latin1.txt': Buffer.concat([Buffer.from(big(5000)), Buffer.from([0xe9, 0x0a])]) });
        expect(Buffer.byteLength(body)).toBeGreaterThan(256 * 1024);
        const { tool } = makePackage(root, { maxCharsPerFile: 5000 });
        const cases: Record<string, unknown>[] = [
            {},
            { start_line: 10, end_line: 20 },
            { last_lines: 3 },
            { start_line: 4999, line_numbers: true },
            { start_line: 7, start_char: 5, max_chars: 10 },
            { max_chars: 100 },
        ];
        for (const file of ['big.txt', 'latin1.txt']) {
            const abs = path.join(root, file);
            for (const c of cases) {
                const r = await one(tool('read_file'), { paths: [file], ...c });
                expect(r.status, `${file} ${JSON.stringify(c)}: ${r.result.slice(0, 300)}`).toBe('success');
                expect(r.result).toBe(formatRead(abs, fs.readFileSync(abs), c, Math.min((c['max_chars'] as number | undefined) ?? 5000, 5000)));
            }
        }
        // Spot checks of the shown text itself.
        const whole = await one(tool('read_file'), { paths: ['big.txt'], start_line: 2, end_line: 3 });
        expect(whole.result).toBe(`--- ${root}/big.txt (lines 2-3 of 6000) ---\nline 2 ${'x'.repeat(60)}\r\nline 3 ${'x'.repeat(60)}\r\n`);
        const latin = await one(tool('read_file'), { paths: ['latin1.txt'], last_lines: 1 });
        expect(latin.result).toBe(`--- ${root}/latin1.txt (lines 5001-5001 of 5001) ---\né\n`);
    });

    it('counts as read for read-before-write, and a change afterwards is still caught', async () => {
        const root = tempDir();
        writeTree(root, { 'big.txt': big(6000) });
        const { tool } = makePackage(root);
        expect((await one(tool('replace_file_lines'), { path: 'big.txt', start_line: 1, end_line: 1, content: 'first' })).status).toBe('error');
        expect((await one(tool('read_file'), { paths: ['big.txt'], max_chars: 50 })).status).toBe('success');
        const edit = await one(tool('replace_file_lines'), { path: 'big.txt', start_line: 1, end_line: 1, content: 'first' });
        expect(edit.status).toBe('success');
        expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8').startsWith('first\nline 2 ')).toBe(true);
        // Read again, then changed behind the tool's back: refused.
        expect((await one(tool('read_file'), { paths: ['big.txt'], max_chars: 50 })).status).toBe('success');
        fs.appendFileSync(path.join(root, 'big.txt'), 'more\n');
        const stale = await one(tool('replace_file_lines'), { path: 'big.txt', start_line: 1, end_line: 1, content: 'again' });
        expect(stale.status).toBe('error');
        expect(stale.result).toContain('changed since it was last read');
    });

    it('refuses a large binary file and a range beyond the end with the same errors as a small one', async () => {
        const root = tempDir();
        const binary = Buffer.alloc(300 * 1024, 0);
        writeTree(root, { 'blob.bin': binary, 'big.txt': big(6000) });
        const { tool } = makePackage(root);
        const b = await one(tool('read_file'), { paths: ['blob.bin'] });
        expect(b).toMatchObject({ status: 'error', result: `Binary file refused: ${root}/blob.bin (${binary.length} bytes) is not a text file.` });
        const beyond = await one(tool('read_file'), { paths: ['big.txt'], start_line: 6001 });
        expect(beyond.status).toBe('error');
        expect(beyond.result).toContain(`start_line 6001 is beyond the end of ${root}/big.txt, which has 6000 lines.`);
        // The failed reads recorded nothing: an edit is still refused as not read.
        const edit = await one(tool('replace_file_lines'), { path: 'big.txt', start_line: 1, end_line: 1, content: 'x' });
        expect(edit.status).toBe('error');
        expect(edit.result).toContain('has not been read');
    });
});
