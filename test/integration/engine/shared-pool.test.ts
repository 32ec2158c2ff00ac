/**
 * Engines made with `sharedPool`: one pool per thread count and nice value in the process, whose
 * threads a second engine reuses instead of starting its own; each engine still runs at most what
 * it asks for, and its close ends only its own tasks.
 */
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { fileTempDir as tempDir, request, write } from '../../support/engine-fixture.js';
import { until } from '../../support/helpers.js';

const engines: Engine[] = [];
afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.close()));
});

function engine(options: ConstructorParameters<typeof Engine>[0]): Engine {
    const e = new Engine(options);
    engines.push(e);
    return e;
}

/** Counts the worker threads the process starts while `fn` runs. */
async function starts<T>(fn: () => Promise<T>): Promise<{ value: T; started: number }> {
    let started = 0;
    const count = (_: Worker): void => void started++;
    process.on('worker', count);
    try {
        return { value: await fn(), started };
    } finally {
        process.off('worker', count);
    }
}

// A nice value no other test's shared pool uses, so this file's pools start with no thread.
const NICE = 7;

describe('Engine sharedPool', () => {
    it('runs engines of the same maxThreads and workerNice on one pool: the second starts no thread', async () => {
        const dir = tempDir('lcf-shared-pool-');
        write(dir, 'a.txt', 'needle\n');
        const a = engine({ maxThreads: 1, workerNice: NICE, sharedPool: true });
        const b = engine({ maxThreads: 1, workerNice: NICE, sharedPool: true });
        const first = await starts(() => a.search(request(dir, { contentPattern: 'needle' }), { timeoutMs: 120_000 }));
        expect(first.value.hits).toHaveLength(1);
        expect(first.started).toBe(1);
        const second = await starts(() => b.search(request(dir, { contentPattern: 'needle' }), { timeoutMs: 120_000 }));
        expect(second.value.hits).toHaveLength(1);
        expect(second.started).toBe(0);
        expect(b.pool).toBe(a.pool);
        // Another nice value, another thread count, or no option: a pool of its own.
        expect(engine({ maxThreads: 1, workerNice: NICE + 1, sharedPool: true }).pool).not.toBe(a.pool);
        expect(engine({ maxThreads: 2, workerNice: NICE, sharedPool: true }).pool).not.toBe(a.pool);
        expect(engine({ maxThreads: 1, workerNice: NICE }).pool).not.toBe(a.pool);
        expect(engine({ maxThreads: 1, workerNice: NICE }).pool).not.toBe(engine({ maxThreads: 1, workerNice: NICE }).pool);
    });

    it("lets the pool run what the busy engines ask for together, then only one engine's threads", async () => {
        const dir = tempDir('lcf-shared-pool-busy-');
        write(dir, 'a/evil.txt', `${'a'.repeat(40_000)}!\n`);
        write(dir, 'b/plain.txt', 'hello\n');
        const a = engine({ maxThreads: 1, workerNice: NICE, sharedPool: true });
        const b = engine({ maxThreads: 1, workerNice: NICE, sharedPool: true });
        const ac = new AbortController();
        // Stuck in a/evil.txt until aborted.
        const stuck = a.search(request(dir, { contentPattern: '(a+)+$' }), { timeoutMs: 300_000, signal: ac.signal });
        await until(() => a.active > 0 && a.waiting === 0);
        // b's task gets a thread of its own beside a's stuck one.
        const plain = await b.search(request(dir, { contentPattern: 'hello' }), { timeoutMs: 120_000 });
        expect(plain.hits.map((h) => h.path)).toEqual(['b/plain.txt']);
        expect(a.pool.threads.length).toBeGreaterThanOrEqual(2);
        ac.abort();
        expect((await stuck).stop).toBe('aborted');
        await until(() => a.active === 0 && b.active === 0);
        // Idle: no engine asks for more than its maxThreads.
        expect(a.pool.maxThreads).toBe(1);
    });

    it("ends only the closing engine's tasks: the other engine's search completes, and the closed one works again", async () => {
        const dir = tempDir('lcf-shared-pool-close-');
        write(dir, 'a/evil.txt', `${'a'.repeat(40_000)}!\n`);
        for (let i = 0; i < 40; i++) write(dir, `d${i % 4}/f${i}.txt`, 'hello\n');
        const a = engine({ maxThreads: 1, workerNice: NICE, sharedPool: true });
        const b = engine({ maxThreads: 1, workerNice: NICE, sharedPool: true });
        const stuck = a.search(request(dir, { contentPattern: 'hello|(a+)+$' }), { timeoutMs: 300_000 });
        await until(() => a.active > 0 && a.waiting === 0);
        const threads = [...a.pool.threads];
        const other = b.search(request(dir, { contentPattern: 'hello' }), { timeoutMs: 300_000 });
        await a.close();
        const closed = await stuck;
        expect(closed.stop).toBe('aborted');
        expect(closed.skipped.filter((s) => s.reason.startsWith('search worker failed'))).toEqual([]);
        // The thread that ran a's stuck task has exited; the pool goes on for b.
        expect(threads.some((w) => w.threadId === -1)).toBe(true);
        const done = await other;
        expect(done.stop).toBe('done');
        expect(done.hits).toHaveLength(40);
        expect(a.started).toBe(false);
        const again = await a.search(request(dir, { contentPattern: 'hello' }), { timeoutMs: 300_000 });
        expect(again.stop).toBe('done');
        expect(again.hits).toHaveLength(40);
        expect(a.pool).toBe(b.pool);
    }, 180_000);

    it('is off by default, and takes only true', () => {
        expect(engine({}).sharedPool).toBe(false);
        expect(engine({ sharedPool: true }).sharedPool).toBe(true);
        expect(() => new Engine({ sharedPool: 'yes' as unknown as boolean })).toThrow(/Invalid sharedPool: "yes" \(string\); expected true or false\./);
    });
});
