/**
 * Minified code: tens of thousands of definitions and references on one line. Each signature and
 * reference line is taken from around its own place (the first 200 characters from there), not
 * from the start of a line that may be megabytes long.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { tempDir } from '../../support/helpers.js';

/** `count` functions on one line, each calling the one before: `function f0(a){return a}function f1(a){return f0(a)}…`. */
function minified(count: number): string {
    let out = 'function f0(a){return a}';
    for (let i = 1; i < count; i++) out += `function f${i}(a){return f${i - 1}(a)+f0(a)}`;
    return out;
}

describe('definitions and references on one long line', () => {
    it('gives each definition a signature from its own place and each reference its column and line text', async () => {
        const text = minified(20_000);
        expect(text.length).toBeGreaterThan(600_000);
        const dir = tempDir('lcf-long-line-');
        const file = path.join(dir, 'bundle.min.js');
        fs.writeFileSync(file, text);
        const r = await runSymbolsTask({ op: 'symbols', files: [{ shown: 'bundle.min.js', real: file }], realRoots: null, maxBytes: 4 << 20, parseMs: 120_000, references: 'f0' });
        const got = r.files[0]!;
        if (!got.ok) throw new Error(got.message);
        expect(got.definitions).toHaveLength(20_000);
        const f0 = got.definitions[0]!;
        expect(f0.signature).toBe(`${text.slice(0, 200)}…`);
        const last = got.definitions[19_999]!;
        expect(last.name).toBe('f19999');
        expect(last.signature).toBe('function f19999(a){return f19998(a)+f0(a)}');
        const middle = got.definitions[10_000]!;
        expect(middle.signature.startsWith('function f10000(a){return f9999(a)+f0(a)}function f10001(')).toBe(true);
        expect(middle.signature).toHaveLength(201);
        // f0 at its definition, twice in f1 (its predecessor and the first), once in each later one.
        const refs = got.references!;
        expect(refs).toHaveLength(1 + 2 + 19_998);
        for (const ref of [refs[0]!, refs[5_000]!, refs[refs.length - 1]!]) {
            expect(ref.line).toBe(1);
            expect(text.slice(ref.column - 1, ref.column + 1)).toBe('f0');
            expect(ref.text.startsWith(ref.column <= 201 ? text.slice(0, 20) : text.slice(ref.column - 1, ref.column + 19))).toBe(true);
        }
        expect(refs[refs.length - 1]!.text).toBe('f0(a)}');
    });
});
