/**
 * The index build's threads run in the background (workers/pool/background.ts): a worker thread that
 * takes a build task is lowered to the build's nice value and, on Linux, to the SCHED_IDLE
 * policy, and the thread that started it keeps its own priority. Checked on real threads running
 * the pool's bundled worker code, through /proc/thread-self/sched.
 */
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { takeBackground } from '../../../workers/pool/background.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { WORKER_BUNDLE_VAR } from '../../support/worker-bundle.setup.js';

const LINUX = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64');

/** The calling thread's scheduling policy as /proc shows it (0 SCHED_OTHER, 5 SCHED_IDLE). */
function policyOf(sched: string): number {
    const m = /^policy\s*:\s*(\d+)$/m.exec(sched);
    if (m === null) throw new Error(`no policy line in:\n${sched}`);
    return Number(m[1]);
}

/** Runs `task` through the pool's worker code on a new thread; gives its result and the thread's priority afterwards. */
async function runOnThread(task: object): Promise<{ ok: boolean; nice: number; sched: string }> {
    const bundle = process.env[WORKER_BUNDLE_VAR];
    expect(bundle, 'vitest run sets it up (test/support/worker-bundle.setup.ts)').toBeDefined();
    const code = `
        const { workerData, parentPort } = require('node:worker_threads');
        const m = require(workerData.bundle);
        Promise.resolve((m.default ?? m)(workerData.task)).then((r) => parentPort.postMessage({
            ok: r.ok,
            nice: require('node:os').getPriority(0),
            sched: require('node:fs').readFileSync('/proc/thread-self/sched', 'utf8'),
        }));`;
    const w = new Worker(code, { eval: true, workerData: { bundle, task } });
    try {
        return await new Promise((resolve, reject) => {
            w.once('message', resolve);
            w.once('error', reject);
        });
    } finally {
        await w.terminate();
    }
}

describe('background priority of the index build', () => {
    it.skipIf(!LINUX)('lowers the thread running a build task to the nice value and SCHED_IDLE, and only that thread', async () => {
        const root = tempDir('lcf-background-');
        writeTree(root, { 'a/b.txt': 'x\n', 'c.txt': 'y\n' });
        const mainBefore = fs.readFileSync('/proc/thread-self/sched', 'utf8');
        const got = await runOnThread({ op: 'index-walk', root, skipDirs: [], maxEntries: 1000, nice: 10 });
        expect(got.ok).toBe(true);
        expect(got.nice).toBeGreaterThanOrEqual(10);
        expect(policyOf(got.sched)).toBe(5);
        // The test's own thread keeps its policy and nice value.
        expect(policyOf(fs.readFileSync('/proc/thread-self/sched', 'utf8'))).toBe(policyOf(mainBefore));
        expect(os.getPriority(0)).toBeLessThan(10);
    });

    it.skipIf(!LINUX)('leaves a thread as it is when the task names no nice value', async () => {
        const root = tempDir('lcf-background-');
        writeTree(root, { 'c.txt': 'y\n' });
        const got = await runOnThread({ op: 'index-walk', root, skipDirs: [], maxEntries: 1000 });
        expect(got.ok).toBe(true);
        expect(policyOf(got.sched)).toBe(0);
    });

    it('reports what holds for the calling thread without changing it when no nice value is given', () => {
        const before = os.getPriority(0);
        expect(takeBackground(undefined)).toEqual({ nice: before, idle: false });
        expect(os.getPriority(0)).toBe(before);
    });
});
