/**
 * read_file as models use it: paging within a line longer than max_chars (every "continue with"
 * advice makes progress), line ranges and last lines of files above maxFileSize (streamed), and
 * `paths` sent as one string.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

/** Follows every "continue with start_line=A[ and start_char=B]" advice and returns the text shown. */
async function readAll(fx: ReturnType<typeof makePackage>, file: string, max: number): Promise<{ text: string; calls: number }> {
    let text = '';
    let args: Record<string, unknown> = { paths: [file], max_chars: max };
    for (let calls = 1; calls < 10_000; calls++) {
        const r = await one(fx.tool('read_file'), args);
        expect(r.status).toBe('success');
        const first = Number(/^--- .* \(lines (\d+)-/.exec(r.result)![1]);
        const body = r.result.slice(r.result.indexOf('---\n') + 4);
        const note = /\n?\[Truncated at \d+ characters[^\]]*continue with start_line=(\d+)(?: and start_char=(\d+))?\.\]$/.exec(body);
        if (note === null) {
            // The last line's text was shown in full, only its terminator was not.
            const full = /\n\[Truncated at \d+ characters \(max_chars \/ maxCharsPerFile\): line \d+ is shown in full, without its line ending\.\]$/.exec(body);
            return { text: text + (full === null ? body : `${body.slice(0, full.index)}\n`), calls };
        }
        const shown = body.slice(0, note.index);
        if (note[2] !== undefined) {
            text += shown;
        } else {
            // Continue at the start of line note[1]: keep the lines before it; a line shown without its terminator ended with "\n".
            const pieces = shown.split(/(?<=\n)/).slice(0, Number(note[1]) - first);
            text += pieces.map((x) => (x.endsWith('\n') ? x : `${x}\n`)).join('');
        }
        const next = { paths: [file], max_chars: max, start_line: Number(note[1]), ...(note[2] !== undefined && { start_char: Number(note[2]) }) };
        expect(next).not.toEqual(args); // progress
        args = next;
    }
    throw new Error('no end');
}

describe('read_file: a line longer than max_chars', () => {
    it('pages within the line, saying which characters were shown', async () => {
        const root = tempDir();
        const line = Array.from({ length: 32_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
        writeTree(root, { 'min.js': line });
        const fx = makePackage(root);
        const r = await one(fx.tool('read_file'), { paths: ['min.js'] });
        expect(r.result).toBe(
            `--- ${root}/min.js (lines 1-1 of 1) ---\n${line.slice(0, 10_000)}\n` +
                '[Truncated at 10000 characters (max_chars / maxCharsPerFile): showed characters 1-10000 of its 32000 of line 1; continue with start_line=1 and start_char=10001.]',
        );
        const next = await one(fx.tool('read_file'), { paths: ['min.js'], start_line: 1, start_char: 10_001 });
        expect(next.result).toContain(`\n${line.slice(10_000, 20_000)}\n[Truncated at 10000 characters (max_chars / maxCharsPerFile): showed characters 10001-20000 of its 32000 of line 1; continue with start_line=1 and start_char=20001.]`);
        const last = await one(fx.tool('read_file'), { paths: ['min.js'], start_line: 1, start_char: 30_001 });
        expect(last.result).toBe(`--- ${root}/min.js (lines 1-1 of 1) ---\n${line.slice(30_000)}`);
    });

    it('following the advice reads every file exactly, whatever the line lengths', async () => {
        const root = tempDir();
        const files: Record<string, string> = {
            'a.txt': 'short\n' + 'x'.repeat(95) + '\nend\n',
            'b.txt': 'y'.repeat(250),
            'c.txt': 'ab\r\n'.repeat(40),
            'd.txt': 'z'.repeat(20) + '\n' + 'w'.repeat(20) + '\n',
        };
        writeTree(root, files);
        const fx = makePackage(root);
        for (const [name, content] of Object.entries(files)) {
            for (const max of [7, 20, 21, 33, 100]) expect((await readAll(fx, name, max)).text, `${name} max ${max}`).toBe(content);
        }
    });

    it('refuses a start_char beyond the line and a max_chars that cannot show a character', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': 'abc\n' + 'x'.repeat(50) + '\n' });
        const fx = makePackage(root);
        const r = await one(fx.tool('read_file'), { paths: ['f.txt'], start_line: 1, start_char: 5 });
        expect(r).toMatchObject({ status: 'error', result: `Invalid arguments for read_file: start_char 5 is beyond the end of line 1 of ${root}/f.txt, which has 3 characters.` });
        const tiny = await one(fx.tool('read_file'), { paths: ['f.txt'], start_line: 2, max_chars: 5, line_numbers: true });
        expect(tiny.status).toBe('error');
        expect(tiny.result).toContain('raise max_chars');
    });
});

describe('read_file: files above maxFileSize', () => {
    function bigLog(root: string, lines: number): string {
        const p = path.join(root, 'big.log');
        const fd = fs.openSync(p, 'w');
        let chunk = '';
        for (let i = 1; i <= lines; i++) {
            chunk += `line ${i} ${'.'.repeat(40)}\n`;
            if (chunk.length > 1 << 20) {
                fs.writeSync(fd, chunk);
                chunk = '';
            }
        }
        fs.writeSync(fd, chunk);
        fs.closeSync(fd);
        return p;
    }

    it('reads a line range and the last lines by streaming; the whole file stays refused', async () => {
        const root = tempDir();
        const p = bigLog(root, 60_000);
        const size = fs.statSync(p).size;
        const fx = makePackage(root, { maxFileSize: 1024 * 1024 });
        const whole = await one(fx.tool('read_file'), { paths: ['big.log'] });
        expect(whole).toMatchObject({ status: 'error' });
        expect(whole.result).toMatch(/^File too large/);
        const range = await one(fx.tool('read_file'), { paths: ['big.log'], start_line: 40_000, end_line: 40_001 });
        expect(range).toMatchObject({
            status: 'success',
            result: `--- ${root}/big.log (lines 40000-40001 of 60000) ---\nline 40000 ${'.'.repeat(40)}\nline 40001 ${'.'.repeat(40)}\n`,
        });
        const tail = await one(fx.tool('read_file'), { paths: ['big.log'], last_lines: 2, line_numbers: true });
        expect(tail.result).toBe(`--- ${root}/big.log (lines 59999-60000 of 60000) ---\n 59999\tline 59999 ${'.'.repeat(40)}\n 60000\tline 60000 ${'.'.repeat(40)}\n`);
        // Bounded by maxCharsPerFile in what it returns.
        const open = await one(fx.tool('read_file'), { paths: ['big.log'], start_line: 10, max_chars: 120 });
        expect(open.result).toBe(
            `--- ${root}/big.log (lines 10-11 of 60000) ---\nline 10 ${'.'.repeat(40)}\nline 11 ${'.'.repeat(40)}\nline 12 ${'.'.repeat(14)}\n` +
                '[Truncated at 120 characters (max_chars / maxCharsPerFile): line 12 is cut off; continue with start_line=12.]',
        );
        expect(size).toBeGreaterThan(1024 * 1024);
        // Several paths (read on the worker pool) stream the same way.
        const both = await fx.run('read_file', { paths: ['big.log', 'big.log'], start_line: 3, end_line: 3 });
        expect(both.map((r) => r.result)).toEqual([0, 1].map(() => `--- ${root}/big.log (lines 3-3 of 60000) ---\nline 3 ${'.'.repeat(40)}\n`));
    });

    it('pages within a huge single line of a file above maxFileSize', async () => {
        const root = tempDir();
        writeTree(root, { 'one.txt': 'q'.repeat(3 * 1024 * 1024) });
        const fx = makePackage(root, { maxFileSize: 1024 * 1024, maxCharsPerFile: 1000 });
        const r = await one(fx.tool('read_file'), { paths: ['one.txt'], start_line: 1, start_char: 2_000_001 });
        expect(r.result).toBe(
            `--- ${root}/one.txt (lines 1-1 of 1) ---\n${'q'.repeat(1000)}\n` +
                '[Truncated at 1000 characters (max_chars / maxCharsPerFile): showed characters 2000001-2001000 of its 3145728 of line 1; continue with start_line=1 and start_char=2001001.]',
        );
    });

    it('refuses a binary file above maxFileSize with the binary error', async () => {
        const root = tempDir();
        const bytes = Buffer.alloc(2 * 1024 * 1024);
        for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
        writeTree(root, { 'blob.bin': bytes });
        const fx = makePackage(root, { maxFileSize: 1024 * 1024 });
        const r = await one(fx.tool('read_file'), { paths: ['blob.bin'], start_line: 1 });
        expect(r).toMatchObject({ status: 'error' });
        expect(r.result).toMatch(/^Binary file refused/);
    });
});

describe('read_file: paths as one string', () => {
    it('reads a single string as a list of one, and shows the schema as an array', async () => {
        const root = tempDir();
        writeTree(root, { 'a.txt': 'hi\n' });
        const fx = makePackage(root);
        const r = await one(fx.tool('read_file'), { paths: 'a.txt' });
        expect(r).toMatchObject({ status: 'success', result: `--- ${root}/a.txt (lines 1-1 of 1) ---\nhi\n` });
        const schema = (fx.tool('read_file') as unknown as { jsonSchema(): { properties: { paths: { type: string } } } }).jsonSchema();
        expect(schema.properties.paths.type).toBe('array');
    });
});

describe('read_file: last_lines', () => {
    it('reads the last lines of a small file too, and refuses last_lines with start_line', async () => {
        const root = tempDir();
        writeTree(root, { 'f.txt': 'a\nb\nc\nd\n' });
        const fx = makePackage(root);
        expect((await one(fx.tool('read_file'), { paths: ['f.txt'], last_lines: 2 })).result).toBe(`--- ${root}/f.txt (lines 3-4 of 4) ---\nc\nd\n`);
        expect((await one(fx.tool('read_file'), { paths: ['f.txt'], last_lines: 10 })).result).toBe(`--- ${root}/f.txt (lines 1-4 of 4) ---\na\nb\nc\nd\n`);
        const both = await one(fx.tool('read_file'), { paths: ['f.txt'], last_lines: 2, start_line: 1 });
        expect(both.status).toBe('error');
        expect(both.result).toContain('last_lines reads the end of the file: leave out start_line and end_line, or leave out last_lines');
    });
});
