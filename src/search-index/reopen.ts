import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Changes } from './watch/changes.js';
import { changesSince, readShared, type SharedRead } from './watch/changes-since.js';
import { newCrawlGate } from './shared/crawl-gate.js';
import { checkCanWatch } from './watch/inotify.js';
import { Kind } from './shared/format.js';
import { foldChangeTime } from './shared/change-time.js';
import { makePrivate } from './folder.js';
import { releaseSoon } from '../engine/release-memory.js';
import { saveClosedState, takeClosedState, type Manifest } from './store.js';
import type { Table } from './table.js';
import type { IndexCheckTask } from './shared/protocol.js';
import type { CheckedWatches } from './watch/watch.js';
import { nextTurn } from '../engine/turns.js';

/**
 * What changed while no process watched a tree, found when its stored index is reopened: from
 * the watcher's snapshot the last process saved when it closed (with the paths it knew changed),
 * else by listing the tree again (changes-since.ts).
 */

export interface ReopenContext {
    root: string;
    /** The tree's index folder. */
    dir: string;
    skipDirs: readonly string[];
    maxEntries: number;
    /** The tree's changes, with the watcher on. */
    changes: Changes;
    /** The searches' nice value while searches are waiting (tree-state.ts). */
    sharedNice?: () => number | undefined;
    /** A generation's table file read once, for the tree check's threads and the load that checks its checksum (tree-index.ts `#open`). */
    table?: SharedTable | undefined;
}

/** A stored generation's table file in shared memory (changes-since.ts `readShared`): its read, and its bytes once read. */
export interface SharedTable {
    gen: string;
    read: Promise<SharedRead>;
    bytes: Promise<SharedArrayBuffer>;
}

/**
 * The table file of `m`'s generation, being read into shared memory: for the load of the stored
 * index, which checks its checksum, and the tree check's threads, which then do not (the check's
 * result is used only once that load has passed). Perf: 66 MB at ten times the Linux tree, read
 * and checksummed once rather than three times before the check's threads begin comparing.
 */
export function sharedTable(dir: string, m: Manifest | null): SharedTable | undefined {
    if (m === null) return undefined;
    const read = readShared(path.join(dir, m.gen, 'table.bin'));
    const bytes = read.then((r) => r.done);
    read.catch(() => undefined);
    bytes.catch(() => undefined);
    return { gen: m.gen, read, bytes };
}

/**
 * Whether @parcel/watcher's snapshot reports every change made while closed: on macOS it replays
 * the FSEvents journal, which notes every write. Elsewhere it walks the tree and compares
 * modification times alone, blind to a file rewritten in place with its time set back (`cp -p`
 * over it, `rsync --inplace -t`): the stored table is then checked too (its change times see it).
 */
const SNAPSHOT_SEES_ALL = process.platform === 'darwin';

/** The paths changed since generation `m` was served, and where that came from. @throws Error when the listing fails. */
export async function changesWhileClosed(ctx: ReopenContext, m: Manifest): Promise<{ changed: string[]; dirTimes: string[]; from: 'snapshot' | 'listing' }> {
    const closed = ctx.changes.watching ? await takeClosedState(ctx.dir, m.gen) : null;
    if (closed !== null) {
        const snap = path.join(ctx.dir, closed.snapshot);
        try {
            const since = await ctx.changes.changesSinceSnapshot(snap);
            // A snapshot tells entries, not directory times: those are compared afterwards (checkDirTimes).
            ctx.changes.dirTimesPending = true;
            if (SNAPSHOT_SEES_ALL) return { changed: [...closed.dirty, ...since], dirTimes: closed.dirTimes, from: 'snapshot' };
            const listed = await listedSince(ctx, m.gen);
            return { changed: [...closed.dirty, ...since, ...listed.changed], dirTimes: [...closed.dirTimes, ...listed.dirTimes], from: 'snapshot' };
        } catch {
            // the snapshot is unusable: list the tree
        } finally {
            await fsp.rm(snap, { force: true }).catch(() => undefined);
        }
    }
    const listed = await listedSince(ctx, m.gen);
    return { ...listed, from: 'listing' };
}

/**
 * The watcher started and what changed while no process watched found, for {@link changesWhileClosed}.
 * Perf: with the inotify watcher (no snapshot) the tree check adds the watches itself, each
 * directory's before it compares it (workers/search-index/check-watches.ts), rather than after a
 * crawl that listed every directory once more; where its threads cannot (no statx), it runs
 * alongside the crawl and compares each of the root's subdirectories once the crawl has watched
 * it (crawl-gate.ts). `listedFrom`: the changes' sequence number the table is brought up to,
 * taken before the watches are added (a loss meanwhile is after it).
 */
export async function watchAndFind(ctx: ReopenContext, m: Manifest | null, watch: boolean, open: () => boolean): Promise<{ usable: boolean; listedFrom: number; changed: Promise<Awaited<ReturnType<typeof changesWhileClosed>> | null> | null }> {
    const c = ctx.changes;
    let listing: ReturnType<typeof listedSince> | null = null;
    const listedFrom = c.seq;
    if (watch && !c.watching && c.watcher === 'inotify' && m !== null && checkCanWatch()) {
        let found: ReturnType<typeof listedSince> | null = null;
        await c.subscribe(ctx.skipDirs, m.skippedDirs, async (fd, mask) => (await (found = listedSince(ctx, m.gen, { watch: { fd, mask } }))).watched!);
        listing = found;
    } else if (watch && !c.watching && c.watcher === 'inotify' && m !== null) {
        const gate = newCrawlGate();
        // The check's threads wait on the gate: nothing is compared before the crawl has watched it.
        const subscribing = c.subscribe(ctx.skipDirs, m.skippedDirs, gate);
        listing = listedSince(ctx, m.gen, { gate });
        listing.catch(() => undefined);
        await subscribing;
    } else if (watch && !c.watching) await c.subscribe(ctx.skipDirs, m?.skippedDirs ?? null);
    // Nothing is served yet and the changes are found after: a crawl of its own, by path.
    else if (m !== null && c.byName) await c.watchByPath(m.skippedDirs, 'fresh').catch(() => undefined);
    // By name, files named like skipped directories go unreported; another index's crawl may miss more: never served so.
    const usable = open() && (!watch || (c.watching && !c.byName && !c.sharedCrawl));
    if (m === null || !usable) return { usable, listedFrom: c.seq, changed: null };
    const changed = listing !== null ? listing.then((r) => ({ changed: r.changed, dirTimes: r.dirTimes, from: 'listing' as const })) : changesWhileClosed(ctx, m);
    return { usable, listedFrom: listing !== null ? listedFrom : c.seq, changed: changed.catch(() => null) };
}

/**
 * What differs on disk now from generation `gen`'s table: the tree listed again on a thread
 * (changes-since.ts); `gate`: alongside the watcher's crawl; `watch`: adding the watcher's watches.
 */
export async function listedSince(ctx: ReopenContext, gen: string, extra: Pick<IndexCheckTask, 'gate' | 'watch'> = {}): Promise<{ changed: string[]; dirTimes: string[]; watched?: CheckedWatches }> {
    try {
        const task = { root: ctx.root, skipDirs: [...ctx.skipDirs], maxEntries: ctx.maxEntries, table: path.join(ctx.dir, gen, 'table.bin'), ...extra };
        return await changesSince(task, ctx.sharedNice?.(), ctx.table?.gen === gen ? ctx.table.read : undefined);
    } finally {
        // Perf: not waited for (25-30 ms of malloc_trim at ten times the Linux tree, on the reopen's path).
        releaseSoon();
    }
}

/**
 * Saves what this process knows for the next one: the watcher's snapshot (from the live
 * subscription, no crawl) and the paths changed since generation `m` was built. Nothing is saved
 * when that knowledge is incomplete (the watcher failed or is off, directory times unchecked).
 * Best effort, never rejects: a folder that cannot take it costs the next process a listing.
 */
export async function saveForNextProcess(ctx: ReopenContext, m: Manifest): Promise<void> {
    const c = ctx.changes;
    if (!c.watching || c.blind || c.dirTimesPending) return;
    const snapshot = `snap-${m.gen.slice(4)}-${process.pid}.bin`;
    const file = path.join(ctx.dir, snapshot);
    try {
        // The watcher writes it with the default mode of new files (0644 under the usual umask): made private before and after.
        await makePrivate(file, true);
        await c.saveSnapshot(file);
        await makePrivate(file, false);
        // The snapshot may hold changes the watcher has not delivered yet: the paths are taken after them.
        await c.delivered();
        if (c.blind) throw new Error('the watcher failed');
        await saveClosedState(ctx.dir, { gen: m.gen, snapshot, dirty: [...c.dirty.keys()], dirTimes: [...c.dirTimes] });
    } catch {
        await fsp.rm(file, { force: true }).catch(() => undefined);
    }
}

/**
 * The paths among `found.changed` that differ from the table now: a file whose type, size, modification,
 * birth and change times are the table's again (a change time is never restored: the file was
 * not changed after all) is what the listing would call unchanged. The watcher is on, so a change after this look is noted anyway.
 */
export async function stillChanged(root: string, table: Table, found: { changed: string[]; from: 'snapshot' | 'listing' }): Promise<string[]> {
    // A listing's paths differed from the table when it stat'ed them, the watcher on: they are.
    // Perf: 1,000 paths looked at again took 50-70 ms at ten times the Linux tree.
    if (found.from === 'listing') return found.changed;
    const rels = found.changed;
    const t = table.t;
    const out: string[] = [];
    for (let k = 0; k < rels.length; k += 64) {
        await Promise.all(
            rels.slice(k, k + 64).map(async (rel) => {
                const id = table.idOf(rel);
                if (id !== undefined && t.kind[id] === Kind.File) {
                    const st = await fsp.lstat(path.join(root, rel)).catch(() => null);
                    if (st !== null && st.isFile() && st.size === t.size[id] && st.mtimeMs === t.mtime[id] && st.birthtimeMs === t.birthtime[id] && foldChangeTime(st.ctimeMs) === t.ctime[id]) return;
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
