import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { deflated } from '../../src/symbols/shared/deflated.js';
import { encodeFileRows } from '../../src/symbols/shared/file-rows-codec.js';
import { columnFile, type Column } from './table-encode.js';
import { ColumnWriter, writeColumn } from './table-io.js';

/**
 * The two stages of the merge after the names' (table-encode.ts), each from the raw rows alone,
 * so that the build runs them side by side on its two threads: the rows by name deflated a block
 * at a time, and the rows by file. Each writes only its own columns.
 */

/** A column of u32s read whole (a few bytes per block or per table entry). */
export function u32Column(stem: string, c: Column): Uint32Array {
    return new Uint32Array(new Uint8Array(fs.readFileSync(columnFile(stem, c))).buffer);
}

/**
 * The rows by name deflated a block at a time (deflated.ts) into the `rows` column, the blocks'
 * starts there into `blockRows`. Memory: one block's raw rows, read by position.
 */
export function deflateRows(stem: string): void {
    const starts = u32Column(stem, 'rawBlockRows');
    const fd = fs.openSync(columnFile(stem, 'rawRows'), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const [rows, blockRows] = [new ColumnWriter(columnFile(stem, 'rows')), new ColumnWriter(columnFile(stem, 'blockRows'))];
    try {
        let raw = Buffer.allocUnsafe(1 << 16);
        for (let b = 0; b < starts.length; b++) {
            blockRows.u32(rows.bytes);
            if (b + 1 === starts.length) break;
            const n = starts[b + 1]! - starts[b]!;
            if (raw.length < n) raw = Buffer.allocUnsafe(2 * n);
            for (let got = 0; got < n; ) {
                const k = fs.readSync(fd, raw, got, n - got, starts[b]! + got);
                if (k === 0) throw new Error('symbols merge: the raw rows are cut short');
                got += k;
            }
            rows.bytesOf(deflated(raw.subarray(0, n)));
        }
        rows.flush();
        blockRows.flush();
    } finally {
        fs.closeSync(fd);
        rows.close();
        blockRows.close();
    }
}

/**
 * The rows by file (file-rows-codec.ts) of a table of `tableSize` entries from the raw rows of
 * `names` names, each file's deflated (deflated.ts) into the `fileRows` column, their offsets and
 * CRC-32s (u32 each) into `fileOff` and `fileCrc`. Memory: the raw rows and their rows by file
 * (some 60 MB for the Linux tree), so that a serving process makes nothing of them; the deflated
 * units are not held.
 */
export function fileRows(stem: string, tableSize: number, names: number): void {
    const raw = encodeFileRows(fs.readFileSync(columnFile(stem, 'rawRows')), u32Column(stem, 'rawBlockRows'), u32Column(stem, 'blockDefs'), names, tableSize);
    const out = new ColumnWriter(columnFile(stem, 'fileRows'));
    try {
        const [offsets, crcs] = [Buffer.alloc(4 * (tableSize + 1)), Buffer.alloc(4 * tableSize)];
        for (let f = 0; f < tableSize; f++) {
            const z = deflated(raw.data.subarray(raw.offsets.readUInt32LE(4 * f), raw.offsets.readUInt32LE(4 * f + 4)));
            offsets.writeUInt32LE(out.bytes, 4 * f);
            crcs.writeUInt32LE(crc32(z), 4 * f);
            out.bytesOf(z);
        }
        offsets.writeUInt32LE(out.bytes, 4 * tableSize);
        out.flush();
        writeColumn(columnFile(stem, 'fileOff'), offsets);
        writeColumn(columnFile(stem, 'fileCrc'), crcs);
    } finally {
        out.close();
    }
}
