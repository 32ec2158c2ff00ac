import fs from 'node:fs';
import iconv from 'iconv-lite';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatRead, type ReadArgs } from '../../../src/text/shared/read-render.js';
import { contentHash } from '../../../src/fs/shared/content-hash.js';
import { CHUNK_BYTES, readWindowed, WINDOWED_READ_BYTES } from '../../../workers/read/read-window.js';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

/**
 * Files above 1 MiB are read in windows on the worker (workers/read/read-window.ts), never whole: the
 * text shown, the hash and the size must be exactly those of the whole-file read, whatever the
 * encoding, line endings, line lengths and where the 1 MiB chunks cut characters and CRLFs.
 */
describe('read_file of files above 1 MiB (windowed reads on the worker)', () => {
    /** Text of `bytes` bytes or a little more from `pieces` in a fixed pseudo-random order (seeded). */
    const textOf = (bytes: number, pieces: string[], seed: number): Buffer => {
        // One encoding of the joined text (the same bytes as each piece's, concatenated): a
        // Buffer per piece cost a second per file.
        const sizes = pieces.map((p) => Buffer.byteLength(p, 'utf8'));
        const out: string[] = [];
        let n = 0;
        let s = seed;
        while (n < bytes) {
            s = (s * 1103515245 + 12345) & 0x7fffffff;
            out.push(pieces[s % pieces.length]!);
            n += sizes[s % pieces.length]!;
        }
        return Buffer.from(out.join(''), 'utf8');
    };
    /** A UTF-8 file whose first chunk ends inside a 4-byte character and whose second ends between \r and \n. */
    const straddling = (): Buffer => {
        const head = Buffer.alloc(CHUNK_BYTES - 2, 'a');
        head[1000] = 0x0a;
        const middle = Buffer.alloc(CHUNK_BYTES - 4 - 1, 'b');
        return Buffer.concat([head, Buffer.from('😀', 'utf8'), middle, Buffer.from('é\r\nnext line\n', 'utf8'), Buffer.alloc(5000, 'c')]);
    };
    const files: Record<string, Buffer> = {
        'one-line.txt': textOf(3 * CHUNK_BYTES, ['abc', 'é', '€', '😀', 'x'.repeat(100)], 1),
        'mixed.txt': textOf(2 * CHUNK_BYTES + 77, ['hello ', 'é', '€uro', '😀', '\t', '\n', '\r\n', 'ß'.repeat(20)], 2),
        'latin1.txt': Buffer.concat([textOf(CHUNK_BYTES + 10, ['line of text\n', 'x'.repeat(30)], 3), Buffer.from([0xe9, 0x0d, 0x0a, 0x41])]),
        'straddling.txt': straddling(),
        'lf-end.txt': Buffer.concat([textOf(CHUNK_BYTES + 1, ['word ', '\n'], 4), Buffer.from('\n')]),
    };
    const cases: (ReadArgs & { max_chars?: number })[] = [
        {},
        { max_chars: 50 },
        { max_chars: 1 },
        { line_numbers: true, max_chars: 1000 },
        { start_char: 1_500_000, max_chars: 100 },
        { start_char: 9_999_999 },
        { start_line: 2, end_line: 40, max_chars: 3000 },
        { start_line: 2, start_char: 3, max_chars: 20 },
        { last_lines: 3 },
        { last_lines: 1, line_numbers: true },
        { start_line: 1_000_000 },
    ];
    const outcome = (f: () => string): string => {
        try {
            return f();
        } catch (err) {
            return `error: ${(err as Error).message}`;
        }
    };

    it('shows, hashes and sizes every file exactly as the whole-file read does', () => {
        const root = tempDir();
        writeTree(root, files);
        for (const [name, bytes] of Object.entries(files)) {
            expect(bytes.length).toBeGreaterThan(WINDOWED_READ_BYTES);
            const abs = path.join(root, name);
            for (const c of cases) {
                const maxChars = c.max_chars ?? 10_000;
                const fd = fs.openSync(abs, 'r');
                try {
                    let hash = '';
                    let size = 0;
                    const got = outcome(() => {
                        const r = readWindowed(fd, abs, c, maxChars);
                        if (r === null) throw new Error('not windowed');
                        hash = r.hash;
                        size = r.size;
                        return r.shown;
                    });
                    expect(got, `${name} ${JSON.stringify(c)}`).toBe(outcome(() => formatRead(abs, bytes, c, maxChars)));
                    if (!got.startsWith('error: ')) {
                        expect(hash).toBe(contentHash(bytes));
                        expect(size).toBe(bytes.length);
                    }
                } finally {
                    fs.closeSync(fd);
                }
            }
        }
        // Spot checks of what the cases above compare.
        const fd = fs.openSync(path.join(root, 'straddling.txt'), 'r');
        try {
            const shown = readWindowed(fd, 'f', { start_line: 2, start_char: CHUNK_BYTES - 1002 - 1 }, 4)!.shown;
            expect(shown).toBe(`--- f (lines 2-2 of 4) ---\na😀b\n[Truncated at 4 characters (max_chars / maxCharsPerFile): showed characters ${CHUNK_BYTES - 1003}-${CHUNK_BYTES - 1000} of its ${2 * CHUNK_BYTES - 1005} of line 2; continue with start_line=2 and start_char=${CHUNK_BYTES - 999}.]`);
        } finally {
            fs.closeSync(fd);
        }
    });

    it('leaves a file in a legacy encoding to the whole-file read, deciding as it does, and windows a Latin-1 one', () => {
        const root = tempDir();
        const ja = iconv.encode('// 設定ファイルを読み込み、各項目の値を検証します。東京の天気は晴れ。\n'.repeat(40), 'shift_jis');
        // The Shift-JIS text starts in the second chunk, on a line begun in the first: the sample starts there.
        const late = Buffer.concat([Buffer.alloc(CHUNK_BYTES + 100, 'a'), Buffer.from('\nint x; '), ja]);
        const early = Buffer.concat([ja, Buffer.alloc(CHUNK_BYTES, 'b')]);
        const latin1 = Buffer.concat([Buffer.alloc(CHUNK_BYTES, 'c'), Buffer.from('\ncaf\xe9 na\xefve\n', 'latin1')]);
        writeTree(root, { 'late.c': late, 'early.c': early, 'latin1.txt': latin1 });
        for (const [name, bytes, windowed] of [['late.c', late, false], ['early.c', early, false], ['latin1.txt', latin1, true]] as const) {
            const abs = path.join(root, name);
            const fd = fs.openSync(abs, 'r');
            try {
                const r = readWindowed(fd, abs, { last_lines: 2 }, 10_000);
                expect(r !== null, name).toBe(windowed);
                if (r !== null) expect(r.shown).toBe(formatRead(abs, bytes, { last_lines: 2 }, 10_000));
                expect(readWindowed(fd, abs, { encoding: 'latin1' }, 10_000), `${name} with encoding`).toBeNull();
            } finally {
                fs.closeSync(fd);
            }
        }
        expect(formatRead('f', late, { last_lines: 1 }, 10_000)).toContain('東京の天気は晴れ。\n[Encoding: CP932 (Shift_JIS), detected;');
        expect(formatRead('f', early, { start_line: 1, end_line: 1 }, 10_000)).toContain('設定ファイル');
    });

    it('leaves a file with a byte-order mark to the whole-file read, and refuses a binary file', () => {
        const root = tempDir();
        // Binary by its first bytes only, as decodeText decides: NULs first, then text; and text first, then NULs.
        const blobBytes = Buffer.concat([Buffer.alloc(600, 0), Buffer.alloc(2 * CHUNK_BYTES, 'a')]);
        const tailBytes = Buffer.concat([Buffer.alloc(2 * CHUNK_BYTES, 'a'), Buffer.alloc(600, 0)]);
        writeTree(root, { 'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.alloc(WINDOWED_READ_BYTES + 1, 'a')]), 'blob.bin': blobBytes, 'tail.txt': tailBytes });
        const bom = fs.openSync(path.join(root, 'bom.txt'), 'r');
        const blob = fs.openSync(path.join(root, 'blob.bin'), 'r');
        const tail = fs.openSync(path.join(root, 'tail.txt'), 'r');
        try {
            expect(readWindowed(bom, 'bom.txt', {}, 100)).toBeNull();
            expect(() => readWindowed(blob, 'blob.bin', {}, 100)).toThrow(`Binary file refused: blob.bin (${blobBytes.length} bytes) is not a text file.`);
            expect(() => formatRead('blob.bin', blobBytes, {}, 100)).toThrow(`Binary file refused: blob.bin (${blobBytes.length} bytes) is not a text file.`);
            expect(readWindowed(tail, 'tail.txt', {}, 5)!.shown).toBe(formatRead('tail.txt', tailBytes, {}, 5));
        } finally {
            fs.closeSync(bom);
            fs.closeSync(blob);
            fs.closeSync(tail);
        }
    });

    it('refuses a PDF under another name as binary with a hint naming the extension that reads it, in both reads', () => {
        const root = tempDir();
        const hint = ' It starts with %PDF-: a PDF, which read_file reads as one (pages) only under a name ending in .pdf.';
        const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'), Buffer.alloc(600, 0), Buffer.alloc(2 * CHUNK_BYTES, 'a')]);
        writeTree(root, { 'paper': pdf });
        const fd = fs.openSync(path.join(root, 'paper'), 'r');
        try {
            expect(() => readWindowed(fd, 'paper', {}, 100)).toThrow(`Binary file refused: paper (${pdf.length} bytes) is not a text file.${hint}`);
            expect(() => formatRead('paper', pdf, {}, 100)).toThrow(`Binary file refused: paper (${pdf.length} bytes) is not a text file.${hint}`);
        } finally {
            fs.closeSync(fd);
        }
    });

    it('read_file of a 3 MiB one-line file and a BOM file through the pool shows what the whole-file read shows, and counts as read', async () => {
        const root = tempDir();
        const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), textOf(WINDOWED_READ_BYTES + 10, ['é', 'line\n'], 5)]);
        writeTree(root, { 'one-line.txt': files['one-line.txt']!, 'bom.txt': bom });
        const { tool } = makePackage(root);
        const calls: [string, ReadArgs & { max_chars?: number }][] = [['one-line.txt', {}], ['one-line.txt', { start_char: 2_000_000, max_chars: 30 }], ['bom.txt', { last_lines: 2 }]];
        for (const [file, c] of calls) {
            const abs = path.join(root, file);
            const r = await one(tool('read_file'), { paths: [file], ...c });
            expect(r.status).toBe('success');
            expect(r.result).toBe(formatRead(abs, fs.readFileSync(abs), c, c.max_chars ?? 10_000));
        }
        const edit = await one(tool('replace_file_lines'), { path: 'one-line.txt', start_line: 1, end_line: 1, content: 'short' });
        expect(edit.status).toBe('success');
        expect(fs.readFileSync(path.join(root, 'one-line.txt'), 'utf8')).toBe('short');
    });
});
