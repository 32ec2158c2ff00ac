import { encodeLegacy, encodingLabel } from './legacy.js';
import { encodeText, type TextEncodingInfo } from './text.js';

/**
 * An edited text written back in its file's encoding. In Latin-1 and the legacy encodings the
 * lines the edit left alone keep their bytes exactly: only the changed lines are encoded, and the
 * bytes before and after them are the file's own (decoding then encoding is not the identity in
 * every legacy encoding: invalid bytes read as U+FFFD, and code pages with two codes for one
 * character, such as CP932's NEC and IBM rows, would come back as the other). UTF-8 and UTF-16
 * text is encoded whole, as it always was (it round-trips).
 */

export type Reencoded = { ok: true; bytes: Buffer } | { ok: false; char: string; encoding: string };

/** How the encoding of `info` is named in a message (`Latin-1 (ISO-8859-1)`, `CP932 (Shift_JIS)`). */
export function encodingName(info: TextEncodingInfo): string {
    switch (info.encoding) {
        case 'utf8':
            return 'UTF-8';
        case 'latin1':
            return 'Latin-1 (ISO-8859-1)';
        case 'utf16le':
            return 'UTF-16LE';
        case 'utf16be':
            return 'UTF-16BE';
        case 'legacy':
            return encodingLabel(info.legacy!);
    }
}

/**
 * The bytes of `after` in the encoding of `info`, given the file's `bytes` that decode to
 * `before`; or the first character of the changed lines the encoding cannot hold.
 */
export function reencode(bytes: Buffer, before: string, after: string, info: TextEncodingInfo): Reencoded {
    if (info.encoding !== 'latin1' && info.encoding !== 'legacy') return { ok: true, bytes: encodeText(after, info) };
    const splice = changedLines(before, after);
    // Line starts are found by counting newlines, in the text and in the bytes alike: sound for
    // the ASCII-compatible encodings (0x0A is only ever a newline); checked, else encoded whole.
    const prefixBytes = afterNewlines(bytes, splice.prefixNewlines);
    const suffixBytes = afterNewlines(bytes, newlines(before) - splice.suffixNewlines);
    const exact = prefixBytes !== -1 && suffixBytes !== -1 && newlineBytes(bytes) === newlines(before);
    const middle = exact ? after.slice(splice.prefix, after.length - splice.suffix) : after;
    const encoded = encodePart(middle, info, bytes);
    if (!encoded.ok) return encoded;
    if (!exact) return encoded;
    return { ok: true, bytes: Buffer.concat([bytes.subarray(0, prefixBytes), encoded.bytes, bytes.subarray(suffixBytes)]) };
}

function encodePart(text: string, info: TextEncodingInfo, file: Buffer): Reencoded {
    if (info.encoding === 'latin1') {
        // Latin-1 has one byte per character up to U+00FF; anything above would be silently mangled.
        const foreign = /[^\u0000-\u00ff]/u.exec(text);
        return foreign === null ? { ok: true, bytes: Buffer.from(text, 'latin1') } : { ok: false, char: foreign[0], encoding: encodingName(info) };
    }
    // GBK text reads the same as GB18030 (the detector names the superset), but a GBK tool cannot
    // read GB18030's four-byte codes (emoji, rare CJK): a file without any stays GBK.
    const gbk = info.legacy === 'gb18030' && !hasFourByteCodes(file);
    const encoded = encodeLegacy(text, gbk ? 'gbk' : info.legacy!);
    return encoded.ok ? encoded : { ok: false, char: encoded.char, encoding: gbk ? 'GBK (the file has no four-byte GB18030 codes)' : encodingName(info) };
}

/** Whether GB18030 bytes hold a four-byte code (a lead byte 0x81-0xFE, then a digit). */
function hasFourByteCodes(bytes: Buffer): boolean {
    for (let i = 0; i < bytes.length - 1; ) {
        const b = bytes[i]!;
        if (b < 0x81 || b === 0xff) i++;
        else if (bytes[i + 1]! >= 0x30 && bytes[i + 1]! <= 0x39) return true;
        else i += 2;
    }
    return false;
}

/**
 * The unchanged whole lines at both ends of an edit: `prefix` characters (and the newlines in
 * them) at the start of both texts, `suffix` characters at the end of both, never overlapping.
 */
function changedLines(before: string, after: string): { prefix: number; prefixNewlines: number; suffix: number; suffixNewlines: number } {
    const most = Math.min(before.length, after.length);
    let p = 0;
    while (p < most && before.charCodeAt(p) === after.charCodeAt(p)) p++;
    // Back to the start of the line the first difference is on.
    const prefix = p === 0 ? 0 : before.lastIndexOf('\n', p - 1) + 1;
    let s = 0;
    const room = most - prefix;
    while (s < room && before.charCodeAt(before.length - 1 - s) === after.charCodeAt(after.length - 1 - s)) s++;
    // Forward to the start of a line: the suffix begins after a newline (or is empty).
    let q = before.length - s;
    if (q > prefix && before.charCodeAt(q - 1) !== 10) {
        const nl = before.indexOf('\n', q);
        q = nl === -1 ? before.length : nl + 1;
    }
    const suffix = before.length - q;
    return { prefix, prefixNewlines: newlines(before.slice(0, prefix)), suffix, suffixNewlines: newlines(before.slice(q)) };
}

/** Newlines in a text. */
function newlines(text: string): number {
    let n = 0;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
    return n;
}

/** Newline bytes (0x0A) in a buffer. */
function newlineBytes(bytes: Buffer): number {
    let n = 0;
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) n++;
    return n;
}

/** Byte offset just after the `n`th newline byte of `bytes` (0 for n = 0), or -1 when there are fewer. */
function afterNewlines(bytes: Buffer, n: number): number {
    let at = 0;
    for (let i = 0; i < n; i++) {
        const nl = bytes.indexOf(10, at);
        if (nl === -1) return -1;
        at = nl + 1;
    }
    return at;
}
