/**
 * The worker pool's thread priority, looked at from a fresh Node process (a subprocess, so not in
 * the unit project): the pool's threads at the engine's workerNice, the host's threads unchanged.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CHILD_NODE_ARGS, childModule } from '../support/child-source.js';
import { tempDir, writeTree } from '../support/helpers.js';

const LINUX = process.platform === 'linux';

/**
 * The pool's threads lower themselves to the engine's workerNice (workers/entry.cts as they start,
 * workers/pool-worker.ts as they load the workers' code); the host's threads keep their priority.
 * Checked on real threads through /proc/self/task, in a fresh child process: the engine's threads
 * are the ones that were not there before it started (in the test's own process, threads of other
 * files' engines may be starting, still at the host's priority, when the first look is taken).
 */
describe.skipIf(!LINUX)('Engine worker priority', () => {

    /** The child's own nice value and every thread's, before and after a search on a new engine at `workerNice`. */
    async function searchAt(workerNice: number): Promise<{ own: number; before: Map<string, number>; after: Map<string, number>; ownAfter: number; maxPoolThreads: number; hits: string[] }> {
        const dir = tempDir('lcf-nice-');
        writeTree(dir, { 'a.txt': 'needle\n', 'b/c.txt': 'hay\n' });
        const src = (rel: string): string => JSON.stringify(pathToFileURL(childModule(rel)).href);
        const script = `
            import fs from 'node:fs';
            const { Engine } = await import(${src('src/engine/engine.ts')});
            const { searchRootAt } = await import(${src('src/search/prepare.ts')});
            const niceIn = (stat) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
            const threads = () => {
                const out = {};
                for (const tid of fs.readdirSync('/proc/self/task')) {
                    try { out[tid] = niceIn(fs.readFileSync('/proc/self/task/' + tid + '/stat', 'utf8')); } catch {}
                }
                return out;
            };
            const own = niceIn(fs.readFileSync('/proc/thread-self/stat', 'utf8'));
            const before = threads();
            const engine = new Engine({ maxThreads: 1, workerNice: ${workerNice} });
            const req = { root: searchRootAt(${JSON.stringify(dir)}), type: 'both', contentPattern: 'needle', maxResults: 10, maxFileSize: 1e6, maxTotalEntries: 1e6, skipDirs: [] };
            const res = await engine.search(req, { timeoutMs: 600000 });
            const after = threads();
            const ownAfter = niceIn(fs.readFileSync('/proc/thread-self/stat', 'utf8'));
            await engine.close();
            process.stdout.write(JSON.stringify({ own, before, after, ownAfter, maxPoolThreads: engine.maxPoolThreads, hits: res.hits.map((h) => h.path) }));`;
        const out = await new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, [...CHILD_NODE_ARGS, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
            let stdout = '';
            let stderr = '';
            child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
            child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
            child.on('error', reject);
            child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`child exited ${code}: ${stderr}`))));
        });
        const r = JSON.parse(out) as { own: number; before: Record<string, number>; after: Record<string, number>; ownAfter: number; maxPoolThreads: number; hits: string[] };
        return { ...r, before: new Map(Object.entries(r.before)), after: new Map(Object.entries(r.after)) };
    }

    it('runs the pool threads at workerNice and leaves the host threads as they were', async () => {
        const { own, before, after, ownAfter, maxPoolThreads, hits } = await searchAt(13);
        expect(hits).toEqual(['a.txt']);
        const niced = [...after].filter(([tid, nice]) => !before.has(tid) && nice === 13);
        // The thread that ran the search at least; no more than the pool's.
        expect(niced.length).toBeGreaterThanOrEqual(1);
        expect(niced.length).toBeLessThanOrEqual(maxPoolThreads);
        expect(ownAfter).toBe(own);
        for (const [tid, nice] of before) if (after.has(tid)) expect(after.get(tid), `thread ${tid}`).toBe(nice);
    });

    it("keeps the pool threads at the host thread's priority with workerNice 0", async () => {
        const { own, before, after, hits } = await searchAt(0);
        expect(hits).toEqual(['a.txt']);
        const fresh = [...after].filter(([tid]) => !before.has(tid));
        expect(fresh.length).toBeGreaterThanOrEqual(1);
        for (const [tid, nice] of fresh) expect(nice, `thread ${tid}`).toBe(own);
    });

    it('lowers a thread as it starts, before it loads the workers\' code for a task (workers/entry.cts)', async () => {
        const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'workers', 'entry.cts');
        const tsx = createRequire(import.meta.url).resolve('tsx/cjs');
        const niceOfThreadLoading = (workerData: object): Promise<number> => {
            const code = `const { parentPort } = require('node:worker_threads'); require(${JSON.stringify(entry)}); parentPort.postMessage(require('node:os').getPriority(0));`;
            const w = new Worker(code, { eval: true, workerData, execArgv: ['--require', tsx] });
            return new Promise<number>((resolve, reject) => {
                w.once('message', resolve);
                w.once('error', reject);
            }).finally(() => w.terminate());
        };
        const own = os.getPriority(0);
        expect(await niceOfThreadLoading({ nice: 9 })).toBe(Math.max(9, own));
        expect(await niceOfThreadLoading({})).toBe(own);
        expect(os.getPriority(0)).toBe(own);
    });
});
