/**
 * Files whose parse times out while the symbol table is made: parsed a second time with a larger
 * limit before being recorded as timed out, and, when still recorded, parsed by a call once per
 * change of the file rather than by every call. Limits of 1 ms make the timeouts (a parse of a
 * large generated initializer never ends within 1 ms); counts of parse tasks, never timings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import type { Engine } from '../../../src/engine/engine.js';
import type { BuildLimits } from '../../../src/symbols/symbol-table.js';
import { symbolsOf } from '../../../src/symbols/symbol-table.js';
import { findInTable } from '../../../src/symbols/table-find.js';
import { nameQuery } from '../../../src/symbols/names.js';
import { SHARED_POOL, tempDir, writeTree } from '../../support/helpers.js';
import { COMPARED_TIMEOUT_MS } from '../../support/scan-path.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

/**
 * About 280 KB of field declarations: one definition (`table`), a parse far over 1 ms (a list's
 * inside, `= { … }`, is not parsed for definitions: bodies.ts).
 */
const GENERATED = `struct table {${'\n\tint a, b[4], *c;'.repeat(14_000)}\n};\n`;

async function indexed(limits: BuildLimits) {
    const root = tempDir('lcf-symtimeout-');
    writeTree(root, { 'src/gen.c': GENERATED, 'src/small.c': 'int small_one(void)\n{\n\treturn 1;\n}\n' });
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS), fileConfig: new FileConfiguration(undefined, undefined, false), index: { dir: tempDir('lcf-symtimeout-index-'), symbols: true }, navigation: true, engine: SHARED_POOL });
    open.push(pkg);
    const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(tree.status().state).toBe('ready');
    const symbols = symbolsOf(tree);
    symbols.limits = limits;
    const store = await symbols.ready();
    expect(store, symbols.error).not.toBeNull();
    return { root, pkg, tree, store: store! };
}

async function call(pkg: FileToolPackage, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === 'find_symbol')!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

describe('symbol table timeouts', () => {
    it('parses a file that timed out in its part again with the larger limit, and holds its definitions', async () => {
        const { pkg, tree, store } = await indexed({ parseMs: 1, retryMs: 120_000 });
        const gen = tree.served()!.table.idOf('src/gen.c')!;
        expect(Array.from(store.timedOut)).not.toContain(gen);
        const n = store.find('table');
        expect(n).not.toBe(-1);
        const [from, to] = store.definitionsOf(n);
        expect(Array.from({ length: to - from }, (_, i) => store.fileOf(from + i))).toEqual([gen]);
        expect(await call(pkg, { name: 'table' })).toMatch(/^success: .*src\/gen\.c/s);
        expect(symbolsOf(tree).answered).toBeGreaterThan(0);
    });

    it('records a file whose second parse times out too, and still holds the other files', async () => {
        const { tree, store } = await indexed({ parseMs: 1, retryMs: 1 });
        expect(Array.from(store.timedOut)).toContain(tree.served()!.table.idOf('src/gen.c')!);
        expect(store.find('table')).toBe(-1);
        // small.c may time out at 1 ms too; it is then recorded alike.
        const small = tree.served()!.table.idOf('src/small.c')!;
        expect(store.find('small_one') !== -1 || Array.from(store.timedOut).includes(small)).toBe(true);
    });

    it('parses a file recorded as timed out once per change, not once per call, and names it each time', async () => {
        const { root, pkg, tree, store } = await indexed({ parseMs: 1, retryMs: 1 });
        expect(Array.from(store.timedOut)).toContain(tree.served()!.table.idOf('src/gen.c')!);
        const engine = pkg.engine;
        const parsed: string[] = [];
        const run = engine.run.bind(engine);
        (engine as { run: Engine['run'] }).run = ((task: { op: string; files?: { shown: string }[] }, o?: object) => {
            if (task.op === 'symbols') parsed.push(...task.files!.map((f) => f.shown));
            return run(task as never, o as never);
        }) as Engine['run'];
        const find = (name: string) =>
            findInTable(pkg.workspace.view(), engine, nameQuery(name, false, 'find_symbol'), {
                tool: 'find_symbol',
                path: undefined,
                include: undefined,
                exclude: undefined,
                realRoots: null,
                maxFileSize: 1 << 20,
                // The call's parse of gen.c times out too.
                parseMs: 1,
                signal: undefined,
                deadline: Date.now() + 3_600_000,
                wanted: () => true,
                shown: 100,
            });
        const first = await find('table');
        const second = await find('table');
        // small.c may have timed out at 1 ms too (a busy machine): only gen.c is looked at.
        const genOf = (skipped: string[] | undefined) => skipped?.filter((s) => s.endsWith('gen.c'));
        expect(genOf(first?.skipped)).toEqual(['src/gen.c']);
        expect(genOf(second?.skipped)).toEqual(['src/gen.c']);
        expect(parsed.filter((p) => p.endsWith('gen.c'))).toEqual(['src/gen.c']);
        // Changed: parsed again, and answered from its new text.
        fs.writeFileSync(path.join(root, 'src/gen.c'), 'int fresh_one(void)\n{\n\treturn 2;\n}\n');
        const third = await find('fresh_one');
        expect(parsed.filter((p) => p.endsWith('gen.c'))).toEqual(['src/gen.c', 'src/gen.c']);
        expect(genOf(third?.skipped)).toEqual([]);
        expect(third?.files.map((f) => [f.shown, f.definitions.map((d) => d.name)])).toEqual([['src/gen.c', ['fresh_one']]]);
        expect(await call(pkg, { name: 'fresh_one' })).toMatch(/^success: .*src\/gen\.c/s);
    });
});
