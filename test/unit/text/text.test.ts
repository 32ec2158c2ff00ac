/** fs/text.ts: decoding by content, writing back the same way, and the line model. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BINARY_SAMPLE_BYTES, contentLines, decodeText, dominantEol, encodeText, isBinary, joinLines, splitLines, type TextEncodingInfo } from '../../../src/text/shared/text.js';

describe('decodeText', () => {
    it('decides UTF-8 and UTF-16 by their byte-order marks, keeping the mark out of the text', () => {
        expect(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toEqual({ ok: true, text: 'hi', info: { encoding: 'utf8', bom: true } });
        expect(decodeText(Buffer.from([0xff, 0xfe, 0x68, 0x00, 0xe9, 0x00]))).toEqual({ ok: true, text: 'hé', info: { encoding: 'utf16le', bom: true } });
        expect(decodeText(Buffer.from([0xfe, 0xff, 0x00, 0x68, 0x00, 0xe9]))).toEqual({ ok: true, text: 'hé', info: { encoding: 'utf16be', bom: true } });
        // An odd trailing byte of UTF-16BE is dropped, not misread.
        expect(decodeText(Buffer.from([0xfe, 0xff, 0x00, 0x68, 0x00]))).toEqual({ ok: true, text: 'h', info: { encoding: 'utf16be', bom: true } });
    });

    it('reads valid UTF-8 as UTF-8 and anything else that looks like text as Latin-1', () => {
        expect(decodeText(Buffer.from('naïve ✓\n', 'utf8'))).toEqual({ ok: true, text: 'naïve ✓\n', info: { encoding: 'utf8', bom: false } });
        expect(decodeText(Buffer.from('café, très\n', 'latin1'))).toEqual({ ok: true, text: 'café, très\n', info: { encoding: 'latin1', bom: false } });
        expect(decodeText(Buffer.alloc(0))).toEqual({ ok: true, text: '', info: { encoding: 'utf8', bom: false } });
    });

    it('calls NUL bytes, random bytes and PDFs binary', () => {
        expect(decodeText(Buffer.from('a\0b'))).toEqual({ ok: false, reason: 'binary' });
        const random = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 197 + 13) % 256));
        expect(decodeText(random)).toEqual({ ok: false, reason: 'binary' });
        expect(isBinary(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 5 /Filter /FlateDecode >>\nstream\n\x00\x01', 'latin1'))).toBe(true);
    });

    it('samples the first BINARY_SAMPLE_BYTES bytes only', () => {
        const late = Buffer.concat([Buffer.alloc(BINARY_SAMPLE_BYTES, 'a'), Buffer.from([0, 0, 0])]);
        expect(isBinary(late)).toBe(false);
        expect(isBinary(Buffer.concat([Buffer.from([0]), late]))).toBe(true);
    });
});

describe('encodeText', () => {
    const infos: TextEncodingInfo[] = [
        { encoding: 'utf8', bom: false },
        { encoding: 'utf8', bom: true },
        { encoding: 'utf16le', bom: true },
        { encoding: 'utf16be', bom: true },
    ];

    it('writes back the bytes it decoded, mark included, for every Unicode text', () => {
        fc.assert(
            fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom(...infos), (text, info) => {
                // Text starting with U+FEFF written without a mark reads back as a marked file.
                fc.pre(info.bom || !text.startsWith('\uFEFF'));
                const bytes = encodeText(text, info);
                const back = decodeText(bytes);
                // Without a mark, text that looks binary (control characters) is not read back as text: skip those.
                if (!info.bom && !back.ok) return;
                expect(back).toEqual({ ok: true, text, info });
                expect(encodeText(text, info).equals(bytes)).toBe(true);
            }),
            { seed: 9, numRuns: 1000 },
        );
    });

    it('round-trips Latin-1 text that is not valid UTF-8', () => {
        const text = 'Grüße aus Köln, ½ €?\n';
        const bytes = Buffer.from(text.replace('€', 'e'), 'latin1');
        const back = decodeText(bytes);
        expect(back.ok && back.info).toEqual({ encoding: 'latin1', bom: false });
        if (back.ok) expect(encodeText(back.text, back.info).equals(bytes)).toBe(true);
    });
});

describe('line model', () => {
    it('splits into lines with their own terminators; "" has none, a last line may have none', () => {
        expect(splitLines('')).toEqual({ lines: [], eols: [] });
        expect(splitLines('a\nb\n')).toEqual({ lines: ['a', 'b'], eols: ['\n', '\n'] });
        expect(splitLines('a\r\nb')).toEqual({ lines: ['a', 'b'], eols: ['\r\n', ''] });
        expect(splitLines('\n\r\n')).toEqual({ lines: ['', ''], eols: ['\n', '\r\n'] });
        expect(splitLines('lone\rcr\n')).toEqual({ lines: ['lone\rcr'], eols: ['\n'] });
    });

    it('joins back to the same text for any mix of endings', () => {
        const piece = fc.constantFrom('a', 'bc', '', ' ', '\r', '\n', '\r\n', 'ü');
        fc.assert(
            fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
                const text = pieces.join('');
                const split = splitLines(text);
                expect(joinLines(split)).toBe(text);
                expect(split.lines.every((l) => !l.includes('\n'))).toBe(true);
                expect(split.eols.slice(0, -1).every((e) => e !== '')).toBe(true);
            }),
            { seed: 9, numRuns: 2000 },
        );
    });

    it('takes the dominant ending by majority, LF on a tie or with no terminated line', () => {
        expect(dominantEol(['\r\n', '\r\n', '\n'])).toBe('\r\n');
        expect(dominantEol(['\r\n', '\n'])).toBe('\n');
        expect(dominantEol(['', ''])).toBe('\n');
        expect(dominantEol([])).toBe('\n');
    });

    it('makes model text into lines with the file ending, dropping one trailing newline', () => {
        expect(contentLines('a\nb\n', '\r\n')).toEqual({ lines: ['a', 'b'], eols: ['\r\n', '\r\n'] });
        expect(contentLines('a\r\nb', '\n')).toEqual({ lines: ['a', 'b'], eols: ['\n', '\n'] });
        expect(contentLines('a\n\n', '\n')).toEqual({ lines: ['a', ''], eols: ['\n', '\n'] });
        expect(contentLines('', '\n')).toEqual({ lines: [''], eols: ['\n'] });
    });
});
