import fs from 'node:fs';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { one, setupRead, snapshot } from '../../support/helpers.js';
import { textEncodingOf } from '../../../src/text/shared/text.js';
import { ENCODING_CASES, SENTENCES, sampleText } from '../../support/encoding-samples.js';

/**
 * read_file and every edit on files in legacy encodings: read as their text with a line naming
 * the encoding, written back in it with the lines an edit leaves alone byte for byte, and a
 * character the encoding cannot hold refused with nothing written.
 */

const SJIS_TEXT = '// 設定ファイルを読み込む\nint read_config(void);\n// 東京の天気は晴れ\nreturn 0;\n';
const sjis = (text: string): Buffer => iconv.encode(text, 'shift_jis');

/** One case per encoding: its language's sample of about 2 KB. */
const CASES = [...new Map(ENCODING_CASES.map((c) => [c.encoding, c])).values()];

describe('read_file of legacy encodings', () => {
    it('shows a Shift-JIS file as its text, and a line after it naming the encoding', async () => {
        const { tool, file } = await setupRead({ 'a.c': sjis(SJIS_TEXT) });
        const r = await one(tool('read_file'), { paths: ['a.c'] });
        expect(r.result).toBe(`--- ${file('a.c')} (lines 1-4 of 4) ---\n${SJIS_TEXT}[Encoding: CP932 (Shift_JIS), detected; edits write the file back in it.]`);
    });

    it('shows UTF-8 and Latin-1 files exactly as before: no encoding line', async () => {
        const { tool, file } = await setupRead({ 'u.txt': '東京\n', 'l.txt': Buffer.from('caf\xe9\n', 'latin1') });
        expect((await one(tool('read_file'), { paths: ['u.txt'] })).result).toBe(`--- ${file('u.txt')} (lines 1-1 of 1) ---\n東京\n`);
        expect((await one(tool('read_file'), { paths: ['l.txt'] })).result).toBe(`--- ${file('l.txt')} (lines 1-1 of 1) ---\ncafé\n`);
    });

    it('decodes as the encoding parameter says, on the main thread and on the pool alike', async () => {
        // Two bytes: too little for the detector, which leaves them Latin-1.
        const { tool, file } = await setupRead({ 'short.txt': sjis('あ'), 'other.txt': sjis('い') });
        expect((await one(tool('read_file'), { paths: ['short.txt'] })).result).toBe(`--- ${file('short.txt')} (lines 1-1 of 1) ---\n\x82\xa0`);
        const forced = (await one(tool('read_file'), { paths: ['short.txt'], encoding: 'Shift_JIS' })).result;
        expect(forced).toBe(`--- ${file('short.txt')} (lines 1-1 of 1) ---\nあ\n[Decoded as CP932 (Shift_JIS) (encoding parameter).]`);
        const both = await tool('read_file').execute({ paths: ['short.txt', 'other.txt'], encoding: 'shift_jis' });
        expect(both.map((r) => r.result)).toEqual([forced, `--- ${file('other.txt')} (lines 1-1 of 1) ---\nい\n[Decoded as CP932 (Shift_JIS) (encoding parameter).]`]);
    });

    it('refuses an unknown encoding name before reading, naming it', async () => {
        const { root, tool } = await setupRead({ 'a.c': sjis(SJIS_TEXT) });
        const before = snapshot(root);
        const r = await one(tool('read_file'), { paths: ['a.c'], encoding: 'shift-jiz' });
        expect(r.status).toBe('error');
        expect(r.result).toContain('encoding "shift-jiz" is not an encoding read_file can decode');
        expect(snapshot(root)).toEqual(before);
    });
});

describe('edits of legacy-encoded files', () => {
    for (const { encoding, lang } of CASES) {
        it(`writes ${encoding} back in ${encoding} for every edit tool`, async () => {
            const text = sampleText(encoding, lang, 2048, 11, 'code');
            const { tool, file } = await setupRead({ 'f.c': iconv.encode(text, encoding) }, { packageOptions: { editFile: true } });
            const lines = text.split('\n');
            const word = SENTENCES[lang]![0]!.slice(0, 4);
            const fits = (s: string): string => iconv.decode(iconv.encode(s, encoding), encoding);
            let expected = text;
            // Western text with no byte that reads otherwise in Latin-1 stays Latin-1, which write_file makes UTF-8 (as it always did).
            const latin1 = textEncodingOf(iconv.encode(text, encoding)).encoding === 'latin1';
            const check = async (name: string, args: Record<string, unknown>, next: string): Promise<void> => {
                const r = await one(tool(name), args);
                expect(r.status, `${name}: ${r.result}`).toBe('success');
                expected = next;
                const written = name === 'write_file' && latin1 ? Buffer.from(expected, 'utf8') : iconv.encode(expected, encoding);
                expect(fs.readFileSync(file('f.c')).equals(written), name).toBe(true);
                await one(tool('read_file'), { paths: ['f.c'] });
            };
            const line3 = fits(`/* ${SENTENCES[lang]![1]} */`);
            await check('replace_file_lines', { path: 'f.c', start_line: 3, content: line3 }, [...lines.slice(0, 2), line3, ...lines.slice(3)].join('\n'));
            const inserted = fits(`// ${word}`);
            await check('insert_file_content', { path: 'f.c', line: 1, content: inserted }, `${inserted}\n${expected}`);
            await check('replace_file_content', { path: 'f.c', old_content: 'fclose(f);', new_content: `fclose(f); /* ${word} */`, replace_all: true }, expected.replaceAll('fclose(f);', `fclose(f); /* ${word} */`));
            await check('edit_file', { path: 'f.c', edits: [{ old_content: inserted, new_content: `${inserted}!` }] }, expected.replace(inserted, `${inserted}!`));
            await check('write_file', { path: 'f.c', content: `${expected}// ${word}\n` }, `${expected}// ${word}\n`);
        });
    }

    it('keeps the bytes of lines it does not touch even where decoding and encoding differ', async () => {
        // 0xED40 (an NEC-selected IBM extension) and 0xFA5C both read as 纊, which CP932 writes as
        // 0xFA5C: the first line may not change when another is edited.
        const body = sjis(SJIS_TEXT.repeat(20));
        const odd = Buffer.concat([Buffer.from([0xed, 0x40, 0x0a]), body, Buffer.from([0xed, 0x40, 0x0a]), body]);
        const { tool, file } = await setupRead({ 'odd.c': odd });
        const r = await one(tool('replace_file_lines'), { path: 'odd.c', start_line: 2, content: '// 変更しました' });
        expect(r.status, r.result).toBe('success');
        const firstLineEnd = body.indexOf(10) + 1;
        const expected = Buffer.concat([Buffer.from([0xed, 0x40, 0x0a]), sjis('// 変更しました\n'), body.subarray(firstLineEnd), Buffer.from([0xed, 0x40, 0x0a]), body]);
        expect(fs.readFileSync(file('odd.c')).equals(expected)).toBe(true);
    });

    it('keeps a GBK file GBK: a character only GB18030\'s four-byte codes hold is refused, unless the file has such codes', async () => {
        const text = sampleText('gbk', 'zhHans', 2048, 4, 'prose');
        const { root, tool, file } = await setupRead({ 'gbk.txt': iconv.encode(text, 'gbk'), 'gb18030.txt': iconv.encode(`${text}表情 😀\n`, 'gb18030') });
        const before = snapshot(root);
        const r = await one(tool('insert_file_content'), { path: 'gbk.txt', content: '笑脸 😀' });
        expect(r.status).toBe('error');
        expect(r.result).toContain('is GBK (the file has no four-byte GB18030 codes) text, which cannot hold "😀" (U+1F600); nothing was written');
        expect(snapshot(root)).toEqual(before);
        expect((await one(tool('insert_file_content'), { path: 'gbk.txt', content: '价格 €' })).status).toBe('success');
        expect(fs.readFileSync(file('gbk.txt')).equals(iconv.encode(`${text}价格 €\n`, 'gbk'))).toBe(true);
        expect((await one(tool('insert_file_content'), { path: 'gb18030.txt', content: '笑脸 😀' })).status).toBe('success');
        expect(fs.readFileSync(file('gb18030.txt')).equals(iconv.encode(`${text}表情 😀\n笑脸 😀\n`, 'gb18030'))).toBe(true);
    });

    it('refuses a character the encoding cannot hold, naming it and the encoding, and writes nothing', async () => {
        const { root, tool } = await setupRead({ 'a.c': sjis(SJIS_TEXT.repeat(10)) }, { packageOptions: { editFile: true } });
        const before = snapshot(root);
        const calls: [string, Record<string, unknown>][] = [
            ['replace_file_lines', { path: 'a.c', start_line: 2, content: 'price = "5 €"; // 😀' }],
            ['insert_file_content', { path: 'a.c', content: 'ok 東京 but not ü' }],
            ['replace_file_content', { path: 'a.c', old_content: 'return 0;', new_content: 'return "😀";', replace_all: true }],
            ['edit_file', { path: 'a.c', edits: [{ old_content: 'int', new_content: 'ints 😀' }] }],
            ['write_file', { path: 'a.c', content: 'Grüße 😀\n' }],
        ];
        for (const [name, args] of calls) {
            const r = await one(tool(name), args);
            expect(r.status, name).toBe('error');
            expect(r.result).toMatch(/is CP932 \(Shift_JIS\) text, which cannot hold "(€|😀|ü)" \(U\+[0-9A-F]{4,5}\); nothing was written/);
            expect(snapshot(root)).toEqual(before);
        }
    });
});
