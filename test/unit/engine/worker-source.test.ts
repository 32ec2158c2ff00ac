/**
 * The tests run the worker pool's code as it is in the source tree, never a build in dist/ that
 * may be stale: the engine run from source starts its workers on a bundle of `workers/` and
 * `src/` made at the start of this test run (test/support/worker-bundle.setup.ts), or, without one,
 * on `workers/pool-worker.ts` through tsx.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

    it('without a bundle, loads every worker module from src/ or workers/ through tsx, none from dist/', async () => {
        const entry = withoutBundle(workerEntry);
        expect(entry.filename).toBe(path.join(repo, 'workers', 'pool-worker.ts'));
        expect(entry.execArgv).toEqual(['--require', expect.stringMatching(/node_modules\/tsx\/dist\/cjs\/index\.cjs$/)]);
        // A probe worker started the same way: it loads pool-worker.ts (and with it every worker
        // module), runs a task through it and reports every file the thread loaded.
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
            const { result, loaded } = (await pool.run({ op: 'nope' })) as { result: SearchTaskResult; loaded: string[] };
            expect(result).toEqual({ ok: false, code: 'unknown_op', message: 'Unknown task: "nope"' });
            const ours = loaded.filter((f) => f.startsWith(repo + path.sep) && !f.includes(`${path.sep}node_modules${path.sep}`));
            expect(ours).toEqual(expect.arrayContaining(['pool-worker.ts', 'search/walk.ts', 'read/read.ts'].map((f) => path.join(repo, 'workers', f))));
            for (const f of ours) expect(f).toMatch(new RegExp(`^${repo}/(src|workers)/.+\\.ts$`));
        } finally {
            await pool.destroy();
        }
    });
});
