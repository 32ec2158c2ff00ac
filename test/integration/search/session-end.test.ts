/**
 * A search session that ends with its last answer (protocol.ts `LastTask`): a search whose task
 * at the walk's cursor does all the work left, or stops at the cap, ends without the host posting
 * the session's end, and the pool is idle when it returns, its threads not replaced.
 */
import { MessagePort } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { fileTempDir as tempDir, request, write } from '../../support/engine-fixture.js';

const engine = new Engine({ maxThreads: 2 });
afterAll(() => engine.close());

/** Runs `f`, counting the session ends (`null`) this thread posts meanwhile. */
async function endsPosted<T>(f: () => Promise<T>): Promise<{ value: T; ends: number }> {
    const post = MessagePort.prototype.postMessage;
    let ends = 0;
    MessagePort.prototype.postMessage = function (this: MessagePort, message: unknown, ...rest: unknown[]) {
        if (message === null) ends++;
        return (post as (...a: unknown[]) => void).call(this, message, ...rest);
    } as typeof post;
    try {
        return { value: await f(), ends };
    } finally {
        MessagePort.prototype.postMessage = post;
    }
}

describe('a search session ending with its last answer', () => {
    it('is not told to end when its one task did all the work, or stopped at max_results', async () => {
        const dir = tempDir('lcf-session-end-');
        for (let i = 0; i < 5; i++) write(dir, `f${i}.txt`, `needle ${i}\nhay\n`);
        const all = await endsPosted(() => engine.search(request(dir, { contentPattern: 'needle' }), { timeoutMs: 120_000 }));
        expect(all.value.stop).toBe('done');
        expect(all.value.hits.map((h) => h.path)).toEqual(['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']);
        expect(all.ends).toBe(0);
        expect(engine.pool.idleThreads).toBe(engine.pool.threads.length);
        const threads = engine.pool.threads.map((t) => t.threadId).sort();
        const capped = await endsPosted(() => engine.search(request(dir, { contentPattern: 'needle', maxResults: 2 }), { timeoutMs: 120_000 }));
        expect(capped.value.stop).toBe('max_results');
        expect(capped.value.hits.map((h) => h.path)).toEqual(['f0.txt', 'f1.txt']);
        expect(capped.ends).toBe(0);
        expect(engine.pool.idleThreads).toBe(engine.pool.threads.length);
        expect(engine.pool.threads.map((t) => t.threadId).sort()).toEqual(threads);
    });
});
