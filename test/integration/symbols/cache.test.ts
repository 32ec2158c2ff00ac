/** The engine's symbol cache (src/symbols/cache.ts): a file unchanged since its parse is not parsed again; any change, by any means, is. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SymbolCache } from '../../../src/symbols/cache.js';
import { parseFiles } from '../../../src/symbols/parse.js';
import type { TaskRunner } from '../../../src/search/task-runner.js';
import { loadOperation, type OperationName } from '../../../workers/operations.js';
import { tempDir } from '../../support/helpers.js';

/** A runner that runs each task in this thread and counts the files it parsed. */
function countingRunner() {
    const parsed: string[] = [];
    const runner = {
        run: async (task: { op: string; files: { shown: string }[] }) => {
            parsed.push(...task.files.map((f) => f.shown));
            return ((await loadOperation(task.op as OperationName)) as (t: unknown) => unknown)(task);
        },
    } as unknown as TaskRunner;
    return { runner, parsed };
}

const opts = { realRoots: null, maxBytes: 1 << 20, parseMs: 60_000 };
const names = (r: Awaited<ReturnType<typeof parseFiles>>) => r.map((f) => (f.ok ? f.definitions.map((d) => d.name).join(',') : f.kind));

describe('symbol cache', () => {
    it('parses a file once while it is unchanged, again after a write, a same-size rewrite with the old times, or a rename over it', async () => {
        const dir = tempDir('lcf-symcache-');
        const a = path.join(dir, 'a.c');
        const b = path.join(dir, 'b.c');
        fs.writeFileSync(a, 'int alpha(void) { return 1; }\n');
        fs.writeFileSync(b, 'int beta(void) { return 2; }\n');
        const files = [{ shown: 'a.c', real: a }, { shown: 'b.c', real: b }];
        const { runner, parsed } = countingRunner();

        expect(names(await parseFiles(runner, files, opts))).toEqual(['alpha', 'beta']);
        expect(names(await parseFiles(runner, files, opts))).toEqual(['alpha', 'beta']);
        expect(parsed).toEqual(['a.c', 'b.c']);

        // Same size, times put back: the change time still moves.
        const before = fs.statSync(a);
        fs.writeFileSync(a, 'int gamma(void) { return 1; }\n');
        fs.utimesSync(a, before.atime, before.mtime);
        expect(names(await parseFiles(runner, files, opts))).toEqual(['gamma', 'beta']);
        expect(parsed).toEqual(['a.c', 'b.c', 'a.c']);

        // Another file renamed over b.c.
        const c = path.join(dir, 'c.c');
        fs.writeFileSync(c, 'int delta(void) { return 2; }\n');
        fs.renameSync(c, b);
        expect(names(await parseFiles(runner, files, opts))).toEqual(['gamma', 'delta']);
        expect(parsed).toEqual(['a.c', 'b.c', 'a.c', 'b.c']);

        // Gone: an error, nothing served from before.
        fs.unlinkSync(a);
        expect(names(await parseFiles(runner, files, opts))).toEqual(['not_found', 'delta']);
    });

    it('never serves a link from the cache, and keeps apart parses under other roots', async () => {
        const dir = tempDir('lcf-symcache-link-');
        const real = path.join(dir, 'real.c');
        const link = path.join(dir, 'link.c');
        fs.writeFileSync(real, 'int target(void) { return 0; }\n');
        fs.symlinkSync(real, link);
        const { runner, parsed } = countingRunner();
        await parseFiles(runner, [{ shown: 'link.c', real: link }], opts);
        await parseFiles(runner, [{ shown: 'link.c', real: link }], opts);
        expect(parsed).toEqual(['link.c', 'link.c']);
        await parseFiles(runner, [{ shown: 'real.c', real }], opts);
        await parseFiles(runner, [{ shown: 'real.c', real }], { ...opts, realRoots: [{ path: dir }] } as never);
        expect(parsed).toEqual(['link.c', 'link.c', 'real.c', 'real.c']);
    });

    it('does not keep results with references or failures, and drops the least recently used past its bound', async () => {
        const dir = tempDir('lcf-symcache-bound-');
        const { runner, parsed } = countingRunner();
        const f = path.join(dir, 'f.c');
        fs.writeFileSync(f, 'int f(void) { return f(); }\n');
        await parseFiles(runner, [{ shown: 'f.c', real: f }], { ...opts, references: 'f' });
        await parseFiles(runner, [{ shown: 'f.c', real: f }], { ...opts, references: 'f' });
        expect(parsed).toEqual(['f.c', 'f.c']);

        const cache = new SymbolCache();
        const many = (n: number) => ({ ok: true as const, language: 'c', lines: 1, chars: 1, definitions: Array.from({ length: n }, (_, i) => ({ kind: 'function' as const, name: `f${i}`, container: [], line: 1, endLine: 1, signature: '' })) });
        cache.set('/x/one.c', 's1', 'null', many(60_000));
        cache.set('/x/two.c', 's2', 'null', many(30_000));
        expect(cache.get('/x/one.c', 's1', 'null')).toBeDefined();
        cache.set('/x/three.c', 's3', 'null', many(30_000));
        // two.c was used least recently: it goes first.
        expect([cache.get('/x/one.c', 's1', 'null') !== undefined, cache.get('/x/two.c', 's2', 'null') !== undefined, cache.get('/x/three.c', 's3', 'null') !== undefined]).toEqual([true, false, true]);
        expect(cache.get('/x/one.c', 'other', 'null')).toBeUndefined();
        expect(cache.size).toBe(2);
    });
});
