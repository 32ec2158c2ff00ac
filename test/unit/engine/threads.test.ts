import os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_THREADS, DEFAULT_WORKER_NICE, Engine } from '../../../src/engine/engine.js';
import { FileToolPackage } from '../../../src/package/package.js';
import { AccessType } from '../../../src/config/shared/configuration.js';
import { Workspace } from '../../../src/access/workspace.js';
import { tempDir } from '../../support/helpers.js';

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

    it('refuses a nice value outside 0 to 19, and defaults to DEFAULT_WORKER_NICE', () => {
        expect(new Engine().workerNice).toBe(DEFAULT_WORKER_NICE);
        expect(DEFAULT_WORKER_NICE).toBe(5);
        expect(new Engine({ workerNice: 0 }).workerNice).toBe(0);
        expect(new Engine({ workerNice: 19 }).workerNice).toBe(19);
        expect(() => new Engine({ workerNice: -1 })).toThrow('Invalid workerNice: -1; expected a whole number from 0 to 19.');
        expect(() => new Engine({ workerNice: 20 })).toThrow('Invalid workerNice: 20; expected a whole number from 0 to 19.');
        expect(() => new Engine({ workerNice: 2.5 })).toThrow('Invalid workerNice: 2.5');
        expect(() => new Engine({ workerNice: Number.NaN })).toThrow('Invalid workerNice: NaN');
        // A value of another type is named with its type, not shown as if it were the number.
        expect(() => new Engine({ workerNice: '5' as unknown as number })).toThrow('Invalid workerNice: "5" (string); expected a whole number from 0 to 19.');
    });

    it('takes the engine options of a FileToolPackage', () => {
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: tempDir('lcf-nice-pkg-') }] });
        const pkg = new FileToolPackage(ws, undefined, undefined, undefined, { engine: { maxThreads: 1, workerNice: 7 } });
        expect([pkg.engine.maxThreads, pkg.engine.workerNice]).toEqual([1, 7]);
        expect(new FileToolPackage(ws).engine.workerNice).toBe(DEFAULT_WORKER_NICE);
        expect(() => new FileToolPackage(ws, undefined, undefined, undefined, { engine: { workerNice: 20 } })).toThrow('Invalid workerNice: 20');
    });
});
