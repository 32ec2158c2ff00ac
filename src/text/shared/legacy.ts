import { isAscii } from 'node:buffer';
import { createRequire } from 'node:module';

/**
 * Legacy (non-Unicode) encodings: detection with jschardet, decoding and encoding with
 * iconv-lite. Both are loaded at the first file that is neither valid UTF-8 nor marked by a
 * BOM, so the plain UTF-8 work of reads, the scan and the index never loads them (jschardet's
 * model takes ~110 ms and ~12 MB to load; iconv-lite's tables would add to every pool thread's
 * start-up if bundled with the worker).
 *
 * Only ASCII-compatible encodings are taken (bytes 0x00-0x7F are ASCII wherever they are not a
 * multi-byte character's trail byte, and 0x0A is never a trail byte): the scan's byte prefilter,
 * its line splitting on 0x0A and the edits' splice of unchanged lines rely on it.
 */

type Iconv = typeof import('iconv-lite');
type Jschardet = typeof import('jschardet');

let iconvLib: Iconv | undefined;
let detector: Jschardet | undefined;

function iconv(): Iconv {
    return (iconvLib ??= createRequire(import.meta.url)('iconv-lite') as Iconv);
}

/** Bytes of a file the detector reads at most: its lines holding a non-ASCII byte, in order. */
export const DETECT_SAMPLE_BYTES = 64 * 1024;

/**
 * Below this confidence the detector's guess is not taken (the file stays Latin-1). jschardet 4
 * scores right single-byte guesses low (0.16 on 1 KB of Czech in Windows-1250): the threshold
 * only keeps out guesses on little evidence (short Latin-1 text scores 0.05 as Windows-1257).
 * Measured in bench/encodings.ts and test/unit/text/encoding-detect.test.ts.
 */
export const MIN_CONFIDENCE = 0.1;

/**
 * The encodings the detector weighs (jschardet's internal names): the East Asian multi-byte ones,
 * the Windows code pages and ISO-8859 parts of Europe, KOI8. Leaving out the DOS, Mac and
 * mainframe code pages it also knows keeps a few stray bytes of Western text from being read as
 * one of them (two bytes, `20 A0`, scored 0.28 as the DOS Arabic cp720 with all of them in).
 */
const CANDIDATES = [
    'utf-8', 'ascii', 'cp932', 'shift_jis_2004', 'euc_jis_2004', 'gb18030', 'big5hkscs', 'cp949', 'euc_kr',
    'cp1250', 'cp1251', 'cp1252', 'cp1253', 'cp1254', 'cp1257',
    'iso8859-1', 'iso8859-2', 'iso8859-4', 'iso8859-5', 'iso8859-7', 'iso8859-9', 'iso8859-13', 'iso8859-15', 'iso8859-16',
    'koi8-r', 'koi8-u',
];

/** Names a detector or a caller may give that are never taken: not ASCII-compatible, stateful or Unicode. */
const REFUSED = /^(utf|ucs|ascii$|us-ascii$|hz|iso-?2022|cp(037|273|424|500|875|1026|1140)$|binary$|base64$|hex$)/i;

/** One name for the codes iconv-lite reads alike (its Shift_JIS is CP932, its EUC-KR is CP949). */
const SAME_AS: Record<string, string> = { shift_jis: 'cp932', 'shift-jis': 'cp932', sjis: 'cp932', ms932: 'cp932', 'windows-31j': 'cp932', 'euc-kr': 'cp949', euc_kr: 'cp949' };

/** Canonical name per accepted name, or `null` when refused (cached: the check decodes 128 bytes). */
const accepted = new Map<string, string | null>();

/**
 * The iconv-lite name of `name` when it is an ASCII-compatible legacy encoding iconv-lite knows
 * (case and punctuation as users write them: `Shift_JIS`, `cp932`, `ISO-8859-2`), else `null`.
 * UTF-8, UTF-16 and Latin-1 are not legacy here: {@link normalizeEncoding} handles them.
 */
export function legacyEncodingName(name: string): string | null {
    const lower = name.toLowerCase().replace(/^iso-?8859-?/, 'iso-8859-');
    const key = SAME_AS[lower] ?? lower;
    let found = accepted.get(key);
    if (found !== undefined) return found;
    found = null;
    const lib = iconv();
    if (!REFUSED.test(key) && lib.encodingExists(key)) {
        const ascii = Buffer.from(Array.from({ length: 128 }, (_, b) => b));
        if (lib.decode(ascii, key) === ascii.toString('latin1')) found = key;
    }
    accepted.set(key, found);
    return found;
}

/** What a caller's encoding name means: one of the built-in decodings or a legacy encoding, `null` when unknown. */
export function normalizeEncoding(name: string): 'utf8' | 'latin1' | 'utf16le' | 'utf16be' | { legacy: string } | null {
    const key = name.trim().toLowerCase().replace(/_/g, '-');
    if (key === 'utf8' || key === 'utf-8') return 'utf8';
    if (key === 'latin1' || key === 'latin-1' || key === 'iso-8859-1' || key === 'iso8859-1') return 'latin1';
    if (key === 'utf-16le' || key === 'utf16le') return 'utf16le';
    if (key === 'utf-16be' || key === 'utf16be') return 'utf16be';
    const legacy = legacyEncodingName(name.trim());
    return legacy === null ? null : { legacy };
}

/**
 * The legacy encoding of bytes that are neither valid UTF-8 nor marked by a BOM, or `null` for
 * Latin-1: {@link detectLegacySample} of the file's {@link DetectionSample}.
 */
export function detectLegacy(bytes: Uint8Array): string | null {
    const sample = new DetectionSample();
    sample.feed(bytes);
    return detectLegacySample(sample.bytes());
}

/**
 * What the detector reads of a file: its lines that hold a non-ASCII byte, in order, at most
 * {@link DETECT_SAMPLE_BYTES} of them (a line longer than that cut there). ASCII lines tell it
 * nothing and dilute its confidence: 2.8 KB of Shift-JIS comments scored 0.65, and 0.05 with 60 KB
 * of ASCII code after them. Fed in pieces (workers/read/read-window.ts feeds a large file's
 * chunks) or whole, it gathers the same bytes; a piece may be reused by the caller after `feed`.
 */
export class DetectionSample {
    #parts: Buffer[] = [];
    #size = 0;
    /** The current line's pieces so far (views of the piece being fed, copied when it ends). */
    #line: Uint8Array[] = [];
    #lineSize = 0;
    #lineHigh = false;

    feed(data: Uint8Array): void {
        // Pieces of the line before this call are copies already.
        let copied = this.#line.length;
        let start = 0;
        while (start < data.length && this.#size < DETECT_SAMPLE_BYTES) {
            if (this.#line.length === 0) {
                // At a line's start: the whole ASCII lines before the next non-ASCII byte add
                // nothing, skipped in one step (one at a time, a 1 MiB file of short lines took 150 ms).
                const skipTo = data.lastIndexOf(10, firstHighByte(data, start)) + 1;
                if (skipTo > start) {
                    start = skipTo;
                    continue;
                }
            }
            const nl = data.indexOf(10, start);
            const end = nl === -1 ? data.length : nl + 1;
            const piece = data.subarray(start, end);
            if (!this.#lineHigh && !isAscii(piece)) this.#lineHigh = true;
            const room = DETECT_SAMPLE_BYTES - this.#lineSize;
            if (room > 0) {
                this.#line.push(piece.subarray(0, room));
                this.#lineSize += Math.min(room, piece.length);
            }
            if (nl !== -1) {
                this.#endLine();
                copied = 0;
            }
            start = end;
        }
        // The unfinished line outlives this piece only as a copy.
        for (let i = copied; i < this.#line.length; i++) this.#line[i] = Buffer.from(this.#line[i]!);
    }

    /** Nothing more would be taken. */
    get full(): boolean {
        return this.#size >= DETECT_SAMPLE_BYTES;
    }

    /** The sample (the last line counted whether it ends with a newline or not). */
    bytes(): Buffer {
        this.#endLine();
        return Buffer.concat(this.#parts);
    }

    #endLine(): void {
        if (this.#lineHigh) {
            for (const p of this.#line) {
                const take = p.subarray(0, DETECT_SAMPLE_BYTES - this.#size);
                this.#parts.push(Buffer.from(take));
                this.#size += take.length;
            }
        }
        this.#line = [];
        this.#lineSize = 0;
        this.#lineHigh = false;
    }
}

/** Index of the first byte of `data` from `start` above 0x7f, or the last index when there is none. */
function firstHighByte(data: Uint8Array, start: number): number {
    if (isAscii(data.subarray(start))) return data.length - 1;
    let i = start;
    while (data[i]! < 0x80) i++;
    return i;
}

/**
 * jschardet's guess for a {@link DetectionSample}, taken when confident enough, ASCII-compatible,
 * and when it reads the sample otherwise than Latin-1 does (a Western file stays Latin-1, as it
 * always was); else `null` (also for an empty sample: all ASCII).
 */
export function detectLegacySample(sample: Uint8Array): string | null {
    if (sample.length === 0) return null;
    detector ??= createRequire(import.meta.url)('jschardet') as Jschardet;
    const run = new detector.chardet.UniversalDetector({ includeEncodings: CANDIDATES });
    run.feed(sample);
    const guess = run.close();
    if (guess.encoding === null || guess.confidence < MIN_CONFIDENCE) return null;
    const name = legacyEncodingName(guess.encoding);
    if (name === null || readsAsLatin1(sample, name)) return null;
    return name;
}

/** Per single-byte encoding, whether each byte decodes as Latin-1 decodes it (multi-byte encodings: `null`). */
const sameAsLatin1 = new Map<string, Uint8Array | null>();

/** Whether `name` decodes every byte of `bytes` as Latin-1 does (always false for a multi-byte encoding). */
function readsAsLatin1(bytes: Uint8Array, name: string): boolean {
    let table = sameAsLatin1.get(name);
    if (table === undefined) {
        const all = Buffer.from(Array.from({ length: 256 }, (_, b) => b));
        const text = iconv().decode(all, name);
        table = text.length === 256 ? Uint8Array.from(all, (b) => (text.charCodeAt(b) === b ? 1 : 0)) : null;
        sameAsLatin1.set(name, table);
    }
    if (table === null) return false;
    for (let i = 0; i < bytes.length; i++) if (table[bytes[i]!] === 0) return false;
    return true;
}

/** `bytes` decoded from the legacy encoding `name` (invalid sequences as U+FFFD). */
export function decodeLegacy(bytes: Uint8Array, name: string): string {
    return iconv().decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), name);
}

/**
 * `text` encoded in `name`, or the first character it cannot hold (iconv-lite would write `?`
 * for it): found by decoding the bytes back, then character by character where they differ.
 */
export function encodeLegacy(text: string, name: string): { ok: true; bytes: Buffer } | { ok: false; char: string } {
    const lib = iconv();
    const bytes = lib.encode(text, name);
    if (lib.decode(bytes, name) === text) return { ok: true, bytes };
    for (const c of text) {
        if (c.charCodeAt(0) < 0x80) continue;
        if (lib.decode(lib.encode(c, name), name) !== c) return { ok: false, char: c };
    }
    // Every character alone round-trips but the whole does not (a sequence the decoder merges):
    // name the text's first non-ASCII character rather than write what would not read back.
    return { ok: false, char: [...text].find((c) => c.charCodeAt(0) >= 0x80) ?? text.slice(0, 1) };
}

/** How an encoding is named in output: upper case as usually written (`Windows-1250`, `Big5`, `CP932 (Shift_JIS)`). */
export function encodingLabel(name: string): string {
    const upper = name.toUpperCase().replace(/^WINDOWS-/, 'Windows-').replace(/^BIG5/, 'Big5').replace(/^MAC/, 'Mac');
    return ALSO_KNOWN_AS[name] === undefined ? upper : `${upper} (${ALSO_KNOWN_AS[name]})`;
}

/** The name users know the detector's superset encodings by. */
const ALSO_KNOWN_AS: Record<string, string> = { cp932: 'Shift_JIS', cp949: 'EUC-KR', cp936: 'GBK' };
