/**
 * The symbol table's build makes no synchronous file-system call on the host's thread: its reads,
 * writes and removals go through the pool threads or `fs/promises`, so a slow disk never holds the
 * host's event loop. Every `*Sync` function of `node:fs` is spied on during a build of a small
 * tree in parts of one file each (named imports see the spies through `syncBuiltinESMExports`);
 * the pool threads have their own `fs` and are not watched.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { buildSymbols } from '../../../src/symbols/symbol-table.js';
import { SymbolStore } from '../../../src/symbols/symbol-store.js';
import { SHARED_POOL, tempDir, writeTree } from '../../support/helpers.js';
import { COMPARED_TIMEOUT_MS } from '../../support/scan-path.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    vi.restoreAllMocks();
    syncBuiltinESMExports();
    await Promise.all(open.splice(0).map((p) => p.close()));
});

/** Records every call of a `*Sync` function of `node:fs` on this thread until the returned function is called. */
function watchSyncCalls(): { calls: string[]; stop: () => void } {
    const calls: string[] = [];
    let on = true;
    const names = Object.keys(fs).filter((k) => k.endsWith('Sync') && typeof (fs as unknown as Record<string, unknown>)[k] === 'function');
    for (const name of names) {
        const original = (fs as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
        vi.spyOn(fs as unknown as Record<string, (...args: unknown[]) => unknown>, name).mockImplementation((...args: unknown[]) => {
            if (on) calls.push(`${name}(${typeof args[0] === 'string' ? args[0] : typeof args[0]})`);
            return original.apply(fs, args);
        });
    }
    syncBuiltinESMExports();
    return { calls, stop: () => void (on = false) };
}

describe('the symbol table build on the host', () => {
    it('makes no synchronous file-system call while it lists, hands out, retries nothing and merges the parts', async () => {
        const root = tempDir('lcf-symio-');
        writeTree(root, {
            'src/a.c': 'int alpha(void)\n{\n\treturn 1;\n}\n',
            'src/b.c': 'struct beta { int b; };\n#define BETA 2\n',
            'src/c.py': 'class Gamma:\n    def run(self):\n        return 3\n',
            'include/d.h': 'typedef unsigned long delta_t;\nextern int delta(delta_t d);\n',
            'README.md': 'not source\n',
        });
        const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
        const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS), fileConfig: new FileConfiguration(undefined, undefined, false), index: { dir: tempDir('lcf-symio-index-'), symbols: true }, navigation: true, engine: SHARED_POOL });
        open.push(pkg);
        const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(tree.status().state).toBe('ready');
        const served = tree.served()!;
        const out = path.join(served.genDir, 'symbols-io.bin');
        const watch = watchSyncCalls();
        const figures = await buildSymbols(served, out, undefined, 1).finally(watch.stop);
        expect(watch.calls).toEqual([]);
        // The build did run, in parts, and its table holds the files' definitions.
        expect(figures.files).toBe(4);
        const store = await SymbolStore.load(out, served.table.size);
        try {
            expect(figures.definitions).toBeGreaterThanOrEqual(6);
        } finally {
            await store.close();
        }
        expect(fs.readdirSync(served.genDir).filter((n) => n.startsWith('symbols-part-'))).toEqual([]);
    });

    it('sees a synchronous call made on the host meanwhile (the watch works)', async () => {
        const dir = tempDir('lcf-symio-watch-');
        const watch = watchSyncCalls();
        const { readFileSync } = await import('node:fs');
        fs.writeFileSync(path.join(dir, 'x'), 'x');
        readFileSync(path.join(dir, 'x'));
        watch.stop();
        // A named import is seen as the namespace's calls are (readFileSync's own opens and reads too).
        expect(watch.calls.map((c) => c.slice(0, c.indexOf('(')))).toEqual(expect.arrayContaining(['writeFileSync', 'readFileSync']));
    });
});
