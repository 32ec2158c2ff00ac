/**
 * The tests run the worker pool's code as it is in the source tree, never a build in dist/ that
 * may be stale: the engine run from source starts its workers on `workers/pool-worker.ts`
 * through tsx, and every module a worker loads comes from `src/` or `workers/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, workerEntry } from '../src/engine/engine.js';
import type { SearchTaskResult } from '../src/engine/protocol.js';
import { tempDir, writeTree } from './helpers.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const engine = new Engine({ maxThreads: 1 });
afterAll(() => engine.close());

describe('worker pool under test', () => {
    it('starts its workers on the source entry through tsx, not on dist/', () => {
        const entry = workerEntry();
        expect(entry.filename).toBe(path.join(repo, 'workers', 'pool-worker.ts'));
        expect(entry.execArgv).toEqual(['--require', expect.stringMatching(/node_modules\/tsx\/dist\/cjs\/index\.cjs$/)]);
        expect(engine.pool.options.filename).toBe(entry.filename);
        expect(engine.pool.options.execArgv).toEqual(entry.execArgv);
    });

    it('answers a search from the source workers', async () => {
        const dir = tempDir('lcf-worker-source-');
        writeTree(dir, { 'a.txt': 'needle\n' });
        const res = await engine.search(
            { root: dir, displayRoot: '.', type: 'both', contentPattern: 'needle', maxResults: 10, maxFileSize: 1e6, maxTotalEntries: 1e6, skipDirs: [], realRoots: null },
            { timeoutMs: 20_000 },
        );
        expect(res.skipped).toEqual([]);
        expect(res.hits).toEqual([{ path: 'a.txt', kind: 'file', line: 1, text: 'needle' }]);
    });

    it('loads every worker module from src/ or workers/, none from dist/', async () => {
        // A probe worker started like the engine's: it loads pool-worker.ts (and with it every
        // worker module), runs a task through it and reports every file the thread loaded.
        const dir = tempDir('lcf-worker-probe-');
        const probe = path.join(dir, 'probe.cts');
        fs.writeFileSync(
            probe,
            `module.exports = async (task) => {
                const handle = require(${JSON.stringify(workerEntry().filename)}).default;
                const result = await handle(task);
                return { result, loaded: Object.keys(require.cache) };
            };`,
        );
        const pool = new Piscina({ filename: probe, execArgv: workerEntry().execArgv, minThreads: 1, maxThreads: 1 });
        try {
            const { result, loaded } = (await pool.run({ op: 'nope' })) as { result: SearchTaskResult; loaded: string[] };
            expect(result).toEqual({ ok: false, code: 'unknown_op', message: 'Unknown task: "nope"' });
            const ours = loaded.filter((f) => f.startsWith(repo + path.sep) && !f.includes(`${path.sep}node_modules${path.sep}`));
            expect(ours).toEqual(expect.arrayContaining([path.join(repo, 'workers', 'pool-worker.ts'), path.join(repo, 'workers', 'walk.ts'), path.join(repo, 'workers', 'read.ts')]));
            for (const f of ours) expect(f).toMatch(new RegExp(`^${repo}/(src|workers)/.+\\.ts$`));
            expect(ours.some((f) => f.startsWith(path.join(repo, 'dist')))).toBe(false);
        } finally {
            await pool.destroy();
        }
    });
});
