/**
 * The symbol table's file: joined from part files by the merge operation, loaded and checked by
 * the host. Lookups by exact name and by regex agree with testing every name; a file that does not
 * check out (a flipped byte, another generation's, a link, cut short) is refused.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { signatureCheck } from '../../../src/symbols/shared/signature.js';
import { BLOCK_NAMES } from '../../../src/symbols/shared/symbol-codec.js';
import { encodePoints } from '../../../src/symbols/shared/checkpoint-codec.js';
import { type Failure, HEADER_BYTES, KIND_CODES, layoutOf, readCounts, SYMBOL_MAGIC, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import { anchoredPrefix } from '../../../src/symbols/symbol-names.js';
import { requiredWord, SymbolFileError, SymbolStore } from '../../../src/symbols/symbol-store.js';
import { writePart as writePartFile } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { Turns } from '../../../src/engine/turns.js';
import { tempDir } from '../../support/helpers.js';

const NAMES = ['alpha', 'alphabet', 'beta', 'Beta', 'gamma_x', 'x', 'xx', 'ünïcode', '𝒳astral', 'a$b', 'zeta'];

/** A source file holding `line` (its signature's text), and the part record of a definition there. */
function def(dir: string, name: string, id: number, kind: string, container: string, line: number, end: number, sig: string): PartRecord {
    const file = path.join(dir, `f${id}.c`);
    const before = fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
    fs.writeFileSync(file, Buffer.concat([before, Buffer.from(`${sig}\n`, 'utf8')]));
    return [name, id, KIND_CODES.get(kind as 'function')!, container, line, end, before.length, 2 * Buffer.byteLength(sig), signatureCheck(sig)];
}

/** A part file: the failed files, the checkpoints, then the records sorted by name. */
function writePart(file: string, failed: [number, number][], records: PartRecord[], points: [number, string][] = []): string {
    const sorted = [...records].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    writePartFile(file, [failed as [number, Failure][], points], sorted);
    return file;
}

function make(dir: string, tableSize = 100): string {
    const parts: [[number, number][], PartRecord[]][] = [
        [[], NAMES.slice(0, 6).map((name, i) => def(dir, name, i + 1, 'function', i % 2 ? 'Outer\0Inner' : '', i + 1, i + 3, `int ${name}(void) — ü`))],
        [[[40, 0], [41, 1]], NAMES.slice(6).flatMap((name, i) => [def(dir, name, i + 20, 'macro', '', 1, 1, `#define ${name}`), def(dir, 'alpha', i + 20, 'struct', 'S', 5, 9, 'struct alpha {')])],
    ];
    const files = parts.map(([failed, records], k) => writePart(path.join(dir, `symbols-part-${k}.00000000.part`), failed, records));
    const out = path.join(dir, 'symbols.bin');
    const r = runSymbolsMerge({ op: 'symbols-merge', parts: files, tableSize, out });
    expect(r).toMatchObject({ ok: true, names: NAMES.length });
    expect(files.some((f) => fs.existsSync(f)), 'the parts are removed').toBe(false);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    return out;
}

describe('the symbols file', () => {
    it('finds names exactly and by regex as testing every name does', async () => {
        const dir = tempDir('lcf-symstore-');
        const store = await SymbolStore.load(make(dir), 100);
        const realOf = (k: number): string => path.join(dir, `f${store.fileOf(k)}.c`);
        try {
            for (const name of NAMES) expect(store.nameAt(store.find(name))).toBe(name);
            expect(store.find('alph')).toBe(-1);
            expect(store.find('')).toBe(-1);
            const alpha = store.definitionsOf(store.find('alpha'));
            expect(alpha[1] - alpha[0]).toBe(1 + (NAMES.length - 6));
            const defs = Array.from({ length: alpha[1] - alpha[0] }, (_, i) => store.definition(alpha[0] + i, 'alpha'));
            expect(defs[0]).toEqual({ kind: 'function', name: 'alpha', container: [], line: 1, endLine: 3, signature: '' });
            expect(defs[1]).toEqual({ kind: 'struct', name: 'alpha', container: ['S'], line: 5, endLine: 9, signature: '' });
            expect(await store.signatures([alpha[0], alpha[0] + 1], realOf)).toEqual(['int alpha(void) — ü', 'struct alpha {']);
            // Bytes that no longer give the checked signature: none given (the caller parses the file).
            fs.writeFileSync(realOf(alpha[0]), 'int other(void)\n');
            expect(await store.signatures([alpha[0], alpha[0] + 1], realOf)).toEqual([null, 'struct alpha {']);
            const inner = store.definitionsOf(store.find('alphabet'));
            expect(store.definition(inner[0], 'alphabet').container).toEqual(['Outer', 'Inner']);
            expect(Array.from(store.timedOut)).toEqual([40]);
            for (const source of ['^alpha', 'a$', 'x*', '^x+$', 'a[^z]*b', '\\s|t', '(?<=a)l', 'ü', '^.{1,2}$', '[\\u{1d4b3}]', 'B', 'nomatch', '\\$', 'alph(a|abet)', '^a(lpha)?bet$', 'et$', 'ze{0}ta', 'a(?!l)', '^gamma_x$', 'l.*a$']) {
                const re = new RegExp(source, 'u');
                const want = NAMES.filter((n) => re.test(n)).sort();
                const got = await store.matching(re);
                expect(got.stopped).toBe(false);
                expect(got.names.map((n) => store.nameAt(n)).sort(), source).toEqual(want);
            }
            // Past the call's time or cancelled: stopped, with the names found so far (none here).
            expect(await store.matching(/./u, { deadline: 0 })).toEqual({ names: [], stopped: true });
            const cancelled = new AbortController();
            cancelled.abort();
            expect(await store.matching(/./u, { deadline: Infinity, signal: cancelled.signal })).toEqual({ names: [], stopped: true });
        } finally {
            await store.close();
        }
    });

    it('looks for the word every match holds only where it is plain to see', () => {
        const cases: [string, string][] = [['^kvm_vcpu_', 'kvm_vcpu_'], ['_ioctl$', '_ioctl'], ['^mutex_(un)?lock$', 'mutex_'], ['^ext4_.*_super$', '_super'], ['ab*', 'a'], ['a{2}x', 'x'], ['a|b', ''], ['[ab]c', 'c'], ['\\bfoo', 'foo'], ['(abc)', ''], ['(?<=ab)c', 'c'], ['x(y', ''], ['^[a-z]+_ioctl$', '_ioctl'], ['[(]ab', 'ab'], ['\\(xy', 'xy'], ['[\\]a]+bc', 'bc'], ['[]ab', 'ab'], ['a\\p{L}bcd', 'bcd'], ['ab\\d{2}', 'ab'], ['\\x41bc', 'bc'], ['\\u0041\\cJ', ''], ['\\u{41}x', 'x'], ['\\k<nm>', ''], ['\\12', '']];
        for (const [source, word] of cases) expect(requiredWord(source), source).toBe(word);
    });

    it('is whole with empty sections (no container, no failed file, no definition)', async () => {
        for (const records of [[], [['solo', 1, KIND_CODES.get('function')!, '', 1, 1, 0, 3, 7] as PartRecord]]) {
            const dir = tempDir('lcf-symstore-empty-');
            const out = path.join(dir, 'symbols.bin');
            const part = writePart(path.join(dir, 'symbols-part-0.00000000.part'), [], records);
            expect(runSymbolsMerge({ op: 'symbols-merge', parts: [part], tableSize: 3, out })).toMatchObject({ ok: true, names: records.length, definitions: records.length });
            const store = await SymbolStore.load(out, 3);
            expect(store.find('solo')).toBe(records.length - 1);
            await store.close();
        }
    });

    it('checks a table of many entries over many turns of the event loop, and answers alike', async () => {
        // The checks grow with the tree's entries (two offsets each). Counted in turns, not time:
        // with slices of 0 ms every check point gives the event loop a turn, and the awaits of
        // the file's reads (whose count does not grow with the entries) are not counted.
        const tableSize = 300_000;
        const dir = tempDir('lcf-symstore-turns-');
        const file = make(dir, tableSize);
        const turns = new CountedTurns();
        const store = await SymbolStore.load(file, tableSize, turns);
        try {
            expect(turns.given, 'turns given to the event loop while the table was checked').toBeGreaterThan((2 * tableSize) / 10_000);
            for (const name of NAMES) expect(store.nameAt(store.find(name))).toBe(name);
            expect(Array.from(store.timedOut)).toEqual([40]);
        } finally {
            await store.close();
        }
        // Offsets out of order far into the table are still refused.
        const l = layoutOf(readCounts(fs.readFileSync(file).subarray(0, HEADER_BYTES)));
        const bad = fs.readFileSync(file);
        bad.writeUInt32LE(0xffff, l.fileOff + 4 * (tableSize - 10));
        fs.writeFileSync(file, redigest(bad));
        await expect(SymbolStore.load(file, tableSize, new CountedTurns())).rejects.toThrow(/rows by file out of order/);
    });

    it('refuses a file that does not check out', async () => {
        const dir = tempDir('lcf-symstore-bad-');
        const file = make(dir);
        await expect(SymbolStore.load(file, 101), 'another table size').rejects.toThrow(SymbolFileError);
        const good = fs.readFileSync(file);
        for (const at of [0, 45, good.length - 1, Math.floor(good.length / 2)]) {
            const bad = Buffer.from(good);
            bad[at] = bad[at]! ^ 1;
            fs.writeFileSync(file, bad);
            await expect(SymbolStore.load(file, 100), `byte ${at} flipped`).rejects.toThrow(SymbolFileError);
        }
        fs.writeFileSync(file, good.subarray(0, good.length - 4));
        await expect(SymbolStore.load(file, 100), 'cut short').rejects.toThrow(SymbolFileError);
        // A table of the format before (its magic) is made again, never read.
        fs.writeFileSync(file, Buffer.concat([Buffer.from('LCFSYM03', 'latin1'), good.subarray(8)]));
        await expect(SymbolStore.load(file, 100), 'the format before').rejects.toThrow(/not a symbols file/);
        fs.writeFileSync(file, good);
        const link = path.join(dir, 'link.bin');
        fs.symlinkSync(file, link);
        await expect(SymbolStore.load(link, 100), 'a link').rejects.toThrow();
        await expect(SymbolStore.load(path.join(dir, 'missing.bin'), 100)).rejects.toThrow();
        // A FIFO in its place: refused at once, not an open that waits for a writer forever.
        const fifo = path.join(dir, 'fifo.bin');
        execFileSync('mkfifo', [fifo]);
        await expect(SymbolStore.load(fifo, 100), 'a FIFO').rejects.toThrow(SymbolFileError);
        const store = await SymbolStore.load(file, 100);
        await store.close();
    });
});

/** Names that share long prefixes, at the edges of their length and of the blocks, not all ASCII. */
function edgeNames(): string[] {
    const names = new Set<string>(['a', 'b'.repeat(4096), `${'b'.repeat(4095)}c`, 'ü', 'üb', '𝒳', '\uffff', 'Z', '_']);
    for (let i = 0; names.size < 3 * BLOCK_NAMES + 1; i++) names.add(`${'x'.repeat(300)}_${String(i).padStart(3, '0')}`);
    for (let i = 0; i < 2 * BLOCK_NAMES; i++) names.add(`ünï_${i}_ioctl`);
    return [...names];
}

/** Records for `names`: 1-3 definitions each, in files spread over three parts; the table's order of them. */
function recordsOf(names: string[]): PartRecord[] {
    const out: PartRecord[] = [];
    names.forEach((name, i) => {
        for (let j = 0; j <= i % 3; j++) {
            const file = 1 + ((i * 7 + j * 13) % 50);
            const line = 1 + ((i * 31 + j) % 5000);
            out.push([name, file, i % 12, i % 5 === 0 ? `C${i % 4}\0D` : '', line, line + (j % 4), i % 9 === 0 ? -1 : 4096 * j + i, i % 9 === 0 ? 0 : 2 * (i % 300) + (i % 2), (i * 977) & 0xffff]);
        }
    });
    return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
}

/** Checkpoints of file `id` (as the pool takes them: increasing indexes and rows). */
const pointsOf = (id: number): number[] => Array.from({ length: 1 + (id % 5) }, (_, i) => [1000 * (i + 1) + id, 40 * (i + 1)]).flat();

function merged(dir: string, records: PartRecord[], failed: [number, number][] = []): string {
    const points = (k: number): [number, string][] => [k + 3, k + 30, k + 96].map((id) => [id, encodePoints(100_000 + id, 0xfffffff0 + (id % 16), pointsOf(id)).toString('base64')]);
    const parts = [0, 1, 2].map((k) => writePart(path.join(dir, `symbols-part-${k}.00000000.part`), k === 0 ? failed : [], records.filter((r) => r[1] % 3 === k), points(k)));
    const out = path.join(dir, 'symbols.bin');
    expect(runSymbolsMerge({ op: 'symbols-merge', parts, tableSize: 100, out })).toMatchObject({ ok: true, definitions: records.length });
    return out;
}

/** Slices of 0 ms (every check point is due), counting the turns given to the event loop. */
class CountedTurns extends Turns {
    given = 0;

    constructor() {
        super(0);
    }

    override async yield(): Promise<void> {
        this.given++;
        await super.yield();
    }
}

/** The file with its digest made again over its bytes (a table whose writer erred). */
function redigest(bytes: Buffer): Buffer {
    const out = Buffer.from(bytes);
    createHash('sha256').update(out.subarray(SYMBOL_MAGIC.length + 32)).digest().copy(out, SYMBOL_MAGIC.length);
    return out;
}

describe('the compact encoding', () => {
    it('gives back every name and definition: shared prefixes, 1 and 4,096 characters, not ASCII, across blocks', async () => {
        const dir = tempDir('lcf-symstore-edges-');
        const names = edgeNames();
        const records = recordsOf(names);
        const store = await SymbolStore.load(merged(dir, records), 100);
        try {
            expect(store.counts.names).toBe(names.length);
            const sorted = [...names].sort();
            sorted.forEach((name, n) => {
                expect(store.find(name), name.slice(0, 20)).toBe(n);
                expect(store.nameAt(n)).toBe(name);
            });
            for (const absent of ['', 'b', 'b'.repeat(4097), 'x'.repeat(300), 'ü_', '\u{10ffff}', '~']) expect(store.find(absent)).toBe(-1);
            let k = 0;
            for (const name of sorted) {
                const [from, to] = store.definitionsOf(store.find(name));
                expect(from).toBe(k);
                for (; k < to; k++) {
                    const r = records[k]!;
                    expect(r[0]).toBe(name);
                    expect(store.fileOf(k)).toBe(r[1]);
                    expect(store.definition(k, name)).toEqual({ kind: kindName(r[2]), name, container: r[3] === '' ? [] : r[3].split('\0'), line: r[4], endLine: r[5], signature: '' });
                }
            }
            expect(k).toBe(records.length);
            // Rows asked for out of order decode their blocks again.
            expect(store.fileOf(records.length - 1)).toBe(records[records.length - 1]![1]);
            expect(store.fileOf(0)).toBe(records[0]![1]);
            for (const source of ['^x{3}', '^xxx_01', '_ioctl$', 'ioctl', '^ü', 'c$', '^b+$', '^.$', '^[^x]', '0(?=5)', '^ünï_1', '^a$', 'i_1\\d_', 'zzz', '^ZZ', '^b{4096}$', '^\\x5a$', '\\u0061$', '[a-z]_ioctl$', '\\x78_0', '\\x5f\\d']) {
                const re = new RegExp(source, 'u');
                const got = await store.matching(re);
                expect(got.names.map((n) => store.nameAt(n)), source).toEqual(sorted.filter((n) => re.test(n)));
            }
        } finally {
            await store.close();
        }
    });

    it('finds by regex in more than one slice of names as testing every name does', async () => {
        const dir = tempDir('lcf-symstore-many-');
        const names = Array.from({ length: 60_000 }, (_, i) => `drv${i % 97}_${'reg'.repeat(i % 5)}_${i}${i % 1000 === 0 ? '_ioctl' : ''}`);
        const records: PartRecord[] = names.map((name, i) => [name, 1 + (i % 90), 8, '', 1 + i, 1 + i, i, 20, 1] as PartRecord).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        const store = await SymbolStore.load(merged(dir, records), 100);
        try {
            expect(store.names.chunks, 'over one chunk').toBeGreaterThan(2);
            const sorted = records.map((r) => r[0]);
            for (const source of ['_ioctl$', '^drv5_', '^drv9', 'reg{2}_1', '9_5\d*9$', '^drv1\d_reg_', '[_]4{3}']) {
                const re = new RegExp(source, 'u');
                const got = await store.matching(re);
                expect(got.stopped).toBe(false);
                expect(got.names.map((n) => store.nameAt(n)), source).toEqual(sorted.filter((n) => re.test(n)));
            }
        } finally {
            await store.close();
        }
    });

    it('looks for an anchored start only where every match must begin with it', () => {
        const cases: [string, string][] = [['^kvm_vcpu_', 'kvm_vcpu_'], ['^mutex_(un)?lock$', 'mutex_'], ['^ab*', 'a'], ['^a|b', ''], ['a', ''], ['^(ab)', ''], ['^a\\d', 'a'], ['^ab{2}', 'a']];
        for (const [source, word] of cases) expect(anchoredPrefix(source), source).toBe(word);
    });

    it('refuses corrupt bytes in each section, and a table its digest checks but its writer got wrong', async () => {
        const dir = tempDir('lcf-symstore-sections-');
        const file = merged(dir, recordsOf(edgeNames()), [[60, 0]]);
        const good = fs.readFileSync(file);
        const l = layoutOf(readCounts(good.subarray(0, HEADER_BYTES)));
        const sections = Object.entries(l).filter(([k]) => k !== 'end').sort((a, b) => a[1] - b[1]);
        sections.forEach(([name, at], i) => {
            const to = sections[i + 1]?.[1] ?? l.end;
            expect(to, `${name} is not empty here`).toBeGreaterThan(at);
        });
        for (const [name, at] of sections) {
            const bad = Buffer.from(good);
            bad[at + 1] = bad[at + 1]! ^ 0x10;
            fs.writeFileSync(file, bad);
            await expect(SymbolStore.load(file, 100), name).rejects.toThrow(SymbolFileError);
        }
        const wrong: [string, (b: Buffer) => void][] = [
            ['a name longer than counted', (b) => b.writeUInt32LE(readCounts(b).nameBytes - 1, SYMBOL_MAGIC.length + 32 + 4 * 5)],
            ['blocks out of order', (b) => b.writeUInt32LE(0xffff, l.blockRows + 4)],
            ['the last block past the rows', (b) => b.writeUInt32LE(readCounts(b).defs + 1, l.blockSigs - 4)],
            ['checkpoints out of order', (b) => b.writeUInt32LE(0xffff, l.pointOff + 4 * 10)],
            ['checkpoints past their section', (b) => b.writeUInt32LE(readCounts(b).pointBytes + 1, l.pointOff + 4 * 100)],
        ];
        for (const [what, spoil] of wrong) {
            const bad = Buffer.from(good);
            spoil(bad);
            fs.writeFileSync(file, redigest(bad));
            await expect(SymbolStore.load(file, 100), what).rejects.toThrow(SymbolFileError);
        }
        // A block's rows its writer got wrong (here a name count of 0): the load leaves the blocks
        // to their first use, which refuses them (the call then scans, and the table is made again).
        for (const b of [0, 3]) {
            const bad = Buffer.from(good);
            bad[l.rows + rowsStart(good, l, b)] = 0;
            fs.writeFileSync(file, redigest(bad));
            const store = await SymbolStore.load(file, 100);
            try {
                const first = b * BLOCK_NAMES;
                expect(() => store.definitionsOf(first), `block ${b}`).toThrow(SymbolFileError);
                expect(() => store.nameAt(first), 'the names are not the rows').not.toThrow();
                // Another block still reads.
                expect(store.definitionsOf(b === 0 ? BLOCK_NAMES : 0)[1]).toBeGreaterThan(0);
                expect(() => store.definitionsOf(first), 'refused again').toThrow(SymbolFileError);
            } finally {
                await store.close();
            }
        }
        // Checkpoints as stored; bytes that do not decode give none (the file is parsed whole).
        fs.writeFileSync(file, good);
        const fine = await SymbolStore.load(file, 100);
        try {
            for (const id of [3, 4, 5, 30, 31, 32, 96, 97, 98]) expect(fine.pointsOf(id), `file ${id}`).toEqual({ chars: 100_000 + id, crc: 0xfffffff0 + (id % 16), points: pointsOf(id) });
            for (const id of [0, 2, 6, 50, 99, 100, 1000, -1]) expect(fine.pointsOf(id), `file ${id}`).toBeNull();
        } finally {
            await fine.close();
        }
        const spoilt = Buffer.from(good);
        spoilt.fill(0xff, l.points, l.points + 8);
        fs.writeFileSync(file, redigest(spoilt));
        const partly = await SymbolStore.load(file, 100);
        try {
            expect(partly.pointsOf(3)).toBeNull();
            expect(partly.pointsOf(98)).toEqual({ chars: 100_000 + 98, crc: 0xfffffff0 + (98 % 16), points: pointsOf(98) });
        } finally {
            await partly.close();
        }
        // Signature places that do not decode: the table loads, and no signature is given from them (the caller parses the file).
        const bad = Buffer.from(good);
        bad.fill(0xff, l.sigs, l.end);
        fs.writeFileSync(file, redigest(bad));
        const store = await SymbolStore.load(file, 100);
        try {
            expect(await store.signatures([0, 1], () => file)).toEqual([null, null]);
        } finally {
            await store.close();
        }
    });
});

/** Where block `b`'s rows start in the rows' section (its blocks' starts, as stored). */
const rowsStart = (file: Buffer, l: ReturnType<typeof layoutOf>, b: number): number => file.readUInt32LE(l.blockRows + 4 * b);

const kindName = (code: number): string => [...KIND_CODES].find(([, c]) => c === code)![0];
