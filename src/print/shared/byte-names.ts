import { isUtf8 } from 'node:buffer';

/**
 * Names that are not valid UTF-8. Linux allows any byte but `/` and NUL in a name, and Node
 * decodes a name it lists with U+FFFD for each invalid byte, a name no call can open again.
 *
 * Inside the library such a name is a string in which each byte that is not part of valid UTF-8
 * is the lone surrogate U+DC80-U+DCFF (the byte plus 0xDC00, Python's "surrogateescape"): it
 * round-trips byte for byte, and every valid name is unchanged. {@link osPath} turns it back into
 * the bytes at the file system call; tools print it in the escaped form of display.ts
 * (`"caf\xe9.txt"`), which {@link unquotePath} reads back.
 */

/** A lone low surrogate U+DC80-U+DCFF: an escaped byte (a valid pair's low half has a high one before it). */
const ESCAPED_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

const ANY_LOW_SURROGATE = /[\uDC80-\uDCFF]/;

/** True when `s` holds an escaped byte (see the module comment). */
export function hasEscapedBytes(s: string): boolean {
    // Perf: a plain character-class scan first (V8 answers it at once for a one-byte string,
    // nearly every path), the lookbehind only for a string holding such a code unit.
    return ANY_LOW_SURROGATE.test(s) && ESCAPED_BYTE.test(s);
}

/** The bytes `s` stands for: UTF-8, with each escaped byte as itself. */
export function bytesOf(s: string): Buffer {
    if (!hasEscapedBytes(s)) return Buffer.from(s, 'utf8');
    const parts: Buffer[] = [];
    let run = '';
    for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        const pairedLow = i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff;
        if (c >= 0xdc80 && c <= 0xdcff && !pairedLow) {
            parts.push(Buffer.from(run, 'utf8'), Buffer.from([c - 0xdc00]));
            run = '';
        } else {
            run += s[i];
        }
    }
    parts.push(Buffer.from(run, 'utf8'));
    return Buffer.concat(parts);
}

/**
 * What a file system call takes for the path `p`: `p` itself, or its bytes when it holds an
 * escaped byte (Node encodes a string path as UTF-8, which would turn the byte into U+FFFD).
 */
export function osPath(p: string): string | Buffer {
    return hasEscapedBytes(p) ? bytesOf(p) : p;
}

/** A name (or path) read as bytes, as the library holds it: valid UTF-8 as is, each invalid byte escaped. */
export function decodeName(bytes: Uint8Array): string {
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (isUtf8(buf)) return buf.toString('utf8');
    let out = '';
    let i = 0;
    while (i < buf.length) {
        const n = validSequence(buf, i);
        if (n === 0) {
            out += String.fromCharCode(0xdc00 + buf[i]!);
            i++;
        } else {
            out += buf.toString('utf8', i, i + n);
            i += n;
        }
    }
    return out;
}

/** Length of the valid UTF-8 sequence at `i` (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF), 0 when none. */
function validSequence(b: Buffer, i: number): number {
    const c = b[i]!;
    if (c < 0x80) return 1;
    const cont = (k: number): boolean => i + k < b.length && (b[i + k]! & 0xc0) === 0x80;
    if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        const c1 = b[i + 1] ?? 0;
        if (c === 0xe0 && c1 < 0xa0) return 0;
        if (c === 0xed && c1 > 0x9f) return 0;
        return cont(1) && cont(2) ? 3 : 0;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        const c1 = b[i + 1] ?? 0;
        if (c === 0xf0 && c1 < 0x90) return 0;
        if (c === 0xf4 && c1 > 0x8f) return 0;
        return cont(1) && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
}

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * The path a quoted, escaped path stands for (display.ts's form: JSON string escapes plus `\xHH`
 * for a byte), `undefined` when `quoted` is not one (no surrounding `"`, or an unknown escape).
 * Bytes given as `\xHH` that form valid UTF-8 together are that text (`\xc3\xa9` is `é`).
 */
export function unquotePath(quoted: string): string | undefined {
    if (quoted.length < 2 || quoted[0] !== '"' || quoted[quoted.length - 1] !== '"') return undefined;
    const inner = quoted.slice(1, -1);
    let out = '';
    let bytes = false;
    for (let i = 0; i < inner.length; i++) {
        const ch = inner[i]!;
        if (ch === '"') return undefined;
        if (ch !== '\\') {
            out += ch;
            continue;
        }
        const e = inner[++i];
        if (e === undefined) return undefined;
        if (e in SIMPLE_ESCAPES) {
            out += SIMPLE_ESCAPES[e];
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(inner.slice(i + 1, i + 5))) {
            out += String.fromCharCode(parseInt(inner.slice(i + 1, i + 5), 16));
            i += 4;
        } else if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(inner.slice(i + 1, i + 3))) {
            const b = parseInt(inner.slice(i + 1, i + 3), 16);
            out += b < 0x80 ? String.fromCharCode(b) : String.fromCharCode(0xdc00 + b);
            bytes ||= b >= 0x80;
            i += 2;
        } else {
            return undefined;
        }
    }
    // Escaped bytes that spell valid UTF-8 are that text: one string per name.
    return bytes ? decodeName(bytesOf(out)) : out;
}
