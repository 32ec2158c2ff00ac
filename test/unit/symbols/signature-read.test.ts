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
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';

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
    const part = path.join(dir, 'symbols-part-0.00000000.ndjson');
    fs.writeFileSync(part, [[], points, ...records].map((x) => JSON.stringify(x)).join('\n') + '\n');
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
});
