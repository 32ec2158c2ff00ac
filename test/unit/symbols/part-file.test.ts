/**
 * The symbol table's part files (workers/symbols/part-file.ts) and the merge's stages: records
 * read back as written, whatever their names and containers; a part cut short, with a byte
 * changed, or out of order fails its merge with a message naming it, and leaves no table and no
 * temporary file; the stages run one by one (as the build runs them on its threads) write the
 * table the single task writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Failure, KIND_CODES, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import { SymbolStore } from '../../../src/symbols/symbol-store.js';
import { PartReader, writePart, type PartHead } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';

const byName = (a: PartRecord, b: PartRecord): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]);
const fn = KIND_CODES.get('function')!;

/** Records with names and containers of every kind: non-ASCII, astral, past the writer's 64 KiB buffer, empty, repeated. */
function oddRecords(): PartRecord[] {
    const long = `long_${'x'.repeat(100_000)}`;
    const records: PartRecord[] = [
        ['ünïcode', 1, fn, '', 1, 2, 0, 6, 1],
        ['𝒳astral', 2, fn, 'Ñ\0𝒴', 3, 4, -1, 0, 0],
        [long, 3, fn, `C${'y'.repeat(70_000)}`, 5, 5, 2 ** 40, 2 * 0x7fff + 1, 0xffff],
        ['a', 1, fn, '', 7, 9, 12, 2, 3],
        ['a', 4, KIND_CODES.get('macro')!, 'S', 1, 1, 0, 2, 3],
        ['', 5, fn, '', 1, 1, -1, 0, 0],
        ['z\u00a0', 6, fn, '', 2 ** 31, 2 ** 31 + 5, 5, 4, 7],
    ];
    for (let i = 0; i < 3_000; i++) records.push([`n${i % 700}`, 10 + i, fn, i % 3 === 0 ? '' : `K${i % 5}`, i + 1, i + 2, 3 * i, 2 * (i % 50), i % 65_536]);
    return records.sort(byName);
}

function readAll(file: string): { head: PartHead; records: PartRecord[] } {
    const r = new PartReader(file);
    const records: PartRecord[] = [];
    try {
        while (r.next()) records.push([r.name, r.file, r.kind, r.cont, r.line, r.end, r.sig, r.sigLen, r.check]);
    } finally {
        r.close();
    }
    return { head: r.head, records };
}

/** A small part of a few names, and where it is. */
function smallPart(dir: string): string {
    const file = path.join(dir, 'symbols-part-0.00000000.part');
    writePart(file, [[[7, Failure.Timeout]], [[2, 'AAEC']]], [['alpha', 1, fn, '', 1, 2, 0, 6, 1], ['alpha', 2, fn, 'S', 3, 4, 0, 6, 1], ['beta', 2, fn, '', 5, 6, 10, 6, 2]]);
    return file;
}

/** The merge of `part` fails naming it, with no table and no temporary file left beside it. */
function expectMergeFails(part: string, why: RegExp): void {
    const dir = path.dirname(part);
    const out = path.join(dir, 'symbols.bin');
    const r = runSymbolsMerge({ op: 'symbols-merge', parts: [part], tableSize: 10, out });
    expect(r.ok).toBe(false);
    if (!r.ok) {
        expect(r.message).toContain(part);
        expect(r.message).toMatch(why);
    }
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('symbols.bin'))).toEqual([]);
}

describe('a symbol table part file', () => {
    it('reads back every record as written: non-ASCII, astral and very long names, empty and long containers, large numbers', () => {
        const dir = tempDir('lcf-part-file-');
        const file = path.join(dir, 'p.part');
        const records = oddRecords();
        const head: PartHead = [[[3, Failure.Timeout], [9, Failure.Other]], [[1, 'AAEC'], [4, '']]];
        writePart(file, head, records);
        expect(readAll(file)).toEqual({ head, records });
    });

    it("gives each record's name as its UTF-8 bytes too, past ASCII, astral and past the reader's name buffer alike", () => {
        const dir = tempDir('lcf-part-file-');
        const file = path.join(dir, 'p.part');
        const records = oddRecords();
        writePart(file, [[], []], records);
        const r = new PartReader(file);
        try {
            for (const want of records) {
                expect(r.next()).toBe(true);
                expect(r.name).toBe(want[0]);
                expect(r.nameBytes.subarray(0, r.nameLength).equals(Buffer.from(want[0], 'utf8')), want[0].slice(0, 20)).toBe(true);
            }
            expect(r.next()).toBe(false);
        } finally {
            r.close();
        }
    });

    it('merges parts of odd names into a table that finds each of them with its definitions', async () => {
        const dir = tempDir('lcf-part-file-');
        const records = oddRecords();
        const parts = [0, 1].map((k) => {
            const file = path.join(dir, `symbols-part-${k}.00000000.part`);
            writePart(file, [[], []], records.filter((r) => r[1] % 2 === k));
            return file;
        });
        const out = path.join(dir, 'symbols.bin');
        const names = new Set(records.map((r) => r[0]));
        expect(runSymbolsMerge({ op: 'symbols-merge', parts, tableSize: 4_000, out })).toMatchObject({ ok: true, names: names.size, definitions: records.length });
        const store = await SymbolStore.load(out, 4_000);
        try {
            for (const name of names) {
                const [from, to] = store.definitionsOf(store.find(name));
                const want = records.filter((r) => r[0] === name);
                const got = Array.from({ length: to - from }, (_, i) => store.definition(from + i, name));
                expect(got.map((d) => [d.line, d.endLine, d.container.join('\0')]), name.slice(0, 20)).toEqual(want.map((r) => [r[4], r[5], r[3]]));
                expect(Array.from({ length: to - from }, (_, i) => store.fileOf(from + i))).toEqual(want.map((r) => r[1]));
            }
        } finally {
            await store.close();
        }
    });

    it('fails the merge, naming the part, when the part is cut short at any byte', () => {
        const dir = tempDir('lcf-part-file-');
        const whole = fs.readFileSync(smallPart(dir));
        for (let n = 0; n < whole.length; n++) {
            const part = path.join(dir, `symbols-part-1.00000000.part`);
            fs.writeFileSync(part, whole.subarray(0, n));
            expectMergeFails(part, /cut short|not a part file|without|checksum|past/);
        }
    });

    it('fails the merge, naming the part, when any one byte of it is changed, or bytes follow it', () => {
        const dir = tempDir('lcf-part-file-');
        const whole = fs.readFileSync(smallPart(dir));
        for (let i = 0; i < whole.length; i++) {
            const part = path.join(dir, 'symbols-part-1.00000000.part');
            const bad = Buffer.from(whole);
            bad[i]! ^= 0x20;
            fs.writeFileSync(part, bad);
            expectMergeFails(part, /./);
        }
        const part = path.join(dir, 'symbols-part-1.00000000.part');
        fs.writeFileSync(part, Buffer.concat([whole, Buffer.from([0])]));
        expectMergeFails(part, /bytes past its records/);
    });

    it('fails the merge on records out of name order', () => {
        const dir = tempDir('lcf-part-file-');
        const part = path.join(dir, 'symbols-part-0.00000000.part');
        writePart(part, [[], []], [['beta', 1, fn, '', 1, 1, -1, 0, 0], ['alpha', 2, fn, '', 1, 1, -1, 0, 0]]);
        expectMergeFails(part, /out of order/);
    });
});

/** `records` in `count` parts (by file id) in the new folder `dir`, each with a checkpoint, the second with a failed file. */
function partsIn(dir: string, records: readonly PartRecord[], count: number): string[] {
    fs.mkdirSync(dir);
    return Array.from({ length: count }, (_, p) => {
        const file = path.join(dir, `symbols-part-${p}.00000000.part`);
        writePart(file, [p === 1 ? [[3, Failure.Other]] : [], [[p + 1, 'AAEC']]], records.filter((r) => r[1] % count === p));
        return file;
    });
}

describe('the merge in stages', () => {
    it('writes the same table stage by stage as in one task', () => {
        const dir = tempDir('lcf-merge-stages-');
        const records = oddRecords();
        const [out, parts] = [(k: string): string => path.join(dir, k, 'symbols.bin'), (k: string): string[] => partsIn(path.join(dir, k), records, 3)];
        expect(runSymbolsMerge({ op: 'symbols-merge', parts: parts('one'), tableSize: 4_000, out: out('one') })).toMatchObject({ ok: true });
        const task = { op: 'symbols-merge' as const, parts: parts('staged'), tableSize: 4_000, out: out('staged'), stem: `${out('staged')}.1.00000000` };
        const first = runSymbolsMerge({ ...task, stage: 'names' });
        expect(first).toMatchObject({ ok: true, names: new Set(records.map((r) => r[0])).size });
        const names = first.ok ? first.names : 0;
        // The two middle stages in the other order than one task runs them: each takes only the names' columns.
        for (const stage of ['file-rows', 'rows', 'join'] as const) expect(runSymbolsMerge({ ...task, parts: [], names, stage }), stage).toMatchObject({ ok: true });
        expect(fs.readFileSync(out('staged')).equals(fs.readFileSync(out('one')))).toBe(true);
        expect(fs.readdirSync(path.join(dir, 'staged')), 'no temporary file left').toEqual(['symbols.bin']);
    });

    it("writes the one task's table with the rows by file made in halves, split at any file", () => {
        const dir = tempDir('lcf-merge-stages-');
        const records = oddRecords();
        const [out, parts] = [(k: string): string => path.join(dir, k, 'symbols.bin'), (k: string): string[] => partsIn(path.join(dir, k), records, 2)];
        expect(runSymbolsMerge({ op: 'symbols-merge', parts: parts('one'), tableSize: 4_000, out: out('one') })).toMatchObject({ ok: true });
        const one = fs.readFileSync(out('one'));
        // The names' stage's own split, none before the first file or past the last, and two in between.
        for (const at of [undefined, 0, 1, 7, 2_000, 4_000]) {
            const k = `staged-${at}`;
            const task = { op: 'symbols-merge' as const, parts: parts(k), tableSize: 4_000, out: out(k), stem: `${out(k)}.1.00000000` };
            const first = runSymbolsMerge({ ...task, stage: 'names' });
            expect(first.ok && first.split).toBeGreaterThan(0);
            const [names, split] = first.ok ? [first.names, at ?? first.split!] : [0, 0];
            for (const t of [{ stage: 'rows' }, { stage: 'file-rows', half: 1 }, { stage: 'file-rows', half: 0 }, { stage: 'join' }] as const) expect(runSymbolsMerge({ ...task, parts: [], names, split, ...t }), t.stage).toMatchObject({ ok: true });
            expect(fs.readFileSync(out(k)).equals(one), `split at ${split}`).toBe(true);
            expect(fs.readdirSync(path.join(dir, k)), 'no temporary file left').toEqual(['symbols.bin']);
        }
    });

    it('removes every temporary file of the merge when a stage fails', () => {
        const dir = tempDir('lcf-merge-stages-');
        const part = smallPart(dir);
        const out = path.join(dir, 'symbols.bin');
        const task = { op: 'symbols-merge' as const, parts: [part], tableSize: 10, out, stem: `${out}.1.00000000` };
        expect(runSymbolsMerge({ ...task, stage: 'names' })).toMatchObject({ ok: true, names: 2 });
        expect(fs.readdirSync(dir).filter((n) => n.startsWith('symbols.bin.1.00000000.')).length).toBeGreaterThan(0);
        // The join without the rows' stages before it: their columns are missing.
        const r = runSymbolsMerge({ ...task, parts: [], names: 2, stage: 'join' });
        expect(r.ok).toBe(false);
        expect(fs.readdirSync(dir)).toEqual([]);
    });
});
