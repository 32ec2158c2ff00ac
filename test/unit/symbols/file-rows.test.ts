/**
 * The symbol table's definitions by file (src/symbols/shared/file-rows-codec.ts, read by
 * src/symbols/file-rows.ts), made from encoded rows: every row lands under its file with its
 * lines, rows naming a file past the table are left out, and the enclosing definition of a line is
 * the innermost, with no answer where two of as few lines tie with different
 * names. Rows that do not decode are refused, when written and when read back.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { enclosing } from '../../../src/symbols/file-rows.js';
import { decodeFileRows, encodeFileRows, type FileDefs } from '../../../src/symbols/shared/file-rows-codec.js';
import { BLOCK_NAMES, RowEncoder, type Row } from '../../../src/symbols/shared/symbol-codec.js';

/** Rows of `names` (each name's rows in file order, as the merge writes them) encoded in blocks, with the blocks' starts. */
function encoded(names: Row[][]): { rows: Uint8Array; blockRows: Uint32Array; blockDefs: Uint32Array } {
    const out = new Uint8Array(64 * names.reduce((n, r) => n + r.length + 1, 0));
    const blocks = Math.ceil(names.length / BLOCK_NAMES);
    const [blockRows, blockDefs] = [new Uint32Array(blocks + 1), new Uint32Array(blocks + 1)];
    const enc = new RowEncoder();
    let [at, defs] = [0, 0];
    for (let b = 0; b < blocks; b++) {
        [blockRows[b], blockDefs[b]] = [at, defs];
        enc.reset();
        for (const rows of names.slice(b * BLOCK_NAMES, (b + 1) * BLOCK_NAMES)) {
            at = enc.put(out, at, rows);
            defs += rows.length;
        }
    }
    [blockRows[blocks], blockDefs[blocks]] = [at, defs];
    return { rows: out.subarray(0, at), blockRows, blockDefs };
}

const row = (file: number, line: number, end: number): Row => ({ file, line, end, cont: 0, kind: 0 });

/** The rows by file of `names` for a table of `tableSize` entries, each file's decoded from the section's bytes after its CRC is checked. */
function byFile(names: Row[][], tableSize: number): FileDefs[] {
    const { rows, blockRows, blockDefs } = encoded(names);
    const { offsets, crcs, data } = encodeFileRows(rows, blockRows, blockDefs, names.length, tableSize);
    expect(offsets.length).toBe(4 * (tableSize + 1));
    expect(offsets.readUInt32LE(4 * tableSize)).toBe(data.length);
    const defs = blockDefs[blockDefs.length - 1]!;
    return Array.from({ length: tableSize }, (_, f) => {
        const bytes = data.subarray(offsets.readUInt32LE(4 * f), offsets.readUInt32LE(4 * f + 4));
        expect(crc32(bytes), `file ${f}'s CRC`).toBe(crcs.readUInt32LE(4 * f));
        return decodeFileRows(bytes, defs);
    });
}

describe('the table\'s definitions by file', () => {
    it('puts each row under its file across blocks, and leaves out rows of a file past the table', async () => {
        // 70 names over three blocks; name n has rows in files n % 5 and 7 (past a table of 6).
        const names = Array.from({ length: 70 }, (_, n) => [row(n % 5, 10 * n + 1, 10 * n + 4), row(7, n + 1, n + 1)]);
        const f = byFile(names, 6);
        for (let file = 0; file < 6; file++) {
            const got = Array.from(f[file]!.def, (k, i) => [k, f[file]!.line[i], f[file]!.end[i]]);
            // Definition number of name n's first row: 2n.
            const want = names.flatMap((_, n) => (n % 5 === file ? [[2 * n, 10 * n + 1, 10 * n + 4]] : []));
            expect(got, `file ${file}`).toEqual(want);
        }
        expect(f.reduce((n, d) => n + d.def.length, 0)).toBe(70);
        expect(f[5]!.def.length).toBe(0);
    });

    it('tells the innermost definition of each line, and no answer where two of as few lines tie with different names', async () => {
        // File 0: a function 1-20 holding a struct 5-9; two one-line definitions on line 12; one on 30 alone.
        const names = [[row(0, 1, 20)], [row(0, 5, 9)], [row(0, 12, 12)], [row(0, 12, 12)], [row(0, 30, 30)], [row(0, 3, 6)]];
        const [f] = byFile(names, 1);
        const shownBy = (texts: string[]) => (k: number) => texts[k]!;
        const distinct = shownBy(['f', 's', 'a', 'b', 'g', 't']);
        // Struct 5-9 and t 3-6 both hold line 5, with 4 and 3 more lines: t, the fewer.
        expect(enclosing(f!, [1, 4, 5, 7, 10, 20, 21, 30], distinct)).toEqual([0, 5, 5, 1, 0, 0, -1, 4]);
        expect(enclosing(f!, [12], distinct)).toBeNull();
        // The same text for both (one name declared twice on a line): either will do.
        expect(enclosing(f!, [12], shownBy(['f', 's', 'x', 'x', 'g', 't']))).toEqual([expect.any(Number)]);
        // A tie of equal spans on different first lines: no answer either, since which one holds the
        // use on a line both hold only a parse tells; lines only one holds are answered.
        const [g] = byFile([[row(0, 1, 3)], [row(0, 2, 4)]], 1);
        expect(enclosing(g!, [2], shownBy(['one', 'two']))).toBeNull();
        expect(enclosing(g!, [3], shownBy(['one', 'two']))).toBeNull();
        expect(enclosing(g!, [1, 4], shownBy(['one', 'two']))).toEqual([0, 1]);
    });

    it('refuses rows that do not decode', () => {
        const { rows, blockRows, blockDefs } = encoded([[row(0, 1, 2)], [row(0, 3, 4)]]);
        expect(() => encodeFileRows(rows.subarray(0, rows.length - 1), Uint32Array.of(0, rows.length - 1), blockDefs, 2, 1)).toThrow(RangeError);
        expect(() => encodeFileRows(rows, blockRows, Uint32Array.of(0, 3), 2, 1)).toThrow(RangeError);
    });

    it('refuses a file\'s rows read back that do not decode: cut short, past the table, out of order, bytes past them', () => {
        const { rows, blockRows, blockDefs } = encoded([[row(0, 1, 9)], [row(0, 3, 4)], [row(0, 5, 5)]]);
        const { data } = encodeFileRows(rows, blockRows, blockDefs, 3, 1);
        expect(Array.from(decodeFileRows(data, 3).def)).toEqual([0, 1, 2]);
        expect(() => decodeFileRows(data, 2), 'a number past the table').toThrow(RangeError);
        expect(() => decodeFileRows(data.subarray(0, data.length - 1), 3), 'cut short').toThrow(RangeError);
        expect(() => decodeFileRows(Buffer.concat([data, Buffer.of(0)]), 3), 'a byte past them').toThrow(RangeError);
        // Count 2, then rows 0 and 0 + 0: the second's number is not after the first's.
        expect(() => decodeFileRows(Buffer.of(2, 0, 1, 0, 0, 2, 0), 3), 'out of order').toThrow(RangeError);
        expect(() => decodeFileRows(Buffer.of(0), 3), 'a count of none with bytes').toThrow(RangeError);
        expect(decodeFileRows(Buffer.alloc(0), 3).def.length).toBe(0);
    });
});
