import { crc32 } from 'node:zlib';
import { decodeNames, encodeNames, type Names, type Pause } from './table-names.js';

/**
 * On-disk format of the search index: the format version, the error every failed check raises,
 * and the file table (one per build generation; its names are in ./table-names.ts, the segment
 * files in ./segment.ts). Every file starts with a magic, the format version and CRC-32
 * checksums (zlib's), and every read is checked against them, so a truncated, corrupt or
 * foreign-version file is detected (an {@link IndexFormatError}) and never read wrongly.
 */

/**
 * Version of the index format, in every file's header: an index of another version is rebuilt,
 * never read. Raise it whenever what a build stores changes (the versions so far: CHANGELOG.md).
 */
export const FORMAT_VERSION = 9;
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
 * Posting lists of the entries' names (name searches are planned like content searches), made
 * where the names are listed (the build's walk, on a thread) and stored in the table file, so
 * the host never counts them. Perf/memory: sorted gram keys, list starts and one array of ids
 * (a few MB for 100k entries).
 */
export interface NameGrams {
    /** Distinct grams of the names, ascending. */
    keys: Uint32Array;
    /** For `keys[r]`, its ids are `ids.subarray(starts[r], starts[r + 1])`; `keys.length + 1` entries. */
    starts: Uint32Array;
    /** Ids of the entries whose name holds the gram, ascending per gram. */
    ids: Uint32Array;
}

/**
 * The file table: every entry of the indexed tree in the order of a sequential search walk
 * (depth-first, names sorted by UTF-16 code units), the root first with id 0.
 */
export interface FileTable {
    names: Names;
    /** Id of the parent directory; -1 for the root. */
    parent: Int32Array;
    kind: Uint8Array;
    flags: Uint8Array;
    /** Bytes. */
    size: Float64Array;
    /** Epoch milliseconds, from lstat. */
    mtime: Float64Array;
    birthtime: Float64Array;
    /** The change time, folded (change-time.ts): 0 for the root and entries without a stat. */
    ctime: Uint32Array;
    /** One past the last id of the entry's subtree (`id + 1` for anything but a listed directory). */
    end: Int32Array;
    /** Posting lists of the names (name-grams.ts). */
    grams: NameGrams;
}

/**
 * Bytes of a table file's header: magic, version, entry count, names' bytes (f64), gram count,
 * name-list ids, the body's CRC, 8 zero bytes, the header's own CRC (of the 44 bytes before it).
 * A multiple of 8: the columns after it are aligned.
 */
const TABLE_HEADER = 48;

/** Bytes checksummed between two calls of a {@link Pause} while a table is encoded or decoded. */
const CRC_SLICE = 1 << 20;

/** CRC-32 of `buf` (continuing `crc`, the CRC-32 of the bytes before it), computed in slices with `pause` between them. */
export async function crcInSlices(buf: Uint8Array, pause: Pause, crc = 0): Promise<number> {
    for (let at = 0; at < buf.length; at += CRC_SLICE) {
        crc = crc32(buf.subarray(at, Math.min(buf.length, at + CRC_SLICE)), crc);
        await pause();
    }
    return crc;
}

/**
 * Bytes of a file table: header, then the columns (size, mtime, birthtime as f64; parent, end,
 * folded ctime, gram keys, list starts and list ids as 32-bit words; kind, flags as bytes), then the names
 * joined by NUL; little-endian. Made in slices with `pause` between them, as the parts to write
 * one after the other (the columns are views of `t`'s arrays, not copies). Perf: concatenating
 * the Linux tree's 7.6 MB table into one buffer would hold the host's event loop for 9-12 ms
 * (fresh memory faulted in and copied); a file handle writes the parts as they are.
 */
export async function encodeTableParts(t: FileTable, pause: Pause): Promise<Buffer[]> {
    const body = tableBody(t, await encodeNames(t.names, pause));
    let crc = 0;
    for (const part of body) crc = await crcInSlices(part, pause, crc);
    return [tableHeader(t, body[body.length - 1]!.length, crc), ...body];
}

/** The body's parts of {@link encodeTableParts} in file order, views of `t`'s columns; the last two are the flags and the names' bytes `names`. */
export function tableBody(t: FileTable, names: Buffer): Buffer[] {
    const n = t.names.length;
    const g = t.grams;
    const view = (a: ArrayBufferView, bytes: number): Buffer => Buffer.from(a.buffer, a.byteOffset, bytes);
    return [
        view(t.size, n * 8),
        view(t.mtime, n * 8),
        view(t.birthtime, n * 8),
        view(t.parent, n * 4),
        view(t.end, n * 4),
        view(t.ctime, n * 4),
        view(g.keys, g.keys.length * 4),
        view(g.starts, (g.keys.length + 1) * 4),
        view(g.ids, g.ids.length * 4),
        view(t.kind, n),
        view(t.flags, n),
        names,
    ];
}

/** The header of `t`'s table file, its names `namesBytes` long and its body's CRC-32 `crc`; `idCount`: its name lists' ids (`t`'s own, unless they were dropped). */
export function tableHeader(t: FileTable, namesBytes: number, crc: number, idCount = t.grams.ids.length): Buffer {
    const header = Buffer.alloc(TABLE_HEADER);
    TABLE_MAGIC.copy(header, 0);
    header.writeUInt32LE(FORMAT_VERSION, 8);
    header.writeUInt32LE(t.names.length, 12);
    header.writeDoubleLE(namesBytes, 16);
    header.writeUInt32LE(t.grams.keys.length, 24);
    header.writeUInt32LE(idCount, 28);
    header.writeUInt32LE(crc, 32);
    header.writeUInt32LE(crc32(header.subarray(0, TABLE_HEADER - 4)), TABLE_HEADER - 4);
    return header;
}

/** The bytes of {@link encodeTableParts} as one buffer. */
export async function encodeTable(t: FileTable, pause: Pause): Promise<Buffer> {
    return Buffer.concat(await encodeTableParts(t, pause));
}

/**
 * The table of a file's bytes, decoded in slices with `pause` between them; `bodyChecked`: the
 * body's CRC-32 is checked by the caller elsewhere (a tree check's thread, tableChecked in
 * protocol.ts), only its header's, its sizes and its tree's shape here (parents before children,
 * each subtree within its parent's: a walk of a damaged table still ends).
 * @throws IndexFormatError when the bytes are not a whole, intact file table of this version.
 */
export async function decodeTable(buf: Buffer, file: string, pause: Pause, bodyChecked = false): Promise<FileTable> {
    if (buf.length < TABLE_HEADER || !buf.subarray(0, 8).equals(TABLE_MAGIC)) throw new IndexFormatError(file, 'not a file table');
    if (buf.readUInt32LE(TABLE_HEADER - 4) !== crc32(buf.subarray(0, TABLE_HEADER - 4))) throw new IndexFormatError(file, 'header checksum mismatch');
    const version = buf.readUInt32LE(8);
    if (version !== FORMAT_VERSION) throw new IndexFormatError(file, `format version ${version}, expected ${FORMAT_VERSION}`);
    const n = buf.readUInt32LE(12);
    const namesLen = buf.readDoubleLE(16);
    const gramCount = buf.readUInt32LE(24);
    const idCount = buf.readUInt32LE(28);
    const body = buf.subarray(TABLE_HEADER);
    const expected = n * 38 + (2 * gramCount + 1 + idCount) * 4 + namesLen;
    if (body.length !== expected) throw new IndexFormatError(file, `size ${buf.length} bytes, expected ${TABLE_HEADER + expected}`);
    if (!bodyChecked && (await crcInSlices(body, pause)) !== buf.readUInt32LE(32)) throw new IndexFormatError(file, 'checksum mismatch');
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
    const ctime = new Uint32Array(...take(n * 4), n);
    const keys = new Uint32Array(...take(gramCount * 4), gramCount);
    const starts = new Uint32Array(...take((gramCount + 1) * 4), gramCount + 1);
    const ids = new Uint32Array(...take(idCount * 4), idCount);
    const kind = new Uint8Array(...take(n), n);
    const flags = new Uint8Array(...take(n), n);
    if (starts[gramCount] !== idCount) throw new IndexFormatError(file, 'name posting lists do not add up');
    if (bodyChecked && !treeShaped(parent, end)) throw new IndexFormatError(file, 'entries out of tree order');
    await pause();
    const names = await decodeNames(body, at, at + namesLen, pause);
    if (names.length !== n) throw new IndexFormatError(file, 'name count mismatch');
    return { names, parent, kind, flags, size, mtime, birthtime, ctime, end, grams: { keys, starts, ids } };
}

/** Whether `parent` and `end` make a tree in walk order: the root first, each entry after its parent, its subtree within its parent's. */
function treeShaped(parent: Int32Array, end: Int32Array): boolean {
    const n = parent.length;
    if (n > 0 && (parent[0] !== -1 || end[0] !== n)) return false;
    for (let i = 1; i < n; i++) {
        const p = parent[i]!;
        if (!(p >= 0 && p < i && end[i]! > i && end[i]! <= end[p]!)) return false;
    }
    return true;
}

/** Where the ids of `t`'s name posting lists start in its table file (see {@link encodeTableParts}). */
export function tableIdsOffset(t: FileTable): number {
    const n = t.names.length;
    const g = t.grams.keys.length;
    return TABLE_HEADER + n * 36 + g * 4 + (g + 1) * 4;
}

/** Bytes of a column copied between two calls of a {@link Pause} by {@link compactTable}. */
const COPY_SLICE = 1 << 20;

/**
 * `t` with its columns and names copied out of the buffer it was decoded from and without its name posting
 * lists' ids (read from the file instead, name-ids.ts): the buffer, with the names' bytes and the
 * ids, can then be freed. Copied {@link COPY_SLICE} bytes at a time, with `pause` between them
 * (Perf: a column of ten times the Linux tree is 6.7 MB, 10-30 ms of copying on a loaded machine).
 */
export async function compactTable(t: FileTable, pause: Pause): Promise<FileTable> {
    type Column = Int32Array | Uint32Array | Uint8Array | Float64Array;
    const copy = async <A extends Column>(a: A): Promise<A> => {
        const c = new (a.constructor as new (n: number) => A)(a.length);
        const step = COPY_SLICE / a.BYTES_PER_ELEMENT;
        for (let at = 0; at < a.length; at += step) {
            c.set(a.subarray(at, at + step), at);
            await pause();
        }
        return c;
    };
    return {
        names: await t.names.compacted(pause),
        parent: await copy(t.parent),
        kind: await copy(t.kind),
        flags: await copy(t.flags),
        size: await copy(t.size),
        mtime: await copy(t.mtime),
        birthtime: await copy(t.birthtime),
        ctime: await copy(t.ctime),
        end: await copy(t.end),
        grams: { keys: await copy(t.grams.keys), starts: await copy(t.grams.starts), ids: new Uint32Array(0) },
    };
}
