/**
 * The symbols file's rows by file: written by the merge, left on disk by the host and read a file
 * at a time. Each file's rows are the rows by name that name it, in definition order; a file's
 * rows that changed on disk since the load are not given (the caller parses the file), and a
 * table whose writer got the section wrong is refused when loaded. The rows by name are read
 * from disk a block at a time too: a block changed since the load is refused, never decoded.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEADER_BYTES, KIND_CODES, layoutOf, readCounts, SYMBOL_MAGIC, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import { SymbolFileError, SymbolStore } from '../../../src/symbols/symbol-store.js';
import { writePart } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';

const TABLE = 100;

/** A table of 300 names over files 1-60 and one id past the table (left out), from two parts. */
function table(dir: string): string {
    const records: PartRecord[] = [];
    for (let i = 0; i < 300; i++) {
        const name = `name_${String(i).padStart(3, '0')}`;
        for (let j = 0; j <= i % 3; j++) {
            const file = i % 17 === 0 && j === 0 ? TABLE + 5 : 1 + ((i * 7 + j * 13) % 60);
            records.push([name, file, KIND_CODES.get('function')!, '', 1 + ((i * 31 + j) % 4000), 1 + ((i * 31 + j) % 4000) + (i % 9), -1, 0, 0]);
        }
    }
    const parts = [0, 1].map((k) => {
        const file = path.join(dir, `symbols-part-${k}.00000000.part`);
        const mine = records.filter((r) => r[1] % 2 === k);
        writePart(file, [[], []], mine);
        return file;
    });
    const out = path.join(dir, 'symbols.bin');
    expect(runSymbolsMerge({ op: 'symbols-merge', parts, tableSize: TABLE, out })).toMatchObject({ ok: true, names: 300 });
    return out;
}

/** Each file's rows as the rows by name hold them: `[definition, line, last line]` in definition order. */
function expected(store: SymbolStore): [number, number, number][][] {
    const out: [number, number, number][][] = Array.from({ length: TABLE }, () => []);
    for (let k = 0; k < store.counts.defs; k++) {
        const file = store.fileOf(k);
        if (file >= TABLE) continue;
        const d = store.definitionAt(k);
        out[file]!.push([k, d.line, d.endLine]);
    }
    return out;
}

const rowsOf = (r: { def: Uint32Array; line: Uint32Array; end: Uint32Array } | null): [number, number, number][] | null => (r === null ? null : Array.from(r.def, (k, i) => [k, r.line[i]!, r.end[i]!]));

function redigest(bytes: Buffer): Buffer {
    const out = Buffer.from(bytes);
    createHash('sha256').update(out.subarray(SYMBOL_MAGIC.length + 32)).digest().copy(out, SYMBOL_MAGIC.length);
    return out;
}

describe('the symbols file\'s rows by file', () => {
    it('gives each file the rows by name that name it, in definition order, and none for an id outside the table', async () => {
        const store = await SymbolStore.load(table(tempDir('lcf-byfile-')), TABLE);
        try {
            const want = expected(store);
            expect(want.filter((r) => r.length > 0).length).toBe(60);
            const got = await store.byFile.read(Array.from({ length: TABLE }, (_, id) => id));
            expect(got.map(rowsOf)).toEqual(want);
            expect(got.reduce((n, r) => n + r!.def.length, 0)).toBeLessThan(store.counts.defs);
            expect(await store.byFile.read([-1, TABLE, TABLE + 5, 2 ** 40, 0.5])).toEqual([null, null, null, null, null]);
        } finally {
            await store.close();
        }
    });

    it('gives no rows for a file whose bytes changed on disk since the load, and gives them again once they match', async () => {
        const file = table(tempDir('lcf-byfile-disk-'));
        const good = fs.readFileSync(file);
        const l = layoutOf(readCounts(good.subarray(0, HEADER_BYTES)));
        const store = await SymbolStore.load(file, TABLE);
        try {
            const want = expected(store);
            const at = l.fileRows + store.byFile.start[7]!;
            const fd = fs.openSync(file, 'r+');
            try {
                fs.writeSync(fd, Buffer.of(good[at + 1]! ^ 0x01), 0, 1, at + 1);
                expect((await store.byFile.read([7, 8, 7])).map(rowsOf)).toEqual([null, want[8], null]);
                fs.writeSync(fd, good, at + 1, 1, at + 1);
                expect((await store.byFile.read([7])).map(rowsOf)).toEqual([want[7]]);
                // Cut short under it: every file past the cut is given none.
                fs.ftruncateSync(fd, l.fileRows + store.byFile.start[50]!);
                const cut = await store.byFile.read([49, 50, 60]);
                expect(cut.map(rowsOf)).toEqual([want[49], null, null]);
            } finally {
                fs.closeSync(fd);
            }
        } finally {
            await store.close();
        }
    });

    it('refuses a table whose digest checks out but whose rows by file its writer got wrong, and reads no rows that do not decode', async () => {
        const file = table(tempDir('lcf-byfile-wrong-'));
        const good = fs.readFileSync(file);
        const counts = readCounts(good.subarray(0, HEADER_BYTES));
        const l = layoutOf(counts);
        const wrong: [string, (b: Buffer) => void][] = [
            ['out of order', (b) => b.writeUInt32LE(counts.fileRowBytes, l.fileOff + 4 * 10)],
            ['past the section', (b) => b.writeUInt32LE(counts.fileRowBytes + 1, l.fileOff + 4 * TABLE)],
            ['not from the start', (b) => b.writeUInt32LE(1, l.fileOff)],
        ];
        for (const [what, spoil] of wrong) {
            const bad = Buffer.from(good);
            spoil(bad);
            fs.writeFileSync(file, redigest(bad));
            await expect(SymbolStore.load(file, TABLE), what).rejects.toThrow(SymbolFileError);
        }
        // Rows that do not decode, with a CRC the writer made of them: loaded, and none given for that file.
        const store0 = await (async () => {
            fs.writeFileSync(file, good);
            return SymbolStore.load(file, TABLE);
        })();
        const [from, to] = [store0.byFile.start[9]!, store0.byFile.start[10]!];
        const want = expected(store0);
        await store0.close();
        const bad = Buffer.from(good);
        bad.fill(0xff, l.fileRows + from, l.fileRows + to);
        const { crc32 } = await import('node:zlib');
        bad.writeUInt32LE(crc32(bad.subarray(l.fileRows + from, l.fileRows + to)), l.fileCrc + 4 * 9);
        fs.writeFileSync(file, redigest(bad));
        const store = await SymbolStore.load(file, TABLE);
        try {
            expect((await store.byFile.read([9, 10])).map(rowsOf)).toEqual([null, want[10]]);
        } finally {
            await store.close();
        }
    });

    it('reads the rows by name from the file a block at a time, and refuses a block that changed on disk since the load', async () => {
        const file = table(tempDir('lcf-byname-disk-'));
        const good = fs.readFileSync(file);
        const l = layoutOf(readCounts(good.subarray(0, HEADER_BYTES)));
        const store = await SymbolStore.load(file, TABLE);
        try {
            const n = store.find('name_200');
            const [from] = store.definitionsOf(n);
            const before = store.definition(from, 'name_200');
            const first = store.definition(0, store.nameAt(0));
            const fd = fs.openSync(file, 'r+');
            try {
                // Every row's byte flipped: no block but the one decoded last (block 0, kept) has its bytes.
                const bad = Buffer.from(good.subarray(l.rows, l.contOff).map((b) => b ^ 0x01));
                fs.writeSync(fd, bad, 0, bad.length, l.rows);
                expect(() => store.definitionsOf(store.find('name_100'))).toThrow(SymbolFileError);
                expect(() => store.definitionsOf(n)).toThrow(/changed on disk/);
                fs.writeSync(fd, good, l.rows, l.contOff - l.rows, l.rows);
                expect(store.definition(store.definitionsOf(n)[0], 'name_200')).toEqual(before);
                expect(store.definition(0, store.nameAt(0))).toEqual(first);
            } finally {
                fs.closeSync(fd);
            }
        } finally {
            await store.close();
        }
    });
});
