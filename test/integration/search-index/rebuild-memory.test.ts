/**
 * A rebuild beside the served generation (build.ts, tree-state.ts): the new table is built into a
 * compact copy of its own (no view of the walk's buffer, the name lists' ids read from its file,
 * which is a whole, valid table file), the old one keeps serving exactly until the new one is
 * served, and once it is, only the new one answers and the old one is closed and freed. A build
 * that fails after its table file was begun leaves no folder and no open file behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { buildGeneration, type BuildContext, type Generation } from '../../../src/search-index/build.js';
import { decodeTable } from '../../../src/search-index/shared/format.js';
import type { Changes } from '../../../src/search-index/watch/changes.js';
import type { ResolvedTreeOptions } from '../../../src/search-index/status.js';
import { TreeState } from '../../../src/search-index/tree-state.js';
import { forEachGram } from '../../../src/search/shared/fold.js';
import { tempDir, writeTree } from '../../support/helpers.js';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function ctxOf(root: string, dir: string, closed = (): boolean => false): BuildContext {
    return { root, dir, threads: 1, maxFileSize: 1 << 20, segmentBytes: 1 << 20, skipDirs: [], maxEntries: 100_000, progress: () => undefined, closed };
}

/** The first gram of `name` (as the table's name posting lists key it). */
function gramOf(name: string): number {
    let first = -1;
    forEachGram(name, (g) => {
        if (first === -1) first = g;
    });
    return first;
}

/**
 * The process's open files inside `dirs` (by where /proc/self/fd's links lead). Not a count of all
 * its descriptors: the fork runs other test files, whose threads may close theirs meanwhile.
 */
const openUnder = (...dirs: string[]): string[] => {
    const reals = dirs.map((d) => fs.realpathSync(d));
    return fs
        .readdirSync('/proc/self/fd')
        .map((fd) => {
            try {
                return fs.readlinkSync(`/proc/self/fd/${fd}`);
            } catch {
                return '';
            }
        })
        .filter((target) => reals.some((d) => target === d || target.startsWith(`${d}/`)));
};

describe('a rebuild beside the served generation', () => {
    it('builds a compact table of its own, serves the old one until it is served, then only the new one; the old one is closed and freed', async () => {
        const root = tempDir('lcf-rebuild-');
        const dir = tempDir('lcf-rebuild-index-');
        writeTree(root, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`d${i % 7}/oldname${i}.c`, `int old_${i};\n`])));
        const s = new TreeState(root, {} as ResolvedTreeOptions, {} as Changes, () => undefined);
        let first: Generation | null = await buildGeneration(ctxOf(root, dir));
        s.serve({ m: first.manifest, table: first.table, segs: first.segs });
        const oldGram = gramOf('oldname');
        expect(first.table.nameIds(oldGram).length).toBe(300);

        // The tree changes; the rebuild runs while the old generation serves.
        for (let i = 0; i < 300; i += 2) fs.rmSync(path.join(root, `d${i % 7}`, `oldname${i}.c`));
        writeTree(root, { 'fresh/newname.c': 'int fresh;\n' });
        const second = await buildGeneration(ctxOf(root, dir));
        expect(s.table).toBe(first.table);
        expect(s.table!.nameIds(oldGram).length).toBe(300);
        expect(s.table!.idOf('fresh/newname.c')).toBeUndefined();

        // The new table: its own memory (no view of the walk's buffer), no ids held, its file a valid table.
        const t = second.table.t;
        for (const column of [t.size, t.mtime, t.birthtime, t.parent, t.end, t.kind, t.flags, t.grams.keys, t.grams.starts]) expect(column.buffer.byteLength).toBe(column.byteLength);
        expect(t.names.bytes.buffer.byteLength).toBe(t.names.bytes.byteLength);
        expect(t.grams.ids.length).toBe(0);
        const file = path.join(dir, second.manifest.gen, 'table.bin');
        const stored = await decodeTable(fs.readFileSync(file), file, async () => undefined);
        expect([...stored.names]).toEqual([...t.names]);
        expect([...stored.flags]).toEqual([...t.flags]);
        expect([...stored.parent]).toEqual([...t.parent]);
        expect([...second.table.nameIds(oldGram)]).toEqual([...stored.grams.ids.subarray(...rangeOf(stored, oldGram))]);
        expect(second.table.nameIds(oldGram).length).toBe(150);

        s.serve({ m: second.manifest, table: second.table, segs: second.segs });
        expect(s.table).toBe(second.table);
        expect(s.table!.idOf('fresh/newname.c')).toBeGreaterThan(0);
        expect(s.table!.idOf('d0/oldname0.c')).toBeUndefined();
        expect(s.table!.idOf('d1/oldname1.c')).toBeGreaterThan(0);
        // The old table's file is closed: it answers nothing more.
        expect(() => first!.table.nameIds(oldGram)).toThrow(/closed/);
        // And nothing holds the old table any more: it is collected.
        const old = new WeakRef(first.table);
        first = null;
        for (let i = 0; i < 10 && old.deref() !== undefined; i++) {
            await new Promise((r) => setImmediate(r));
            gc();
        }
        expect(old.deref()).toBeUndefined();
        s.table!.close();
        for (const seg of s.segments) seg.close();
    }, 60_000);

    it('a build closed after its table file was begun removes its folder and leaves no file open', async () => {
        const root = tempDir('lcf-rebuild-');
        const dir = tempDir('lcf-rebuild-index-');
        writeTree(root, Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}.c`, `int x${i};\n`])));
        expect(openUnder(root, dir)).toEqual([]);
        // Closed when the content phase first asks (the walk is done, the table file begun).
        await expect(buildGeneration(ctxOf(root, dir, () => true))).rejects.toThrow(/closed during the build/);
        expect(fs.readdirSync(dir)).toEqual([]);
        expect(openUnder(root, dir)).toEqual([]);
    }, 60_000);
});

/** The range of `t`'s name list ids of `gram`. */
function rangeOf(t: { grams: { keys: Uint32Array; starts: Uint32Array } }, gram: number): [number, number] {
    const r = t.grams.keys.indexOf(gram);
    return r === -1 ? [0, 0] : [t.grams.starts[r]!, t.grams.starts[r + 1]!];
}
