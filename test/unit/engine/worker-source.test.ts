/**
 * The tests run the worker pool's code as it is in the source tree, never a build in dist/ that
 * may be stale: the engine run from source starts its workers on a bundle of `workers/` and
 * `src/` made at the start of this test run (test/support/worker-bundle.setup.ts), or, without one,
 * on `workers/pool-worker.ts` through tsx.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { workerEntry } from '../../../src/engine/pool.js';
import type { SearchTaskResult } from '../../../src/search/shared/protocol.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { WORKER_BUNDLE_VAR } from '../../support/worker-bundle.setup.js';
import { searchRootAt } from '../../../src/search/prepare.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const engine = new Engine({ maxThreads: 1 });
afterAll(() => engine.close());

/** Modification time of the newest file under `src/` and `workers/`. */
function newestSource(): number {
    let newest = 0;
    for (const dir of ['src', 'workers']) {
        for (const f of fs.readdirSync(path.join(repo, dir), { recursive: true, encoding: 'utf8' })) newest = Math.max(newest, fs.statSync(path.join(repo, dir, f)).mtimeMs);
    }
    return newest;
}

/** Runs `fn` with the test bundle's variable unset, as in watch mode. */
function withoutBundle<T>(fn: () => T): T {
    const saved = process.env[WORKER_BUNDLE_VAR];
    delete process.env[WORKER_BUNDLE_VAR];
    try {
        return fn();
    } finally {
        if (saved !== undefined) process.env[WORKER_BUNDLE_VAR] = saved;
    }
}

describe('worker pool under test', () => {
    it('starts its workers on a bundle of the source tree made for this run, not on dist/', () => {
        const bundle = process.env[WORKER_BUNDLE_VAR];
        expect(bundle, 'vitest run sets it up (test/support/worker-bundle.setup.ts)').toBeDefined();
        expect(workerEntry()).toEqual({ filename: bundle, execArgv: [] });
        expect(engine.pool.options.filename).toBe(bundle);
        // Made from the sources as they are now: after their last change, out of src/ and workers/ only.
        expect(fs.statSync(bundle!).mtimeMs).toBeGreaterThanOrEqual(newestSource());
        const meta = JSON.parse(fs.readFileSync(path.join(path.dirname(bundle!), 'meta.json'), 'utf8')) as { inputs: Record<string, unknown> };
        const ours = Object.keys(meta.inputs)
            .map((f) => path.resolve(repo, f))
            .filter((f) => !f.includes(`${path.sep}node_modules${path.sep}`));
        expect(ours).toEqual(expect.arrayContaining(['workers/pool-worker.ts', 'workers/search/walk.ts', 'workers/read/read.ts', 'workers/search/scan.ts', 'src/search/shared/literals.ts'].map((f) => path.join(repo, f))));
        for (const f of ours) expect(f).toMatch(new RegExp(`^${repo}/(src|workers)/.+\\.ts$`));
    });

    it('answers a search from those workers', async () => {
        const dir = tempDir('lcf-worker-source-');
        writeTree(dir, { 'a.txt': 'needle\n' });
        const res = await engine.search(
            { root: searchRootAt(dir), type: 'both', contentPattern: 'needle', maxResults: 10, maxFileSize: 1e6, maxTotalEntries: 1e6, skipDirs: [] },
            { timeoutMs: 20_000 },
        );
        expect(res.skipped).toEqual([]);
        expect(res.hits).toEqual([{ path: 'a.txt', kind: 'file', line: 1, text: 'needle' }]);
    });

    it("the bundle evaluates an operation's modules on the thread's first task of it, not at the thread's start", async () => {
        const bundle = process.env[WORKER_BUNDLE_VAR]!;
        // Inside one bundle no file shows in require.cache; the built-in modules a thread has
        // loaded do show (process.moduleLoadList), and node:zlib is loaded by the index's merge
        // (segment files) and the symbol table, not by the pool's entry.
        const worker = new Worker(
            `const { parentPort } = require('node:worker_threads');
            const handle = require(${JSON.stringify(bundle)}).default;
            parentPort.on('message', async (task) => {
                const result = await handle(task);
                parentPort.postMessage({ result, zlib: process.moduleLoadList.includes('NativeModule zlib') });
            });`,
            { eval: true },
        );
        const run = (task: { op: string }) =>
            new Promise<{ result: { ok: boolean; code?: string }; zlib: boolean }>((resolve, reject) => {
                worker.once('message', resolve);
                worker.once('error', reject);
                worker.postMessage(task);
            });
        try {
            expect(await run({ op: 'nope' })).toEqual({ result: { ok: false, code: 'unknown_op', message: 'Unknown task: "nope"' }, zlib: false });
            const merged = await run({ op: 'index-merge' });
            expect(merged.result.ok).toBe(false);
            expect(merged.zlib).toBe(true);
        } finally {
            await worker.terminate();
        }
    });

    it('without a bundle, loads every worker module from src/ or workers/ through tsx, none from dist/', async () => {
        const entry = withoutBundle(workerEntry);
        expect(entry.filename).toBe(path.join(repo, 'workers', 'pool-worker.ts'));
        expect(entry.execArgv).toEqual(['--require', expect.stringMatching(/node_modules\/tsx\/dist\/cjs\/index\.cjs$/)]);
        // A probe worker started the same way: it loads pool-worker.ts, runs a task through it
        // (each operation loads its modules on its first task) and reports every file the thread
        // loaded.
        const dir = tempDir('lcf-worker-probe-');
        const probe = path.join(dir, 'probe.cts');
        fs.writeFileSync(
            probe,
            `module.exports = async (task) => {
                const handle = require(${JSON.stringify(entry.filename)}).default;
                const result = await handle(task);
                return { result, loaded: Object.keys(require.cache) };
            };`,
        );
        const pool = new Piscina({ filename: probe, execArgv: entry.execArgv, minThreads: 1, maxThreads: 1 });
        try {
            const ours = (loaded: string[]) => loaded.filter((f) => f.startsWith(repo + path.sep) && !f.includes(`${path.sep}node_modules${path.sep}`));
            const inWorkers = (...files: string[]) => files.map((f) => path.join(repo, 'workers', f));
            const first = (await pool.run({ op: 'nope' })) as { result: SearchTaskResult; loaded: string[] };
            expect(first.result).toEqual({ ok: false, code: 'unknown_op', message: 'Unknown task: "nope"' });
            expect(ours(first.loaded)).toContain(path.join(repo, 'workers', 'pool-worker.ts'));
            // No operation's module before its first task.
            for (const f of inWorkers('search/walk.ts', 'read/read.ts', 'symbols/symbols.ts', 'search-index/index-merge.ts')) expect(ours(first.loaded)).not.toContain(f);
            // Malformed tasks: they fail, but only after their operation's module is loaded.
            await pool.run({ op: 'search' });
            const { result, loaded } = (await pool.run({ op: 'read' })) as { result: SearchTaskResult; loaded: string[] };
            expect(result).toMatchObject({ ok: false, code: 'worker_failed' });
            expect(ours(loaded)).toEqual(expect.arrayContaining(inWorkers('pool-worker.ts', 'search/walk.ts', 'read/read.ts')));
            expect(ours(loaded)).not.toContain(path.join(repo, 'workers', 'symbols', 'symbols.ts'));
            for (const f of ours(loaded)) expect(f).toMatch(new RegExp(`^${repo}/(src|workers)/.+\\.ts$`));
        } finally {
            await pool.destroy();
        }
    });
});
