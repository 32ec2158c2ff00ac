/**
 * The blocks' rows' CRC-32s taken as the rows section streams past at load (row-crcs.ts): the
 * same as each block's CRC taken whole, however the reads cut the section; blocks that do not fit
 * their section are refused before a byte is fed.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RowCrcs } from '../../../src/symbols/row-crcs.js';
import { SymbolFileError } from '../../../src/symbols/symbol-names.js';

/** Deterministic bytes (a linear congruential sequence), so a failure reproduces. */
function bytesOf(n: number, seed: number): Buffer {
    const b = Buffer.alloc(n);
    let x = seed;
    for (let i = 0; i < n; i++) {
        x = (x * 1103515245 + 12345) >>> 0;
        b[i] = x >>> 24;
    }
    return b;
}

/** The section fed in pieces cut at `cuts` (offsets in it, ascending). */
function fed(starts: number[], section: Buffer, cuts: number[]): RowCrcs {
    const r = new RowCrcs(Uint32Array.from(starts), section.length);
    let at = 0;
    for (const cut of [...cuts, section.length]) {
        expect(r.done, `not done before byte ${at}`).toBe(false);
        r.feed(at, section.subarray(at, cut));
        at = cut;
    }
    return r;
}

describe('the blocks’ rows’ CRCs taken as the rows stream past', () => {
    it('equal each block’s CRC taken whole, whatever the reads’ cuts', () => {
        const section = bytesOf(5_000, 7);
        const starts = [0, 1, 2, 700, 701, 2_048, 4_999, 5_000];
        const whole = starts.slice(0, -1).map((s, b) => crc32(section.subarray(s, starts[b + 1])));
        const cutsList = [[], [1], [1, 2, 3], [699, 700, 701, 702], [1_000, 2_000, 3_000, 4_000], Array.from({ length: 4_999 }, (_, i) => i + 1), [2_048, 4_999]];
        for (const cuts of cutsList) {
            const r = fed(starts, section, cuts);
            expect(r.done, `cuts ${cuts.length}`).toBe(true);
            expect(Array.from(r.crcs), `cuts ${cuts.slice(0, 5).join(',')}`).toEqual(whole);
        }
        // Random cuts, as reads of any size at any place.
        for (let seed = 1; seed <= 50; seed++) {
            const noise = bytesOf(20, seed);
            const cuts = [...new Set(Array.from(noise, (v, i) => Math.floor(((v + 1) * (i + 1) * 17) % 5_000)).filter((c) => c > 0))].sort((a, b) => a - b);
            expect(Array.from(fed(starts, section, cuts).crcs), `seed ${seed}`).toEqual(whole);
        }
    });

    it('skip bytes before the first block and are not done before the last block’s end', () => {
        const section = bytesOf(100, 3);
        const r = new RowCrcs(Uint32Array.from([10, 40, 100]), 100);
        r.feed(0, section.subarray(0, 50));
        expect(r.done).toBe(false);
        expect(r.crcs[0]).toBe(crc32(section.subarray(10, 40)));
        expect(r.crcs[1], 'the second block is not in yet').toBe(0);
        r.feed(50, section.subarray(50, 99));
        expect(r.done).toBe(false);
        r.feed(99, section.subarray(99));
        expect(r.done).toBe(true);
        expect(r.crcs[1]).toBe(crc32(section.subarray(40, 100)));
    });

    it('a section without blocks is done at once; blocks that do not fit are refused', () => {
        expect(new RowCrcs(Uint32Array.from([0]), 0).done).toBe(true);
        expect(() => new RowCrcs(Uint32Array.from([0, 5, 5, 9]), 9)).toThrow(/a block without rows/);
        expect(() => new RowCrcs(Uint32Array.from([0, 6, 5, 9]), 9)).toThrow(/blocks out of order/);
        expect(() => new RowCrcs(Uint32Array.from([0, 5, 9]), 10)).toThrow(SymbolFileError);
        expect(() => new RowCrcs(Uint32Array.from([0, 5, 9]), 8)).toThrow(/blocks and counts disagree/);
        expect(() => new RowCrcs(new Uint32Array(0), 0)).toThrow(SymbolFileError);
    });
});
