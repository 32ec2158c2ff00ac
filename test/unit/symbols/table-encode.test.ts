/**
 * The merge's encoder (workers/symbols/table-encode.ts) and the stages after it
 * (merge-stages.ts): every section that grows with the tree goes to a temporary column as it is
 * made. The rows by file are deflated a file at a time into their column, their offsets and
 * CRC-32s (four bytes each per table entry) into columns of their own, in two halves of about
 * even work when asked; the rows by name are deflated a block at a time from the raw rows, as the
 * names' stage tells of them when they follow it on another thread (merge-progress.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflated } from '../../../src/symbols/shared/deflated.js';
import { encodeFileRows } from '../../../src/symbols/shared/file-rows-codec.js';
import { deflateRows, fileRows, fileSplit, u32Column } from '../../../workers/symbols/merge-stages.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { BackgroundTasks } from '../../../src/engine/background-pool.js';
import { newProgress, progressFailed } from '../../../src/symbols/shared/merge-progress.js';
import { columnFile, TableEncoder } from '../../../workers/symbols/table-encode.js';
import { BLOCK_NAMES } from '../../../src/symbols/shared/symbol-codec.js';
import { tempDir } from '../../support/helpers.js';

const TABLE = 3_000;

/** The `rows` column of `stem` holds each block of its raw rows of `names` names deflated, the blocks' starts in `blockRows`. */
function expectRowsDeflated(stem: string, names: number): void {
    const [raw, rawStarts] = [fs.readFileSync(columnFile(stem, 'rawRows')), u32Column(stem, 'rawBlockRows')];
    const [rows, starts] = [fs.readFileSync(columnFile(stem, 'rows')), u32Column(stem, 'blockRows')];
    expect(starts.length).toBe(Math.ceil(names / BLOCK_NAMES) + 1);
    expect(rawStarts.length).toBe(starts.length);
    expect(starts[starts.length - 1]).toBe(rows.length);
    for (let b = 0; b + 1 < starts.length; b++) {
        const want = raw.subarray(rawStarts[b]!, rawStarts[b + 1]!);
        expect(inflated(rows.subarray(starts[b]!, starts[b + 1]!), want.length + 1).equals(want), `block ${b}`).toBe(true);
    }
}

describe('the merge encoder', () => {
    it('streams the rows by file to their column a file at a time, with their offsets and CRCs in columns of their own', () => {
        const dir = tempDir('lcf-table-encode-');
        const stem = path.join(dir, 'symbols.bin.1.00000000');
        const enc = new TableEncoder(stem);
        try {
            // 20,000 names over files 1-2,899 and ids past the table (left out), some files with none.
            for (let i = 0; i < 20_000; i++) {
                const rows = Array.from({ length: 1 + (i % 4) }, (_, j) => ({ file: j === 3 ? TABLE + (i % 5) : 1 + ((i * 7 + j * 131) % 2_899), line: 1 + ((i + j) % 9_000), end: 1 + ((i + j) % 9_000) + (i % 13), cont: 0, kind: i % 3 }));
                enc.add(`name_${String(i).padStart(5, '0')}`, rows, rows.map(() => [-1, 0, 0]));
            }
            enc.finish();
        } finally {
            for (const w of enc.cols.values()) w.close();
        }
        fileRows(stem, TABLE, enc.names);
        const byFile = { offsets: fs.readFileSync(columnFile(stem, 'fileOff')), crcs: fs.readFileSync(columnFile(stem, 'fileCrc')) };
        expect([byFile.offsets.length, byFile.crcs.length]).toEqual([4 * (TABLE + 1), 4 * TABLE]);
        const col = fs.readFileSync(columnFile(stem, 'fileRows'));
        expect(byFile.offsets.readUInt32LE(4 * TABLE)).toBe(col.length);
        // The same rows by file made in memory from the raw rows, as the format defines them.
        const raw = encodeFileRows(fs.readFileSync(columnFile(stem, 'rawRows')), u32Column(stem, 'rawBlockRows'), u32Column(stem, 'blockDefs'), enc.names, TABLE);
        let [withRows, without] = [0, 0];
        for (let f = 0; f < TABLE; f++) {
            const [from, to] = [byFile.offsets.readUInt32LE(4 * f), byFile.offsets.readUInt32LE(4 * f + 4)];
            const unit = col.subarray(from, to);
            const want = raw.data.subarray(raw.offsets.readUInt32LE(4 * f), raw.offsets.readUInt32LE(4 * f + 4));
            expect(byFile.crcs.readUInt32LE(4 * f)).toBe(crc32(unit));
            expect(inflated(unit, want.length + 1).equals(want), `file ${f}`).toBe(true);
            if (want.length > 0) withRows++;
            else without++;
        }
        expect(withRows).toBe(2_899);
        expect(without).toBe(TABLE - 2_899);
    });

    it('deflates the rows by name a block at a time, each unit the block\'s raw rows', () => {
        const dir = tempDir('lcf-table-encode-');
        const stem = path.join(dir, 'symbols.bin.1.00000000');
        const enc = new TableEncoder(stem);
        try {
            // 1,000 names: 31 full blocks and one of 8, a name of 3,000 definitions among them (a block past the read buffer).
            for (let i = 0; i < 1_000; i++) {
                const rows = Array.from({ length: i === 500 ? 3_000 : 1 + (i % 3) }, (_, j) => ({ file: 1 + ((i + j) % 50), line: 1 + j, end: 2 + j, cont: 0, kind: 1 }));
                enc.add(`n${String(i).padStart(4, '0')}`, rows, rows.map(() => [-1, 0, 0]));
            }
            enc.finish();
        } finally {
            for (const w of enc.cols.values()) w.close();
        }
        deflateRows(stem);
        expectRowsDeflated(stem, 1_000);
    });

    it("deflates the blocks the names' stage told of while it goes on, then the rest once it is done", async () => {
        const dir = tempDir('lcf-table-encode-');
        const stem = path.join(dir, 'symbols.bin.1.00000000');
        const progress = newProgress();
        const enc = new TableEncoder(stem, progress);
        // Rows of scattered files and lines: their blocks deflate to more than a column's buffer, so the rows' column grows on disk as they come.
        const add = (from: number, to: number): void => {
            for (let i = from; i < to; i++) {
                const rows = [0, 1].map((j) => ({ file: 1 + ((i * 7_919 + j * 104_729) % 2_000_003), line: 1 + ((i * 2_654_435_761 + j) % 1_000_003), end: 0, cont: 0, kind: 1 }));
                enc.add(`n${String(i).padStart(6, '0')}`, rows.map((r) => ({ ...r, end: r.line })), rows.map(() => [-1, 0, 0]));
            }
        };
        const own = new BackgroundTasks(1, true);
        try {
            // 20,000 names: 625 blocks, 512 of them told of before the names' stage ends.
            add(0, 17_000);
            const rows = own.run({ op: 'symbols-merge', stage: 'rows', parts: [], tableSize: 10, out: path.join(dir, 'symbols.bin'), stem, progress: progress.buffer as SharedArrayBuffer });
            const deflating = Date.now();
            while (!fs.existsSync(columnFile(stem, 'rows')) || fs.statSync(columnFile(stem, 'rows')).size === 0) {
                expect(Date.now() - deflating, 'the rows deflated before the names are done').toBeLessThan(120_000);
                await new Promise((resolve) => setTimeout(resolve, 20));
            }
            add(17_000, 20_000);
            enc.finish();
            expect(await rows).toMatchObject({ ok: true });
        } finally {
            for (const w of enc.cols.values()) w.close();
            await own.close();
        }
        expectRowsDeflated(stem, 20_000);
    });

    it("fails the rows' stage at once when the names' stage it follows failed, and leaves none of the merge's files", () => {
        const dir = tempDir('lcf-table-encode-');
        const stem = path.join(dir, 'symbols.bin.1.00000000');
        const progress = newProgress();
        const enc = new TableEncoder(stem, progress);
        for (let i = 0; i < 100; i++) enc.add(`n${i}`, [{ file: 1, line: i + 1, end: i + 1, cont: 0, kind: 1 }], [[-1, 0, 0]]);
        for (const w of enc.cols.values()) w.close();
        progressFailed(progress);
        const r = runSymbolsMerge({ op: 'symbols-merge', stage: 'rows', parts: [], tableSize: 10, out: path.join(dir, 'symbols.bin'), stem, progress: progress.buffer as SharedArrayBuffer });
        expect(r).toMatchObject({ ok: false, message: expect.stringMatching(/names' stage failed/) });
        expect(fs.readdirSync(dir)).toEqual([]);
    });

    it('splits the rows by file where the work before and after is about even', () => {
        expect(fileSplit(new Uint32Array(0))).toBe(0);
        // Every file with rows weighs its rows and a fixed share for its deflation.
        expect(fileSplit(Uint32Array.of(0, 5, 5, 5, 5, 0))).toBe(3);
        expect(fileSplit(Uint32Array.of(10_000, 0, 1, 1, 1))).toBe(1);
        expect(fileSplit(Uint32Array.of(1, 1, 1, 10_000))).toBe(3);
        const many = new Uint32Array(1_000).fill(3);
        expect(fileSplit(many)).toBe(500);
    });

    it('fails the rows\' stage on raw rows cut short', () => {
        const dir = tempDir('lcf-table-encode-');
        const stem = path.join(dir, 'symbols.bin.1.00000000');
        const enc = new TableEncoder(stem);
        try {
            for (let i = 0; i < 100; i++) enc.add(`n${i}`, [{ file: 1, line: i + 1, end: i + 1, cont: 0, kind: 1 }], [[-1, 0, 0]]);
            enc.finish();
        } finally {
            for (const w of enc.cols.values()) w.close();
        }
        fs.truncateSync(columnFile(stem, 'rawRows'), 10);
        expect(() => deflateRows(stem)).toThrow(/raw rows are cut short/);
    });
});
