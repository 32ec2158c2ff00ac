/**
 * The symbol table's names left on disk: front coded with shares only up to a cut, read a chunk
 * at a time. Every lookup (exact, anchored, by a word's piece in the coded bytes, by decoding all)
 * gives what testing each name of the plain sorted list gives, over random names and patterns;
 * names that share past a cut or changed on disk after the load are refused.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeNameBlock, nameCut, putName, searchPiece, sharedBytes } from '../../../src/symbols/shared/name-coding.js';
import { HEADER_BYTES, layoutOf, readCounts, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import { BLOCK_NAMES } from '../../../src/symbols/shared/symbol-codec.js';
import { SymbolFileError, SymbolStore } from '../../../src/symbols/symbol-store.js';
import { writePart } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';
import { afterSettling } from '../../support/settled-clock.js';

/** A small seeded generator: the same cases on every run. */
function random(seed: number): (n: number) => number {
    let s = seed >>> 0;
    return (n) => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return s % n;
    };
}

/** Names made of a few words joined by `_`, in camel case, with digits, `$` and characters past ASCII: many shared starts. */
function randomNames(rand: (n: number) => number, count: number): string[] {
    const words = ['kvm', 'vcpu', 'ioctl', 'Io', 'ctl', 'get', 'Get', 'set', 'x', 'X', 'a1', '2', 'ü', 'Über', '𝒳', '$', 'io', 'octl', 'l', 'IOCTL', 'i', 'o'];
    const seps = ['_', '', '', '.', '__'];
    const out = new Set<string>();
    while (out.size < count) {
        let name = words[rand(words.length)]!;
        for (let k = rand(5); k > 0; k--) name += seps[rand(seps.length)]! + words[rand(words.length)]!;
        out.add(name);
    }
    return [...out];
}

function tableOf(dir: string, names: string[]): string {
    const records: PartRecord[] = names.map((name, i) => [name, 1 + (i % 40), 8, '', 1 + i, 1 + i, -1, 0, 0] as PartRecord).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const part = path.join(dir, 'symbols-part-0.00000000.part');
    writePart(part, [[], []], records);
    const out = path.join(dir, 'symbols.bin');
    expect(runSymbolsMerge({ op: 'symbols-merge', parts: [part], tableSize: 100, out })).toMatchObject({ ok: true, names: names.length });
    return out;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the names on disk', () => {
    it('find and match as testing every name of the plain list does, over random names and patterns', async () => {
        const rand = random(27);
        for (let round = 0; round < 4; round++) {
            const dir = tempDir('lcf-symnames-');
            const names = randomNames(rand, round === 3 ? 20_000 : 50 + rand(400));
            const sorted = [...names].sort();
            const store = await SymbolStore.load(tableOf(dir, names), 100);
            try {
                if (round === 3) expect(store.names.chunks, 'more than one chunk').toBeGreaterThan(1);
                for (let i = 0; i < sorted.length; i += 1 + rand(7)) {
                    expect(store.find(sorted[i]!)).toBe(i);
                    expect(store.nameAt(i)).toBe(sorted[i]);
                }
                for (const absent of ['', 'kvm_', 'zzzz', 'a', '\u{10ffff}']) if (!names.includes(absent)) expect(store.find(absent)).toBe(-1);
                const sources: string[] = [];
                for (let k = 0; k < (round === 3 ? 8 : 60); k++) {
                    const name = sorted[rand(sorted.length)]!;
                    const from = rand(name.length);
                    const piece = escape(name.slice(from, from + 1 + rand(name.length - from)));
                    sources.push(piece, `${piece}$`, `^${piece}`, `_${piece}`, `[a-z]${piece}`, `${piece}\\d?`);
                }
                sources.push('^.{3}$', 'l$', '(?:io|IO)ctl', 'x', '[^_]_[^_]', '𝒳', 'Über', 'ctlX', 'l_ioctl', 'octl$');
                for (const source of sources) {
                    for (const flags of ['u', 'iu']) {
                        const re = new RegExp(source, flags);
                        const got = await store.matching(re);
                        expect(got.stopped).toBe(false);
                        expect(got.names.map((n) => store.nameAt(n)), `/${source}/${flags}`).toEqual(sorted.filter((n) => re.test(n)));
                    }
                }
            } finally {
                await store.close();
            }
        }
    });

    it('answers passes over every chunk run side by side, and lookups between them, as one at a time', async () => {
        // The chunks a pass does not keep share one buffer (symbol-names.ts): passes interleave at
        // each chunk (an await), and a lookup in between may find the chunk a pass read last.
        const rand = random(5);
        const dir = tempDir('lcf-symnames-passes-');
        const names = randomNames(rand, 60_000);
        const sorted = [...names].sort();
        const store = await SymbolStore.load(tableOf(dir, names), 100);
        try {
            expect(store.names.chunks, 'more than two chunks').toBeGreaterThan(2);
            const res = [/ioctl/u, /l$/u, /[^_]_[^_]/u, /Get.*x/iu, /X/u, /ü/u];
            const alone = res.map((re) => sorted.filter((n) => re.test(n)));
            let lookups = 0;
            const lookup = async (): Promise<void> => {
                for (let i = 0; i < sorted.length; i += 97) {
                    expect(store.nameAt(i)).toBe(sorted[i]);
                    expect(store.find(sorted[(i * 7) % sorted.length]!)).toBe((i * 7) % sorted.length);
                    lookups++;
                    await Promise.resolve();
                }
            };
            const [, ...got] = await Promise.all([lookup(), ...res.map((re) => store.matching(re))]);
            expect(lookups).toBeGreaterThan(100);
            got.forEach((g, k) => expect(g.names.map((n) => store.nameAt(n)), String(res[k])).toEqual(alone[k]));
        } finally {
            await store.close();
        }
        // A pass that meets a chunk changed on disk leaves no other chunk's names read from its buffer.
        const file = path.join(dir, 'symbols.bin');
        const good = fs.readFileSync(file);
        const counts = readCounts(good.subarray(0, HEADER_BYTES));
        const again = await SymbolStore.load(file, 100);
        try {
            const c = again.names.chunks - 2;
            const first = again.names.chunkBlock[c]! * BLOCK_NAMES;
            expect(again.names.chunkBlock[c + 1]! - again.names.chunkBlock[c]!, 'blocks in the chunk before the last').toBeGreaterThan(1);
            const last = layoutOf(counts).names + counts.codedBytes - 2;
            const fd = fs.openSync(file, 'r+');
            fs.writeSync(fd, Buffer.of(good[last]! ^ 0x20), 0, 1, last);
            fs.closeSync(fd);
            await expect(again.matching(/./u)).rejects.toThrow(SymbolFileError);
            expect(again.nameAt(first)).toBe(sorted[first]);
            expect(again.find(sorted[first + 1]!)).toBe(first + 1);
        } finally {
            await again.close();
        }
    });

    it('shares only up to a cut, and looks for a word from its last cut on', () => {
        const b = (s: string): Buffer => Buffer.from(s, 'utf8');
        expect(sharedBytes(b('kvm_vcpu_ioctl'), b('kvm_vcpu_init'))).toBe(9);
        expect(sharedBytes(b('alphabet'), b('alpha'))).toBe(0);
        expect(sharedBytes(b('getFooBar'), b('getFooBaz'))).toBe(6);
        expect(sharedBytes(b('ab'), b('ab_c'))).toBe(0);
        expect(Buffer.from(searchPiece(b('_ioctl'))).toString()).toBe('ioctl');
        expect(Buffer.from(searchPiece(b('xyzzy_none'))).toString()).toBe('none');
        expect(Buffer.from(searchPiece(b('ioctl'))).toString()).toBe('ioctl');
        expect(Buffer.from(searchPiece(b('getFoo'))).toString()).toBe('Foo');
        expect(Buffer.from(searchPiece(b('a_'))).toString()).toBe('a_');
        expect([1, 2, 3, 4].map((p) => nameCut(b('a_bC'), p))).toEqual([false, true, true, false]);
        // A block whose second name shares past a cut ('ab|d') is refused as it is decoded.
        const out = Buffer.alloc(64);
        let at = putName(out, 0, b('abc'), 0);
        at = putName(out, at, b('abd'), 2);
        expect(() => decodeNameBlock(out, 0, at, 2)).toThrow(/past a cut/);
        at = putName(out, 0, b('ab_c'), 0);
        at = putName(out, at, b('ab_d'), 3);
        expect(decodeNameBlock(out, 0, at, 2).text.toString()).toBe('ab_c\nab_d\n');
        expect(() => decodeNameBlock(out, 0, at - 1, 2)).toThrow(RangeError);
        expect(() => decodeNameBlock(out, 0, at, 3)).toThrow(RangeError);
    });

    it("codes a name held in the first bytes of a longer buffer as the name alone", () => {
        const b = (s: string): Buffer => Buffer.from(s, 'utf8');
        // Buffers kept from name to name: bytes past a name's length are another name's.
        const [name, prev] = [b('kvm_vcpu_ioctl_zzz'), b('kvm_vcpu_init_zzzzzz')];
        expect(sharedBytes(name, prev, 14, 13)).toBe(sharedBytes(b('kvm_vcpu_ioctl'), b('kvm_vcpu_init')));
        expect(sharedBytes(b('abcd'), b('abcd'), 2, 4)).toBe(sharedBytes(b('ab'), b('abcd')));
        const long = `x_${'é'.repeat(60)}`;
        for (const [s, shared] of [['ab_c', 3], ['ünï_côdé', 0], [long, 2]] as const) {
            const [whole, held] = [Buffer.alloc(200), Buffer.alloc(200)];
            const bytes = b(s);
            const kept = Buffer.concat([bytes, b('_trailing')]);
            expect(held.subarray(0, putName(held, 0, kept, shared, bytes.length)).equals(whole.subarray(0, putName(whole, 0, bytes, shared))), s).toBe(true);
        }
    });

    it('refuses names that changed on disk after the load, and a table of the format before', async () => {
        const dir = tempDir('lcf-symnames-disk-');
        const names = randomNames(random(5), 20_000);
        const file = tableOf(dir, names);
        const good = fs.readFileSync(file);
        const counts = readCounts(good.subarray(0, HEADER_BYTES));
        const last = layoutOf(counts).names + counts.codedBytes - 2;
        const store = await SymbolStore.load(file, 100);
        try {
            expect(store.find([...names].sort()[0]!)).toBe(0);
            // One byte of the last chunk's names changed in place: every read of that chunk is refused.
            const fd = fs.openSync(file, 'r+');
            fs.writeSync(fd, Buffer.of(good[last]! ^ 0x20), 0, 1, last);
            fs.closeSync(fd);
            expect(() => store.nameAt(names.length - 1)).toThrow(SymbolFileError);
            await expect(store.matching(/./u)).rejects.toThrow(SymbolFileError);
        } finally {
            await store.close();
        }
        // Format 6 (names shared past cuts, kept decoded in memory): not read, made again.
        fs.writeFileSync(file, Buffer.concat([Buffer.from('LCFSYM06', 'latin1'), good.subarray(8)]));
        await expect(SymbolStore.load(file, 100)).rejects.toThrow(/not a symbols file/);
    });

    it('reads names checked under a settled stamp without their CRC, and refuses them once the file changed', async () => {
        const dir = tempDir('lcf-symnames-stamp-');
        const names = randomNames(random(9), 40_000);
        const sorted = [...names].sort();
        const file = tableOf(dir, names);
        const good = fs.readFileSync(file);
        const counts = readCounts(good.subarray(0, HEADER_BYTES));
        await afterSettling([file], async () => {
            const store = await SymbolStore.load(file, 100);
            try {
                const list = store.names;
                expect(list.chunks).toBeGreaterThan(2);
                expect(Array.from(list.verified).every((v) => v === 1), 'checked whole at load under a settled stamp').toBe(true);
                // The first chunk read without its CRC, and kept.
                for (let round = 0; round < 2; round++) expect(store.nameAt(store.find(sorted[1]!))).toBe(sorted[1]);
                // One byte of the last chunk's names (never read yet) changed in place, its times put back:
                // its change time moved, so the chunk is read with its CRC again and refused.
                const at = layoutOf(counts).names + counts.codedBytes - 2;
                const times = path.join(dir, 'times');
                fs.writeFileSync(times, '');
                execFileSync('touch', ['-r', file, times]);
                const fd = fs.openSync(file, 'r+');
                fs.writeSync(fd, Buffer.of(good[at]! ^ 0x20), 0, 1, at);
                fs.closeSync(fd);
                execFileSync('touch', ['-r', times, file]);
                expect(store.find(sorted[0]!)).toBe(0);
                expect(() => store.nameAt(names.length - 1)).toThrow(SymbolFileError);
                await expect(store.matching(/./u)).rejects.toThrow(SymbolFileError);
            } finally {
                await store.close();
            }
        });
        // Loaded while its change is recent: every chunk read is checked by its CRC until a check comes late enough.
        // The same table's bytes as made, written anew (the merge already ran on these names).
        const fresh = path.join(tempDir('lcf-symnames-fresh-'), 'symbols.bin');
        fs.writeFileSync(fresh, good);
        const again = await SymbolStore.load(fresh, 100);
        try {
            expect(Array.from(again.names.verified).some((v) => v === 1)).toBe(false);
            await afterSettling([fresh], async () => {
                expect((await again.matching(/^[^_]*$/u)).names.length).toBe(sorted.filter((n) => /^[^_]*$/u.test(n)).length);
                expect(Array.from(again.names.verified).every((v) => v === 1), 'checked late enough, then trusted').toBe(true);
            });
        } finally {
            await again.close();
        }
    });
});
