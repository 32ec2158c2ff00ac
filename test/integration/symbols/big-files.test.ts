/**
 * Files over BIG_FILE (src/symbols/parse.ts) are parsed on a thread of the call's own, ended when
 * done, not on the engine's pool, whose threads would keep the memory of their largest parse:
 * the same definitions as a parse in this thread, the engine never asked for them, and a
 * cancelled call's large file comes back failed rather than holding the call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIG_FILE, parseFiles } from '../../../src/symbols/parse.js';
import type { TaskRunner } from '../../../src/search/task-runner.js';
import { loadOperation, type OperationName } from '../../../workers/operations.js';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { tempDir } from '../../support/helpers.js';

/** A runner that runs each task in this thread and notes the files it was given. */
function notingRunner() {
    const given: string[] = [];
    const runner = {
        workerNice: 5,
        run: async (task: { op: string; files: { shown: string }[] }) => {
            given.push(...task.files.map((f) => f.shown));
            return ((await loadOperation(task.op as OperationName)) as (t: unknown) => unknown)(task);
        },
    } as unknown as TaskRunner;
    return { runner, given };
}

/** A C file of `n` functions. */
const cFile = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `static int ${tag}_${i}(int x)\n{\n\treturn x * ${i} + ${i % 7}; /* ${'padding '.repeat(4)} */\n}\n`).join('\n');

const opts = { realRoots: null, maxBytes: 1 << 26, parseMs: 120_000 };

describe('large files on a thread of their own', () => {
    it('gives the definitions a parse gives, without the engine\'s pool', async () => {
        const dir = tempDir('lcf-bigfile-');
        const [big, small] = [path.join(dir, 'big.c'), path.join(dir, 'small.c')];
        fs.writeFileSync(big, cFile(12_000, 'big'));
        fs.writeFileSync(small, cFile(20, 'small'));
        expect(fs.statSync(big).size).toBeGreaterThan(BIG_FILE);
        const files = [{ shown: 'big.c', real: big }, { shown: 'small.c', real: small }];
        const { runner, given } = notingRunner();
        const got = await parseFiles(runner, files, opts);
        const want = (await runSymbolsTask({ op: 'symbols', files, ...opts })).files;
        expect(got).toEqual(want);
        expect(got.every((r) => r.ok)).toBe(true);
        expect(got[0]!.ok && got[0]!.definitions.length).toBe(12_000);
        expect(given).toEqual(['small.c']);
        // Kept by the engine's cache like any parse: the next call parses nothing.
        expect(await parseFiles(runner, files, opts)).toEqual(want);
        expect(given).toEqual(['small.c']);
    });

    it('parses several large files of one call and of calls at once, each as a parse gives it', async () => {
        const dir = tempDir('lcf-bigfile-many-');
        const files = [0, 1, 2].map((k) => {
            const real = path.join(dir, `big${k}.c`);
            fs.writeFileSync(real, cFile(12_000 + k, `many${k}`));
            expect(fs.statSync(real).size).toBeGreaterThan(BIG_FILE);
            return { shown: `big${k}.c`, real };
        });
        const want = (await runSymbolsTask({ op: 'symbols', files, ...opts })).files;
        const { runner, given } = notingRunner();
        const other = notingRunner();
        // Two engines' calls at once, and one engine's two calls at once (the second joins the first's parses).
        const [a, b, c] = await Promise.all([parseFiles(runner, files, opts), parseFiles(runner, files, opts), parseFiles(other.runner, files.slice(1), opts)]);
        expect(a).toEqual(want);
        expect(b).toEqual(want);
        expect(c).toEqual(want.slice(1));
        expect([...given, ...other.given]).toEqual([]);
    });

    it('gives a cancelled call\'s large file back failed', async () => {
        const dir = tempDir('lcf-bigfile-stop-');
        const big = path.join(dir, 'big.c');
        fs.writeFileSync(big, cFile(12_000, 'stop'));
        const { runner, given } = notingRunner();
        const stop = new AbortController();
        const call = parseFiles(runner, [{ shown: 'big.c', real: big }], { ...opts, signal: stop.signal });
        stop.abort();
        const [r] = await call;
        expect(r!.ok).toBe(false);
        expect(given).toEqual([]);
    });
});
