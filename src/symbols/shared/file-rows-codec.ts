import { crc32 } from 'node:zlib';
import { BLOCK_NAMES, putVarint, VarintReader, eachRow, varintBytes } from './symbol-codec.js';

/**
 * The symbol table's definitions by file (symbol-format.ts): per table entry its definitions'
 * numbers with their first and last lines, so that find_references tells the definition enclosing
 * a use without a parse. A file's rows are in definition order: the count, then per row the
 * number as a difference from the row before (the first as it is), the first line, and the last
 * line as a difference from the first (varints). Written by the merge from the rows by name, read
 * back a file at a time (src/symbols/file-rows.ts).
 */

/** One file's definitions decoded: numbers, first and last lines, in definition order. */
export interface FileDefs {
    def: Uint32Array;
    line: Uint32Array;
    end: Uint32Array;
}

/** Offsets and lines are u32. */
const MAX_U32 = 2 ** 32 - 1;

/**
 * The rows by file of a table's rows by name (`rows`, with `blockRows` and `blockDefs` per block
 * and one past the last): per table entry (and one past the last) where its bytes start, its
 * bytes' CRC-32, and the bytes. A row whose file id is past the table is none of its files: left
 * out. Only the entries from `from` to before `to` when given: their offsets from the first one's
 * bytes, entry `from` at index 0. Memory: the output and four numbers per table entry (two passes
 * over the rows).
 * @throws RangeError when the rows do not decode.
 */
export function encodeFileRows(rows: Uint8Array, blockRows: Uint32Array, blockDefs: Uint32Array, names: number, tableSize: number, from = 0, to = tableSize): { offsets: Buffer; crcs: Buffer; data: Buffer } {
    const pass = (row: (k: number, file: number, line: number, end: number) => void): void => {
        for (let b = 0; b + 1 < blockDefs.length; b++) {
            const base = blockDefs[b]!;
            eachRow(rows, blockRows[b]!, blockRows[b + 1]!, Math.min(BLOCK_NAMES, names - b * BLOCK_NAMES), blockDefs[b + 1]! - base, () => undefined, (k, file, line, end) => {
                if (file >= from && file < to) row(base + k, file - from, line, end);
            });
        }
    };
    const entries = to - from;
    const [count, size, last] = [new Uint32Array(entries), new Float64Array(entries), new Float64Array(entries)];
    pass((k, file, line, end) => {
        size[file]! += varintBytes(count[file] === 0 ? k : k - last[file]!) + varintBytes(line) + varintBytes(end - line);
        count[file]!++;
        last[file] = k;
    });
    const offsets = Buffer.alloc(4 * (entries + 1));
    const at = new Float64Array(entries);
    let total = 0;
    for (let f = 0; f < entries; f++) {
        offsets.writeUInt32LE(total, 4 * f);
        at[f] = total + (count[f] === 0 ? 0 : varintBytes(count[f]!));
        total = at[f]! + size[f]!;
        if (total > MAX_U32) throw new RangeError('rows by file: past 4 GB');
    }
    offsets.writeUInt32LE(total, 4 * entries);
    const data = Buffer.alloc(total);
    for (let f = 0; f < entries; f++) if (count[f]! > 0) putVarint(data, offsets.readUInt32LE(4 * f), count[f]!);
    const seen = new Uint8Array(entries);
    pass((k, file, line, end) => {
        let i = putVarint(data, at[file]!, seen[file] === 0 ? k : k - last[file]!);
        i = putVarint(data, i, line);
        at[file] = putVarint(data, i, end - line);
        [seen[file], last[file]] = [1, k];
    });
    const crcs = Buffer.alloc(4 * entries);
    for (let f = 0; f < entries; f++) crcs.writeUInt32LE(crc32(data.subarray(offsets.readUInt32LE(4 * f), offsets.readUInt32LE(4 * f + 4))), 4 * f);
    return { offsets, crcs, data };
}

/** One file's rows from its bytes (empty: a file with no definitions), numbers below `defs`. @throws RangeError when they do not decode. */
export function decodeFileRows(bytes: Uint8Array, defs: number): FileDefs {
    if (bytes.length === 0) return { def: new Uint32Array(0), line: new Uint32Array(0), end: new Uint32Array(0) };
    const r = new VarintReader(bytes);
    const n = r.next();
    // Three bytes a row at least.
    if (n === 0 || 3 * n > bytes.length) throw new RangeError('rows by file: count does not fit');
    const out = { def: new Uint32Array(n), line: new Uint32Array(n), end: new Uint32Array(n) };
    let k = 0;
    for (let i = 0; i < n; i++) {
        if (r.at >= bytes.length) throw new RangeError('rows by file: a row is cut short');
        const d = r.next();
        if (i > 0 && d === 0) throw new RangeError('rows by file: numbers out of order');
        k += d;
        const line = r.next();
        const end = line + r.next();
        if (k >= defs || end > MAX_U32) throw new RangeError('rows by file: a row past the table');
        [out.def[i], out.line[i], out.end[i]] = [k, line, end];
    }
    if (r.at !== bytes.length) throw new RangeError('rows by file: bytes past the rows');
    return out;
}
