import { isUtf8 } from 'node:buffer';
import { isBinaryFileSync } from 'isbinaryfile';
import { decodeLegacy, detectLegacy, encodeLegacy } from './legacy.js';

/**
 * Text decoding and the line model shared by reads, edits and search.
 *
 * Line counting: `"a\nb\n"` has 2 lines, `"a\nb"` has 2 lines, `""` has 0; numbers are 1-based.
 */

/** How a file's bytes map to text, kept so an edit writes them back the same way. */
export interface TextEncodingInfo {
    encoding: 'utf8' | 'latin1' | 'utf16le' | 'utf16be' | 'legacy';
    /** The file starts with a byte-order mark (kept on write, never doubled). */
    bom: boolean;
    /** For `legacy`: the ASCII-compatible encoding's iconv-lite name (`cp932`, `euc-jp`, `windows-1250`; see legacy.ts). */
    legacy?: string;
}

export type DecodeResult = { ok: true; text: string; info: TextEncodingInfo } | { ok: false; reason: 'binary' };

/** Bytes sampled from the start of a file to decide text or binary (isbinaryfile reads 512). */
export const BINARY_SAMPLE_BYTES = 512;

/**
 * How {@link decodeText} reads text bytes (binary or not): a BOM decides UTF-8/UTF-16 (UTF-8
 * after a BOM is decoded leniently, invalid bytes as U+FFFD); otherwise valid UTF-8 is UTF-8;
 * anything else is the legacy encoding the detector names with confidence (Shift-JIS, GBK,
 * Windows-1251, ... see legacy.ts `detectLegacy`), else Latin-1. The one encoding decision
 * shared by reads, edits, the search scan and the index.
 * Perf: the detector runs only on bytes that are not valid UTF-8 (isUtf8 is simdutf's).
 */
export function textEncodingOf(bytes: Uint8Array): TextEncodingInfo {
    const bom = bomEncodingOf(bytes);
    if (bom !== null) return bom;
    if (isUtf8(bytes)) return { encoding: 'utf8', bom: false };
    const legacy = detectLegacy(bytes);
    return legacy === null ? { encoding: 'latin1', bom: false } : { encoding: 'legacy', bom: false, legacy };
}

/** The encoding a byte-order mark at the start of `bytes` names, or `null` without one. */
function bomEncodingOf(bytes: Uint8Array): TextEncodingInfo | null {
    if (hasUtf8Bom(bytes)) return { encoding: 'utf8', bom: true };
    if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf16le', bom: true };
    if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf16be', bom: true };
    return null;
}

/**
 * `bytes` read as the caller says (read_file's `encoding`), not as detected: a BOM of that very
 * encoding is still left out of the text.
 */
export function forcedEncodingOf(bytes: Uint8Array, forced: TextEncodingInfo['encoding'], legacy?: string): TextEncodingInfo {
    const bom = bomEncodingOf(bytes);
    if (bom !== null && bom.encoding === forced) return bom;
    return forced === 'legacy' ? { encoding: 'legacy', bom: false, legacy: legacy! } : { encoding: forced, bom: false };
}

/** `bytes` start with the UTF-8 byte-order mark (EF BB BF). */
export function hasUtf8Bom(bytes: Uint8Array): boolean {
    return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** `bytes` start with a UTF-16 byte-order mark (FF FE or FE FF): {@link textEncodingOf} reads them as UTF-16. */
export function hasUtf16Bom(bytes: Uint8Array): boolean {
    return bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
}

/** The text of `bytes` read as `info` says (a byte-order mark left out; an odd last byte of UTF-16 dropped). */
export function textOf(bytes: Buffer, info: TextEncodingInfo): string {
    switch (info.encoding) {
        case 'utf8':
            return bytes.toString('utf8', info.bom ? 3 : 0);
        case 'latin1':
            return bytes.toString('latin1');
        case 'utf16le':
            return bytes.toString('utf16le', info.bom ? 2 : 0);
        case 'utf16be': {
            const from = info.bom ? 2 : 0;
            const swapped = Buffer.from(bytes.subarray(from, from + ((bytes.length - from) & ~1)));
            swapped.swap16();
            return swapped.toString('utf16le');
        }
        case 'legacy':
            return decodeLegacy(bytes, info.legacy!);
    }
}

/**
 * The text the search scan matches for a text file's bytes, binary or not (workers/search/scan.ts
 * `eachMatchInBytes`, and what the index build splits into grams): {@link textEncodingOf}'s
 * decision, as reads decode it.
 */
export function scanText(bytes: Buffer): string {
    return textOf(bytes, textEncodingOf(bytes));
}

/**
 * Decodes file bytes by content: a BOM decides UTF-8/UTF-16; otherwise a binary check on the
 * first 512 bytes (isbinaryfile), then {@link textEncodingOf} (never throws). With `forced`
 * (read_file's `encoding`), that encoding; UTF-16 then skips the binary check (its NUL bytes).
 */
export function decodeText(bytes: Buffer, forced?: TextEncodingInfo): DecodeResult {
    const bom = forced ?? bomEncodingOf(bytes);
    const utf16 = bom !== null && (bom.encoding === 'utf16le' || bom.encoding === 'utf16be');
    if (!(bom?.bom === true || (forced !== undefined && utf16)) && isBinary(bytes)) return { ok: false, reason: 'binary' };
    const info = bom ?? textEncodingOf(bytes);
    return { ok: true, text: textOf(bytes, info), info };
}

/**
 * True when the first bytes look binary (NUL bytes, many control characters). isbinaryfile counts
 * every byte that is not valid UTF-8 as suspicious, so short Latin-1 text ("café, très") would
 * be called binary: a sample without NUL bytes and with hardly any control characters (at most
 * 1%, besides whitespace and ESC) is text.
 */
export function isBinary(bytes: Buffer): boolean {
    if (bytes.length === 0) return false;
    const sample = bytes.length > BINARY_SAMPLE_BYTES ? bytes.subarray(0, BINARY_SAMPLE_BYTES) : bytes;
    if (isPlainText(sample)) return false;
    if (!isBinaryFileSync(sample, sample.length)) return false;
    // A PDF starts as readable text but is binary (isbinaryfile decides it by this signature too).
    return sample.subarray(0, 5).toString('latin1') === '%PDF-' || !looksLikeLatin1Text(sample);
}

/**
 * Bytes isbinaryfile 5.0.7 never counts as suspicious: BEL..SO (7-14) and printable ASCII with
 * DEL (32-127). A sample made only of them has no NUL and no suspicious byte, so isbinaryfile
 * calls it text unless it starts with `%PDF-` (its one signature test that such bytes can pass).
 */
const PLAIN = new Uint8Array(256);
for (let b = 7; b <= 14; b++) PLAIN[b] = 1;
for (let b = 32; b <= 127; b++) PLAIN[b] = 1;

/**
 * The sample is plain ASCII text by isbinaryfile's own rules (see {@link PLAIN}), so `isBinary`
 * is false without running it. Perf: isbinaryfile's byte loop (BOM, UTF-8 sequence and protobuf
 * checks) takes 8-10% of a content search's CPU time on the Linux tree (bench/profile.ts walker
 * under --cpu-prof); this table loop settles most source files' samples in a fraction of that.
 */
function isPlainText(sample: Uint8Array): boolean {
    for (let i = 0; i < sample.length; i++) if (PLAIN[sample[i]!] === 0) return false;
    // %PDF-: isbinaryfile's signature test (a PDF's header is plain ASCII).
    return !(sample.length >= 5 && sample[0] === 0x25 && sample[1] === 0x50 && sample[2] === 0x44 && sample[3] === 0x46 && sample[4] === 0x2d);
}

/** No NUL byte and at most 1% C0 control characters other than BEL..CR and ESC (random bytes have ~10%). */
function looksLikeLatin1Text(sample: Uint8Array): boolean {
    let controls = 0;
    for (const b of sample) {
        if (b === 0) return false;
        if (b < 7 || (b > 13 && b < 32 && b !== 27) || b === 127) controls++;
    }
    return controls * 100 <= sample.length;
}

/**
 * Encodes text back to bytes with the file's original encoding and BOM.
 * @throws RangeError for text a legacy encoding cannot hold (check with reencode.ts first).
 */
export function encodeText(text: string, info: TextEncodingInfo): Buffer {
    switch (info.encoding) {
        case 'utf8':
            return Buffer.concat([info.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text, 'utf8')]);
        case 'latin1':
            return Buffer.from(text, 'latin1');
        case 'utf16le':
            return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
        case 'utf16be': {
            const body = Buffer.from(text, 'utf16le');
            body.swap16();
            return Buffer.concat([Buffer.from([0xfe, 0xff]), body]);
        }
        case 'legacy': {
            const encoded = encodeLegacy(text, info.legacy!);
            if (!encoded.ok) throw new RangeError(`${info.legacy} cannot hold ${JSON.stringify(encoded.char)}`);
            return encoded.bytes;
        }
    }
}

/** Text split into lines, each with its own terminator (`\n`, `\r\n` or `''` for a last line without one). */
export interface Lines {
    lines: string[];
    eols: string[];
}

/** Splits text into lines and their terminators; `""` gives no lines. */
export function splitLines(text: string): Lines {
    const lines: string[] = [];
    const eols: string[] = [];
    let start = 0;
    while (start < text.length) {
        const nl = text.indexOf('\n', start);
        if (nl === -1) {
            lines.push(text.slice(start));
            eols.push('');
            break;
        }
        const crlf = nl > start && text.charCodeAt(nl - 1) === 13;
        lines.push(text.slice(start, crlf ? nl - 1 : nl));
        eols.push(crlf ? '\r\n' : '\n');
        start = nl + 1;
    }
    return { lines, eols };
}

/** Joins lines and terminators back into text. */
export function joinLines({ lines, eols }: Lines): string {
    let out = '';
    for (let i = 0; i < lines.length; i++) out += lines[i]! + eols[i]!;
    return out;
}

/** The file's dominant line ending: `\r\n` when most terminated lines use it, else `\n`. */
export function dominantEol(eols: readonly string[]): '\n' | '\r\n' {
    let crlf = 0;
    let lf = 0;
    for (const e of eols) {
        if (e === '\r\n') crlf++;
        else if (e === '\n') lf++;
    }
    return crlf > lf ? '\r\n' : '\n';
}

/** The dominant line ending of `text`: `\r\n` when most of its line breaks are CRLF, else `\n` (also for text without one). */
export function textEol(text: string): '\n' | '\r\n' {
    let lf = 0;
    let crlf = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
        if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
        else lf++;
    }
    return crlf > lf ? '\r\n' : '\n';
}

/**
 * Model-supplied text with every line break (`\r\n` or `\n`) written as `eol`, the ending of the
 * file it goes into: the one conversion of caller text for edits that splice it into a file
 * (whole lines go through {@link contentLines}, which ends each with `eol` too).
 */
export function withEol(content: string, eol: '\n' | '\r\n'): string {
    return content.replace(/\r?\n/g, eol);
}

/**
 * Lines of model-supplied text for insertion into a file whose line ending is `eol`: one trailing
 * newline is dropped (it only terminates the last line), `\r\n` and `\n` both split lines.
 */
export function contentLines(content: string, eol: string): Lines {
    const body = content.endsWith('\r\n') ? content.slice(0, -2) : content.endsWith('\n') ? content.slice(0, -1) : content;
    const lines = body.split(/\r?\n/);
    return { lines, eols: lines.map(() => eol) };
}
