/**
 * The symbol table's build plans its parts in its own process, from the file table's columns the
 * host copies to it in pieces (build-process.ts, build-plan.ts): the host makes no path string and
 * sends no message longer than a piece, so no turn of its event loop serializes a part's paths.
 * The plan holds every source file under its table path, as the host's table names it; a build
 * whose columns did not all come fails as any failed build, leaving nothing behind.
 */
import childProcess, { type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { Kind } from '../../../src/search-index/shared/format.js';
import { planParts } from '../../../src/symbols/build-plan.js';
import { PIECE_BYTES } from '../../../src/symbols/build-process.js';
import { BIG_FILE } from '../../../src/symbols/parse.js';
import { languageOf } from '../../../src/symbols/shared/languages.js';
import { buildSymbols } from '../../../src/symbols/symbol-table.js';
import { SHARED_POOL, tempDir, writeTree } from '../../support/helpers.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    vi.restoreAllMocks();
    syncBuiltinESMExports();
    await Promise.all(open.splice(0).map((p) => p.close()));
});

async function indexed(files: Record<string, string>) {
    const root = tempDir('lcf-symplan-');
    writeTree(root, files);
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, 600_000), fileConfig: new FileConfiguration(undefined, undefined, false), index: { dir: tempDir('lcf-symplan-index-'), symbols: true }, navigation: true, engine: SHARED_POOL });
    open.push(pkg);
    const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(tree.status().state).toBe('ready');
    return { root, served: tree.served()! };
}

/**
 * Watches the messages the host sends the build processes it forks from now on (the named import
 * of build-process.ts sees the spy through `syncBuiltinESMExports`); `drop` leaves out those it holds.
 */
function watchSends(drop: (m: { kind: string; column?: string; at?: number }) => boolean = () => false): { kind: string; bytes: number }[] {
    const sent: { kind: string; bytes: number }[] = [];
    const fork = childProcess.fork;
    vi.spyOn(childProcess, 'fork').mockImplementation(((...args: Parameters<typeof fork>) => {
        const child: ChildProcess = fork(...args);
        const send = child.send.bind(child) as (m: unknown, cb?: (err: Error | null) => void) => boolean;
        child.send = ((m: { kind: string }, cb?: (err: Error | null) => void) => {
            sent.push({ kind: m.kind, bytes: Buffer.byteLength(JSON.stringify(m)) });
            if (drop(m)) return true;
            return send(m, cb);
        }) as ChildProcess['send'];
        return child;
    }) as typeof fork);
    syncBuiltinESMExports();
    return sent;
}

/** `n` small C files under a deep folder of long names, so that their paths alone make some 100 KB. */
function manyFiles(n: number): Record<string, string> {
    const deep = Array.from({ length: 4 }, (_, i) => `a-rather-long-folder-name-at-depth-${i}`).join('/');
    const files: Record<string, string> = {};
    for (let i = 0; i < n; i++) files[`${deep}/file-with-a-long-name-number-${i}.c`] = `int f${i}(void) { return ${i}; }\n`;
    return files;
}

describe("the symbol table's build plan", () => {
    it('holds every source file, as the table names it, in parts of at most the files asked for, the large ones last, one each', async () => {
        const big = `${'#define BIG_X 1\n'.repeat(Math.ceil((BIG_FILE + 1) / 16))}`;
        const { served } = await indexed(
            {
                'a.c': 'int a(void);\n',
                'src/deep/er/b.h': 'int b;\n',
                'src/deep/er/c.py': 'def c():\n    pass\n',
                'src/ünï cödé/d.rs': 'fn d() {}\n',
                'src/notes.txt': 'not source\n',
                'Makefile': 'all:\n',
                'include/big.h': big,
                'include/too-big.c': `${'int too_big_x;\n'.repeat(1000)}`,
                'lib/e.go': 'package lib\nfunc E() {}\n',
                'lib/link.c': 'x',
            },
        );
        const t = served.table.t;
        // A link in the table (the walk lists one as such), in a copy of the column: no file of the plan.
        const kind = t.kind.slice();
        kind[served.table.idOf('lib/link.c')!] = Kind.Link;
        const max = 10_000;
        const { parts, big: bigCount, files } = await planParts({ names: t.names.bytes, parent: t.parent, kind, size: t.size }, max, 2);
        const expected: string[] = [];
        for (let id = 1; id < t.names.length; id++) if (kind[id] === Kind.File && t.size[id]! <= max && languageOf(t.names.get(id)) !== undefined) expected.push(served.table.pathOf(id));
        expect(expected.sort()).toEqual(['a.c', 'lib/e.go', 'src/deep/er/b.h', 'src/deep/er/c.py', 'src/ünï cödé/d.rs']);
        // The large header and too-big.c are over the largest size asked for: planned by none.
        expect(files).toBe(expected.length);
        expect(bigCount).toBe(0);
        const planned = parts.flatMap((p) => p.ids.map((id, i) => ({ id, rel: p.paths[i]! })));
        expect(planned.map((p) => p.rel).sort()).toEqual(expected);
        for (const p of planned) expect(p.rel).toBe(served.table.pathOf(p.id));
        for (const p of parts) expect(p.ids.length).toBeLessThanOrEqual(2);
        // With room for the large header: it comes last, a part of its own.
        const wide = await planParts({ names: t.names.bytes, parent: t.parent, kind, size: t.size }, 100_000_000, 2);
        expect(wide.big).toBe(1);
        expect(wide.files).toBe(expected.length + 2);
        expect(wide.parts.flatMap((p) => p.paths)).not.toContain('lib/link.c');
        expect(wide.parts.at(-1)!.paths).toEqual(['include/big.h']);
        expect(wide.parts.slice(0, -1).flatMap((p) => p.paths)).not.toContain('include/big.h');
    });

    it('refuses columns that disagree', async () => {
        const { served } = await indexed({ 'a.c': 'int a(void);\n', 'b.c': 'int b;\n' });
        const t = served.table.t;
        await expect(planParts({ names: t.names.bytes, parent: t.parent.subarray(1), kind: t.kind, size: t.size }, served.maxFileSize, 2)).rejects.toThrow(/the table's columns disagree/);
    });

    it('sends the build process no message longer than a piece of a column, and no path', async () => {
        const n = 700;
        const { served } = await indexed(manyFiles(n));
        const sent = watchSends();
        const out = path.join(served.genDir, 'symbols-plan.bin');
        const figures = await buildSymbols(served, out);
        expect(figures.files).toBe(n);
        expect(figures.definitions).toBe(n);
        // A piece's base64 is 4/3 of its bytes; the rest of a message is a few dozen bytes.
        const longest = Math.max(...sent.map((m) => m.bytes));
        expect(longest).toBeLessThanOrEqual(Math.ceil(PIECE_BYTES / 3) * 4 + 200);
        expect(new Set(sent.map((m) => m.kind))).toEqual(new Set(['nice', 'spec', 'column', 'start']));
        // The paths alone would have made a longer message: the bound is not met by a small tree.
        const paths = Object.keys(manyFiles(n)).reduce((s, p) => s + p.length + 3, 0);
        expect(paths).toBeGreaterThan(Math.ceil(PIECE_BYTES / 3) * 4 + 200);
    });

    it('fails the build, leaving nothing behind, when a piece of the columns never came', async () => {
        const { served } = await indexed(manyFiles(50));
        watchSends((m) => m.kind === 'column' && m.column === 'names');
        const out = path.join(served.genDir, 'symbols-lost.bin');
        await expect(buildSymbols(served, out)).rejects.toThrow(/^the build process got 0 of the \d+ bytes of the table's names$/);
        expect(fs.existsSync(out)).toBe(false);
        expect(fs.readdirSync(served.genDir).filter((f) => f.startsWith('symbols'))).toEqual([]);
    });
});
