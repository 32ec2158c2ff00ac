/**
 * The index's file table as the host receives it: the walk's table crosses to the host encoded
 * (workers/search-index/index-walk.ts) and is decoded in slices between yields (format.ts); the loaded table
 * (table.ts) makes paths and finds ids by path on demand. Sliced work must give exactly what the
 * same work at once gives, on a real temporary tree large enough for many slices.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachGram } from '../../../src/search/shared/fold.js';
import { decodeTable, encodeTable, encodeTableParts, IndexFormatError, Kind, type FileTable } from '../../../src/search-index/shared/format.js';
import { decodeNames, Names } from '../../../src/search-index/shared/table-names.js';
import { Table } from '../../../src/search-index/table.js';
import { walkEncoded } from '../../../workers/search-index/index-walk.js';
import { fileTempDir } from '../../support/engine-fixture.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { expectSameItems } from '../../support/same-items.js';

let shared: string | undefined;

/**
 * About 200 KB of names: several slices of the name decoding; ASCII, accented, CJK and astral
 * (surrogate pair) names. Written once for the file (the tests only walk it): 3,000 files cost
 * about a second of CPU each time.
 */
function bigTree(): string {
    if (shared !== undefined && fs.existsSync(shared)) return shared;
    const root = fileTempDir('lcf-index-table-');
    const files: Record<string, string> = {};
    const tails = ['ascii', 'accentué-é', '日本語のファイル', 'emoji-😀-pair', 'Ünïcödé'];
    for (let d = 0; d < 30; d++) {
        for (let f = 0; f < 100; f++) {
            files[`dir-${String(d).padStart(2, '0')}-${'x'.repeat(d)}/file-${String(f).padStart(3, '0')}-${tails[f % tails.length]}-${'n'.repeat(20 + (f % 17))}.txt`] = f % 7 === 0 ? '' : `content ${d} ${f}\n`;
        }
    }
    files['deep/a/b/c/d/e/leaf.c'] = 'int main(void) { return 0; }\n';
    writeTree(root, files);
    fs.symlinkSync('deep/a', path.join(root, 'link-to-a'));
    shared = root;
    return root;
}

/** The tree's relative paths in the order of a sequential search walk (depth-first, names by UTF-16 code units), the root first. */
function walkOrder(root: string): string[] {
    const out = [''];
    const visit = (rel: string): void => {
        const names = fs.readdirSync(rel === '' ? root : path.join(root, rel)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        for (const name of names) {
            const r = rel === '' ? name : `${rel}/${name}`;
            out.push(r);
            if (fs.lstatSync(path.join(root, r)).isDirectory()) visit(r);
        }
    };
    visit('');
    return out;
}

async function walked(root: string): Promise<Buffer> {
    const r = await walkEncoded({ op: 'index-walk', root, skipDirs: ['.git', 'node_modules'], maxEntries: 1_000_000 });
    if (!r.ok) throw new Error(r.message);
    return Buffer.from(r.table.buffer, r.table.byteOffset, r.table.length);
}

/** Offsets of the names in a table file (format.ts layout: 48-byte header, 38 bytes of columns per entry and the name posting lists in 32-bit words, then the names). */
function namesRange(bytes: Buffer): [number, number] {
    const n = bytes.readUInt32LE(12);
    const from = 48 + n * 38 + (2 * bytes.readUInt32LE(24) + 1 + bytes.readUInt32LE(28)) * 4;
    return [from, from + bytes.readDoubleLE(16)];
}

describe('index file table', () => {
    it("the walk's table, decoded in slices, is the tree in walk order and what decoding the names at once gives", async () => {
        const root = bigTree();
        const bytes = await walked(root);
        let pauses = 0;
        const t = await decodeTable(bytes, 'walk', async () => {
            pauses++;
        });
        const [from, to] = namesRange(bytes);
        expect(to - from).toBeGreaterThan(150_000);
        const atOnce = bytes.toString('utf8', from, to).split('\0');
        expect([...t.names]).toEqual(atOnce);
        expect(t.names.length).toBe(atOnce.length);
        for (const i of [0, 1, 2, atOnce.length - 1]) expect(t.names.get(i)).toBe(atOnce[i]);
        // The names and parents give back every path of the tree, in walk order.
        const paths = ['']; // parents come first
        for (let i = 1; i < t.names.length; i++) paths.push(t.parent[i] === 0 ? t.names.get(i) : `${paths[t.parent[i]!]}/${t.names.get(i)}`);
        expect(paths).toEqual(walkOrder(root));
        expect(t.kind[paths.indexOf('link-to-a')]).toBe(Kind.Link);
        expect(t.kind[paths.indexOf('deep/a/b')]).toBe(Kind.Dir);
        // Several slices of names, each followed by a pause (besides the checksum's).
        expect(pauses).toBeGreaterThan(3);
        // Encoding it again in slices gives the same bytes.
        expect((await encodeTable(t, async () => undefined)).equals(bytes)).toBe(true);
        // The parts the build writes one after the other are those bytes; the columns among them are views of the table's arrays.
        const parts = await encodeTableParts(t, async () => undefined);
        expect(Buffer.concat(parts).equals(bytes)).toBe(true);
        expect(parts.some((p) => p.buffer === t.size.buffer && p.byteOffset === t.size.byteOffset)).toBe(true);
    });

    it('decodes names cut anywhere: at a NUL on the slice boundary, trailing empty names, characters of 2 to 4 bytes across the boundary', async () => {
        const SLICE = 64 * 1024;
        const cases: string[][] = [
            [''],
            ['', ''],
            ['a', ''],
            ['', 'a', 'b', ''],
            // A NUL exactly at the first slice boundary.
            ['y'.repeat(SLICE), 'after', ''],
            ['y'.repeat(SLICE - 1), 'z'],
            // Multi-byte characters straddling the boundary.
            ['é'.repeat(SLICE / 2 + 1), '日本'.repeat(30_000), '😀'.repeat(20_000), 'end'],
            Array.from({ length: 20_000 }, (_, i) => `n${i}-ü`),
        ];
        // In memory of its own and in shared memory (a reopen's table, read once for its threads).
        for (const [names, inShared] of cases.flatMap((c) => [[c, false], [c, true]] as const)) {
            const plain = Buffer.concat([Buffer.from('prefix'), Buffer.from(names.join('\0'), 'utf8'), Buffer.from('suffix')]);
            const bytes = inShared ? Buffer.from(new SharedArrayBuffer(plain.length)) : plain;
            plain.copy(bytes);
            const from = 6;
            const to = bytes.length - 6;
            let pauses = 0;
            const got = await decodeNames(bytes, from, to, async () => {
                pauses++;
            });
            expect([...got]).toEqual(bytes.toString('utf8', from, to).split('\0'));
            expect([...got]).toEqual(names);
            expect(got.length).toBe(names.length);
            expect(got.get(names.length - 1)).toBe(names.at(-1));
            if (to - from > 2 * SLICE) expect(pauses).toBeGreaterThan(0);
        }
    });

    it('names held as bytes give back each name, with empty, accented, astral and escaped ones and none at all', () => {
        for (const list of [[], [''], ['', ''], ['a', '', 'é', '😀x', ''], ['caf\udce9.txt', 'café', 'caf', '\uFFFD', 'x\udcff\udc80y', 'ASCII'], ['root', ...Array.from({ length: 5000 }, (_, i) => `n${i}-日本`)]]) {
            const names = Names.of(list);
            expect(names.length).toBe(list.length);
            expect([...names]).toEqual(list);
            expect(list.map((_, i) => names.get(i))).toEqual(list);
            // In-place comparison orders as the strings do (the differences collected: an expect() per pair was slow).
            const misordered: string[] = [];
            for (const [i, name] of list.entries()) {
                for (const other of [name, `${name}a`, name.slice(0, -1), 'é', '', '😀', 'n1']) {
                    const got = Math.sign(names.compare(i, other));
                    const want = Math.sign(name < other ? -1 : name > other ? 1 : 0);
                    if (got !== want) misordered.push(`${JSON.stringify(name)} vs ${JSON.stringify(other)}: ${got}, not ${want}`);
                }
            }
            expect(misordered).toEqual([]);
            if (list.length > 2) expect(names.joined(1, 3)).toBe(list.slice(1, 3).join('\0'));
        }
    });

    it("a loaded table gives each entry's relative path and finds each entry by its path, with the name posting lists made the plain way", async () => {
        const root = bigTree();
        const t: FileTable = await decodeTable(await walked(root), 'walk', async () => undefined);
        const paths = walkOrder(root);
        const given = await Table.load(t);
        expect(given.size).toBe(paths.length);
        // The one link; no file is marked unindexed before the content phase.
        expect([...given.always]).toEqual([paths.indexOf('link-to-a')]);
        // Asked in an order other than the walk's: directories' paths are made on demand.
        // Each check of the 3,000 entries collected and asserted once: an expect() each was most of the file's CPU.
        const pathsBack: string[] = [];
        for (let i = paths.length - 1; i >= 0; i--) pathsBack.push(given.pathOf(i));
        expect(pathsBack.reverse()).toEqual(paths);
        const wrong: unknown[] = [];
        for (const [i, p] of paths.entries()) {
            const got = { id: given.idOf(p), has: given.has(p), child: i > 0 ? given.childOf(t.parent[i]!, t.names.get(i)) : i };
            if (got.id !== i || !got.has || got.child !== i) wrong.push({ p, i, ...got });
        }
        expect(wrong).toEqual([]);
        // Paths that name no entry: missing names before, between and after the children, a file as a directory, empty components.
        for (const p of ['0-before-all', 'zzz-after-all', 'deep/a/b/c/d/e/leaf.c/x', 'deep/a/b/c/d/e/missing.c', 'deep//a', 'deep/', '/deep', 'link-to-a/b', 'deep/a/b/c/d/e/leaf.c '])
            expect(given.idOf(p), p).toBeUndefined();
        expect(given.childOf(paths.indexOf('deep/a/b/c/d/e'), 'leaf.b')).toBeUndefined();
        // Every gram of every name: its posting list is the ids of the names holding it, ascending (made here the plain way).
        const expected = new Map<number, number[]>();
        [...t.names].forEach((name, i) =>
            forEachGram(name, (g) => {
                const list = expected.get(g) ?? [];
                if (list.at(-1) !== i) list.push(i);
                expected.set(g, list);
            }),
        );
        expect(expected.size).toBeGreaterThan(200);
        for (const [g, list] of expected) {
            expectSameItems(given.nameIds(g), list, String(g));
            if (given.nameCount(g) !== list.length) expect(given.nameCount(g), String(g)).toBe(list.length);
        }
        const absent = [...'qqq'].reduce((w, c) => (w << 8) | c.charCodeAt(0), 0);
        expect(expected.has(absent)).toBe(false);
        expect(given.nameIds(absent).length).toBe(0);
        const id = paths.indexOf('deep/a/b/c/d/e/leaf.c');
        forEachGram('leaf.c', (g) => expect([...given.nameIds(g)]).toContain(id));
    });

    it('a table loaded from its file reads the name posting lists from it, each read checked, and finds a changed or cut file', async () => {
        const root = bigTree();
        const bytes = await walked(root);
        const file = path.join(tempDir('lcf-index-ids-'), 'table.bin');
        fs.writeFileSync(file, bytes);
        const held = await Table.load(await decodeTable(bytes, 'walk', async () => undefined));
        const paged = await Table.load(await decodeTable(fs.readFileSync(file), file, async () => undefined), file);
        // Held no longer: the columns are copies and the ids are on disk.
        expect(paged.t.grams.ids.length).toBe(0);
        expect(paged.t.size.buffer).not.toBe(held.t.size.buffer);
        expect([...paged.t.mtime]).toEqual([...held.t.mtime]);
        expect([...paged.t.kind]).toEqual([...held.t.kind]);
        const keys = [...held.t.grams.keys];
        // Several 64 KiB blocks of ids (16,384 a block), so lists within one block and across two are read.
        expect(held.t.grams.ids.length).toBeGreaterThan(3 * 16384);
        for (const g of keys) expectSameItems(paged.nameIds(g), held.nameIds(g), String(g));
        const absent = [...'qqq'].reduce((w, c) => (w << 8) | c.charCodeAt(0), 0);
        expect(paged.nameIds(absent).length).toBe(0);
        // A byte of the second block changed under the index: reading a list in that block fails, one in the first block still reads.
        const idsAt = 48 + held.size * 36 + keys.length * 8 + 4;
        const starts = held.t.grams.starts;
        const inSecond = keys.findIndex((_, r) => starts[r]! >= 16384 && starts[r + 1]! <= 2 * 16384 && starts[r + 1]! > starts[r]!);
        const inFirst = keys.findIndex((_, r) => starts[r + 1]! <= 16384 && starts[r + 1]! > starts[r]!);
        const fd = fs.openSync(file, 'r+');
        fs.writeSync(fd, Buffer.from([0xff]), 0, 1, idsAt + 4 * (starts[inSecond]! + 1) - 4 + 1);
        fs.closeSync(fd);
        expect(() => paged.nameIds(keys[inSecond]!)).toThrow(IndexFormatError);
        expect([...paged.nameIds(keys[inFirst]!)]).toEqual([...held.nameIds(keys[inFirst]!)]);
        // The file cut short: a list past the cut cannot be read.
        fs.truncateSync(file, idsAt + 16384 * 4);
        expect(() => paged.nameIds(keys.at(-1)!)).toThrow(/cut short|changed/);
        // Closed (its generation no longer served): no read.
        paged.close();
        expect(() => paged.nameIds(keys[inFirst]!)).toThrow(/closed/);
    });
});

