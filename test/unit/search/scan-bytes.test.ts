/**
 * workers/search/scan.ts and prefilter.ts on buffers: a content scan's line numbers, anchors,
 * decoding, the cap on a hit's text and the window around a long line's match, and the literal
 * prefilter. The same scan through the pool is in test/integration/search/.
 */
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../../src/search/regex.js';
import { findLiteral, planLiteral } from '../../../workers/search/prefilter.js';
import { makeMatcher, MAX_HIT_TEXT, scanBytes, type LineHit } from '../../../workers/search/scan.js';

describe('content scan', () => {
    const scan = (text: string | Buffer, pattern: string, max = 1000): LineHit[] => {
        const out: LineHit[] = [];
        scanBytes(Buffer.isBuffer(text) ? text : Buffer.from(text), makeMatcher(compilePattern(pattern)), max, out);
        return out;
    };
    it('finds a literal case-insensitively through its rarest byte', () => {
        const buf = Buffer.from('xx MuTeX_LoCk yy mutex_lock');
        const plan = planLiteral('mutex_lock');
        expect(findLiteral(buf, plan, 0)).toBe(3);
        expect(findLiteral(buf, plan, 4)).toBe(17);
        expect(findLiteral(buf, plan, 18)).toBe(-1);
    });
    it('decodes the lines of a legacy file, and drops lines whose literal was only a trail byte', () => {
        // In Shift-JIS "ア" is 83 41 and "ソ" is 83 5C: their trail bytes read as "A" and "\\".
        const body = '// 設定ファイルを読み込み、各項目の値を検証します。東京の天気は晴れ。\n'.repeat(30);
        const text = `${body}アbc = 1; // ソ\nAbc = 2; // 本物\n${body}`;
        const bytes = iconv.encode(text, 'shift_jis');
        expect(bytes.includes(Buffer.from('Abc'))).toBe(true);
        const first = body.split('\n').length;
        // The raw bytes of line `first` hold "Abc" (a candidate), its text does not.
        expect(scan(bytes, 'Abc')).toEqual([{ line: first + 1, text: 'Abc = 2; // 本物' }]);
        expect(scan(bytes, 'bc = 1; // ソ')).toEqual([{ line: first, text: 'アbc = 1; // ソ' }]);
        expect(scan(bytes, '本物')).toEqual([{ line: first + 1, text: 'Abc = 2; // 本物' }]);
    });
    it('reports exact line numbers, one hit per line, with and without a literal', () => {
        const text = 'alpha\nbeta needle\n\nNEEDLE needle\nlast needle';
        for (const p of ['needle', 'ne+dle', '(needle|zzz)']) {
            expect(scan(text, p)).toEqual([
                { line: 2, text: 'beta needle' },
                { line: 4, text: 'NEEDLE needle' },
                { line: 5, text: 'last needle' },
            ]);
        }
    });
    it('anchors ^ and $ at line boundaries, CRLF lines included, and trims \\r', () => {
        const text = 'foo\r\nbar foo\r\nfoo bar\r\n';
        expect(scan(text, '^foo')).toEqual([
            { line: 1, text: 'foo' },
            { line: 3, text: 'foo bar' },
        ]);
        expect(scan(text, 'foo$')).toEqual([
            { line: 1, text: 'foo' },
            { line: 2, text: 'bar foo' },
        ]);
        expect(scan('a\n\nb\n', '^$')).toEqual([{ line: 2, text: '' }]);
    });
    it('never counts a match spanning lines', () => {
        expect(scan('foo\nbar\n', 'foo\\sbar')).toEqual([]);
        expect(scan('foo\nbar\n', 'o[^x]*b')).toEqual([]);
        expect(scan('xa\nab\n', 'a[^z]*b')).toEqual([{ line: 2, text: 'ab' }]);
    });
    it('decodes Latin-1, UTF-8 with BOM and UTF-16 text', () => {
        expect(scan(Buffer.from('caf\xe9\ncr\xe8me\n', 'latin1'), 'cr.me')).toEqual([{ line: 2, text: 'crème' }]);
        expect(scan(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('grüße\n')]), 'grüße')).toEqual([{ line: 1, text: 'grüße' }]);
        const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('one\ntwo needle\n', 'utf16le')]);
        expect(scan(le, 'needle')).toEqual([{ line: 2, text: 'two needle' }]);
    });
    it('caps the line text at 500 characters and hits at max', () => {
        const [hit] = scan(`${'x'.repeat(1000)} needle\n`, 'x');
        expect(hit!.text).toHaveLength(500);
        expect(hit!.text!.endsWith('…')).toBe(true);
        expect(scan('a\na\na\na\n', 'a', 2)).toHaveLength(2);
    });
    it('shows a long line around its first match, marking the cuts with …', () => {
        const exact = 'q'.repeat(MAX_HIT_TEXT - 6) + 'needle';
        expect(scan(`${exact}\n`, 'needle')).toEqual([{ line: 1, text: exact }]);
        const line = `${'x'.repeat(549)}needle${'y'.repeat(1000)}`;
        for (const p of ['needle', 'n[e]+dle', 'x(needle|zzz)']) {
            const [hit] = scan(`first\n${line}\n`, p);
            expect(hit!.line, p).toBe(2);
            expect(hit!.text!.length, p).toBeLessThanOrEqual(MAX_HIT_TEXT);
            expect(hit!.text, p).toMatch(/^…x+needley+…$/);
        }
        // A match near the end: the window ends with the line, no end marker.
        const [end] = scan(`${'x'.repeat(2000)}needle\n`, 'needle');
        expect(end!.text).toMatch(/^…x+needle$/);
        expect(end!.text).toHaveLength(MAX_HIT_TEXT);
        // A match within the first 500 characters: the line's start is kept.
        const [start] = scan(`ab needle ${'z'.repeat(1000)}\n`, 'needle');
        expect(start!.text).toMatch(/^ab needle z+…$/);
        // Context lines longer than the cap are cut at the end and marked too.
        const ctx: LineHit[] = [];
        scanBytes(Buffer.from(`${'c'.repeat(800)}\nneedle\n`), makeMatcher(compilePattern('needle')), 10, ctx, 1);
        expect(ctx[0]!.before![0]).toBe(`${'c'.repeat(MAX_HIT_TEXT - 1)}…`);
    });
});
