/**
 * The symbol table's file: joined from part files by the merge operation, loaded and checked by
 * the host. Lookups by exact name and by regex agree with testing every name; a file that does not
 * check out (a flipped byte, another generation's, a link, cut short) is refused.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { signatureCheck } from '../../../src/symbols/shared/signature.js';
import { KIND_CODES, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import { requiredWord, SymbolFileError, SymbolStore } from '../../../src/symbols/symbol-store.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';

const NAMES = ['alpha', 'alphabet', 'beta', 'Beta', 'gamma_x', 'x', 'xx', 'ünïcode', '𝒳astral', 'a$b', 'zeta'];

/** A source file holding `line` (its signature's text), and the part record of a definition there. */
function def(dir: string, name: string, id: number, kind: string, container: string, line: number, end: number, sig: string): PartRecord {
    const file = path.join(dir, `f${id}.c`);
    const before = fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
    fs.writeFileSync(file, Buffer.concat([before, Buffer.from(`${sig}\n`, 'utf8')]));
    return [name, id, KIND_CODES.get(kind as 'function')!, container, line, end, before.length, 2 * Buffer.byteLength(sig), signatureCheck(sig)];
}

/** A part file: the failed files, then the records sorted by name. */
function writePart(file: string, failed: [number, number][], records: PartRecord[]): string {
    const sorted = [...records].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    fs.writeFileSync(file, [failed, ...sorted].map((x) => JSON.stringify(x)).join('\n') + '\n');
    return file;
}

function make(dir: string, tableSize = 100): string {
    const parts: [[number, number][], PartRecord[]][] = [
        [[], NAMES.slice(0, 6).map((name, i) => def(dir, name, i + 1, 'function', i % 2 ? 'Outer\0Inner' : '', i + 1, i + 3, `int ${name}(void) — ü`))],
        [[[40, 0], [41, 1]], NAMES.slice(6).flatMap((name, i) => [def(dir, name, i + 20, 'macro', '', 1, 1, `#define ${name}`), def(dir, 'alpha', i + 20, 'struct', 'S', 5, 9, 'struct alpha {')])],
    ];
    const files = parts.map(([failed, records], k) => writePart(path.join(dir, `symbols-part-${k}.00000000.ndjson`), failed, records));
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
        const cases: [string, string][] = [['^kvm_vcpu_', 'kvm_vcpu_'], ['_ioctl$', '_ioctl'], ['^mutex_(un)?lock$', 'mutex_'], ['^ext4_.*_super$', '_super'], ['ab*', 'a'], ['a{2}x', 'x'], ['a|b', ''], ['[ab]c', ''], ['\\bfoo', ''], ['(abc)', ''], ['(?<=ab)c', 'c'], ['x(y', '']];
        for (const [source, word] of cases) expect(requiredWord(source), source).toBe(word);
    });

    it('is whole with empty sections (no container, no failed file, no definition)', async () => {
        for (const records of [[], [['solo', 1, KIND_CODES.get('function')!, '', 1, 1, 0, 3, 7] as PartRecord]]) {
            const dir = tempDir('lcf-symstore-empty-');
            const out = path.join(dir, 'symbols.bin');
            const part = writePart(path.join(dir, 'symbols-part-0.00000000.ndjson'), [], records);
            expect(runSymbolsMerge({ op: 'symbols-merge', parts: [part], tableSize: 3, out })).toMatchObject({ ok: true, names: records.length, definitions: records.length });
            const store = await SymbolStore.load(out, 3);
            expect(store.find('solo')).toBe(records.length - 1);
            await store.close();
        }
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
