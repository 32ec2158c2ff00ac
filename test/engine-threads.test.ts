import fs from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_THREADS, Engine } from '../src/engine/engine.js';
import { searchRootAt } from '../src/engine/prepare.js';
import { WORKER_NICE } from '../workers/pool-worker.js';
import { tempDir, writeTree } from './helpers.js';

/** Nice value of each thread of this process (Linux), by thread id. */
function threadNice(): Map<number, number> {
    const out = new Map<number, number>();
    for (const tid of fs.readdirSync('/proc/self/task')) {
        // Fields after the command name (in parentheses): nice is the 19th field of the line.
        const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(Number(tid), Number(fields[16]));
    }
    return out;
}

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

    it.runIf(process.platform === 'linux')('runs the pool threads at a lower CPU priority than the main thread', async () => {
        const dir = tempDir('lcf-nice-');
        writeTree(dir, { 'a.txt': 'needle\n', 'b/c.txt': 'needle\n' });
        const engine = new Engine({ maxThreads: 2 });
        try {
            const main = os.getPriority(process.pid);
            const before = threadNice();
            const res = await engine.search(
                { root: searchRootAt(dir), type: 'both', contentPattern: 'needle', maxResults: 10, maxFileSize: 1e6, maxTotalEntries: 1e6, skipDirs: [] },
                { timeoutMs: 60_000 },
            );
            expect(res.hits.map((h) => h.path)).toEqual(['a.txt', 'b/c.txt']);
            expect(os.getPriority(process.pid)).toBe(main);
            const lowered = [...threadNice()].filter(([tid, nice]) => !before.has(tid) && nice === Math.min(19, main + WORKER_NICE));
            expect(lowered.length).toBeGreaterThanOrEqual(1);
        } finally {
            await engine.close();
        }
    });

    it('refuses a thread count that is not a positive whole number', () => {
        expect(() => new Engine({ maxThreads: 0 })).toThrow('Invalid maxThreads: 0; expected a positive whole number.');
        expect(() => new Engine({ maxThreads: 2.5 })).toThrow('Invalid maxThreads: 2.5');
        expect(() => new Engine({ maxThreads: 4, maxPoolThreads: 3 })).toThrow('Invalid maxPoolThreads: 3; expected a whole number of at least maxThreads (4).');
    });
});
