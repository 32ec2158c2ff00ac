/**
 * The symbol table's definitions by file (src/symbols/file-rows.ts), made from encoded rows: every
 * row lands under its file with its lines, rows naming a file past the table are left out, and the
 * enclosing definition of a line is the innermost, the later on a tie, with no answer where two on
 * one first line tie with different names. Rows that do not decode are refused.
 */
import { describe, expect, it } from 'vitest';
import { FileRows } from '../../../src/symbols/file-rows.js';
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

describe('the table\'s definitions by file', () => {
    it('puts each row under its file across blocks, and leaves out rows of a file past the table', async () => {
        // 70 names over three blocks; name n has rows in files n % 5 and 7 (past a table of 6).
        const names = Array.from({ length: 70 }, (_, n) => [row(n % 5, 10 * n + 1, 10 * n + 4), row(7, n + 1, n + 1)]);
        const { rows, blockRows, blockDefs } = encoded(names);
        const f = await FileRows.of(rows, blockRows, blockDefs, names.length, 6);
        for (let file = 0; file < 6; file++) {
            const got = Array.from({ length: f.start[file + 1]! - f.start[file]! }, (_, i) => f.start[file]! + i).map((i) => [f.def[i], f.line[i], f.end[i]]);
            // Definition number of name n's first row: 2n.
            const want = names.flatMap((_, n) => (n % 5 === file ? [[2 * n, 10 * n + 1, 10 * n + 4]] : []));
            expect(got, `file ${file}`).toEqual(want);
        }
        expect(f.start[6]).toBe(70);
    });

    it('tells the innermost definition of each line, the later on a tie, and no answer where two on one line tie with different names', async () => {
        // File 0: a function 1-20 holding a struct 5-9; two one-line definitions on line 12; one on 30 alone.
        const names = [[row(0, 1, 20)], [row(0, 5, 9)], [row(0, 12, 12)], [row(0, 12, 12)], [row(0, 30, 30)], [row(0, 3, 6)]];
        const { rows, blockRows, blockDefs } = encoded(names);
        const f = await FileRows.of(rows, blockRows, blockDefs, names.length, 1);
        const shownBy = (texts: string[]) => (k: number) => texts[k]!;
        const distinct = shownBy(['f', 's', 'a', 'b', 'g', 't']);
        // Struct 5-9 and t 3-6 both hold line 5, with 4 and 3 more lines: t, the fewer.
        expect(f.enclosing(0, [1, 4, 5, 7, 10, 20, 21, 30], distinct)).toEqual([0, 5, 5, 1, 0, 0, -1, 4]);
        expect(f.enclosing(0, [12], distinct)).toBeNull();
        // The same text for both (one name declared twice on a line): either will do.
        expect(f.enclosing(0, [12], shownBy(['f', 's', 'x', 'x', 'g', 't']))).toEqual([expect.any(Number)]);
        // A tie of equal spans on different first lines: the later one, as the parse's order gives it.
        const tie = encoded([[row(0, 1, 3)], [row(0, 2, 4)]]);
        const g = await FileRows.of(tie.rows, tie.blockRows, tie.blockDefs, 2, 1);
        expect(g.enclosing(0, [2, 3], shownBy(['one', 'two']))).toEqual([1, 1]);
        expect(g.enclosing(0, [1, 4], shownBy(['one', 'two']))).toEqual([0, 1]);
    });

    it('refuses rows that do not decode', async () => {
        const { rows, blockRows, blockDefs } = encoded([[row(0, 1, 2)], [row(0, 3, 4)]]);
        await expect(FileRows.of(rows.subarray(0, rows.length - 1), Uint32Array.of(0, rows.length - 1), blockDefs, 2, 1)).rejects.toThrow(RangeError);
        await expect(FileRows.of(rows, blockRows, Uint32Array.of(0, 3), 2, 1)).rejects.toThrow(RangeError);
    });
});
