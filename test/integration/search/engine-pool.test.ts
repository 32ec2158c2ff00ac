/**
 * The engine's pool over time: streamed searches (threads given back while the consumer does
 * not read, stopped by a break or an abort), a pool started lazily, closed and started again, the
 * workers' young generation, and an idle pool that does not keep the process alive.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { workerYoungGenerationMb } from '../../../src/engine/pool.js';
import type { SearchHit } from '../../../src/search/shared/types.js';
import { CHILD_NODE_ARGS, childModule } from '../../support/child-source.js';
import { fileTempDir as tempDir, request, write } from '../../support/engine-fixture.js';
import { until } from '../../support/helpers.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const engine = new Engine({ maxThreads: 2 });
afterAll(() => engine.close());

describe('Engine.stream', () => {
    it('yields hits as they are found and stops at maxResults', async () => {
        const dir = tempDir('lcf-engine-stream-');
        for (let i = 0; i < 200; i++) write(dir, `d${i % 10}/f${i}.txt`, 'needle\nneedle\n');
        const got: SearchHit[] = [];
        for await (const hit of engine.stream(request(dir, { contentPattern: 'needle', maxResults: 120 }))) got.push(hit);
        expect(got).toHaveLength(120);
        const all: SearchHit[] = [];
        for await (const hit of engine.stream(request(dir, { contentPattern: 'needle' }))) all.push(hit);
        expect(all).toHaveLength(400);
    });

    it('gives every thread back while its consumer does not read, and goes on when it does', async () => {
        const dir = tempDir('lcf-engine-stream-paused-');
        for (let i = 0; i < 300; i++) write(dir, `d${i % 10}/f${i}.txt`, 'needle\n'.repeat(20));
        const it = engine.stream(request(dir, { contentPattern: 'needle' }));
        const first = await it.next();
        expect(first.done).toBe(false);
        // 6,000 hits: the stream stops handing out work at 2,048 waiting ones; its threads go back to the pool.
        await until(() => engine.pool.idleThreads >= engine.pool.threads.length, 20);
        expect(engine.pool.idleThreads).toBe(engine.pool.threads.length);
        // Another call runs meanwhile.
        const other = await engine.search(request(dir, { namePattern: '^f7\\.txt$' }), { timeoutMs: 120_000 });
        expect(other.hits.map((h) => h.path)).toEqual(['d7/f7.txt']);
        let n = 1;
        for (let r = await it.next(); !r.done; r = await it.next()) n++;
        expect(n).toBe(6000);
    });

    it('stops when the consumer breaks or the signal aborts', async () => {
        const dir = tempDir('lcf-engine-stream-abort-');
        for (let i = 0; i < 300; i++) write(dir, `d${i % 10}/f${i}.txt`, 'needle\n');
        let n = 0;
        for await (const _ of engine.stream(request(dir, { contentPattern: 'needle' }))) if (++n === 3) break;
        expect(n).toBe(3);
        const ac = new AbortController();
        let m = 0;
        for await (const _ of engine.stream(request(dir, { contentPattern: 'needle' }), { signal: ac.signal })) if (++m === 5) ac.abort();
        expect(m).toBeGreaterThanOrEqual(5);
        expect(m).toBeLessThan(300);
        // The engine is idle and usable afterwards.
        const res = await engine.search(request(dir, { namePattern: '^f1\\.txt$' }), { timeoutMs: 120_000 });
        expect(res.hits.map((h) => h.path)).toEqual(['d1/f1.txt']);
    });
});

describe('Engine lifecycle', () => {
    it('starts lazily, can be closed and used again', async () => {
        const e = new Engine({ maxThreads: 1 });
        expect(e.started).toBe(false);
        const dir = tempDir('lcf-engine-life-');
        write(dir, 'a.txt', 'x\n');
        expect((await e.search(request(dir), { timeoutMs: 120_000 })).hits).toHaveLength(1);
        expect(e.started).toBe(true);
        await e.close();
        expect(e.started).toBe(false);
        expect((await e.search(request(dir), { timeoutMs: 120_000 })).hits).toHaveLength(1);
        await e.close();
        expect(() => new Engine({ maxThreads: 0 })).toThrow(/maxThreads/);
        expect(() => new Engine({ maxThreads: 4, maxPoolThreads: 2 })).toThrow(/maxPoolThreads: 2; expected a whole number of at least maxThreads \(4\)/);
        // Room for concurrent calls beyond one call's threads.
        expect(new Engine({ maxThreads: 2 }).maxPoolThreads).toBe(18);
        expect(new Engine({ maxThreads: 32 }).maxPoolThreads).toBe(64);
    });

    it('starts threads as tasks need them, at most maxThreads for one call, and keeps those once started', async () => {
        const e = new Engine({ maxThreads: 3 });
        try {
            const dir = tempDir('lcf-engine-demand-');
            write(dir, 'a.txt', 'needle\n');
            // A tree the first task walks whole: one thread, not maxThreads.
            expect((await e.search(request(dir, { contentPattern: 'needle' }), { timeoutMs: 120_000 })).hits).toHaveLength(1);
            expect(e.pool.threads).toHaveLength(1);
            expect(e.pool.minThreads).toBe(1);
            // A bulk read of many files keeps maxThreads busy: the others start, and no more.
            for (let i = 0; i < 60; i++) write(dir, `r/f${i}.txt`, `file ${i}\n`);
            const items = Array.from({ length: 60 }, (_, i) => ({ shown: `r/f${i}.txt`, real: path.join(dir, 'r', `f${i}.txt`) }));
            const reads = await e.readMany(items, { maxBytes: 1e6, realRoots: null, timeoutMs: 120_000 });
            expect(reads.map((r) => r.ok)).toEqual(items.map(() => true));
            expect(e.pool.threads).toHaveLength(3);
            // The started threads are the pool's steady size: an idle timeout does not end them.
            expect(e.pool.minThreads).toBe(3);
            expect(e.pool.maxThreads).toBe(3);
        } finally {
            await e.close();
        }
    });

    it('gives each worker a young generation of 4 to 12 MiB, 24 MiB shared among maxThreads', () => {
        expect([1, 2, 3, 4, 6, 16, 64].map(workerYoungGenerationMb)).toEqual([12, 12, 8, 6, 4, 4, 4]);
    });

    it('does not keep the process alive with an idle pool', async () => {
        const dir = tempDir('lcf-engine-exit-');
        write(dir, 'a.txt', 'needle\n');
        const script = `
            import { Engine } from ${JSON.stringify(childModule('src/engine/engine.ts'))};
            const res = await Engine.shared().search({ root: { real: ${JSON.stringify(dir)}, display: '.', realRoots: null, bounds: [] }, type: 'both', contentPattern: 'needle',
                maxResults: 10, maxFileSize: 1e6, maxTotalEntries: 1e6, skipDirs: [] }, { timeoutMs: 120_000 });
            console.log(JSON.stringify(res.hits));
        `;
        const child = spawn(process.execPath, [...CHILD_NODE_ARGS, '--input-type=module', '-e', script], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const code = await new Promise<number | null>((resolve) => {
            // A hang waits forever; two minutes tell it from a slow start on a loaded machine.
            const timer = setTimeout(() => {
                child.kill('SIGKILL');
                resolve(null);
            }, 120_000);
            child.on('exit', (c) => {
                clearTimeout(timer);
                resolve(c);
            });
        });
        expect(stderr).toBe('');
        expect(code).toBe(0); // null would mean it hung and was killed
        expect(JSON.parse(stdout)).toEqual([{ path: 'a.txt', kind: 'file', line: 1, text: 'needle' }]);
    });
});
