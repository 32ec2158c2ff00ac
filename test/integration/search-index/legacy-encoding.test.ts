/**
 * Content search in files of legacy encodings, on the scan path and through the index
 * (support/index-pair.ts): a word of the file's language finds its line in Shift-JIS, EUC-JP,
 * GBK, Big5, EUC-KR and Windows-1251 files, shown decoded, with the same result both ways and the
 * index answering (but for a word with two Unicode forms); an ASCII word beside the CJK text (the byte prefilter's path) too.
 */
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { pair, same } from '../../support/index-pair.js';
import { sampleText } from '../../support/encoding-samples.js';
import { hasTwoForms } from '../../../src/search/shared/normal-form.js';

const NEEDLE: Record<string, { encoding: string; lang: string; word: string; line: string }> = {
    'sjis.c': { encoding: 'shift_jis', lang: 'ja', word: '文字化け', line: '/* 文字化けを直す: fix_mojibake() */' },
    'eucjp.c': { encoding: 'euc-jp', lang: 'ja', word: '表示速度', line: '/* 表示速度を改善: fix_eucjp() */' },
    'gbk.c': { encoding: 'gbk', lang: 'zhHans', word: '乱码问题', line: '/* 修复乱码问题: fix_gbk() */' },
    'big5.c': { encoding: 'big5', lang: 'zhHant', word: '亂碼問題', line: '/* 修正亂碼問題: fix_big5() */' },
    'euckr.c': { encoding: 'euc-kr', lang: 'ko', word: '글자깨짐', line: '/* 글자깨짐 수정: fix_euckr() */' },
    'cp1251.c': { encoding: 'windows-1251', lang: 'ru', word: 'кракозябры', line: '/* исправить кракозябры: fix_cp1251() */' },
};

/** Each file: 2 KB of its language as C code, the needle's line in the middle. */
function files(): Record<string, Buffer> {
    const out: Record<string, Buffer> = { 'plain.txt': Buffer.from('UTF-8 text: 文字化け in UTF-8\n') };
    for (const [name, n] of Object.entries(NEEDLE)) {
        const half = sampleText(n.encoding, n.lang, 1024, name.length, 'code');
        out[name] = iconv.encode(`${half}${n.line}\n${half}`, n.encoding);
    }
    return out;
}

describe('search in legacy encodings', () => {
    it('finds a word of the file\'s language, decoded, on the scan path and through the index alike', async () => {
        const p = await pair(files());
        for (const [name, n] of Object.entries(NEEDLE)) {
            const lineNo = sampleText(n.encoding, n.lang, 1024, name.length, 'code').split('\n').length;
            const found = await same(p, { content_pattern: n.word });
            expect(found.text, n.encoding).toContain(`${name}:${lineNo}: ${n.line}`);
            // A word with characters of two Unicode forms (Hangul syllables decompose to jamo) takes
            // the scan path, as every such pattern does; the others are answered by the index.
            expect(hasTwoForms(n.word), n.encoding).toBe(n.lang === 'ko');
            expect(found.answered, n.encoding).toBe(!hasTwoForms(n.word));
            // An ASCII word on the same line: the byte prefilter's candidate, decoded in the file's encoding.
            const ascii = await same(p, { content_pattern: n.line.match(/fix_\w+/)![0] });
            expect(ascii.text).toContain(`${name}:${lineNo}: ${n.line}`);
        }
        // The UTF-8 file is found as before, and the Japanese word only where it is.
        const ja = await same(p, { content_pattern: '文字化け', output_mode: 'files_with_matches' });
        expect(ja.text).toContain('plain.txt');
        expect(ja.text).toContain('sjis.c');
        expect(ja.text).not.toContain('gbk.c');
    });

    it('shows context lines of a legacy file decoded', async () => {
        const p = await pair(files());
        const r = await same(p, { content_pattern: '乱码问题', context_lines: 1 });
        expect(r.text).toContain('/* 修复乱码问题: fix_gbk() */');
        expect(r.text).not.toMatch(/[\x80-\x9f]/);
    });
});
