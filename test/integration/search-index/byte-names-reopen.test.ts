/**
 * Names that are not UTF-8 across a reopen: the tree's check (workers/search-index/check-dir.ts)
 * finds them added, changed and removed while the index was closed, and keeps those it stored,
 * so the reopened index answers as the scan path does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { tempDir, until } from '../../support/helpers.js';
import { call, pair, pkgOf, same, type Pair } from '../../support/index-pair.js';

/** `root`/`rel` as bytes, `\xHH` in `rel` standing for the byte. */
const at = (root: string, rel: string): Buffer => Buffer.concat([Buffer.from(`${root}/`), Buffer.from(rel, 'latin1')]);

/** The index reopened on `p`'s tree; `listing`: it lists the tree (no snapshot, or the inotify watcher, which keeps none). */
async function reopen(p: Pair, watcher: 'inotify' | 'parcel', listing: boolean): Promise<Pair> {
    const indexed = pkgOf(p.root, { dir: p.indexDir, watcher });
    const tree = (await indexed.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
    expect(tree.status().state, tree.status().error).toBe('ready');
    expect(tree.status().reopenedFrom).toBe(listing ? 'listing' : 'snapshot');
    return { ...p, indexed, tree };
}

/**
 * Both answers alike and, unless `byIndex` is false, the index's own. @parcel/watcher's snapshot
 * names a new entry of the root whose name is not UTF-8 lossily: the root is then noted as changed
 * and searched by the scan path (watch/tree-paths.ts lossyRelTop).
 */
async function answered(p: Pair, args: Record<string, unknown>, byIndex = true): Promise<string> {
    const r = await same(p, args);
    if (byIndex) expect(r.answered, JSON.stringify(args)).toBe(true);
    return r.text;
}

describe('names that are not UTF-8 across a reopen of the index', () => {
    it.each([
        ['inotify', true],
        ['parcel', true],
        ['parcel', false],
    ] as const)('keeps, adds, changes and removes them as the scan path sees them (%s watcher, from the listing: %s)', async (watcher, listing) => {
        const indexDir = tempDir('lcf-index-');
        const p = await pair({ 'W/plain.c': 'int p; /* marker_p */\n', 'a.txt': 'x\n' }, indexDir, (root) => {
            fs.mkdirSync(at(root, 'D\xe9'));
            fs.writeFileSync(at(root, 'W/kept\xe9.c'), 'int k; /* marker_k */\n');
            fs.writeFileSync(at(root, 'W/gone\xe9.c'), 'int g; /* marker_g */\n');
            fs.writeFileSync(at(root, 'W/edit\xe9.c'), 'int e; /* marker_e */\n');
            fs.writeFileSync(at(root, 'D\xe9/in.c'), 'int i; /* marker_i */\n');
            fs.writeFileSync(at(root, 'D\xe9/gone.c'), 'int j; /* marker_j */\n');
        }, watcher);
        expect(await answered(p, { content_pattern: 'marker_k' })).toBe('success: "W/kept\\xe9.c":1: int k; /* marker_k */');
        // One the watcher brings in while the index is open, stored at close by the watcher's note only.
        fs.writeFileSync(at(p.root, 'W/live\xe9.c'), 'int l; /* marker_l */\n');
        await until(async () => (await call(p.indexed, 'search_entries', { content_pattern: 'marker_l' })).includes('live'));
        expect(await answered(p, { content_pattern: 'marker_l' })).toBe('success: "W/live\\xe9.c":1: int l; /* marker_l */');
        await p.indexed.close();
        if (listing) {
            const dir = path.join(indexDir, fs.readdirSync(indexDir)[0]!);
            fs.rmSync(path.join(dir, 'closed.json'), { force: true });
        }
        fs.writeFileSync(at(p.root, 'W/caf\xe9.c'), 'int x; /* marker_x */\n');
        fs.writeFileSync(at(p.root, 'W/edit\xe9.c'), 'int e; /* marker_y edited */\n');
        fs.rmSync(at(p.root, 'W/gone\xe9.c'));
        fs.writeFileSync(at(p.root, 'D\xe9/new.c'), 'int n; /* marker_n */\n');
        fs.rmSync(at(p.root, 'D\xe9/gone.c'));
        fs.mkdirSync(at(p.root, 'N\xe9w'));
        fs.writeFileSync(at(p.root, 'N\xe9w/f\xe9.c'), 'int f; /* marker_f */\n');
        const q = await reopen(p, watcher, listing);
        // The inotify watcher always lists the tree (listing: true).
        const byIndex = listing;
        const all = await answered(q, { name_pattern: '.' }, byIndex);
        for (const name of ['"W/caf\\xe9.c"', '"W/live\\xe9.c"', '"W/kept\\xe9.c"', '"W/edit\\xe9.c"', '"D\\xe9/in.c"', '"D\\xe9/new.c"', '"N\\xe9w/f\\xe9.c"']) expect(all).toContain(name);
        expect(all).not.toContain('gone');
        const found = (await same(q, { content_pattern: 'marker_' })).text;
        for (const m of ['x', 'y', 'k', 'n', 'i', 'f', 'l']) expect(await answered(q, { content_pattern: `marker_${m}` }, byIndex)).toMatch(/^success: "/);
        expect(await answered(q, { content_pattern: 'marker_x' }, byIndex)).toBe('success: "W/caf\\xe9.c":1: int x; /* marker_x */');
        expect(await answered(q, { content_pattern: 'marker_y' }, byIndex)).toBe('success: "W/edit\\xe9.c":1: int e; /* marker_y edited */');
        expect(await answered(q, { content_pattern: 'marker_e' }, byIndex)).not.toContain('edit');
        expect(found).not.toContain('marker_g');
        expect(found).not.toContain('marker_j');
        await q.indexed.close();
        // Nothing changed: a second reopen keeps every one of them.
        const r = await reopen(q, watcher, watcher === 'inotify');
        expect(await answered(r, { name_pattern: '.' }, byIndex)).toBe(all);
        expect((await same(r, { content_pattern: 'marker_' })).text).toBe(found);
        for (const m of ['x', 'y', 'k', 'n', 'i', 'f', 'l']) expect(await answered(r, { content_pattern: `marker_${m}` }, byIndex)).toMatch(/^success: "/);
    });
});
