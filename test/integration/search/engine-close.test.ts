/**
 * Engine.close while a search runs: the search ends as aborted, its results partial, and never
 * reads as a complete answer ("no entries" with the terminated task's directory listed as
 * unreadable was what a closed package gave a model).
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { fileTempDir as tempDir, request, write } from '../../support/engine-fixture.js';

describe('Engine.close during a search', () => {
    it('ends a search whose task it terminates as aborted, with no failed-worker entry', async () => {
        const e = new Engine({ maxThreads: 2 });
        const dir = tempDir('lcf-engine-close-');
        write(dir, 'a/evil.txt', `${'a'.repeat(40_000)}!\n`);
        write(dir, 'b/plain.txt', 'hello\n');
        // Stuck in a/evil.txt until terminated: the search is in flight when the engine closes, however fast the machine.
        const pending = e.search(request(dir, { contentPattern: 'hello|(a+)+$' }), { timeoutMs: 300_000 });
        for (let i = 0; i < 12_000 && e.pool.threads.length - e.pool.idleThreads < 1; i++) await new Promise((r) => setTimeout(r, 10));
        await e.close();
        const out = await pending;
        expect(out.stop).toBe('aborted');
        expect(out.skipped.filter((s) => s.reason.startsWith('search worker failed'))).toEqual([]);
    }, 180_000);

    it('is ready for a new search after the close, with every hit', async () => {
        const e = new Engine({ maxThreads: 2 });
        try {
            const dir = tempDir('lcf-engine-close-again-');
            for (let i = 0; i < 50; i++) write(dir, `d${i % 5}/f${i}.txt`, 'needle\n');
            const first = e.search(request(dir, { contentPattern: 'needle|(a+)+$' }), { timeoutMs: 300_000 });
            await e.close();
            await first;
            const again = await e.search(request(dir, { contentPattern: 'needle' }), { timeoutMs: 300_000 });
            expect(again.stop).toBe('done');
            expect(again.hits).toHaveLength(50);
        } finally {
            await e.close();
        }
    }, 180_000);

    it('counts the tasks under way in active (what an index build shares the CPU with)', async () => {
        const e = new Engine({ maxThreads: 2 });
        try {
            const dir = tempDir('lcf-engine-active-');
            write(dir, 'a/evil.txt', `${'a'.repeat(40_000)}!\n`);
            expect(e.active).toBe(0);
            const ac = new AbortController();
            const pending = e.search(request(dir, { contentPattern: '(a+)+$' }), { timeoutMs: 300_000, signal: ac.signal });
            for (let i = 0; i < 12_000 && e.active === 0; i++) await new Promise((r) => setTimeout(r, 10));
            expect(e.active).toBeGreaterThanOrEqual(1);
            ac.abort();
            expect((await pending).stop).toBe('aborted');
            for (let i = 0; i < 12_000 && e.active > 0; i++) await new Promise((r) => setTimeout(r, 10));
            expect(e.active).toBe(0);
        } finally {
            await e.close();
        }
    }, 180_000);
});
