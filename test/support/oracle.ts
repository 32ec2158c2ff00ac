/**
 * The plainest search oracle: decode a file's bytes, split the text into lines and test each line
 * with `new RegExp(pattern, flags)`. The scan, the search tool and an index's query planner must
 * agree with it: the lines it gives are exactly the lines a content search reports, and a file
 * with any such line must never be ruled out by a prefilter or an index.
 *
 * Decoding is written out here rather than taken from src/text/shared/text.ts, so a wrong shared decision
 * shows up as a difference; only the binary rule (isbinaryfile plus the Latin-1 allowance) is the
 * project's own `isBinary`, which a file with a byte-order mark never goes through.
 */
import iconv from 'iconv-lite';
import { detectLegacy } from '../../src/text/shared/legacy.js';
import { isBinary } from '../../src/text/shared/text.js';
import type { LiteralQuery } from '../../src/search/shared/literals.js';

/** One line the pattern matches: 1-based number and text without its terminator. */
export interface OracleLine {
    line: number;
    text: string;
}

/** The text of a file as search and read_file see it, or null for a binary file (never searched). */
export function oracleDecode(bytes: Uint8Array): string | null {
    const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return new TextDecoder('utf-8', { ignoreBOM: true }).decode(b.subarray(3));
    // UTF-16: code units as they are (a lone surrogate stays, so an edit writes it back); an odd last byte is no character.
    if (b.length >= 2 && ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff))) {
        let s = '';
        for (let i = 2; i + 1 < b.length; i += 2) s += String.fromCharCode(b[0] === 0xff ? b[i]! | (b[i + 1]! << 8) : (b[i]! << 8) | b[i + 1]!);
        return s;
    }
    if (isBinary(b)) return null;
    try {
        return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(b);
    } catch {
        // The legacy encoding the detector names (a decision of jschardet's, taken as given),
        // decoded here by iconv-lite; else Latin-1 proper, byte = code point (TextDecoder's
        // 'latin1' is windows-1252).
        const legacy = detectLegacy(b);
        return legacy === null ? b.toString('latin1') : iconv.decode(b, legacy);
    }
}

/**
 * Lines of `text`: split at `\n`; a `\r` right before a `\n` belongs to the terminator; a lone `\r`
 * is text; the empty string after a final `\n` is no line (`"a\n"` has one line, `""` none).
 */
export function oracleSplit(text: string): string[] {
    const parts = text.split('\n');
    if (parts[parts.length - 1] === '') parts.pop();
    return parts.map((p, i) => (i < parts.length - 1 || text.endsWith('\n') ? p.replace(/\r$/, '') : p));
}

/**
 * The lines of `bytes` that `new RegExp(pattern, flags)` matches (none for a binary file). With
 * `nfcLines`, a line also matches when its NFC form does (the search's rule for a pattern holding
 * a character with two normal forms; see {@link hasTwoNormalForms}).
 */
export function oracleLines(bytes: Uint8Array, pattern: string, flags: string, nfcLines = false): OracleLine[] {
    return oracleTextLines(oracleDecode(bytes), pattern, flags, nfcLines);
}

/** {@link oracleLines} of a file already decoded by {@link oracleDecode} (`null`: binary, no lines). */
export function oracleTextLines(text: string | null, pattern: string, flags: string, nfcLines = false): OracleLine[] {
    if (text === null) return [];
    const re = new RegExp(pattern, flags.replace(/[gy]/g, ''));
    const out: OracleLine[] = [];
    oracleSplit(text).forEach((line, i) => {
        if (re.test(line) || (nfcLines && re.test(line.normalize('NFC')))) out.push({ line: i + 1, text: line });
    });
    return out;
}

/** `pattern` holds a character whose NFC and NFD forms differ: the search matches lines in NFC too. */
export function hasTwoNormalForms(pattern: string): boolean {
    return pattern.normalize('NFC') !== pattern.normalize('NFD');
}

/** ASCII lower-casing, the case folding of {@link LiteralQuery} literals. */
export function foldAscii(s: string): string {
    return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Whether `text` satisfies `query` (literals contained ASCII case-insensitively). */
export function satisfies(query: LiteralQuery, text: string): boolean {
    const folded = foldAscii(text);
    const check = (q: LiteralQuery): boolean => {
        switch (q.op) {
            case 'all':
                return true;
            case 'literal':
                return folded.includes(q.text);
            case 'and':
                return q.of.every(check);
            case 'or':
                return q.of.some(check);
        }
    };
    return check(query);
}

/**
 * Whether any line of the file matches: an index's query planner or a prefilter may rule out a
 * file only when this is false (`oracleLines` with the search's flags, `compilePattern(p).flags`).
 */
export function oracleMatchesFile(bytes: Uint8Array, pattern: string, flags: string): boolean {
    return oracleLines(bytes, pattern, flags).length > 0;
}
