/**
 * The symbol table's encodings: varints, zigzag differences, a block's rows and signature places
 * read back as written, at the edges of each number's range; bytes cut short or counts that
 * disagree are refused, never read past.
 */
import { describe, expect, it } from 'vitest';
import { checkRows, decodeRows, decodeSigs, putVarint, RowEncoder, SIG_NONE, SigEncoder, unzigzag, VarintReader, zigzag, type Row, type SigPlace } from '../../../src/symbols/shared/symbol-codec.js';

/** A small seeded generator: the same cases on every run. */
function random(seed: number): (n: number) => number {
    let s = seed >>> 0;
    return (n) => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return s % n;
    };
}

describe('the symbol table encodings', () => {
    it('reads varints and zigzag differences back at the edges of their range', () => {
        const values = [0, 1, 127, 128, 255, 16383, 16384, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER];
        const buf = new Uint8Array(12 * values.length);
        let at = 0;
        for (const v of values) at = putVarint(buf, at, v);
        const r = new VarintReader(buf, 0, at);
        expect(values.map(() => r.next())).toEqual(values);
        expect(r.at).toBe(at);
        for (const d of [0, 1, -1, 2 ** 33, -(2 ** 33), 12345, -12345]) expect(unzigzag(zigzag(d))).toBe(d);
        expect([0, -1, 1, -2].map(zigzag)).toEqual([0, 1, 2, 3]);
        // A varint whose last byte is missing is refused, not read past its section.
        expect(() => new VarintReader(Uint8Array.of(0x80, 0x80), 0, 2).next()).toThrow(RangeError);
    });

    it("reads a block's rows and signature places back as written", () => {
        const rand = random(7);
        for (let round = 0; round < 20; round++) {
            const names = 1 + rand(32);
            const perName: Row[][] = [];
            const places: SigPlace[] = [];
            for (let n = 0; n < names; n++) {
                let file = rand(3) === 0 ? rand(4) : rand(3_000_000);
                const rows: Row[] = [];
                for (let i = 0, count = 1 + rand(rand(5) === 0 ? 40 : 3); i < count; i++) {
                    file += rand(3) === 0 ? 0 : rand(1000);
                    const line = 1 + rand(round % 2 ? 10 : 2_000_000);
                    rows.push({ file, line, end: line + rand(500), cont: rand(4) === 0 ? rand(1 << 20) : 0, kind: rand(12) });
                    const off = rand(6) === 0 ? SIG_NONE : rand(3) === 0 ? 2 ** 32 + rand(1e6) : rand(5e6);
                    places.push([off, off === SIG_NONE ? 0 : rand(2 * 0x7fff + 2), rand(0x10000)]);
                }
                perName.push(rows);
            }
            const all = perName.flat();
            const out = new Uint8Array(64 * all.length + 16 * names);
            const [rowEnc, sigEnc] = [new RowEncoder(), new SigEncoder()];
            let at = 0;
            for (const rows of perName) at = rowEnc.put(out, at, rows);
            const rowsEnd = at;
            all.forEach((r, k) => (at = sigEnc.put(out, at, r.file, places[k]!)));
            checkRows(out, 0, rowsEnd, names, all.length);
            const back = decodeRows(out, 0, rowsEnd, names, all.length);
            expect(Array.from(back.nameStart)).toEqual(perName.reduce((acc, rows) => [...acc, acc[acc.length - 1]! + rows.length], [0]));
            expect(all.map((_, k) => ({ file: back.file[k], line: back.line[k], end: back.end[k], cont: back.cont[k], kind: back.kind[k] }))).toEqual(all);
            expect(decodeSigs(out, rowsEnd, at, back.file)).toEqual(places);
            // Cut short, or counted otherwise: refused.
            for (const [to, n, d] of [[rowsEnd - 1, names, all.length], [rowsEnd, names + 1, all.length], [rowsEnd, names, all.length + 1], [rowsEnd, names, all.length - 1]] as const) {
                expect(() => decodeRows(out, 0, to, n, d)).toThrow(RangeError);
                expect(() => checkRows(out, 0, to, n, d)).toThrow(RangeError);
            }
            expect(() => decodeSigs(out, rowsEnd, at - 1, back.file)).toThrow(RangeError);
        }
    });
});
