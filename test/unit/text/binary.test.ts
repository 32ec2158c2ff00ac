/** src/text/shared/text.ts `isBinary`: the plain-ASCII fast path decides exactly as isbinaryfile plus the Latin-1 rule does. */
import fc from 'fast-check';
import { isBinaryFileSync } from 'isbinaryfile';
import { describe, expect, it } from 'vitest';
import { BINARY_SAMPLE_BYTES, isBinary } from '../../../src/text/shared/text.js';

/** The decision without the fast path: isbinaryfile on the sample, then the PDF signature or the Latin-1 text rule. */
function reference(bytes: Buffer): boolean {
    if (bytes.length === 0) return false;
    const sample = bytes.subarray(0, BINARY_SAMPLE_BYTES);
    if (!isBinaryFileSync(sample, sample.length)) return false;
    if (sample.subarray(0, 5).toString('latin1') === '%PDF-') return true;
    let controls = 0;
    for (const b of sample) {
        if (b === 0) return true;
        if (b < 7 || (b > 13 && b < 32 && b !== 27) || b === 127) controls++;
    }
    return controls * 100 > sample.length;
}

describe('isBinary fast path', () => {
    it('agrees with isbinaryfile and the Latin-1 rule on byte strings near plain text', () => {
        // Mostly plain bytes (7-14, 32-127) with a few others, so both branches are reached.
        const byte = fc.oneof(
            { weight: 20, arbitrary: fc.integer({ min: 32, max: 127 }) },
            { weight: 3, arbitrary: fc.integer({ min: 7, max: 14 }) },
            { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) },
        );
        fc.assert(
            fc.property(fc.array(byte, { maxLength: 700 }), fc.boolean(), (xs, pdf) => {
                const buf = Buffer.concat([pdf ? Buffer.from('%PDF-') : Buffer.alloc(0), Buffer.from(xs)]);
                expect(isBinary(buf)).toBe(reference(buf));
            }),
            { numRuns: 3000 },
        );
    });

    it('decides the edge cases as before: plain text, a PDF header, a NUL after the sample, UTF-8, control bytes', () => {
        const cases = [
            Buffer.from('int main(void) { return 0; }\n'),
            Buffer.from('%PDF-1.4 plain ascii header only\n'),
            Buffer.from('%PDF'),
            Buffer.concat([Buffer.from('a'.repeat(BINARY_SAMPLE_BYTES)), Buffer.from([0])]),
            Buffer.from('caf\u00e9 na\u00efve \u2014 text\n'),
            Buffer.from([7, 8, 9, 10, 11, 12, 13, 14, 32, 127]),
            Buffer.from([1, 2, 3, 4, 5, 6, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40]),
        ];
        expect(cases.map(isBinary)).toEqual(cases.map(reference));
        expect(cases.map(isBinary)).toEqual([false, true, false, false, false, false, true]);
    });
});
