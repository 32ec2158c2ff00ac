/**
 * Engine.search on one tree of about 3,300 entries built once for the file: hits in the order of a
 * sequential walk whatever order the pool's tasks finish in, max_results and maxTotalEntries
 * cutting that order at the same place on every run, an abort and a timeout keeping a prefix of
 * it, risky patterns (checkpointed tasks) giving the same results, and the pool idle afterwards.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { compilePattern } from '../../../src/search/regex.js';
import { fileTempDir as tempDir, request, sequential, strip, write } from '../../support/engine-fixture.js';

const engine = new Engine({ maxThreads: 2 });
afterAll(() => engine.close());

describe('Engine.search', () => {
    let big: string;
    /** The reference for content_pattern `needle` on the big tree (it never changes). */
    let needles: string[];
    beforeAll(() => {
        // 3 x 10 x 10 directories of 10 files: about 3,300 entries, with needles at known lines.
        big = tempDir('lcf-engine-big-');
        for (let a = 0; a < 3; a++) {
            for (let b = 0; b < 10; b++) {
                for (let c = 0; c < 10; c++) {
                    const dir = path.join(big, `top${a}`, `mid-${b}`, `leaf${c}`);
                    fs.mkdirSync(dir, { recursive: true });
                    for (let f = 0; f < 10; f++) {
                        const n = a * 1000 + b * 100 + c * 10 + f;
                        const lines = Array.from({ length: 20 }, (_, i) => (i % 7 === n % 7 ? `line ${i} Needle ${n}` : `line ${i} hay`));
                        fs.writeFileSync(path.join(dir, `file${f}.txt`), lines.join('\n') + '\n');
                    }
                }
            }
        }
        write(big, 'top0.txt', 'needle at top\n'); // sorts after the top0/ subtree
        write(big, 'top0-x/needle.md', 'no\n'); // a name hit only: content search must not list it
        needles = strip(sequential(big, { content: /needle/i }));
    });

    it('returns hits in sequential walk order (component-wise path order, then line)', async () => {
        const res = await engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('done');
        expect(strip(res.hits)).toEqual(needles);
        expect(res.hits.length).toBeGreaterThan(3000);
        const paths = res.hits.map((h) => h.path);
        expect(paths.indexOf('top0-x/needle.md')).toBe(-1);
        expect(paths.indexOf('top0.txt')).toBeGreaterThan(paths.lastIndexOf('top0/mid-9/leaf9/file9.txt'));
    });

    it('keeps exactly the first max_results of that order, on every run', async () => {
        for (const n of [1, 7, 50, 333, 2000]) {
            for (let run = 0; run < 3; run++) {
                const res = await engine.search(request(big, { contentPattern: 'needle', maxResults: n }), { timeoutMs: 120_000 });
                expect(res.stop).toBe('max_results');
                expect(strip(res.hits)).toEqual(needles.slice(0, n));
            }
        }
    });

    it('leaves no work running or queued once it returns', async () => {
        const res = await engine.search(request(big, { contentPattern: 'hay', maxResults: 10 }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('max_results');
        expect(res.visited).toBeLessThan(3300);
        expect(engine.pool.queueSize).toBe(0);
        expect(engine.pool.idleThreads).toBe(engine.pool.threads.length);
    });

    it('gives its threads back to the pool when it ends, none terminated (stopped early or not)', async () => {
        await engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
        const threads = engine.pool.threads.map((t) => t.threadId).sort();
        for (const extra of [{ contentPattern: 'hay', maxResults: 10 }, { namePattern: 'file3' }, { contentPattern: 'needle', maxResults: 333 }, {}]) {
            const res = await engine.search(request(big, extra), { timeoutMs: 120_000 });
            expect(['done', 'max_results']).toContain(res.stop);
            expect(engine.pool.idleThreads).toBe(engine.pool.threads.length);
        }
        // The same threads: a session's thread returns by itself, it is not terminated and replaced.
        expect(engine.pool.threads.map((t) => t.threadId).sort()).toEqual(threads);
    });

    it('runs more tasks at once than an AbortSignal takes listeners by default, with no leak warning', async () => {
        // Every task of a search listens to the search's one kill signal (search-tasks.ts).
        const warnings: string[] = [];
        const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
        process.on('warning', onWarning);
        const wide = new Engine({ maxThreads: 16 });
        try {
            const res = await wide.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
            expect(res.stop).toBe('done');
            expect(strip(res.hits)).toEqual(needles);
            // Warnings are emitted on the next tick.
            await new Promise((r) => setImmediate(r));
        } finally {
            process.off('warning', onWarning);
            await wide.close();
        }
        expect(warnings).toEqual([]);
    });

    it('ends with the hits so far when its signal aborts', async () => {
        const ac = new AbortController();
        ac.abort();
        const early = await engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000, signal: ac.signal });
        expect(early).toMatchObject({ stop: 'aborted', hits: [] });
        const later = new AbortController();
        const pending = engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000, signal: later.signal });
        setTimeout(() => later.abort(), 5);
        const res = await pending;
        expect(['aborted', 'done']).toContain(res.stop);
        const all = new Set(needles);
        for (const h of strip(res.hits)) expect(all.has(h)).toBe(true);
    });

    it('matches names, types and both patterns with AND', async () => {
        const names = await engine.search(request(big, { namePattern: '^leaf[37]$' }), { timeoutMs: 120_000 });
        expect(strip(names.hits)).toEqual(strip(sequential(big, { name: /^leaf[37]$/i })));
        expect(names.hits.every((h) => h.kind === 'directory')).toBe(true);
        const files = await engine.search(request(big, { namePattern: 'FILE9', type: 'file' }), { timeoutMs: 120_000 });
        expect(files.hits).toHaveLength(300);
        const dirsOnly = await engine.search(request(big, { type: 'directory' }), { timeoutMs: 120_000 });
        expect(dirsOnly.hits).toHaveLength(3 + 30 + 300 + 1);
        const both = await engine.search(request(big, { namePattern: 'file3', contentPattern: '^line 9 needle 1003$' }), { timeoutMs: 120_000 });
        expect(both.hits).toEqual([{ path: 'top1/mid-0/leaf0/file3.txt', kind: 'file', line: 10, text: 'line 9 Needle 1003' }]);
    });

    it('lists every entry when no filter is given, up to maxResults', async () => {
        const all = await engine.search(request(big), { timeoutMs: 120_000 });
        expect(all.hits.length).toBe(all.visited);
        expect(strip(all.hits)).toEqual(strip(sequential(big, {})));
        const some = await engine.search(request(big, { maxResults: 5 }), { timeoutMs: 120_000 });
        expect(strip(some.hits)).toEqual(['top0/', 'top0/mid-0/', 'top0/mid-0/leaf0/', 'top0/mid-0/leaf0/file0.txt', 'top0/mid-0/leaf0/file1.txt']);
    });

    it('stops with too_many_entries past maxTotalEntries, keeping the hits of the walked prefix', async () => {
        const res = await engine.search(request(big, { namePattern: 'file0', maxTotalEntries: 100 }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('too_many_entries');
        expect(res.visited).toBeGreaterThan(100);
        // In walk order the first 100 entries hold these file0 hits.
        const firstEntries = strip(sequential(big, {})).slice(0, 100);
        const expected = firstEntries.filter((p) => /\/file0\.txt$/.test(p));
        expect(strip(res.hits)).toEqual(expected);
    });

    it('returns partial, sorted results on timeout', async () => {
        const res = await engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 1 });
        expect(res.stop).toBe('timeout');
        const all = new Set(needles);
        for (const h of strip(res.hits)) expect(all.has(h)).toBe(true);
    });

    it('gives the same results with a risky pattern, whose tasks keep checkpoints (a full buffer included)', async () => {
        expect(compilePattern('(needle|zzz)+').risky).toBe(true);
        const res = await engine.search(request(big, { contentPattern: '(needle|zzz)+' }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('done');
        expect(strip(res.hits)).toEqual(needles);
        const dir = tempDir('lcf-engine-checkpoint-full-');
        // 10,000 hits of about 130 bytes as JSON: more than one task's checkpoint buffer holds.
        write(dir, 'a.txt', Array.from({ length: 10_000 }, (_, i) => `needle ${i} ${'p'.repeat(90)}`).join('\n') + '\n');
        write(dir, 'b.txt', 'needle b\n');
        write(dir, 'c/d.txt', 'needle d\n');
        const full = await engine.search(request(dir, { contentPattern: '(needle|zzz)+' }), { timeoutMs: 120_000 });
        expect(full.stop).toBe('done');
        expect(strip(full.hits)).toEqual(strip(sequential(dir, { content: /needle/i })));
    });

    it('reports where the ordered walk stopped for maxTotalEntries, the same on every run', async () => {
        const seen = new Set<string>();
        for (let run = 0; run < 4; run++) {
            const res = await engine.search(request(big, { contentPattern: 'needle', maxTotalEntries: 500 }), { timeoutMs: 120_000 });
            expect(res.stop).toBe('too_many_entries');
            seen.add(JSON.stringify([res.visited, strip(res.hits)]));
        }
        expect(seen.size).toBe(1);
    });
});
