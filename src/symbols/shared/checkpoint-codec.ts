import { putVarint, VarintReader } from './symbol-codec.js';

/**
 * A file's checkpoints in the symbol table (workers/symbols/regions.ts): its length in UTF-16
 * units and the CRC-32 of its bytes, then per checkpoint its index and row as differences from
 * the one before, all varints. Length and CRC tell a file rewritten without the index knowing
 * (in place, same size and times) from the one the table was made from.
 */
export interface FilePoints {
    chars: number;
    crc: number;
    /** `[index, row, index, row, …]`, increasing. */
    points: number[];
}

export function encodePoints(chars: number, crc: number, points: readonly number[]): Buffer {
    const out = Buffer.allocUnsafe(20 + 8 * points.length);
    let at = putVarint(out, 0, chars);
    at = putVarint(out, at, crc);
    let [index, row] = [0, 0];
    for (let i = 0; i < points.length; i += 2) {
        at = putVarint(out, at, points[i]! - index);
        at = putVarint(out, at, points[i + 1]! - row);
        [index, row] = [points[i]!, points[i + 1]!];
    }
    return out.subarray(0, at);
}

/** @throws RangeError when the bytes do not decode to increasing checkpoints inside the file. */
export function decodePoints(bytes: Uint8Array, from: number, to: number): FilePoints {
    const r = new VarintReader(bytes, from, to);
    const chars = r.next();
    // A file the table holds is at most maxFileSize bytes: 2^31 characters is past any.
    if (chars > 0x7fffffff) throw new RangeError('checkpoints of a file too long');
    const crc = r.next();
    if (crc > 0xffffffff) throw new RangeError('checkpoints: a CRC past 32 bits');
    const points: number[] = [];
    let [index, row] = [0, 0];
    while (r.at < to) {
        const di = r.next();
        index += di;
        row += r.next();
        if ((points.length > 0 && di === 0) || index >= chars) throw new RangeError('checkpoints out of order');
        points.push(index, row);
    }
    if (r.at !== to) throw new RangeError('checkpoints past their section');
    return { chars, crc, points };
}
