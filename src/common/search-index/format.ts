import { crc32 } from 'node:zlib';

/**
 * On-disk format of the search index: the format version, the error every failed check raises,
 * and the file table (one per build generation; the segment files are in ./segment.ts). Every
 * file starts with a magic, the format version and CRC-32 checksums (zlib's), and every read is
 * checked against them, so a truncated, corrupt or foreign-version file is detected (an
 * {@link IndexFormatError}) and never read wrongly.
 */

export const FORMAT_VERSION = 1;
const TABLE_MAGIC = Buffer.from('LCFTBL\0\0', 'latin1');

/** A file of the index is not what its header and checksums say. */
export class IndexFormatError extends Error {
    constructor(file: string, what: string) {
        super(`Search index file ${file} is unusable: ${what}`);
        this.name = 'IndexFormatError';
    }
}

/** Entry kinds of the file table (as the walk's EntryKind). */
export const Kind = { File: 0, Dir: 1, Link: 2, Other: 3 } as const;

/** Flags of a file table entry. */
export const Flag = {
    /** Text whose grams are in the postings. */
    Indexed: 1,
    /** Binary (never content-searched). */
    Binary: 2,
    /** Empty (no line to match). */
    Empty: 4,
    /** Not indexed (larger than the build's size limit, unreadable or changed while read): always a candidate. */
    Unindexed: 8,
    /** A directory that could not be listed: always handed to the walk. */
    Unreadable: 16,
} as const;

/**
 * The file table: every entry of the indexed tree in the order of a sequential search walk
 * (depth-first, names sorted by UTF-16 code units), the root first with id 0.
 */
export interface FileTable {
    names: string[];
    /** Id of the parent directory; -1 for the root. */
    parent: Int32Array;
    kind: Uint8Array;
    flags: Uint8Array;
    /** Bytes. */
    size: Float64Array;
    /** Epoch milliseconds, from lstat. */
    mtime: Float64Array;
    birthtime: Float64Array;
    /** One past the last id of the entry's subtree (`id + 1` for anything but a listed directory). */
    end: Int32Array;
}

/** Bytes checksummed between two calls of a {@link Pause} while a table is encoded or decoded. */
const CRC_SLICE = 1 << 20;

/** Called between slices of work; a caller on the main thread yields to the event loop there. */
export type Pause = () => Promise<void>;

/** CRC-32 of `buf`, computed in slices with `pause` between them. */
async function crcInSlices(buf: Uint8Array, pause: Pause): Promise<number> {
    let crc = 0;
    for (let at = 0; at < buf.length; at += CRC_SLICE) {
        crc = crc32(buf.subarray(at, Math.min(buf.length, at + CRC_SLICE)), crc);
        await pause();
    }
    return crc;
}

/** Names encoded or decoded between two calls of a {@link Pause}. */
const NAME_SLICE = 4096;
/** Bytes of names decoded between two calls of a {@link Pause} (cut at the next NUL). */
const NAME_BYTES_SLICE = 64 * 1024;
const NUL = Buffer.from([0]);

/** The names joined by NUL as UTF-8, {@link NAME_SLICE} names between two calls of `pause`. */
async function encodeNames(names: readonly string[], pause: Pause): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (let i = 0; i < names.length; i += NAME_SLICE) {
        if (i > 0) parts.push(NUL);
        parts.push(Buffer.from(names.slice(i, i + NAME_SLICE).join('\0'), 'utf8'));
        await pause();
    }
    return Buffer.concat(parts);
}

/**
 * The names in `bytes[from, to)` (UTF-8, joined by NUL): what `toString('utf8', from, to).split('\0')`
 * gives, decoded in pieces of about {@link NAME_BYTES_SLICE} bytes cut at a NUL (which UTF-8 uses
 * for U+0000 alone, so no character is cut), with `pause` between them.
 */
export async function decodeNames(bytes: Buffer, from: number, to: number, pause: Pause): Promise<string[]> {
    const names: string[] = [];
    for (let at = from; ; ) {
        let cut = to;
        if (at + NAME_BYTES_SLICE < to) {
            const nul = bytes.indexOf(0, at + NAME_BYTES_SLICE);
            if (nul !== -1 && nul < to) cut = nul;
        }
        for (const name of bytes.toString('utf8', at, cut).split('\0')) names.push(name);
        if (cut >= to) return names;
        at = cut + 1;
        await pause();
    }
}

/** Bytes of a file table (header, columns, names joined by NUL, CRC), made in slices with `pause` between them. */
export async function encodeTable(t: FileTable, pause: Pause): Promise<Buffer> {
    const n = t.names.length;
    const names = await encodeNames(t.names, pause);
    const header = Buffer.alloc(32);
    TABLE_MAGIC.copy(header, 0);
    header.writeUInt32LE(FORMAT_VERSION, 8);
    header.writeUInt32LE(n, 12);
    header.writeDoubleLE(names.length, 16);
    const out = Buffer.concat([
        header,
        Buffer.from(t.size.buffer, t.size.byteOffset, n * 8),
        Buffer.from(t.mtime.buffer, t.mtime.byteOffset, n * 8),
        Buffer.from(t.birthtime.buffer, t.birthtime.byteOffset, n * 8),
        Buffer.from(t.parent.buffer, t.parent.byteOffset, n * 4),
        Buffer.from(t.end.buffer, t.end.byteOffset, n * 4),
        Buffer.from(t.kind.buffer, t.kind.byteOffset, n),
        Buffer.from(t.flags.buffer, t.flags.byteOffset, n),
        names,
    ]);
    await pause();
    out.writeUInt32LE(await crcInSlices(out.subarray(32), pause), 24);
    out.writeUInt32LE(crc32(out.subarray(0, 28)), 28);
    return out;
}

/** The table of a file's bytes, decoded in slices with `pause` between them. @throws IndexFormatError when the bytes are not a whole, intact file table of this version. */
export async function decodeTable(buf: Buffer, file: string, pause: Pause): Promise<FileTable> {
    if (buf.length < 32 || !buf.subarray(0, 8).equals(TABLE_MAGIC)) throw new IndexFormatError(file, 'not a file table');
    if (buf.readUInt32LE(28) !== crc32(buf.subarray(0, 28))) throw new IndexFormatError(file, 'header checksum mismatch');
    const version = buf.readUInt32LE(8);
    if (version !== FORMAT_VERSION) throw new IndexFormatError(file, `format version ${version}, expected ${FORMAT_VERSION}`);
    const n = buf.readUInt32LE(12);
    const namesLen = buf.readDoubleLE(16);
    const body = buf.subarray(32);
    if (body.length !== n * 34 + namesLen) throw new IndexFormatError(file, `size ${buf.length} bytes, expected ${32 + n * 34 + namesLen}`);
    if ((await crcInSlices(body, pause)) !== buf.readUInt32LE(24)) throw new IndexFormatError(file, 'checksum mismatch');
    // Memory: the columns are views of the file's bytes when they are aligned (a fresh read's are), else copies.
    const aligned = body.byteOffset % 8 === 0;
    let at = 0;
    const take = (bytes: number): [ArrayBuffer, number] => {
        const from = at;
        at += bytes;
        if (aligned) return [body.buffer as ArrayBuffer, body.byteOffset + from];
        const ab = new ArrayBuffer(bytes);
        new Uint8Array(ab).set(body.subarray(from, from + bytes));
        return [ab, 0];
    };
    const size = new Float64Array(...take(n * 8), n);
    const mtime = new Float64Array(...take(n * 8), n);
    const birthtime = new Float64Array(...take(n * 8), n);
    const parent = new Int32Array(...take(n * 4), n);
    const end = new Int32Array(...take(n * 4), n);
    const kind = new Uint8Array(...take(n), n);
    const flags = new Uint8Array(...take(n), n);
    await pause();
    const names = await decodeNames(body, at, at + namesLen, pause);
    if (names.length !== n) throw new IndexFormatError(file, 'name count mismatch');
    return { names, parent, kind, flags, size, mtime, birthtime, end };
}
