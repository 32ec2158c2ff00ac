/**
 * What the symbol table's build syncs: the table file (the one that outlives the build), never a
 * part file, which this build's merge reads and removes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PartReader } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge, runSymbolsPart } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';

afterEach(() => vi.restoreAllMocks());
const realSync = fs.fsyncSync;

/** The paths of the files `fs.fsyncSync` was called on during `run` (by their descriptors' links). */
async function synced(run: () => Promise<unknown> | unknown): Promise<string[]> {
    const paths: string[] = [];
    const spy = vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
        paths.push(fs.readlinkSync(`/proc/self/fd/${fd}`));
        realSync(fd);
    });
    try {
        await run();
    } finally {
        spy.mockRestore();
    }
    return paths;
}

describe('the symbol table build\'s syncs', () => {
    it('writes a part file without a sync, and syncs the merged table once', async () => {
        const root = tempDir('lcf-part-sync-');
        fs.writeFileSync(path.join(root, 'a.c'), 'int f(void) { return 0; }\nstatic const int t[] = { 1, 2 };\n');
        fs.writeFileSync(path.join(root, 'b.c'), '#define B 1\n');
        const part = path.join(root, 'symbols-part-0.part');
        const partSyncs = await synced(async () => {
            expect(await runSymbolsPart({ op: 'symbols-part', root, ids: [0, 1], paths: ['a.c', 'b.c'], maxBytes: 1 << 20, parseMs: 60_000, out: part })).toMatchObject({ ok: true, definitions: 3 });
        });
        expect(partSyncs).toEqual([]);
        // The part is whole: its head and a record per definition, its checks passed at the end.
        const reader = new PartReader(part);
        const names: string[] = [];
        try {
            while (reader.next()) names.push(reader.name);
        } finally {
            reader.close();
        }
        expect(reader.head).toEqual([[], expect.any(Array)]);
        expect(names).toEqual(['B', 'f', 't']);
        const out = path.join(root, 'symbols.bin');
        const mergeSyncs = await synced(() => expect(runSymbolsMerge({ op: "symbols-merge", parts: [part], tableSize: 2, out })).toMatchObject({ ok: true, definitions: 3 }));
        // Synced under its temporary name, then renamed.
        expect(mergeSyncs).toHaveLength(1);
        expect(path.dirname(mergeSyncs[0]!)).toBe(root);
        expect(path.basename(mergeSyncs[0]!)).toMatch(/^symbols\.bin\..*\.tmp$/);
        expect(fs.existsSync(out)).toBe(true);
        expect(fs.existsSync(part)).toBe(false);
    });
});
