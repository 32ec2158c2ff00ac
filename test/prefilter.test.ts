/**
 * The scan's literal prefilter (workers/prefilter.ts): whatever piece of the literal the plan
 * searches (one byte or two, in every case variant), findLiteral finds exactly the first
 * ASCII case-insensitive occurrence at or after a position, as a naive search does.
 */
import { describe, expect, it } from 'vitest';
import { findLiteral, planLiteral, worthPrefilter } from '../workers/prefilter.js';

/** First case-insensitive (ASCII) occurrence of `lit` in `text` at or after `from`, the obvious way. */
function naive(text: string, lit: string, from: number): number {
    const hay = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const i = hay.indexOf(lit.toLowerCase(), from);
    return i;
}

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

describe('prefilter: findLiteral', () => {
    it('plans a two-byte piece without letters when there is a rare one, and every case variant of a piece with letters', () => {
        const digits = planLiteral('xyzzy_no_such_token_42');
        expect(digits.needles.map((n) => (typeof n === 'number' ? String.fromCharCode(n) : n.toString('latin1')))).toEqual(['42']);
        expect(digits.offset).toBe(20);
        const letters = planLiteral('mutex_lock');
        const shown = letters.needles.map((n) => (typeof n === 'number' ? String.fromCharCode(n) : n.toString('latin1')));
        // All case variants of the chosen piece, so no occurrence is missed.
        const piece = 'mutex_lock'.slice(letters.offset, letters.offset + (typeof letters.needles[0] === 'number' ? 1 : 2));
        const variants = [...piece].reduce<string[]>((acc, c) => acc.flatMap((p) => [...new Set([p + c.toLowerCase(), p + c.toUpperCase()])]), ['']);
        expect(new Set(shown)).toEqual(new Set(variants));
        expect(shown.length).toBeGreaterThan(1);
    });

    it('finds the same positions as a naive case-insensitive search, for literals of every shape, at every start', () => {
        const next = rng(11);
        const alphabet = 'aAbBxXzZ_42( \n';
        const literals = ['xyzzy_no_such_token_42', 'mutex_lock', '_lock(', 'needle', 'Ab', 'b4', 'zz', 'x', '4', '_', '(', 'a_b_a', '42_42', 'AbXz'];
        for (let round = 0; round < 300; round++) {
            const lit = literals[round % literals.length]!;
            const len = Math.floor(next() * 200);
            let text = '';
            for (let i = 0; i < len; i++) {
                // Now and then the literal itself, in a random case.
                if (next() < 0.03) text += [...lit].map((c) => (next() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
                else text += alphabet[Math.floor(next() * alphabet.length)];
            }
            const buf = Buffer.from(text, 'latin1');
            const plan = planLiteral(lit.toLowerCase());
            for (let from = 0; from <= text.length + 1; from++) {
                expect(findLiteral(buf, plan, from), `${JSON.stringify(lit)} in ${JSON.stringify(text)} from ${from}`).toBe(naive(text, lit, from));
            }
        }
    });

    it('finds occurrences at the buffer\'s very start and end, and none in a buffer shorter than the literal', () => {
        const plan = planLiteral('token_42');
        expect(findLiteral(Buffer.from('TOKEN_42'), plan, 0)).toBe(0);
        expect(findLiteral(Buffer.from('xx tOkEn_42'), plan, 0)).toBe(3);
        expect(findLiteral(Buffer.from('oken_42'), plan, 0)).toBe(-1);
        expect(findLiteral(Buffer.from('42 token_4'), plan, 0)).toBe(-1);
        expect(findLiteral(Buffer.from(''), plan, 0)).toBe(-1);
    });

    it('drives no prefilter with one of the commonest characters, and does with rarer ones or longer literals', () => {
        for (const c of [' ', '_', 'a', 'c', 'd', 'e', 'i', 'l', 'n', 'o', 'r', 's', 't']) expect(worthPrefilter(c), c).toBe(false);
        for (const c of ['=', 'x', 'p', 'z', '4', '(', '\u00e9']) expect(worthPrefilter(c), c).toBe(true);
        expect(worthPrefilter('et')).toBe(true);
    });
});
