import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { decodeText, scanText, textEncodingOf } from '../../../src/text/shared/text.js';
import { DETECT_SAMPLE_BYTES, DetectionSample } from '../../../src/text/shared/legacy.js';
import { ENCODING_CASES, sampleTable, sampleText } from '../../support/encoding-samples.js';

/**
 * The encoding decision (text.ts textEncodingOf) on files made from known text with iconv-lite:
 * right when the file reads back as that text. ISO-8859-2 and Windows-1250, or Latin-1,
 * Windows-1252 and ISO-8859-15, hold many texts in the same bytes: any of them that reads the
 * text back is right.
 */

/** The table: prose and C code with comments, 1, 2, 4 and 16 KB, 3 seeds each, per encoding case. */
const TABLE = sampleTable([1024, 2048, 4096, 16384], 3);

function readsBack(bytes: Buffer, text: string): boolean {
    const decoded = decodeText(bytes);
    return decoded.ok && decoded.text === text;
}

describe('legacy encoding detection', () => {
    it('reads back at least 98% of the files of 1 KB or more, per encoding as a table', () => {
        const rows = new Map<string, { right: number; files: number; wrong: Set<string> }>();
        for (const s of TABLE) {
            const key = `${s.encoding} (${s.lang})`;
            const row = rows.get(key) ?? { right: 0, files: 0, wrong: new Set<string>() };
            row.files++;
            if (readsBack(s.bytes, s.text)) row.right++;
            else row.wrong.add(JSON.stringify(textEncodingOf(s.bytes)));
            rows.set(key, row);
        }
        const right = [...rows.values()].reduce((n, r) => n + r.right, 0);
        const lines = [...rows].map(([k, r]) => `${k.padEnd(26)} ${String(r.right).padStart(3)}/${r.files}${r.wrong.size > 0 ? `  read as ${[...r.wrong].join(', ')}` : ''}`);
        console.log(`encoding detection, files of 1 KB or more:\n${lines.join('\n')}\ntotal ${right}/${TABLE.length} = ${((100 * right) / TABLE.length).toFixed(1)}%`);
        expect(TABLE.every((s) => s.bytes.length >= 1024)).toBe(true);
        expect(right / TABLE.length).toBeGreaterThanOrEqual(0.98);
    });

    it('keeps valid UTF-8 and BOMs first, whatever a detector would say', () => {
        const text = sampleText('shift_jis', 'ja', 2048, 1, 'prose');
        expect(textEncodingOf(Buffer.from(text, 'utf8'))).toEqual({ encoding: 'utf8', bom: false });
        const sjis = iconv.encode(text, 'shift_jis');
        expect(textEncodingOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), sjis]))).toEqual({ encoding: 'utf8', bom: true });
        expect(textEncodingOf(Buffer.concat([Buffer.from([0xff, 0xfe]), sjis]))).toEqual({ encoding: 'utf16le', bom: true });
        // ISO-2022-JP is 7-bit: valid UTF-8 (ASCII), so it stays UTF-8 rather than being guessed.
        expect(textEncodingOf(iconv.encode('abc', 'shift_jis'))).toEqual({ encoding: 'utf8', bom: false });
    });

    it('keeps Western text Latin-1, as it always was, and names Windows-1252 only for its own bytes', () => {
        expect(textEncodingOf(Buffer.from('café, très\n', 'latin1'))).toEqual({ encoding: 'latin1', bom: false });
        const de = sampleText('iso-8859-1', 'de', 4096, 3, 'prose');
        expect(textEncodingOf(iconv.encode(de, 'latin1'))).toEqual({ encoding: 'latin1', bom: false });
        // Curly quotes are 0x91-0x94 in Windows-1252 and C1 controls in Latin-1.
        const quoted = `${de}\u201Cso\u201D, sagte er \u2013 und ging.\n`;
        const bytes = iconv.encode(quoted, 'windows-1252');
        expect(decodeText(bytes)).toMatchObject({ ok: true, text: quoted });
    });

    it('leaves short and ambiguous files Latin-1 when the evidence is thin, and never loses a byte', () => {
        for (const bytes of [
            Buffer.from([0x82, 0xa0]), // one Shift-JIS character: too little to tell
            Buffer.from('x = 1 # \xe9\n', 'latin1'),
            Buffer.from('na\xefve\n', 'latin1'),
        ]) {
            const info = textEncodingOf(bytes);
            expect(['latin1', 'legacy']).toContain(info.encoding);
            const decoded = decodeText(bytes);
            expect(decoded.ok).toBe(true);
            // Whatever was decided, the scan and the index see what a read sees.
            if (decoded.ok) expect(scanText(bytes)).toBe(decoded.text);
        }
    });

    it('reads short files (100 and 300 bytes) mostly right too (figure printed, not a target)', () => {
        const short = sampleTable([100, 300], 2);
        const right = short.filter((s) => readsBack(s.bytes, s.text)).length;
        console.log(`encoding detection, files of 100-300 bytes: ${right}/${short.length} = ${((100 * right) / short.length).toFixed(1)}%`);
        expect(right / short.length).toBeGreaterThan(0.8);
    });

    it('decides a mixed file (UTF-8 with one stray Latin-1 byte, or Shift-JIS after ASCII pages) by its non-ASCII part', () => {
        const ja = sampleText('shift_jis', 'ja', 2048, 5, 'code');
        const late = `${'int x = 0; // plain ASCII line of code\n'.repeat(3000)}${ja}`;
        expect(decodeText(iconv.encode(late, 'shift_jis'))).toMatchObject({ ok: true, text: late, info: { encoding: 'legacy', legacy: 'cp932' } });
        const mixed = Buffer.concat([Buffer.from('naïve ✓ déjà vu\n'.repeat(20), 'utf8'), Buffer.from([0xe9, 0x0a])]);
        const decoded = decodeText(mixed);
        expect(decoded.ok).toBe(true);
        // Not valid UTF-8, so not read as UTF-8; whatever it is read as, its bytes are all kept.
        if (decoded.ok) expect(decoded.info.encoding).not.toBe('utf8');
    });

    it('finds a few legacy comments in a large file of ASCII code (the ASCII lines do not dilute the guess)', () => {
        const code = 'static int read_config(const char *path, struct config *out) { return parse(path, out); }\n';
        for (const [encoding, comment] of [['shift_jis', '/* 設定ファイルを読み込み、値を検証する */'], ['gbk', '/* 读取配置文件并检查每一项的值 */'], ['euc-kr', '/* 설정 파일을 읽고 값을 검사합니다 */'], ['windows-1251', '/* Читает файл настроек и проверяет значения */']] as const) {
            const text = `${code.repeat(300)}${comment}\n${code.repeat(300)}${comment}\n${code.repeat(300)}`;
            expect(decodeText(iconv.encode(text, encoding)), encoding).toMatchObject({ ok: true, text, info: { encoding: 'legacy' } });
        }
    });

    it('gathers the same sample fed whole or in pieces of any size', () => {
        const text = `${'ascii line\n'.repeat(50)}${sampleText('big5', 'zhHant', 4096, 2, 'code')}${'x'.repeat(70_000)}\n${sampleText('big5', 'zhHant', 90_000, 3, 'prose')}`;
        const bytes = iconv.encode(text, 'big5');
        const whole = new DetectionSample();
        whole.feed(bytes);
        const sample = whole.bytes();
        expect(sample.length).toBe(DETECT_SAMPLE_BYTES);
        for (const size of [7, 100, 4096, 65_537]) {
            const pieces = new DetectionSample();
            for (let at = 0; at < bytes.length && !pieces.full; at += size) pieces.feed(Buffer.from(bytes.subarray(at, at + size)));
            expect(pieces.bytes().equals(sample), `pieces of ${size}`).toBe(true);
        }
    });

    it('gathers the lines holding a non-ASCII byte, each cut at the sample size, fed in any pieces (generated lines)', () => {
        // What the sample is, written plainly: every line (its newline included) with a byte above
        // 0x7f, its first DETECT_SAMPLE_BYTES bytes, in order, until DETECT_SAMPLE_BYTES in all.
        const plain = (bytes: Buffer): Buffer => {
            const out: Buffer[] = [];
            let size = 0;
            for (let at = 0; at < bytes.length && size < DETECT_SAMPLE_BYTES; ) {
                const nl = bytes.indexOf(10, at);
                const line = bytes.subarray(at, nl === -1 ? bytes.length : nl + 1);
                at += line.length;
                if (!line.some((b) => b > 0x7f)) continue;
                const take = line.subarray(0, Math.min(DETECT_SAMPLE_BYTES, DETECT_SAMPLE_BYTES - size));
                out.push(take);
                size += take.length;
            }
            return Buffer.concat(out);
        };
        const line = fc.oneof(
            { weight: 6, arbitrary: fc.stringMatching(/^[ -~]{0,40}\n$/) },
            { weight: 2, arbitrary: fc.tuple(fc.stringMatching(/^[ -~]{0,20}$/), fc.constantFrom('\u00e9', '\u00ff', '\u0080'), fc.stringMatching(/^[ -~]{0,20}\n$/)).map((p) => p.join('')) },
            { weight: 1, arbitrary: fc.tuple(fc.nat(80_000), fc.boolean()).map(([n, high]) => `${'a'.repeat(n)}${high ? '\u00e9' : ''}\n`) },
            { weight: 1, arbitrary: fc.constant('\n') },
        );
        fc.assert(
            fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.array(fc.integer({ min: 1, max: 90_000 }), { minLength: 1, maxLength: 4 }), (lines, cutLast, sizes) => {
                let bytes = Buffer.from(lines.join(''), 'latin1');
                if (cutLast && bytes.length > 0) bytes = bytes.subarray(0, bytes.length - 1);
                const want = plain(bytes);
                const whole = new DetectionSample();
                whole.feed(bytes);
                expect(whole.bytes().equals(want)).toBe(true);
                const pieces = new DetectionSample();
                for (let at = 0, k = 0; at < bytes.length && !pieces.full; k++) {
                    const size = sizes[k % sizes.length]!;
                    pieces.feed(Buffer.from(bytes.subarray(at, at + size)));
                    at += size;
                }
                expect(pieces.bytes().equals(want)).toBe(true);
            }),
            { seed: 20_261_205, numRuns: 300 },
        );
    });

    it('covers every encoding the issue names', () => {
        const names = new Set(ENCODING_CASES.map((c) => c.encoding));
        for (const n of ['shift_jis', 'euc-jp', 'gbk', 'gb18030', 'big5', 'euc-kr', 'windows-1250', 'windows-1251', 'windows-1252', 'iso-8859-2', 'iso-8859-5', 'iso-8859-7']) expect(names).toContain(n);
    });
});
