/**
 * Per-posting masks of the trigram index (src/search-index/shared/masks.ts): the build's masks
 * against a naive oracle over the folded UTF-8 bytes, and the adjacency check a literal's
 * candidates go through (a file holding the literal is never ruled out; a file holding its grams
 * apart is).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateQuery, type ListSource } from '../../../src/search-index/postings.js';
import { planQuery } from '../../../src/search-index/planner.js';
import { keepFitting, MaskedGrams, NEXT_BIT } from '../../../src/search-index/shared/masks.js';
import { foldForIndex, gramAt } from '../../../src/search/shared/fold.js';
import { mulberry32 } from '../../../bench/tree.js';

const SEED = 30;

/** The folded UTF-8 bytes the index takes grams from. */
const foldedBytes = (text: string): Buffer => Buffer.from(foldForIndex(text), 'utf8');

/** Naive masks: every gram of the folded bytes, its location bits and the bits of the bytes after it. */
function oracleMasks(bytes: Uint8Array): Map<number, number> {
    const out = new Map<number, number>();
    for (let i = 0; i + 3 <= bytes.length; i++) {
        const g = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
        let m = (out.get(g) ?? 0) | (1 << (i % 8));
        if (i + 3 < bytes.length) m |= NEXT_BIT[bytes[i + 3]!]! << 8;
        out.set(g, m);
    }
    return out;
}

/** The masks a builder gives, as a map. */
function built(m: MaskedGrams): Map<number, number> {
    const out = new Map<number, number>();
    for (let i = 0; i < m.count; i++) out.set(m.grams[i]!, m.masks[i]!);
    return out;
}

/** The grams of a literal of folded bytes (as a byte string, one character per byte). */
function gramsOfLiteral(bytes: Uint8Array): number[] {
    const s = String.fromCharCode(...bytes);
    const out: number[] = [];
    for (let i = 0; i + 3 <= s.length; i++) out.push(gramAt(s, i));
    return out;
}

/** Whether the literal's grams fit in one file of these masks (masks of grams not given: not read). */
function fitsOne(grams: number[], masks: Map<number, number>): boolean {
    const list = (g: number): { ids: Uint32Array; masks: Uint16Array } | null => (masks.has(g) ? { ids: Uint32Array.of(7), masks: Uint16Array.of(masks.get(g)!) } : null);
    return keepFitting(grams, Uint32Array.of(7), list).length === 1;
}

/** Whether a file of these masks holds every gram of the literal, side by side as far as the masks tell. */
function fits(grams: number[], masks: Map<number, number>): boolean {
    return grams.every((g) => masks.has(g)) && fitsOne(grams, masks);
}

/** One file as a posting source with masks (id 0). */
function oneFile(text: string, builder: MaskedGrams): ListSource {
    builder.text(text);
    const masks = built(builder);
    const one = Uint32Array.of(0);
    const none = new Uint32Array(0);
    return {
        list: (g) => (masks.has(g) ? one : none),
        size: (g) => (masks.has(g) ? 1 : 0),
        masks: (g) => (masks.has(g) ? Uint16Array.of(masks.get(g)!) : new Uint16Array(0)),
    };
}

/** Text from ASCII letters (both cases), a few separators, and non-ASCII characters with case folds of other lengths. */
const CHARS = ['a', 'b', 'c', 'A', 'B', '_', ' ', '\n', 'é', 'É', 'ß', 'ẞ', 'σ', 'Σ', 'ς', '\u212A', 'k', '\u017F', 's', '😀', '\u{10400}', '\u{10428}', '\ud800'];
const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 120 }).map((cs) => cs.join(''));

describe('mask build', () => {
    const builder = new MaskedGrams();

    it('gives each gram of the folded UTF-8 bytes its location and next-byte bits (random texts, folds and UTF-8)', () => {
        fc.assert(
            fc.property(text, (t) => {
                builder.text(t);
                expect(built(builder)).toEqual(oracleMasks(foldedBytes(t)));
            }),
            { seed: SEED, numRuns: 500 },
        );
    });

    it('gives the same masks on the ASCII path as on the decoding path, and leaves no state behind', () => {
        const other = new MaskedGrams();
        fc.assert(
            fc.property(fc.uint8Array({ maxLength: 300 }), (raw) => {
                const bytes = Uint8Array.from(raw, (b) => b & 0x7f);
                builder.ascii(bytes);
                other.text(Buffer.from(bytes).toString('latin1'));
                expect(built(builder)).toEqual(built(other));
                expect(built(builder)).toEqual(oracleMasks(foldedBytes(Buffer.from(bytes).toString('latin1'))));
            }),
            { seed: SEED, numRuns: 500 },
        );
        // A second file after a first: nothing of the first is left in the table.
        builder.ascii(Buffer.from('abcdef'));
        builder.ascii(Buffer.from('xabc'));
        expect(built(builder)).toEqual(oracleMasks(Buffer.from('xabc')));
    });

    it('spreads letters, digits and the underscore over all 8 bits of the next-byte mask', () => {
        const bits = new Set([...'abcdefghijklmnopqrstuvwxyz0123456789_'].map((c) => NEXT_BIT[c.charCodeAt(0)]));
        expect(bits.size).toBe(8);
    });
});

describe('adjacency check', () => {
    const builder = new MaskedGrams();

    it('never rules out a text holding the literal (random texts, literals cut from their folded bytes)', () => {
        fc.assert(
            fc.property(text, fc.nat(), fc.integer({ min: 4, max: 40 }), (t, at, len) => {
                const bytes = foldedBytes(t);
                fc.pre(bytes.length >= 4);
                const from = at % (bytes.length - 3);
                const lit = bytes.subarray(from, Math.min(bytes.length, from + len));
                builder.text(t);
                expect(fits(gramsOfLiteral(lit), built(builder))).toBe(true);
            }),
            { seed: SEED, numRuns: 1000 },
        );
    });

    it('agrees with the naive oracle for random literals over texts holding their grams: kept whenever the literal occurs, mostly ruled out when not', () => {
        let absent = 0;
        let ruledOut = 0;
        fc.assert(
            fc.property(fc.integer(), (seed) => {
                // A literal, and a text of its grams in a random order, each followed by a random
                // letter: every gram present, the literal sometimes (by chance or in a run).
                const rand = mulberry32(seed);
                const pick = (s: string): string => s[Math.floor(rand() * s.length)]!;
                let lit = '';
                for (let n = 4 + Math.floor(rand() * 9); lit.length < n; ) lit += pick('abcdE');
                const pieces: string[] = [];
                for (let i = 0; i + 3 <= lit.length; i++) pieces.push(lit.slice(i, i + 3) + (rand() < 0.2 ? '' : pick('abcdexyz\n')));
                if (rand() < 0.2) pieces.push(lit);
                pieces.sort(() => rand() - 0.5);
                const text = pieces.join(pick('xyz'));
                builder.ascii(Buffer.from(text, 'latin1'));
                const masks = oracleMasks(foldedBytes(text));
                expect(built(builder)).toEqual(masks);
                const folded = Buffer.from(lit.toLowerCase(), 'latin1');
                const grams = gramsOfLiteral(folded);
                if (foldedBytes(text).includes(folded)) expect(fits(grams, masks)).toBe(true);
                else {
                    absent++;
                    if (!fits(grams, masks)) ruledOut++;
                }
            }),
            { seed: SEED, numRuns: 2000 },
        );
        console.log(`masks against the oracle: ${absent} texts holding a literal's grams but not the literal, ${ruledOut} ruled out`);
        expect(absent).toBeGreaterThan(500);
        // The masks are a filter worth having: most files holding the grams but not the literal go.
        expect(ruledOut).toBeGreaterThan(absent / 2);
    });

    it('rules out a file holding every gram of a literal, none side by side, and keeps one holding the literal', () => {
        const grams = planQuery('tronnes', 'i');
        expect(grams.op).toBe('seq');
        // "tro", "ron", "onn", "nne", "nes" all present, never in one run.
        const apart = 'xtroy ronx ponny zonne znes\n';
        const holding = 'Noralf TRØnnes and Noralf Tronnes\n';
        expect(evaluateQuery(grams, oneFile(apart, builder))).toEqual(new Uint32Array(0));
        expect(evaluateQuery(grams, oneFile(holding, builder))).toEqual(Uint32Array.of(0));
        // The same file without masks (name grams, a plain and): kept.
        const plain = oneFile(apart, builder);
        expect(evaluateQuery(grams, { list: plain.list, size: plain.size })).toEqual(Uint32Array.of(0));
    });

    it('leaves a gram whose list was not read out of the check', () => {
        const [abc, bcd, cde] = [gramAt('abc', 0), gramAt('bcd', 0), gramAt('cde', 0)];
        const grams = [abc, bcd, cde];
        const next = (c: string): number => NEXT_BIT[c.charCodeAt(0)]! << 8;
        // "abc" at 0 followed by 'd', "cde" at 2: fits with "bcd" not read.
        expect(fitsOne(grams, new Map([[abc, next('d') | 1], [cde, 1 << 2]]))).toBe(true);
        // "cde" only where no occurrence of "abc" allows it.
        expect(fitsOne(grams, new Map([[abc, next('d') | 1], [cde, 1 << 5]]))).toBe(false);
        // "abc" never followed by 'd' (a byte with another bit).
        const other = [...'abcefghijklmnopqrstuvwxyz'].find((c) => NEXT_BIT[c.charCodeAt(0)] !== NEXT_BIT['d'.charCodeAt(0)])!;
        expect(fitsOne(grams, new Map([[abc, next(other) | 1], [cde, 1 << 2]]))).toBe(false);
        // The last gram's next-byte mask is not asked (it may end the file).
        expect(fitsOne(grams, new Map([[abc, next('d') | 1], [bcd, next('e') | 2], [cde, 1 << 2]]))).toBe(true);
    });

    it('keeps exactly the ids of a list whose masks fit, among many', () => {
        fc.assert(
            fc.property(fc.array(fc.tuple(text, fc.boolean()), { maxLength: 30 }), fc.constantFrom('straße', 'abab', 'σσσa', 'kelvin_k'), (files, word) => {
                // Files, some with the word inserted, as one source with ids 0, 2, 4, ...
                const texts = files.map(([t, put]) => (put ? `${t}${word.toUpperCase()}${t}` : t));
                const lit = foldedBytes(word);
                const grams = gramsOfLiteral(lit);
                const each = texts.map((t) => oracleMasks(foldedBytes(t)));
                const holding = texts.flatMap((_, k) => (grams.every((g) => each[k]!.has(g)) ? [2 * k] : []));
                const listOf = (g: number): { ids: Uint32Array; masks: Uint16Array } => {
                    const ks = each.flatMap((m, k) => (m.has(g) ? [k] : []));
                    return { ids: Uint32Array.from(ks, (k) => 2 * k), masks: Uint16Array.from(ks, (k) => each[k]!.get(g)!) };
                };
                const kept = [...keepFitting(grams, Uint32Array.from(holding), listOf)];
                expect(kept).toEqual(holding.filter((id) => fits(grams, each[id / 2]!)));
                for (const [k, t] of texts.entries()) if (foldedBytes(t).includes(lit)) expect(kept).toContain(2 * k);
            }),
            { seed: SEED, numRuns: 300 },
        );
    });
});
