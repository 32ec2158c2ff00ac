/**
 * The symbol table's deflated units (a block's rows, a file's rows by file): read back as
 * written; a unit that does not inflate, inflates past its bound, or inflates to rows that do not
 * decode is refused (a block's rows on their first use, a file's rows when read), even under a digest that checks.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deflated, inflated } from '../../../src/symbols/shared/deflated.js';
import { HEADER_BYTES, KIND_CODES, layoutOf, readCounts, SYMBOL_MAGIC, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import { SymbolFileError, SymbolStore } from '../../../src/symbols/symbol-store.js';
import { writePart } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';

function table(dir: string): string {
    const records: PartRecord[] = [];
    for (let i = 0; i < 200; i++) records.push([`REG_${String(i).padStart(4, '0')}`, 1 + (i % 3), KIND_CODES.get('macro')!, '', 10 + i, 10 + i, -1, 0, 0]);
    const part = path.join(dir, 'symbols-part-0.00000000.part');
    writePart(part, [[], []], records);
    const out = path.join(dir, 'symbols.bin');
    expect(runSymbolsMerge({ op: 'symbols-merge', parts: [part], tableSize: 10, out })).toMatchObject({ ok: true, definitions: 200 });
    return out;
}

/** `bytes` with `unit` put in place of `[from, to)` (same length, zeros after it), digest made again. */
function replaced(bytes: Buffer, from: number, to: number, unit: Buffer): Buffer {
    expect(unit.length).toBeLessThanOrEqual(to - from);
    const out = Buffer.from(bytes);
    out.fill(0, from, to);
    unit.copy(out, from);
    createHash('sha256').update(out.subarray(SYMBOL_MAGIC.length + 32)).digest().copy(out, SYMBOL_MAGIC.length);
    return out;
}

describe('deflated units of the symbol table', () => {
    it('inflate as written, within their bound', () => {
        const raw = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 7));
        expect(inflated(deflated(raw), raw.length)).toEqual(raw);
        expect(deflated(Buffer.alloc(0)).length).toBe(0);
        expect(inflated(Buffer.alloc(0), 10).length).toBe(0);
        expect(() => inflated(deflated(raw), raw.length - 1), 'past its bound').toThrow(RangeError);
        expect(() => inflated(Buffer.of(0xff, 0xff, 0xff), 100), 'not deflate').toThrow(RangeError);
    });

    it('are each held in a buffer of their own length, not a view of a larger output chunk', () => {
        // The rows by file of a source file with a few definitions: some ten bytes deflated.
        const units = Array.from({ length: 50 }, (_, i) => deflated(Buffer.from([3, i, 1, 0, 1, 4, 2, 0])));
        for (const z of units) {
            expect(z.length).toBeGreaterThan(0);
            expect(z.buffer.byteLength, 'bytes a held unit keeps').toBe(z.length);
        }
        expect(inflated(units[7]!, 8)).toEqual(Buffer.from([3, 7, 1, 0, 1, 4, 2, 0]));
    });

    it('refuses rows that inflate to what does not decode, and gives no rows by file for a unit that does not inflate', async () => {
        const dir = tempDir('lcf-deflated-');
        const file = table(dir);
        const good = fs.readFileSync(file);
        const l = layoutOf(readCounts(good.subarray(0, HEADER_BYTES)));
        const blockEnd = good.readUInt32LE(l.blockRows + 4);
        // The first block's rows: a count of 0 for its first name, deflated in their place.
        // The load leaves a block's rows to their first use, which refuses them.
        fs.writeFileSync(file, replaced(good, l.rows, l.rows + blockEnd, deflateRawSync(Buffer.alloc(8))));
        const spoilt = await SymbolStore.load(file, 10);
        try {
            expect(() => spoilt.definitionsOf(0)).toThrow(SymbolFileError);
            expect(() => spoilt.fileOf(0)).toThrow(SymbolFileError);
        } finally {
            await spoilt.close();
        }
        // File 1's rows by file: bytes that do not inflate, under a CRC that checks.
        const [from, to] = [good.readUInt32LE(l.fileOff + 4), good.readUInt32LE(l.fileOff + 8)];
        const junk = Buffer.alloc(to - from, 0xff);
        const bad = replaced(good, l.fileRows + from, l.fileRows + to, junk);
        bad.writeUInt32LE(crc32(junk), l.fileCrc + 4);
        createHash('sha256').update(bad.subarray(SYMBOL_MAGIC.length + 32)).digest().copy(bad, SYMBOL_MAGIC.length);
        fs.writeFileSync(file, bad);
        const store = await SymbolStore.load(file, 10);
        try {
            const rows = await store.byFile.read([1, 2]);
            expect(rows[0]).toBeNull();
            expect(Array.from(rows[1]!.line)).toEqual(Array.from({ length: 200 }, (_, i) => 10 + i).filter((_, i) => 1 + (i % 3) === 2));
        } finally {
            await store.close();
        }
    });
});
