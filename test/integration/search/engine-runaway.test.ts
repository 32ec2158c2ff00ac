/**
 * Engine.search with runaway patterns: a catastrophic regex cut off by its timeout, the worker
 * replaced and every descriptor it held natively closed, the hits found before it got stuck kept;
 * and concurrent calls while runaway searches run: one stuck search holds one thread, a long plain
 * search lets a second call in, six runaway searches do not starve a plain search or a bulk read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { fileTempDir as tempDir, request, write } from '../../support/engine-fixture.js';

const engine = new Engine({ maxThreads: 2 });
afterAll(() => engine.close());

describe('Engine.search cut off', () => {
    it('cuts off a catastrophic regex, replaces the worker, and works normally afterwards', async () => {
        const dir = tempDir('lcf-engine-redos-');
        write(dir, 'evil.txt', `${'a'.repeat(50_000)}!\n`);
        write(dir, 'fine.txt', 'plain text\n');
        // Uncut, the pattern would run for ages on this line: returning at all (within the test's
        // timeout) with stop 'timeout' shows the cut. No bound on the time: the machine may be loaded.
        const res = await engine.search(request(dir, { contentPattern: '(a+)+$' }), { timeoutMs: 1000 });
        expect(res.stop).toBe('timeout');
        const after = await engine.search(request(dir, { contentPattern: 'plain' }), { timeoutMs: 120_000 });
        expect(after.stop).toBe('done');
        expect(after.hits).toEqual([{ path: 'fine.txt', kind: 'file', line: 1, text: 'plain text' }]);
    });

    it('closes the descriptor of the file a terminated worker was scanning (opened natively, unknown to Node)', async () => {
        const dir = tempDir('lcf-engine-redos-fd-');
        write(dir, 'evil.txt', `${'a'.repeat(50_000)}!\n`);
        const evil = fs.realpathSync(path.join(dir, 'evil.txt'));
        const openOnEvil = (): number =>
            fs.readdirSync('/proc/self/fd').filter((fd) => {
                try {
                    return fs.readlinkSync(`/proc/self/fd/${fd}`) === evil;
                } catch {
                    return false;
                }
            }).length;
        // Symlink checks on (realRoots): the scan opens files through the held directory.
        const res = await engine.search(request(dir, { contentPattern: '(a+)+$', realRoots: [dir] }), { timeoutMs: 1000 });
        expect(res.stop).toBe('timeout');
        // The worker was stuck in the regex with evil.txt open; it exits some time after the
        // search returned (no bound on when: the machine may be loaded), and then nothing may be
        // left open on the file.
        for (let waited = 0; openOnEvil() > 0 && waited < 60_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
        expect(openOnEvil()).toBe(0);
    });

    it('closes the directories a terminated worker held open natively on its way down, and the file', async () => {
        const dir = tempDir('lcf-engine-redos-dirs-');
        const deep = ['a', 'b', 'c', 'd'];
        write(dir, `${deep.join('/')}/evil.txt`, `${'a'.repeat(50_000)}!\n`);
        const real = fs.realpathSync(dir);
        // The subdirectories (opened relative to their parents through held-at.ts's native layer) and the file.
        const watched = new Set([...deep.map((_, i) => path.join(real, ...deep.slice(0, i + 1))), path.join(real, ...deep, 'evil.txt')]);
        const openOnTree = (): string[] =>
            fs.readdirSync('/proc/self/fd').flatMap((fd) => {
                try {
                    const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
                    return watched.has(target) ? [target] : [];
                } catch {
                    return [];
                }
            });
        const res = await engine.search(request(dir, { contentPattern: '(a+)+$', realRoots: [dir] }), { timeoutMs: 1000 });
        expect(res.stop).toBe('timeout');
        // As above: the stuck worker exits some time after the search returned.
        for (let waited = 0; openOnTree().length > 0 && waited < 60_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
        expect(openOnTree()).toEqual([]);
        // The pool still walks the same tree with checks on.
        const after = await engine.search(request(dir, { namePattern: 'evil', realRoots: [dir] }), { timeoutMs: 120_000 });
        expect(after.hits.map((h) => h.path)).toEqual(['a/b/c/d/evil.txt']);
    });

    it('keeps the matches found before a risky pattern got stuck in a later file of the same directory', async () => {
        const dir = tempDir('lcf-engine-redos-keep-');
        for (let i = 1; i <= 100; i++) write(dir, `f${String(i).padStart(3, '0')}.txt`, `needle ${String(i).padStart(3, '0')}\n`);
        write(dir, 'zzz.txt', `${'a'.repeat(40_000)}!\n`);
        // The timeout must come after the walk reached zzz.txt; on a loaded machine it may come
        // sooner, so the search is repeated with a longer timeout until it did (scanned >= 100).
        // Short at first: until the timeout the stuck thread spins a core.
        let res = await engine.search(request(dir, { contentPattern: 'needle 0[0-3]|(a+)+$' }), { timeoutMs: 1000 });
        for (let timeoutMs = 4000; res.scanned < 100 && timeoutMs <= 64_000; timeoutMs *= 2) {
            res = await engine.search(request(dir, { contentPattern: 'needle 0[0-3]|(a+)+$' }), { timeoutMs });
        }
        expect(res.stop).toBe('timeout');
        expect(res.hits.map((h) => h.path)).toEqual(Array.from({ length: 39 }, (_, i) => `f${String(i + 1).padStart(3, '0')}.txt`));
        // The figures count the terminated task's work up to the stuck file: f001..f100.
        expect(res.visited).toBeGreaterThanOrEqual(100);
        expect(res.scanned).toBeGreaterThanOrEqual(100);
    });
});

describe('Engine under concurrent runaway searches', () => {
    it('holds one thread for a search stuck in a runaway regex, however much work it has left', async () => {
        const e = new Engine({ maxThreads: 2 });
        try {
            const dir = tempDir('lcf-engine-stuck-');
            // More entries than a first task's budget: it hands the rest of the tree back as jobs, for two threads.
            for (let f = 0; f < 300; f++) write(dir, `${String(f).padStart(4, '0')}.txt`, f === 0 ? 'hello\n' : 'x\n');
            write(dir, 'a/evil.txt', `${'a'.repeat(40_000)}!\n`);
            // Seconds of work for a second thread: each line costs the pattern milliseconds, matching nothing.
            for (let d = 0; d < 100; d++) for (let f = 0; f < 20; f++) write(dir, `b${String(d).padStart(3, '0')}/f${f}.txt`, `${'a'.repeat(18)}!\n`);
            // Runs until aborted, so the samples below never depend on how fast the machine is.
            const ac = new AbortController();
            let finished = false;
            const pending = e.search(request(dir, { contentPattern: 'hello|(a+)+$' }), { timeoutMs: 300_000, signal: ac.signal }).then((r) => {
                finished = true;
                return r;
            });
            const busy = (): number => e.pool.threads.length - e.pool.idleThreads;
            // The first task walks the top directory alone (one busy thread, however long a loaded
            // machine makes it take), then hands a/ and the b*/ work to two threads. Once the task
            // in a/evil.txt is stuck, the search hands out no more work: the other thread goes idle
            // and stays idle. Waits for both threads busy, then for 1 s of one (at most 120 s)...
            let sawTwo = false;
            let ones = 0;
            for (let i = 0; i < 12_000 && ones < 100; i++) {
                await new Promise((r) => setTimeout(r, 10));
                const now = busy();
                if (now >= 2) sawTwo = true;
                ones = sawTwo && now === 1 ? ones + 1 : 0;
            }
            expect(sawTwo).toBe(true);
            expect(ones).toBe(100);
            // ...and checks that it stays so for another second, with the search still running.
            let most = 0;
            for (let i = 0; i < 20; i++) {
                most = Math.max(most, busy());
                await new Promise((r) => setTimeout(r, 50));
            }
            expect(finished).toBe(false);
            expect(most).toBe(1);
            ac.abort();
            const res = await pending;
            expect(res.stop).toBe('aborted');
            expect(res.hits.map((h) => h.path)).toEqual(['0000.txt']);
        } finally {
            await e.close();
        }
    });

    it('lets a second call in while a long plain search holds every thread (its sessions give them back)', async () => {
        const e = new Engine({ maxThreads: 1 });
        try {
            const dir = tempDir('lcf-engine-share-');
            // Each line costs the pattern a few milliseconds (polynomial backtracking, no repeated
            // group: not a risky pattern), so the search has seconds of work for its one thread.
            const slow = `z${'xy'.repeat(150)}\n`.repeat(4);
            for (let d = 0; d < 40; d++) for (let f = 0; f < 25; f++) write(dir, `d${String(d).padStart(2, '0')}/f${f}.txt`, slow);
            write(dir, 'zz/target.txt', 'x\n');
            const ac = new AbortController();
            let longDone = false;
            const long = e.search(request(dir, { contentPattern: 'x.*y.*z' }), { timeoutMs: 600_000, signal: ac.signal }).then((r) => {
                longDone = true;
                return r;
            });
            await new Promise((r) => setTimeout(r, 50));
            const short = await e.search(request(dir, { namePattern: '^target\\.txt$' }), { timeoutMs: 600_000 });
            expect(short.hits.map((h) => h.path)).toEqual(['zz/target.txt']);
            // The short call did not wait for the long one to end.
            expect(longDone).toBe(false);
            ac.abort();
            const res = await long;
            expect(res.stop).toBe('aborted');
        } finally {
            await e.close();
        }
    });

    it('still answers a plain search and a bulk read while six runaway searches run', async () => {
        const e = new Engine({ maxThreads: 2 });
        try {
            const dir = tempDir('lcf-engine-starve-');
            for (let i = 0; i < 30; i++) write(dir, `src/mod${i}.ts`, i % 10 === 0 ? `export const hello${i} = 1;\n` : 'export {};\n');
            write(dir, 'logs/huge.log', `${'a'.repeat(40_000)}!\n`);
            write(dir, 'docs/readme.md', 'hello docs\n');
            // The runaway searches must outlast the plain calls; on a loaded machine those may take
            // longer than the runaways' timeout, so the round is repeated with a longer one until
            // they did (the plain calls have a timeout they never reach). Short at first: until
            // their timeout the six runaway threads keep every core busy.
            for (let timeoutMs = 3000; ; timeoutMs *= 2) {
                const runaway = Array.from({ length: 6 }, () => e.search(request(dir, { contentPattern: 'hello|(a+)+$' }), { timeoutMs }));
                let runawayDone = false;
                void Promise.all(runaway).then(() => (runawayDone = true));
                await new Promise((r) => setTimeout(r, 500)); // every runaway search is stuck in logs/huge.log soon
                const plain = await e.search(request(dir, { contentPattern: 'hello', namePattern: '\\.ts$' }), { timeoutMs: 120_000 });
                const files = ['src/mod0.ts', 'docs/readme.md'].map((f) => ({ shown: f, real: path.join(dir, f) }));
                const reads = await e.readMany(files, { maxBytes: 1e6, realRoots: null, timeoutMs: 120_000 });
                const stillRunning = !runawayDone;
                const results = await Promise.all(runaway);
                // Or they timed out before their walk reached docs/ (their threads still starting).
                const walkedDocs = results.every((res) => res.hits.some((h) => h.path === 'docs/readme.md'));
                if ((!stillRunning || !walkedDocs) && timeoutMs < 64_000) continue;
                expect(stillRunning).toBe(true);
                expect(plain.stop).toBe('done');
                expect(plain.hits.map((h) => h.path)).toEqual(['src/mod0.ts', 'src/mod10.ts', 'src/mod20.ts']);
                expect(reads.map((r) => r.ok)).toEqual([true, true]);
                for (const res of results) {
                    expect(res.stop).toBe('timeout');
                    expect(res.hits.map((h) => h.path)).toContain('docs/readme.md');
                }
                break;
            }
        } finally {
            await e.close();
        }
    });
});
