/** bench/common.ts `benchArgs`: the benchmark commands' flags, parsed by node:util parseArgs. */
import { describe, expect, it } from 'vitest';
import { benchArgs, intFlag, workerNiceFlag } from '../../../bench/common.js';

describe('benchArgs', () => {
    it('reads options with a value (spaced or with =), switches and positional words', () => {
        const { flags, words } = benchArgs(['content,read', '--tree', 'kernel', '--runs=3', '--no-follow', 'walk']);
        expect(words).toEqual(['content,read', 'walk']);
        expect(Object.fromEntries(flags)).toEqual({ tree: 'kernel', runs: '3', 'no-follow': 'true' });
        expect(intFlag(flags, 'runs', 7)).toBe(3);
        expect(intFlag(flags, 'iterations', 5)).toBe(5);
    });

    it('refuses an unknown flag and an option without its value', () => {
        expect(() => benchArgs(['--tres', 'kernel'])).toThrow(/Unknown option '--tres'/);
        expect(() => benchArgs(['--runs'])).toThrow(/--runs/);
    });

    it('reads --worker-nice as a whole number and refuses anything else', () => {
        expect(workerNiceFlag(benchArgs([]).flags)).toEqual({});
        expect(workerNiceFlag(benchArgs(['--worker-nice', '7']).flags)).toEqual({ workerNice: 7 });
        expect(workerNiceFlag(benchArgs(['--worker-nice=0']).flags)).toEqual({ workerNice: 0 });
        for (const bad of ['', 'abc', '0x7', ' 7 ', '-1', '2.5']) {
            expect(() => workerNiceFlag(benchArgs([`--worker-nice=${bad}`]).flags), bad).toThrow(`Invalid --worker-nice ${JSON.stringify(bad)}: expected a whole number from 0 to 19.`);
        }
    });
});
