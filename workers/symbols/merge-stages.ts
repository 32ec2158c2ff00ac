import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { deflated } from '../../src/symbols/shared/deflated.js';
import { encodeFileRows } from '../../src/symbols/shared/file-rows-codec.js';
import { columnFile, type Column } from './table-encode.js';
import { ColumnWriter, writeColumn } from './table-io.js';
import { blocksAfter } from '../../src/symbols/shared/merge-progress.js';

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
 * starts there into `blockRows`. With `progress` (merge-progress.ts), beside the names' stage
 * that writes the raw rows: the blocks it has written whole are deflated as they come, so that
 * the names' stage's thread alone is left waited for; without, after it. Memory: one block's raw
 * rows, read by position.
 */
export function deflateRows(stem: string, progress?: Int32Array): void {
    // The names' stage makes its columns before it tells of a block.
    let told = progress === undefined ? undefined : blocksAfter(progress, 0);
    const fd = fs.openSync(columnFile(stem, 'rawRows'), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const startsFd = fs.openSync(columnFile(stem, 'rawBlockRows'), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const [rows, blockRows] = [new ColumnWriter(columnFile(stem, 'rows')), new ColumnWriter(columnFile(stem, 'blockRows'))];
    try {
        const whole = progress === undefined ? { blocks: Math.max(0, fs.fstatSync(startsFd).size / 4 - 1), done: true } : undefined;
        let raw = Buffer.allocUnsafe(1 << 16);
        for (let b = 0; ; ) {
            const { blocks, done } = whole ?? told ?? blocksAfter(progress!, b);
            told = undefined;
            // The starts of blocks b to `blocks`, the last one's end.
            const starts = readAt(startsFd, Buffer.allocUnsafe(4 * (blocks + 1 - b)), 4 * b);
            for (let i = 0; b < blocks; b++, i += 4) {
                blockRows.u32(rows.bytes);
                const [from, to] = [starts.readUInt32LE(i), starts.readUInt32LE(i + 4)];
                if (raw.length < to - from) raw = Buffer.allocUnsafe(2 * (to - from));
                rows.bytesOf(deflated(readAt(fd, raw.subarray(0, to - from), from)));
            }
            if (done) break;
        }
        blockRows.u32(rows.bytes);
        rows.flush();
        blockRows.flush();
    } finally {
        fs.closeSync(fd);
        fs.closeSync(startsFd);
        rows.close();
        blockRows.close();
    }
}

/** `into` filled from `fd` at `position`. @throws Error when the file ends before. */
function readAt(fd: number, into: Buffer, position: number): Buffer {
    for (let got = 0; got < into.length; ) {
        const k = fs.readSync(fd, into, got, into.length - got, position + got);
        if (k === 0) throw new Error('symbols merge: the raw rows are cut short');
        got += k;
    }
    return into;
}

/** The rows by file in two halves: the files before `split`, or (`half` 1) those from it on. */
export interface FileHalf {
    split: number;
    half: 0 | 1;
}

/** The columns of a half of the rows by file: the first half's are the table's own. */
const HALF_COLUMNS = [['fileRows', 'fileOff', 'fileCrc'], ['fileRows1', 'fileOff1', 'fileCrc1']] as const;

/**
 * The rows by file (file-rows-codec.ts) of a table of `tableSize` entries from the raw rows of
 * `names` names, each file's deflated (deflated.ts) into the `fileRows` column, their offsets and
 * CRC-32s (u32 each) into `fileOff` and `fileCrc`. With `half`, only that half's files, into that
 * half's columns (offsets from the half's first file, one past its last), so that the build's two
 * threads make the halves side by side; the join puts them together (merge-join.ts). Memory: the
 * raw rows and their rows by file (some 60 MB for the Linux tree), so that a serving process
 * makes nothing of them; the deflated units are not held.
 */
export function fileRows(stem: string, tableSize: number, names: number, half?: FileHalf): void {
    const [from, to] = half === undefined ? [0, tableSize] : half.half === 0 ? [0, half.split] : [half.split, tableSize];
    const [rowsCol, offCol, crcCol] = HALF_COLUMNS[half?.half ?? 0];
    const raw = encodeFileRows(fs.readFileSync(columnFile(stem, 'rawRows')), u32Column(stem, 'rawBlockRows'), u32Column(stem, 'blockDefs'), names, tableSize, from, to);
    const out = new ColumnWriter(columnFile(stem, rowsCol));
    try {
        const n = to - from;
        const [offsets, crcs] = [Buffer.alloc(4 * (n + 1)), Buffer.alloc(4 * n)];
        for (let f = 0; f < n; f++) {
            const z = deflated(raw.data.subarray(raw.offsets.readUInt32LE(4 * f), raw.offsets.readUInt32LE(4 * f + 4)));
            offsets.writeUInt32LE(out.bytes, 4 * f);
            crcs.writeUInt32LE(crc32(z), 4 * f);
            out.bytesOf(z);
        }
        offsets.writeUInt32LE(out.bytes, 4 * n);
        out.flush();
        writeColumn(columnFile(stem, offCol), offsets);
        writeColumn(columnFile(stem, crcCol), crcs);
    } finally {
        out.close();
    }
}

/** Weight of a file with rows in the rows by file's halves, as rows: its unit's deflation costs about as much as this many rows' bytes. */
const FILE_WEIGHT = 100;

/** Where to split the rows by file (by `rowsOf`, the rows of each table entry) so that each half takes about as long to make. */
export function fileSplit(rowsOf: Uint32Array): number {
    const weight = (f: number): number => (rowsOf[f] === 0 ? 0 : FILE_WEIGHT + rowsOf[f]!);
    let total = 0;
    for (let f = 0; f < rowsOf.length; f++) total += weight(f);
    let [f, before] = [0, 0];
    // A file goes before the split while its middle is in the first half of the work.
    for (; f < rowsOf.length && 2 * before + weight(f) <= total; f++) before += weight(f);
    return f;
}
