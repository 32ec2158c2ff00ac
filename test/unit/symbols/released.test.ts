/**
 * A navigation call hands the C heap's freed pages back once it settles (src/symbols/released.ts):
 * after its answer or its error, never before, and for each of the five tools.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { releasedAfter, releases } from '../../../src/symbols/released.js';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

describe('the C heap released after a navigation call', () => {
    it('once the answer settles, resolved or rejected, and not before', async () => {
        let count = 0;
        const release = (): void => void count++;
        let answer: (v: string) => void = () => undefined;
        const out = releasedAfter(new Promise<string>((r) => (answer = r)), release);
        await new Promise((r) => setImmediate(r));
        expect(count, 'not while the call runs').toBe(0);
        answer('done');
        await expect(out).resolves.toBe('done');
        expect(count).toBe(1);
        await expect(releasedAfter(Promise.reject(new Error('failed')), release)).rejects.toThrow('failed');
        expect(count, 'after a failure too').toBe(2);
    });

    it('after each call of each navigation tool, a failed one too', async () => {
        const root = tempDir('lcf-released-');
        writeTree(root, { 'src/a.c': 'int helper(void) { return 1; }\nint main(void) { return helper(); }\n', 'src/b.c': 'int helper(void);\nint use(void) { return helper(); }\n' });
        const fx = makePackage(root, { packageOptions: { navigation: true } });
        const calls: [string, Record<string, unknown>][] = [
            ['find_symbol', { name: 'helper' }],
            ['find_references', { name: 'helper' }],
            ['read_symbol', { path: 'src/a.c', name: 'main' }],
            ['file_outline', { path: 'src/b.c' }],
            ['repo_map', { path: 'src' }],
            ['file_outline', { path: path.join('src', 'missing.c') }],
        ];
        for (const [name, args] of calls) {
            const before = releases.asked;
            const r = await one(fx.tool(name), args);
            expect(r.status, `${name} ${JSON.stringify(args)}: ${String(r.result)}`).toBe(args['path'] === path.join('src', 'missing.c') ? 'error' : 'success');
            expect(releases.asked - before, `${name} ${JSON.stringify(args)}`).toBe(1);
        }
    });
});
