import os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_THREADS, Engine } from '../src/engine/engine.js';

/** The pool's size: one thread per core by default, bounded so memory does not grow with the core count. */
describe('Engine threads', () => {
    afterEach(() => vi.restoreAllMocks());

    it('defaults to one thread per core on a small host', () => {
        vi.spyOn(os, 'availableParallelism').mockReturnValue(2);
        const engine = new Engine();
        expect(engine.maxThreads).toBe(2);
        expect(engine.maxPoolThreads).toBe(2 + 16);
    });

    it('caps the default at DEFAULT_MAX_THREADS on a host with many cores', () => {
        vi.spyOn(os, 'availableParallelism').mockReturnValue(16);
        const engine = new Engine();
        expect(DEFAULT_MAX_THREADS).toBe(6);
        expect(engine.maxThreads).toBe(DEFAULT_MAX_THREADS);
        expect(engine.maxPoolThreads).toBe(DEFAULT_MAX_THREADS + 16);
        vi.spyOn(os, 'availableParallelism').mockReturnValue(64);
        expect(new Engine().maxThreads).toBe(DEFAULT_MAX_THREADS);
    });

    it('keeps an explicit maxThreads above the cap', () => {
        vi.spyOn(os, 'availableParallelism').mockReturnValue(16);
        const engine = new Engine({ maxThreads: 16 });
        expect(engine.maxThreads).toBe(16);
        expect(engine.maxPoolThreads).toBe(32);
    });

    it('refuses a thread count that is not a positive whole number', () => {
        expect(() => new Engine({ maxThreads: 0 })).toThrow('Invalid maxThreads: 0; expected a positive whole number.');
        expect(() => new Engine({ maxThreads: 2.5 })).toThrow('Invalid maxThreads: 2.5');
        expect(() => new Engine({ maxThreads: 4, maxPoolThreads: 3 })).toThrow('Invalid maxPoolThreads: 3; expected a whole number of at least maxThreads (4).');
    });
});
