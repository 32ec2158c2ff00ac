import path from 'node:path';
import { Piscina } from 'piscina';
import { workerEntry } from '../engine/engine.js';
import type { IndexCheckResult, IndexCheckTask } from '../common/search-index/protocol.js';
import { Turns } from '../turns.js';

/**
 * Freshness of one tree's index: the paths changed since its generation was built ("dirty"),
 * from the tools (which report the paths they change), from @parcel/watcher's live events, and,
 * for what changed while no process watched, from listing the tree again and comparing it with
 * the stored table (on a thread of its own). A dirty path is never answered from the table.
 */

type Watcher = typeof import('@parcel/watcher');
type Subscription = Awaited<ReturnType<Watcher['subscribe']>>;

let watcherModule: Promise<Watcher | null> | undefined;
/** @parcel/watcher, or `null` when its native module cannot load here. */
function loadWatcher(): Promise<Watcher | null> {
    return (watcherModule ??= import('@parcel/watcher').then(
        (m) => (m.default ?? m) as Watcher,
        () => null,
    ));
}

/**
 * The watcher's ignore option for directory names left out: one regular expression matching a
 * path whose last component is one of the names, exactly as the walk compares them (no glob
 * meaning). Perf: @parcel/watcher tests every path of its crawl against each ignore pattern with
 * std::regex; with one glob per name (picomatch's long expressions) subscribing to the Linux tree
 * took 1.4-2.1 s, with this expression 0.6-0.8 s, with no ignore option 0.3-0.4 s (load average 3-4).
 */
export function ignoreOf(skipDirs: readonly string[]): RegExp[] {
    if (skipDirs.length === 0) return [];
    const names = skipDirs.map((d) => d.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
    // The watcher matches it anywhere in the path; the anchors make it the last component.
    return [new RegExp(`(?:^|/)(?:${names.join('|')})$`)];
}

export interface ChangeEvents {
    /** Outside changes were noted (or the watcher failed). */
    onChange(): void;
    /** So many paths changed (or the watcher failed) that the index should be rebuilt. */
    onRebuild(): void;
}

/** The changed paths of one tree (relative, `/`-separated) and the watcher that reports them. */
export class Changes {
    readonly root: string;
    /** Changed paths, with the sequence number of their last change. */
    readonly dirty = new Map<string, number>();
    /** Directories whose times changed while no process watched (their table times are stale). */
    readonly dirTimes = new Set<string>();
    /** The watcher failed (overflow, error): nothing is known about outside changes until the next build. */
    blind = false;
    #seq = 0;
    #watcher: Subscription | null = null;
    readonly #rebuildAfter: number;
    readonly #events: ChangeEvents;

    constructor(root: string, rebuildAfter: number, events: ChangeEvents) {
        this.root = root;
        this.#rebuildAfter = rebuildAfter;
        this.#events = events;
    }

    /** Sequence number of the last change noted. */
    get seq(): number {
        return this.#seq;
    }

    /** A live subscription is on. */
    get watching(): boolean {
        return this.#watcher !== null;
    }

    /** Starts watching the tree (directories named in `skipDirs` left out); stays off when the watcher cannot run here. */
    async subscribe(skipDirs: readonly string[]): Promise<void> {
        const w = await loadWatcher();
        if (w === null) return;
        try {
            this.#watcher = await w.subscribe(
                this.root,
                (err, events) => {
                    if (err) {
                        // An overflow or backend failure: outside changes are unknown from here on.
                        this.blind = true;
                        this.#events.onChange();
                        this.#events.onRebuild();
                        return;
                    }
                    void this.#inSlices(events, (e) => this.noteAbs(e.path)).then(() => this.#events.onChange());
                },
                { ignore: ignoreOf(skipDirs) },
            );
        } catch {
            this.#watcher = null;
        }
    }

    /**
     * Writes the watcher's view of the tree to `file` (@parcel/watcher's snapshot: made from the
     * live subscription's tree, no crawl), for {@link changesSinceSnapshot} in the next process.
     */
    async saveSnapshot(file: string, skipDirs: readonly string[]): Promise<void> {
        const w = await loadWatcher();
        if (w === null || this.#watcher === null) throw new Error('no watcher');
        await w.writeSnapshot(this.root, file, { ignore: ignoreOf(skipDirs) });
    }

    /**
     * The paths created, changed or deleted since `file` was written (with the subscription on,
     * @parcel/watcher compares its live tree, no crawl). @throws Error when it cannot tell.
     */
    async changesSinceSnapshot(file: string, skipDirs: readonly string[]): Promise<string[]> {
        const w = await loadWatcher();
        if (w === null || this.#watcher === null) throw new Error('no watcher');
        const events = await w.getEventsSince(this.root, file, { ignore: ignoreOf(skipDirs) });
        const out: string[] = [];
        await this.#inSlices(events, (e) => {
            const rel = path.relative(this.root, e.path);
            if (rel !== '..' && !rel.startsWith('../') && !path.isAbsolute(rel)) out.push(rel.split(path.sep).join('/'));
        });
        return out;
    }

    async unsubscribe(): Promise<void> {
        await this.#watcher?.unsubscribe().catch(() => undefined);
        this.#watcher = null;
    }

    /** Notes an absolute path (real or as written) as changed; paths outside the tree are ignored. */
    noteAbs(abs: string): void {
        const rel = path.relative(this.root, abs);
        if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return;
        this.note(rel.split(path.sep).join('/'));
    }

    note(rel: string): void {
        this.dirty.set(rel, ++this.#seq);
        if (this.dirty.size > this.#rebuildAfter) this.#events.onRebuild();
    }

    /** Notes what a check found (see {@link changesSince}), in slices (searches take the scan path until all are noted: {@link pending}). */
    async noteAll(c: { changed: string[]; dirTimes: string[] }): Promise<void> {
        await this.#inSlices(c.changed, (rel) => this.note(rel));
        await this.#inSlices(c.dirTimes, (rel) => this.dirTimes.add(rel));
    }

    /**
     * Changes received but not all noted yet (a large batch, from the watcher or a check, is
     * noted in slices between yields): while above 0, searches take the scan path (never a
     * result from a table that misses a change already reported).
     */
    pending = 0;

    /**
     * Calls `each` on every item, in slices of a turn (see turns.ts) between yields to the event
     * loop (Perf: a `git checkout` reports tens of thousands of paths at once); a batch that
     * fits in one slice is done before this returns. Counted in {@link pending} meanwhile.
     */
    async #inSlices<T>(items: readonly T[], each: (item: T) => void): Promise<void> {
        this.pending++;
        try {
            const turns = new Turns();
            for (let i = 0; i < items.length; i++) {
                each(items[i]!);
                if ((i & 255) === 255 && turns.due) await turns.yield();
            }
        } finally {
            this.pending--;
        }
    }

    /**
     * Directory times not yet compared with the table (after a reopen from a snapshot, which
     * reports entries, not directory times): searches filtering on times take the scan path.
     */
    dirTimesPending = false;

    /** A new generation holds every change up to `seq`: only later ones stay dirty. */
    settle(seq: number): void {
        for (const [k, s] of this.dirty) if (s <= seq) this.dirty.delete(k);
        this.dirTimes.clear();
        this.dirTimesPending = false;
        this.blind = false;
    }

    /** A changed path is the directory `rel`, inside it or above it: its contents are uncertain. */
    touches(rel: string): boolean {
        for (const d of this.dirty.keys()) if (d === rel || d.startsWith(rel + '/') || rel.startsWith(d + '/') || d === '') return true;
        return false;
    }
}

/**
 * What changed under `task.root` since the table `task.table` was made, listed again on a
 * thread of its own (a one-thread pool on the engine's worker code, which exits after: the
 * engine's threads would keep the check's memory, some 100 MB for a large tree).
 * @throws Error when the check fails.
 */
export async function changesSince(task: Omit<IndexCheckTask, 'op'>): Promise<{ changed: string[]; dirTimes: string[] }> {
    const oneOff = new Piscina({ ...workerEntry(), minThreads: 0, maxThreads: 1 });
    let res: IndexCheckResult;
    try {
        res = (await oneOff.run({ op: 'index-check', ...task } satisfies IndexCheckTask)) as IndexCheckResult;
    } finally {
        await oneOff.destroy();
    }
    if (!res.ok) throw new Error(`index check failed: ${res.message}`);
    return { changed: await splitJoined(res.changed), dirTimes: res.dirTimes };
}

/** The paths of a NUL-joined list (`''`: none), split in slices between yields. */
async function splitJoined(text: string): Promise<string[]> {
    const out: string[] = [];
    if (text === '') return out;
    const turns = new Turns();
    for (let at = 0; ; ) {
        const nul = text.indexOf('\0', at);
        out.push(text.slice(at, nul === -1 ? text.length : nul));
        if (nul === -1) return out;
        at = nul + 1;
        if ((out.length & 255) === 0 && turns.due) await turns.yield();
    }
}
