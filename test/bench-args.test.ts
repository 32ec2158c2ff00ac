/** bench/common.ts `benchArgs`: the benchmark commands' flags, parsed by node:util parseArgs. */
import { describe, expect, it } from 'vitest';
import { benchArgs, intFlag } from '../bench/common.js';

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
});
