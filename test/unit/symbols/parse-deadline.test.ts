/**
 * Parses on the pool end at the call's deadline (symbols/parse.ts): a task not back by then (its
 * thread still starting, or loading a grammar) gives each of its files a `late` outcome, and its
 * parse, when it comes back, serves the next call from the cache. A stand-in pool whose tasks
 * answer when told; the files are real.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countMentions, parseFiles } from '../../../src/symbols/parse.js';
import type { FileSymbols, SymbolsTask } from '../../../src/symbols/shared/types.js';
import type { TaskRunner } from '../../../src/search/task-runner.js';
import { tempDir, until, writeTree } from '../../support/helpers.js';

/** A pool whose tasks wait until `release()`; each answers every file with one function `f`. */
function heldPool(): { engine: TaskRunner; release: () => void; runs: () => number } {
    const waiting: (() => void)[] = [];
    let runs = 0;
    const engine: TaskRunner = {
        maxThreads: 2,
        waiting: 0,
        closes: 0,
        planSearch: () => Promise.resolve(null),
        run: <T>(task: object): Promise<T> => {
            runs++;
            return new Promise<T>((resolve) => {
                const files = (task as SymbolsTask).files ?? [];
                const answer = (): FileSymbols => ({ ok: true, language: 'c', lines: 1, chars: 9, definitions: [{ kind: 'function', name: 'f', container: [], line: 1, endLine: 1, signature: 'void f();' }] });
                waiting.push(() => resolve({ ok: true, files: files.map(answer) } as T));
            });
        },
    };
    return { engine, release: () => waiting.splice(0).forEach((w) => w()), runs: () => runs };
}

describe('parses at the call\'s deadline', () => {
    let stop: (() => void) | undefined;
    afterEach(() => stop?.());

    it('answers at the deadline with the files not parsed marked late, and caches their parse when it comes back', async () => {
        const root = tempDir('lcf-parse-deadline-');
        writeTree(root, { 'a.c': 'void f();', 'b.c': 'void f();' });
        const files = ['a.c', 'b.c'].map((f) => ({ shown: f, real: path.join(root, f) }));
        const pool = heldPool();
        stop = pool.release;
        const opts = { realRoots: null, maxBytes: 1 << 20, parseMs: 10_000 };
        const first = await parseFiles(pool.engine, files, { ...opts, deadline: Date.now() + 20 });
        expect(first).toEqual(files.map((f) => ({ ok: false, kind: 'timeout', message: `The time limit was reached before ${f.shown} was parsed.`, late: true })));
        expect(pool.runs()).toBe(1);
        // The task comes back after the call answered: the next call is served from the cache, no task run.
        pool.release();
        let second: FileSymbols[] = [];
        await until(async () => {
            second = await parseFiles(pool.engine, files, { ...opts, deadline: Date.now() + 20 });
            return second.every((r) => r.ok);
        });
        expect(second.map((r) => r.ok && r.definitions.map((d) => d.name))).toEqual([['f'], ['f']]);
    });

    it('waits for the tasks as before when no deadline is given', async () => {
        const root = tempDir('lcf-parse-deadline-');
        writeTree(root, { 'a.c': 'void f();' });
        const pool = heldPool();
        stop = pool.release;
        let settled = false;
        const parsed = parseFiles(pool.engine, [{ shown: 'a.c', real: path.join(root, 'a.c') }], { realRoots: null, maxBytes: 1 << 20, parseMs: 10_000 }).then((r) => ((settled = true), r));
        await new Promise((r) => setTimeout(r, 50));
        expect(settled).toBe(false);
        pool.release();
        expect((await parsed)[0]!.ok).toBe(true);
    });

    it('waits for the tasks when the deadline is further off than a timer can hold (a timeout of 10^12 ms)', async () => {
        const root = tempDir('lcf-parse-deadline-');
        writeTree(root, { 'a.c': 'void f();' });
        const pool = heldPool();
        stop = pool.release;
        let settled = false;
        const parsed = parseFiles(pool.engine, [{ shown: 'a.c', real: path.join(root, 'a.c') }], { realRoots: null, maxBytes: 1 << 20, parseMs: 1e12, deadline: Date.now() + 1e12 }).then((r) => ((settled = true), r));
        await new Promise((r) => setTimeout(r, 50));
        expect(settled).toBe(false);
        pool.release();
        expect((await parsed)[0]!.ok).toBe(true);
    });

    it('counts mentions up to the deadline: a file whose task is not back counts as not read', async () => {
        const root = tempDir('lcf-parse-deadline-');
        writeTree(root, { 'a.c': 'f f' });
        const pool = heldPool();
        stop = pool.release;
        const counts = await countMentions(pool.engine, [{ shown: 'a.c', real: path.join(root, 'a.c') }], ['f'], { realRoots: null, maxBytes: 1 << 20, deadline: Date.now() + 20 });
        expect(counts).toEqual([null]);
    });
});
