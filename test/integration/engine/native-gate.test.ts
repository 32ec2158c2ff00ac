import { build } from 'esbuild';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeGate, watchNativeGate } from '../../../src/engine/pool.js';
import { closeGate, createGate, GATE_THREADS, hasGate, releaseGate } from '../../../src/fs/shared/native-gate.js';

// A pool thread is terminated only outside a native section (the loading of an addon such as
// koffi or sharp), since a termination while Node registers one aborts the whole process.

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let dir: string;
let bundle: string;

beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lcf-native-gate-'));
    bundle = path.join(dir, 'worker.cjs');
    await build({ entryPoints: [path.join(repo, 'test/support/native-gate-worker.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['koffi'], logLevel: 'error' });
    watchNativeGate();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function start(scenario: string, gate: SharedArrayBuffer | undefined = nativeGate): { w: Worker; marks: Int32Array } {
    const marks = new Int32Array(new SharedArrayBuffer(12));
    const w = new Worker(bundle, { workerData: { scenario, marks: marks.buffer, repo, ...(gate && { nativeGate: gate }) } });
    return { w, marks };
}

describe('native gate', () => {
    it('terminates a thread inside a native section only once the section has ended', async () => {
        const { w, marks } = start('long-section');
        await once(w, 'message');
        const id = w.threadId;
        await w.terminate();
        // The section's end was reached before the thread stopped; its row is freed once it has exited.
        expect(Atomics.load(marks, 0)).toBe(1);
        expect(hasGate(nativeGate, id)).toBe(false);
    });

    it('never lets a thread whose termination has begun enter a native section', async () => {
        const { w, marks } = start('closed-before-section');
        await once(w, 'message');
        const ended = w.terminate();
        // The gate is closed by now (the thread was outside any section): let the thread try to enter.
        Atomics.store(marks, 1, 1);
        await ended;
        expect(Atomics.load(marks, 2)).toBe(0);
    });

    it('terminates a thread that never entered a section (another library\'s worker), and frees the row made for it', async () => {
        const { w } = start('no-section');
        await once(w, 'message');
        const id = w.threadId;
        expect(hasGate(nativeGate, id)).toBe(false);
        const code = await w.terminate();
        expect(code).toBe(1);
        expect(hasGate(nativeGate, id)).toBe(false);
    });

    it('survives threads terminated as they load koffi, and each load runs to its end first', async () => {
        let loadedBeforeEnd = 0;
        for (let i = 0; i < 40; i++) {
            const { w, marks } = start('load-koffi');
            await once(w, 'message');
            await w.terminate();
            loadedBeforeEnd += Atomics.load(marks, 0);
        }
        // Reaching here means the process did not abort; each thread was terminated from inside its
        // section, and each load ran to its end first (a section is waited for, never cut short).
        expect(loadedBeforeEnd).toBe(40);
    });
});

describe('closeGate', () => {
    // Rows written as a thread would (thread id, then state 1: inside a section).
    function rowInside(gate: SharedArrayBuffer, id: number): Int32Array {
        const a = new Int32Array(gate);
        a[2 * 5] = id;
        a[2 * 5 + 1] = 1;
        return a;
    }

    it('waits for the section to end, then leaves the gate closed', async () => {
        const gate = createGate();
        const a = rowInside(gate, 77);
        let closed = false;
        const done = closeGate(gate, 77).then(() => (closed = true));
        await new Promise((r) => setTimeout(r, 50));
        expect(closed).toBe(false);
        Atomics.store(a, 11, 0);
        Atomics.notify(a, 11);
        await done;
        expect(Atomics.load(a, 11)).toBe(2);
    });

    it('gives up on a section that does not end within its limit', async () => {
        const gate = createGate();
        const a = rowInside(gate, 78);
        await closeGate(gate, 78, 30);
        expect(Atomics.load(a, 11)).toBe(1);
    });

    it('makes a closed row for a thread that has not entered a section yet, freed once it has exited', async () => {
        const gate = createGate();
        const a = new Int32Array(gate);
        await closeGate(gate, 79);
        expect(hasGate(gate, 79)).toBe(true);
        expect([...a.slice(0, 2)]).toEqual([79, 2]);
        releaseGate(gate, 79);
        expect(hasGate(gate, 79)).toBe(false);
        expect(a.every((v) => v === 0)).toBe(true);
        expect(a.length).toBe(2 * GATE_THREADS);
    });
});
