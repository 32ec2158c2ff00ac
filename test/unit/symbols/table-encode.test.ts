/**
 * The merge's encoder (workers/symbols/table-encode.ts): every section that grows with the tree
 * goes to a temporary column as it is made. The rows by file are deflated a file at a time into
 * their column, and only their offsets and CRC-32s (four bytes each per table entry) come back
 * in memory; the bytes in the column are each file's rows by file, deflated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflated } from '../../../src/symbols/shared/deflated.js';
import { encodeFileRows } from '../../../src/symbols/shared/file-rows-codec.js';
import { TableEncoder } from '../../../workers/symbols/table-encode.js';
import { tempDir } from '../../support/helpers.js';

const TABLE = 3_000;

describe('the merge encoder', () => {
    it('streams the rows by file to their column a file at a time, keeping only offsets and CRCs', () => {
        const dir = tempDir('lcf-table-encode-');
        const enc = new TableEncoder(path.join(dir, 'symbols.bin.1.00000000'));
        try {
            // 20,000 names over files 1-2,899 and ids past the table (left out), some files with none.
            for (let i = 0; i < 20_000; i++) {
                const rows = Array.from({ length: 1 + (i % 4) }, (_, j) => ({ file: j === 3 ? TABLE + (i % 5) : 1 + ((i * 7 + j * 131) % 2_899), line: 1 + ((i + j) % 9_000), end: 1 + ((i + j) % 9_000) + (i % 13), cont: 0, kind: i % 3 }));
                enc.add(`name_${String(i).padStart(5, '0')}`, rows, rows.map(() => [-1, 0, 0]));
            }
            enc.finish();
            const byFile = enc.byFile(TABLE);
            expect(Object.keys(byFile).sort(), 'what the merge holds of them').toEqual(['crcs', 'offsets']);
            const col = fs.readFileSync(enc.col('fileRows').file);
            expect(col.length).toBe(enc.col('fileRows').bytes);
            expect(byFile.offsets.readUInt32LE(4 * TABLE)).toBe(col.length);
            // The same rows by file made in memory from the raw rows, as the format defines them.
            const u32s = (c: 'rawBlockRows' | 'blockDefs'): Uint32Array => new Uint32Array(new Uint8Array(fs.readFileSync(enc.col(c).file)).buffer);
            const raw = encodeFileRows(fs.readFileSync(enc.col('rawRows').file), u32s('rawBlockRows'), u32s('blockDefs'), enc.names, TABLE);
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
        } finally {
            for (const w of enc.cols.values()) w.close();
        }
    });
});
