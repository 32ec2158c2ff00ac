/**
 * The main thread's young generation in the package's own server process
 * (src/engine/release-memory.ts `keepMainYoungGenerationSmall`), in fresh Node processes: it
 * stays at its first size through an allocation burst that grows it otherwise, also when a
 * thread started before (Node sets V8's flags again as a thread starts), and a worker thread
 * with a young generation of its own (as the pools' threads have) stays within that size.
 * V8 may take its first size (1 MiB a semi-space, 2 MiB a new space here) at the first
 * collection, so the bound is that size, not the size the process starts with.
 */
import { describe, expect, it } from 'vitest';
import { childModule, runChildScript } from '../support/child-source.js';

/** V8's young generation at its first size: a semi-space of 1 MiB, the new space's capacity twice that (v8.getHeapSpaceStatistics's space_size). */
const FIRST_SIZE = 2 * 1024 * 1024;

/**
 * A child script: the main thread's new space before and after keeping a thousandth of 3 million
 * objects, and a worker's after the same; `keep`: the call made first; `threadFirst`: a thread
 * started and ended before the burst (as a server's pools start theirs).
 */
function script(keep: boolean, threadFirst = false): string {
    return `
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
const { keepMainYoungGenerationSmall } = await import(${JSON.stringify(childModule('src/engine/release-memory.ts'))});
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const before = newSpace();
if (${keep}) keepMainYoungGenerationSmall();
if (${threadFirst}) {
    const first = new Worker('1', { eval: true, execArgv: [] });
    await new Promise((resolve) => first.once('exit', resolve));
}
const burst = "const kept = []; for (let i = 0; i < 3e6; i++) { const o = { a: i, b: 'x' + i, c: [i, i + 1] }; if (i % 1000 === 0) kept.push(o); }";
new Function(burst)();
const after = newSpace();
const code = burst + "; require('node:worker_threads').parentPort.postMessage(require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);";
const w = new Worker(code, { eval: true, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 12 } });
const worker = await new Promise((resolve) => w.once('message', resolve));
await w.terminate();
console.log(JSON.stringify({ before, after, worker }));
`;
}

async function run(keep: boolean, threadFirst = false): Promise<{ before: number; after: number; worker: number }> {
    const r = await runChildScript(script(keep, threadFirst));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as { before: number; after: number; worker: number };
}

describe('keepMainYoungGenerationSmall', () => {
    it('without it, the burst grows the main thread young generation (what the next case is told from)', async () => {
        const r = await run(false);
        expect(r.after).toBeGreaterThan(2 * FIRST_SIZE);
    });

    it('with it, the main thread young generation keeps its first size and a worker stays within the one it was given', async () => {
        const [without, kept] = [await run(false), await run(true)];
        expect(kept.before).toBeLessThanOrEqual(FIRST_SIZE);
        expect(kept.after).toBeLessThanOrEqual(FIRST_SIZE);
        // The flag is the process's: a worker's young generation stays within the size it was given.
        expect(kept.worker).toBeGreaterThan(0);
        expect(kept.worker).toBeLessThanOrEqual(without.worker);
    });

    it('with it, a thread started before the burst does not undo it (Node sets V8 flags again as a thread starts)', async () => {
        const [without, kept] = [await run(false, true), await run(true, true)];
        expect(without.after).toBeGreaterThan(2 * FIRST_SIZE);
        expect(kept.after).toBeLessThanOrEqual(FIRST_SIZE);
    });
});
