/**
 * Signatures read back from their files: a file whose checkpoints hold the CRC-32 of its bytes
 * stores no check per signature and is read and checked whole; a file without keeps a 16-bit
 * check per signature. A file changed since (anywhere, for the first kind) gives none.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodePoints } from '../../../src/symbols/shared/checkpoint-codec.js';
import { signatureCheck } from '../../../src/symbols/shared/signature.js';
import { HEADER_BYTES, KIND_CODES, readCounts, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import { SymbolStore } from '../../../src/symbols/symbol-store.js';
import { checkedFiles } from '../../../src/symbols/signature-read.js';
import { writePart } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { execFileSync } from 'node:child_process';
import { tempDir } from '../../support/helpers.js';
import { afterSettling } from '../../support/settled-clock.js';

const SOURCES: Record<number, string[]> = { 1: ['int alpha(void) {', 'static long beta(int x) {', 'struct gamma {'], 2: ['#define delta 1', 'int epsilon(char c) {'] };

function build(dir: string, withPoints: boolean): string {
    const records: PartRecord[] = [];
    const points: [number, string][] = [];
    for (const [id, lines] of Object.entries(SOURCES).map(([id, l]) => [Number(id), l] as const)) {
        const text = `${lines.join('\n\n')}\n`;
        fs.writeFileSync(path.join(dir, `f${id}.c`), text);
        let at = 0;
        lines.forEach((line, i) => {
            const name = /(\w+)(?=\s*[({]|\s+1$)/.exec(line)![1]!;
            records.push([name, id, KIND_CODES.get('function')!, '', 1 + 2 * i, 1 + 2 * i, at, 2 * Buffer.byteLength(line), signatureCheck(line)]);
            at += Buffer.byteLength(line) + 2;
        });
        // File 1 has checkpoints (and its bytes' CRC); file 2 has none.
        if (withPoints && id === 1) points.push([id, encodePoints(text.length, crc32(Buffer.from(text)), [20, 2]).toString('base64')]);
    }
    records.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const part = path.join(dir, 'symbols-part-0.00000000.part');
    writePart(part, [[], points], records);
    const out = path.join(dir, withPoints ? 'symbols.bin' : 'plain.bin');
    expect(runSymbolsMerge({ op: 'symbols-merge', parts: [part], tableSize: 10, out })).toMatchObject({ ok: true, definitions: records.length });
    return out;
}

describe("signatures read back from the table's places", () => {
    it('checks a file with checkpoints whole, one without per signature', async () => {
        const dir = tempDir('lcf-sigread-');
        const plain = readCounts(fs.readFileSync(build(dir, false)).subarray(0, HEADER_BYTES));
        const file = build(dir, true);
        // The three signatures of file 1 have no check of their own.
        expect(readCounts(fs.readFileSync(file).subarray(0, HEADER_BYTES)).sigBytes).toBe(plain.sigBytes - 2 * SOURCES[1]!.length);
        const store = await SymbolStore.load(file, 10);
        try {
            const ks = Array.from({ length: store.counts.defs }, (_, k) => k);
            const realOf = (k: number): string => path.join(dir, `f${store.fileOf(k)}.c`);
            // One definition per name: definition k is the k-th name's, in sorted order.
            const want = ks.map((k) => SOURCES[store.fileOf(k)]!.find((l) => l.includes(store.nameAt(k)))!);
            expect(await store.signatures(ks, realOf)).toEqual(want);
            // File 1 changed away from every signature: none of its signatures is given; file 2 changed
            // outside its signatures: its signatures still check.
            for (const id of [1, 2]) fs.appendFileSync(path.join(dir, `f${id}.c`), '/* later */\n');
            expect(await store.signatures(ks, realOf)).toEqual(ks.map((k, i) => (store.fileOf(k) === 1 ? null : want[i])));
            // File 2's signature text changed: its check fails.
            fs.writeFileSync(path.join(dir, 'f2.c'), fs.readFileSync(path.join(dir, 'f2.c'), 'utf8').replace('epsilon', 'epsilom'));
            expect((await store.signatures(ks, realOf)).filter((s) => s !== null)).toEqual(['#define delta 1']);
        } finally {
            await store.close();
        }
    });

    it('reads a file checked whole under the same stamp again without its CRC, and never past a change', async () => {
        const dir = tempDir('lcf-sigread-stamp-');
        const file = build(dir, true);
        const store = await SymbolStore.load(file, 10);
        try {
            const ks = Array.from({ length: store.counts.defs }, (_, k) => k).filter((k) => store.fileOf(k) === 1);
            const real = path.join(dir, 'f1.c');
            const realOf = (): string => real;
            const want = ks.map((k) => SOURCES[1]!.find((l) => l.includes(store.nameAt(k)))!);
            // Just written: its stamp does not vouch for it yet (a write in the same clock tick keeps the times).
            expect(await store.signatures(ks, realOf)).toEqual(want);
            expect(checkedFiles.get(real), 'not kept while its change is recent').toBeUndefined();
            const text = fs.readFileSync(real);
            await afterSettling([real], async () => {
                expect(await store.signatures(ks, realOf)).toEqual(want);
                const kept = checkedFiles.get(real);
                expect(kept?.crc, 'kept with the CRC it gave').toBe(crc32(fs.readFileSync(real)));
                // Read again under that stamp: the same signatures.
                expect(await store.signatures(ks, realOf)).toEqual(want);
                expect(checkedFiles.get(real)).toEqual(kept);
                // Rewritten in place, same size, its signatures' bytes as they were and its times put back
                // (touch -r, to the nanosecond): only its change time tells, and the file is read and checked whole.
                const times = path.join(dir, 'times');
                fs.writeFileSync(times, '');
                execFileSync('touch', ['-r', real, times]);
                const other = Buffer.from(text);
                other[text.indexOf('\n\n') + 1] = 0x20;
                expect(other.length).toBe(text.length);
                const fd = fs.openSync(real, 'r+');
                fs.writeSync(fd, other, 0, other.length, 0);
                fs.closeSync(fd);
                execFileSync('touch', ['-r', times, real]);
                expect(fs.statSync(real, { bigint: true }).mtimeNs).toBe(fs.statSync(times, { bigint: true }).mtimeNs);
                expect(await store.signatures(ks, realOf), 'a file changed since it was kept').toEqual(ks.map(() => null));
                expect(checkedFiles.get(real), 'forgotten once it fails').toBeUndefined();
            });
            // Its bytes back (a new change time again): checked whole, and given.
            fs.writeFileSync(real, text);
            expect(await store.signatures(ks, realOf)).toEqual(want);
            // Replaced (a new inode) by a file of the same size whose bytes are not the table's: refused.
            await afterSettling([real], async () => {
                expect(await store.signatures(ks, realOf)).toEqual(want);
                expect(checkedFiles.get(real)).toBeDefined();
                const moved = path.join(dir, 'f1.new');
                fs.writeFileSync(moved, Buffer.from(text.toString('latin1').replace('alpha', 'alphb'), 'latin1'));
                fs.renameSync(moved, real);
                expect(await store.signatures(ks, realOf), 'a file replaced since it was kept').toEqual(ks.map(() => null));
            });
        } finally {
            await store.close();
        }
    });
});
