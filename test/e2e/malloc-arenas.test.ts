/**
 * The C heap's arena limit of the package's own server process (src/engine/malloc-arenas.ts),
 * in fresh Node processes: a process that has taken more arenas than it sets keeps those, and
 * threads started afterwards make no new ones.
 */
import { describe, expect, it } from 'vitest';
import { limitMallocArenas } from '../../src/engine/malloc-arenas.js';
import { childModule, runChildScript } from '../support/child-source.js';
import { ARENAS_READABLE, arenasIn } from '../support/malloc-arenas.js';

/**
 * A child script: the memory map before and after six worker threads each allocate (and keep)
 * 200 buffers of 32 KiB, below the size glibc maps on its own; `limit`: the limit set first.
 */
function script(limit: number | null): string {
    return `
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
const { limitMallocArenas } = await import(${JSON.stringify(childModule('src/engine/malloc-arenas.ts'))});
const set = ${limit === null ? 'null' : `limitMallocArenas(${limit})`};
const before = fs.readFileSync('/proc/self/maps', 'utf8');
const code = "const { parentPort } = require('node:worker_threads'); const keep = []; for (let i = 0; i < 200; i++) keep.push(Buffer.alloc(32 * 1024, i)); parentPort.postMessage(keep.length);";
const workers = [];
for (let i = 0; i < 6; i++) {
    const w = new Worker(code, { eval: true, execArgv: [] });
    workers.push(w);
    await new Promise((resolve) => w.once('message', resolve));
}
const after = fs.readFileSync('/proc/self/maps', 'utf8');
for (const w of workers) await w.terminate();
console.log(JSON.stringify({ set, before, after }));
`;
}

async function run(limit: number | null, env: NodeJS.ProcessEnv = process.env): Promise<{ set: boolean | null; before: number; after: number }> {
    const r = await runChildScript(script(limit), { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { set: boolean | null; before: string; after: string };
    return { set: out.set, before: arenasIn(out.before), after: arenasIn(out.after) };
}

const withoutLimit = (): NodeJS.ProcessEnv => {
    const env = { ...process.env };
    delete env['MALLOC_ARENA_MAX'];
    delete env['GLIBC_TUNABLES'];
    return env;
};

describe.runIf(ARENAS_READABLE)('limitMallocArenas (Linux, glibc)', () => {
    it('without it, each new thread that allocates takes an arena of its own (what the other cases are told from)', async () => {
        const r = await run(null, withoutLimit());
        expect(r.after - r.before).toBeGreaterThanOrEqual(4);
    });

    it('with it, threads started afterwards share the arenas there are', async () => {
        const r = await run(1, withoutLimit());
        expect(r.set).toBe(true);
        expect(r.after).toBe(r.before);
    });

    it('leaves a limit the environment sets, and the environment then holds', async () => {
        const r = await run(1, { ...withoutLimit(), MALLOC_ARENA_MAX: '3' });
        expect(r.set).toBe(false);
        // glibc's own limit of 3, read as the process started: at most 2 arenas beside the main one.
        expect(r.after).toBeLessThanOrEqual(2);
        const t = await run(1, { ...withoutLimit(), GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' });
        expect(t.set).toBe(false);
        expect(t.after).toBeLessThanOrEqual(1);
    });
});

describe('limitMallocArenas', () => {
    it('refuses a count below 1 or not whole', () => {
        for (const n of [0, -1, 1.5, Number.NaN]) expect(() => limitMallocArenas(n)).toThrow(RangeError);
    });
});
