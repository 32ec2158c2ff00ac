import fsp from 'node:fs/promises';
import path from 'node:path';
import { changesSince, type Changes } from './changes.js';
import { Kind } from '../common/search-index/format.js';
import { saveClosedState, takeClosedState, type Manifest } from './store.js';
import type { Table } from './table.js';
import { nextTurn } from '../turns.js';

/**
 * What changed while no process watched a tree, found when its stored index is reopened: from
 * the watcher's snapshot the last process saved when it closed (with the paths it knew changed),
 * else by listing the tree again (changes.ts `changesSince`).
 */

export interface ReopenContext {
    root: string;
    /** The tree's index folder. */
    dir: string;
    skipDirs: readonly string[];
    maxEntries: number;
    /** The tree's changes, with the watcher on. */
    changes: Changes;
}

/** The paths changed since generation `m` was served, and where that came from. @throws Error when the listing fails. */
export async function changesWhileClosed(ctx: ReopenContext, m: Manifest): Promise<{ changed: string[]; dirTimes: string[]; from: 'snapshot' | 'listing' }> {
    const closed = ctx.changes.watching ? await takeClosedState(ctx.dir, m.gen) : null;
    if (closed !== null) {
        const snap = path.join(ctx.dir, closed.snapshot);
        try {
            const since = await ctx.changes.changesSinceSnapshot(snap);
            // A snapshot tells entries, not directory times: those are compared afterwards (checkDirTimes).
            ctx.changes.dirTimesPending = true;
            return { changed: [...closed.dirty, ...since], dirTimes: closed.dirTimes, from: 'snapshot' };
        } catch {
            // the snapshot is unusable: list the tree
        } finally {
            await fsp.rm(snap, { force: true });
        }
    }
    const listed = await changesSince({ root: ctx.root, skipDirs: [...ctx.skipDirs], maxEntries: ctx.maxEntries, table: path.join(ctx.dir, m.gen, 'table.bin') });
    return { ...listed, from: 'listing' };
}

/**
 * Saves what this process knows for the next one: the watcher's snapshot (from the live
 * subscription, no crawl) and the paths changed since generation `m` was built. Nothing is saved
 * when that knowledge is incomplete (the watcher failed or is off, directory times unchecked).
 */
export async function saveForNextProcess(ctx: ReopenContext, m: Manifest): Promise<void> {
    const c = ctx.changes;
    if (!c.watching || c.blind || c.dirTimesPending) return;
    const snapshot = `snap-${m.gen.slice(4)}-${process.pid}.bin`;
    try {
        await c.saveSnapshot(path.join(ctx.dir, snapshot));
        await saveClosedState(ctx.dir, { gen: m.gen, snapshot, dirty: [...c.dirty.keys()], dirTimes: [...c.dirTimes] });
    } catch {
        await fsp.rm(path.join(ctx.dir, snapshot), { force: true });
    }
}

/**
 * The paths among `rels` that differ from the table now: a file whose type, size and
 * modification time are the table's again (changed, then restored) is what the listing would
 * call unchanged. The watcher is on, so a change after this look is noted anyway.
 */
export async function stillChanged(root: string, table: Table, rels: string[]): Promise<string[]> {
    const t = table.t;
    const out: string[] = [];
    for (let k = 0; k < rels.length; k += 64) {
        await Promise.all(
            rels.slice(k, k + 64).map(async (rel) => {
                const id = table.idOf(rel);
                if (id !== undefined && t.kind[id] === Kind.File) {
                    const st = await fsp.lstat(path.join(root, rel)).catch(() => null);
                    if (st !== null && st.isFile() && st.size === t.size[id] && st.mtimeMs === t.mtime[id]) return;
                }
                out.push(rel);
            }),
        );
    }
    return out;
}

/**
 * Compares the directories' times with the table, a few at a time in the background, then lets
 * time-filtered searches use the index again (`dirTimesPending`); stops when `current()` is false.
 */
export async function checkDirTimes(root: string, table: Table, changes: Changes, current: () => boolean): Promise<void> {
    const t = table.t;
    const dirs: number[] = [];
    for (let i = 0; i < table.size; i++) {
        if (t.kind[i] === Kind.Dir) dirs.push(i);
        if ((i & 8191) === 8191) await nextTurn();
    }
    for (let k = 0; k < dirs.length && current(); k += 64) {
        await Promise.all(
            dirs.slice(k, k + 64).map(async (i) => {
                const rel = table.pathOf(i);
                const st = await fsp.lstat(rel === '' ? root : path.join(root, rel)).catch(() => null);
                if (st === null || !st.isDirectory()) changes.note(rel);
                else if (st.mtimeMs !== t.mtime[i] || st.birthtimeMs !== t.birthtime[i]) changes.dirTimes.add(rel);
            }),
        );
    }
    if (current()) changes.dirTimesPending = false;
}

/**
 * Compares the entries named like skipped directories (`skipDirs`) in every directory of the
 * table with the disk, and notes those that differ (created, deleted, or of another type, size or
 * modification time; a directory of such a name is left out by the walk, as if missing): what a
 * watcher that left such names out (Changes.byName) could not report. Perf: one lstat per
 * directory and name (some 11,000 for the Linux tree), 64 at a time.
 */
export async function checkNamedEntries(root: string, table: Table, changes: Changes, skipDirs: readonly string[]): Promise<void> {
    const t = table.t;
    const probes: { dir: number; name: string }[] = [];
    for (let i = 0; i < table.size; i++) {
        if (t.kind[i] === Kind.Dir) for (const name of skipDirs) probes.push({ dir: i, name });
        if ((i & 8191) === 8191) await nextTurn();
    }
    for (let k = 0; k < probes.length; k += 64) {
        await Promise.all(
            probes.slice(k, k + 64).map(async ({ dir, name }) => {
                const dirRel = table.pathOf(dir);
                const rel = dirRel === '' ? name : `${dirRel}/${name}`;
                const st = await fsp.lstat(path.join(root, rel)).catch(() => null);
                const now = st === null || st.isDirectory() ? undefined : st;
                const id = table.childOf(dir, name);
                if (now === undefined && id === undefined) return;
                const same = now !== undefined && id !== undefined && (now.isFile() ? Kind.File : now.isSymbolicLink() ? Kind.Link : Kind.Other) === t.kind[id] && now.size === t.size[id] && now.mtimeMs === t.mtime[id];
                if (!same) changes.note(rel);
            }),
        );
    }
}
