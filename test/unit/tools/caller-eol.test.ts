/**
 * Caller text takes the file's line ending on every path that splices it into a file:
 * replace_file_content (first and replace_all), edit_file, insert_file_content and
 * replace_file_lines, whichever ending the model wrote (README: edits keep line endings).
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { textEol, withEol } from '../../../src/text/shared/text.js';
import { one, setupRead } from '../../support/helpers.js';

const LF = 'alpha\nbeta\nalpha\n';
const CRLF = 'alpha\r\nbeta\r\nalpha\r\n';

/** Each writing path, as a call on `f.txt` that puts "x", a break in the caller's form, then "y" after the first line. */
const PATHS: [string, string, (nl: string) => Record<string, unknown>][] = [
    ['replace_file_content', 'replace_file_content', (nl) => ({ path: 'f.txt', old_content: 'beta', new_content: `x${nl}y` })],
    ['replace_file_content with replace_all', 'replace_file_content', (nl) => ({ path: 'f.txt', old_content: 'beta', new_content: `x${nl}y`, replace_all: true })],
    ['edit_file', 'edit_file', (nl) => ({ path: 'f.txt', edits: [{ old_content: 'beta', new_content: `x${nl}y` }] })],
    ['insert_file_content', 'insert_file_content', (nl) => ({ path: 'f.txt', content: `x${nl}y`, line: 2 })],
    ['replace_file_lines', 'replace_file_lines', (nl) => ({ path: 'f.txt', content: `x${nl}y`, start_line: 2 })],
];

describe('caller text takes the file line ending on every writing path', () => {
    for (const [what, tool, args] of PATHS) {
        for (const [file, eol] of [[LF, '\n'], [CRLF, '\r\n']] as const) {
            for (const sent of ['\n', '\r\n']) {
                it(`${what}: ${JSON.stringify(sent)} into a ${eol === '\n' ? 'LF' : 'CRLF'} file`, async () => {
                    const fx = await setupRead({ 'f.txt': file }, { packageOptions: { editFile: true } });
                    const r = await one(fx.tool(tool), args(sent));
                    expect(r.status, r.result).toBe('success');
                    const body = fs.readFileSync(fx.file('f.txt'), 'utf8');
                    // Every line break of the file is the file's ending: none of the other kind came in.
                    expect(body).toBe(['alpha', 'x', 'y', ...(tool === 'insert_file_content' ? ['beta'] : []), 'alpha', ''].join(eol));
                });
            }
        }
    }

    it('replace_all converts every replacement, and a lone CR in the text stays as written', async () => {
        const fx = await setupRead({ 'f.txt': CRLF });
        const r = await one(fx.tool('replace_file_content'), { path: 'f.txt', old_content: 'alpha', new_content: 'a\nb\rc', replace_all: true });
        expect(r.status).toBe('success');
        expect(fs.readFileSync(fx.file('f.txt'), 'utf8')).toBe('a\r\nb\rc\r\nbeta\r\na\r\nb\rc\r\n');
    });

    it('a replacement that fails to match writes nothing', async () => {
        const fx = await setupRead({ 'f.txt': CRLF });
        const r = await one(fx.tool('replace_file_content'), { path: 'f.txt', old_content: 'gamma', new_content: 'x\ny' });
        expect(r.status).toBe('error');
        expect(fs.readFileSync(fx.file('f.txt'), 'utf8')).toBe(CRLF);
    });

    it('the dominant ending decides in a mixed file; text without a break reads as LF', () => {
        expect(textEol('a\r\nb\r\nc\n')).toBe('\r\n');
        expect(textEol('a\r\nb\nc\n')).toBe('\n');
        expect(textEol('no break')).toBe('\n');
        expect(withEol('a\nb\r\nc\rd', '\r\n')).toBe('a\r\nb\r\nc\rd');
        expect(withEol('a\r\nb\n', '\n')).toBe('a\nb\n');
    });
});
