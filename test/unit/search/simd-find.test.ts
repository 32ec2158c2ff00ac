/**
 * The prefilter's SIMD module (workers/search/simd): the embedded bytes are the assembly of
 * find.wat (`UPDATE_WASM=1` rewrites find-wasm.ts from it), and the search's bounds: literals it
 * refuses, a literal at the very end of a buffer, a buffer shorter than the literals.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIND_WASM } from '../../../workers/search/simd/find-wasm.js';
import { SimdFind, simdAvailable } from '../../../workers/search/simd/simd-find.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../workers/search/simd');

describe('the SIMD find module', () => {
    it('is the assembly of find.wat, and runs here', async () => {
        const wabt = await (await import('wabt')).default();
        const text = fs.readFileSync(path.join(dir, 'find.wat'), 'utf8');
        const bytes = Buffer.from(wabt.parseWat('find.wat', text, { simd: true }).toBinary({}).buffer);
        if (process.env['UPDATE_WASM'] === '1') {
            const source = fs.readFileSync(path.join(dir, 'find-wasm.ts'), 'utf8');
            fs.writeFileSync(path.join(dir, 'find-wasm.ts'), source.replace(/'[A-Za-z0-9+/=]+'/, `'${bytes.toString('base64')}'`));
            return;
        }
        expect(FIND_WASM, 'find-wasm.ts is out of date: run UPDATE_WASM=1 npx vitest run test/unit/search/simd-find.test.ts').toBe(bytes.toString('base64'));
        expect(simdAvailable()).toBe(true);
    });

    it('refuses no literal, an empty one and more than 8', () => {
        const lit = (s: string): { folded: Uint8Array; first: number; second: number } => ({ folded: Buffer.from(s, 'latin1'), first: 0, second: s.length - 1 });
        expect(() => new SimdFind([])).toThrow(RangeError);
        expect(() => new SimdFind([lit('ab'), { folded: new Uint8Array(0), first: 0, second: 0 }])).toThrow(RangeError);
        expect(() => new SimdFind(Array.from({ length: 9 }, (_, i) => lit(`k${i}`)))).toThrow(RangeError);
    });

    it('finds a literal that ends the buffer, none past it, and none in a buffer shorter than it', () => {
        const find = new SimdFind([{ folded: Buffer.from('abc_x'), first: 3, second: 4 }]);
        for (const [text, from, want] of [
            ['........abc_X', 0, 8],
            ['........abc_', 0, -1],
            ['abc_x', 1, -1],
            ['abc', 0, -1],
            ['', 0, -1],
            ['ABC_X.ABC_X', 1, 6],
            ['ABC_X', 9, -1],
        ] as const) {
            find.reset();
            expect(find.find(Buffer.from(text, 'latin1'), from), `${text} from ${from}`).toBe(want);
        }
    });

    it('never finds a literal in what a longer buffer left past a shorter one\'s end, whatever the place in a 64-byte block', () => {
        const find = new SimdFind([{ folded: Buffer.from('ab'), first: 0, second: 1 }]);
        const long = Buffer.from('ab'.repeat(100), 'latin1');
        for (let len = 0; len <= 130; len++) {
            find.reset();
            expect(find.find(long, 0)).toBe(0);
            // The same memory now holds `ab` everywhere past the short buffer's end.
            const short = Buffer.alloc(len, '.');
            if (len >= 2) short.write('ab', len - 2, 'latin1');
            find.reset();
            expect(find.find(short, 0), `${len} bytes`).toBe(len >= 2 ? len - 2 : -1);
            if (len > 0) expect(find.find(short, len - 1), `${len} bytes, from its last`).toBe(-1);
        }
    });

    it('finds every start when a window holds more than one call lists (1,024), in order and after jumps back', () => {
        const find = new SimdFind([
            { folded: Buffer.from('ab'), first: 0, second: 1 },
            { folded: Buffer.from('bab'), first: 0, second: 2 },
        ]);
        // 'ab' at every even place but a gap, 'bab' at every odd one: 5,000 starts and more, two literals at one place each.
        const text = Buffer.from('aB'.repeat(3000) + 'xx' + 'Ab'.repeat(500), 'latin1');
        const all: number[] = [];
        for (let i = 0; i + 1 < text.length; i++) {
            const two = text.toString('latin1', i, i + 2).toLowerCase();
            const three = text.toString('latin1', i, i + 3).toLowerCase();
            if (two === 'ab' || three === 'bab') all.push(i);
        }
        expect(all.length).toBeGreaterThan(5000);
        find.reset();
        const got: number[] = [];
        for (let from = 0, at = find.find(text, 0); at !== -1; from = at + 1, at = find.find(text, from)) got.push(at);
        expect(got).toEqual(all);
        for (const from of [4000, 17, 2500, 5999, 6000, 6001, 1, 6999, 7000, 0]) {
            expect(find.find(text, from), `from ${from}`).toBe(all.find((a) => a >= from) ?? -1);
        }
    });
});
