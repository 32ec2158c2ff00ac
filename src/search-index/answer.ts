import { isInside } from '../access/shared/contain.js';
import { entersLinkedDir, type EntryPolicy, type EntryStat } from '../search/shared/entry-policy.js';
import type { PreparedSearch, Segment } from '../search/shared/protocol.js';
import type { IgnoreFrame, SearchHit } from '../search/shared/types.js';
import { Flag, Kind } from './shared/format.js';
import { foldChangeTime } from './shared/change-time.js';
import type { ChangedEntries, Extra } from './changed-entries.js';
import { linkInTable, resolveLink, type ResolvedLink } from './resolved-link.js';
import { SegmentWriter } from './segment-writer.js';
import { IdCursor, type CandidateIds } from './candidate-ids.js';
import type { Table } from './table.js';
import { displayOf, framesIn, subOf, type Frame } from './table-frame.js';

/**
 * The walk of one search answered from the file table, in the order of the sequential walk
 * (workers/search/walk.ts), with the walk's rules: the search's {@link EntryPolicy} (the one the
 * workers apply: skipped directory names, type, name, globs, `.gitignore`, stat filters), links
 * followed into directories the table holds. Hits the table
 * decides (names, types, times) are made here; the entries it cannot decide (content candidates,
 * links it cannot follow, special files, changed paths) are handed to the workers as jobs.
 */

/** What one answered walk needs besides the table. */
export interface WalkQuery {
    search: PreparedSearch;
    /** Id of the searched directory and its display path. */
    rootId: number;
    displayRoot: string;
    /** `.gitignore` frames above the searched directory, when the search respects them. */
    gitignore: IgnoreFrame[] | null;
    /** Which entries the search keeps (the workers' policy, see entry-policy.ts). */
    policy: EntryPolicy;
    /** Ids the index could not rule out, or `null` for every entry. */
    list: CandidateIds | null;
    changed: ChangedEntries;
    /** Real path of a table path. */
    realOf(rel: string): string;
    /** The index's root (real path), for links that lead back into the table. */
    root: string;
    /** Links resolved by earlier searches and still valid (table.ts LinkCache), or `null`: each link is resolved now. */
    links: Map<number, ResolvedLink> | null;
}

/** Answers one search from the table; {@link next} gives the walked root's segments, part by part. */
export class TableWalk {
    readonly #table: Table;
    readonly #q: WalkQuery;
    readonly #main: Frame;
    readonly #content: boolean;
    readonly #policy: EntryPolicy;
    /** The search respects `.gitignore` files. */
    readonly #gitignore: boolean;
    readonly #out = new SegmentWriter();
    #extra = 0;
    #depth = 0;
    /** Where the main frame's walk goes on: the next id, or the listed ids from it. */
    #next: number;
    readonly #cursor: IdCursor | null;

    constructor(table: Table, q: WalkQuery) {
        this.#table = table;
        this.#q = q;
        const relRoot = table.pathOf(q.rootId);
        this.#main = { rootId: q.rootId, relCut: relRoot === '' ? 0 : relRoot.length + 1, subPrefix: '', display: q.displayRoot, jumps: [], dirOk: new Map(), ignores: new Map(), entered: q.gitignore ?? [] };
        this.#content = q.search.contentPattern !== undefined;
        this.#policy = q.policy;
        this.#gitignore = q.policy.ignores !== null;
        this.#next = q.rootId + 1;
        this.#cursor = q.list === null ? null : new IdCursor(q.list, this.#next, table.t.end[q.rootId]!);
    }

    /**
     * The next part of the walk: its segments once at least `budget` entries were decided in it
     * (hits made here or entries handed out), or up to the end (`done`). Perf: a search stopped by
     * `max_results` takes few parts, and the table is walked only as far as its hits lie.
     */
    next(budget: number): { segments: Segment[]; done: boolean; work: number } {
        const stopAt = this.#out.decided + budget;
        const done = this.#runMain(() => this.#out.decided >= stopAt);
        if (done) this.#extrasBefore(Number.MAX_SAFE_INTEGER);
        const work = this.#out.work;
        return { segments: this.#out.finish(), done, work };
    }

    /** Entries handed to the workers. */
    get handedOut(): number {
        return this.#out.handedOut;
    }

    /**
     * Hands an entry to the workers (grouped by directory: the job of `parent` in frame `f`);
     * `id`: its table entry, a file whose bytes tell its work, else its work is unknown.
     */
    #toWalk(parent: number, f: Frame, name: string, kind: number, id = -1): void {
        const units = id === -1 ? Number.POSITIVE_INFINITY : 1 + (this.#table.t.size[id]! >> 14);
        this.#out.toWalk(parent, f, name, kind, units, () => {
            const frames = this.#gitignore ? this.#frames(parent, f) : [];
            const rel = parent === f.rootId ? f.display : displayOf(this.#table, parent, f);
            return { real: this.#q.realOf(this.#table.pathOf(parent)), rel, jumps: f.jumps, ...(frames.length > 0 && { ignores: frames }) };
        });
    }

    #hit(h: SearchHit): void {
        this.#out.hit(h);
    }

    #times(st: EntryStat): Partial<SearchHit> {
        return this.#q.search.needTimes ? { birthtimeMs: st.birthtimeMs, mtimeMs: st.mtimeMs } : {};
    }

    /** A hit of entry `i` of frame `f` when the policy keeps it (type, name, path, then its stat). */
    #hitIfKept(i: number, f: Frame, name: string, isDir: boolean, st: () => EntryStat): void {
        if (!this.#policy.kept(name, subOf(this.#table, i, f), isDir)) return;
        const s = this.#q.search.needTimes ? st() : null;
        if (s !== null && !this.#policy.statOk(s)) return;
        this.#hit({ path: displayOf(this.#table, i, f), kind: isDir ? 'directory' : 'file', ...(s !== null && this.#times(s)) });
    }

    /** The `.gitignore` frames in force in directory `d` of frame `f` (see table-frame.ts). */
    #frames(d: number, f: Frame): IgnoreFrame[] {
        return framesIn(this.#table, d, f, this.#q.realOf);
    }

    /** Left out by `exclude` or by `.gitignore` (the policy's `leftOut`, as the walk asks it). */
    #leftOut(i: number, f: Frame, isDir: boolean): boolean {
        if (!this.#policy.filtered) return false;
        const frames = this.#gitignore ? this.#frames(this.#table.t.parent[i]!, f) : undefined;
        return this.#policy.leftOut(frames, subOf(this.#table, i, f), this.#table.t.names.get(i), isDir);
    }

    /** A directory is walked: neither skipped nor excluded, nor below one that is (within its frame). */
    #dirAllowed(d: number, f: Frame): boolean {
        if (d === f.rootId) return true;
        let ok = f.dirOk.get(d);
        if (ok === undefined) {
            const t = this.#table.t;
            ok = !this.#policy.skip.has(t.names.get(d)) && !this.#leftOut(d, f, true) && this.#dirAllowed(t.parent[d]!, f);
            f.dirOk.set(d, ok);
        }
        return ok;
    }

    /** Hands the changed entries that come before `id` in walk order to the workers. */
    #extrasBefore(id: number): void {
        const extras: Extra[] = this.#q.changed.extras;
        while (this.#extra < extras.length && extras[this.#extra]!.key <= id) {
            const e = extras[this.#extra++]!;
            if (this.#q.changed.blockedTo(e.parent) === -1 && this.#dirAllowed(e.parent, this.#main)) this.#toWalk(e.parent, this.#main, e.name, e.kind);
        }
    }

    /** A symlink: followed here when it leads to an unchanged directory of the table, else handed to the walk. */
    #link(i: number, f: Frame): void {
        const { search, realOf, changed } = this.#q;
        const table = this.#table;
        const t = table.t;
        const name = t.names.get(i);
        const parent = t.parent[i]!;
        const cached = this.#q.links?.get(i);
        // Perf: a cached link to a file needs neither path (the Linux tree's 56 links, every search).
        const resolved = cached ?? resolveLink(i, realOf(table.pathOf(i)), realOf(table.pathOf(parent)), this.#q.root, this.#q.links);
        if (resolved === null) {
            this.#toWalk(parent, f, name, Kind.Link); // the walk reports it as the scan path does
            return;
        }
        const { st, target } = resolved;
        if (!st.isDirectory()) {
            this.#linkToFile(i, f, resolved);
            return;
        }
        const parentReal = realOf(table.pathOf(parent));
        // The walk's rules for a link to a directory (workers/search/walk.ts), in its order.
        if (this.#policy.skip.has(name)) return;
        if (search.root.realRoots !== null && !search.root.realRoots.some((r) => isInside(target, r))) return;
        if (isInside(parentReal, target) || f.jumps.some((j) => isInside(j, target))) return;
        const sub = subOf(this.#table, i, f);
        if (this.#leftOut(i, f, true)) return;
        const { tRel, tId } = linkInTable(resolved, this.#q.root, (rel) => table.idOf(rel));
        if (tId === undefined || t.kind[tId] !== Kind.Dir || t.flags[tId]! & Flag.Unreadable || changed.touches(tRel) || this.#depth >= 16 || (search.needTimes && changed.staleDirTimes)) {
            this.#toWalk(parent, f, name, Kind.Link);
            return;
        }
        this.#hitIfKept(i, f, name, true, () => st);
        if (!entersLinkedDir(target, search.root.real)) return;
        this.#depth++;
        this.#runFrame({
            rootId: tId,
            relCut: tRel === '' ? 0 : tRel.length + 1,
            subPrefix: `${sub}/`,
            display: displayOf(this.#table, i, f),
            jumps: [...f.jumps, parentReal],
            dirOk: new Map(),
            ignores: new Map(),
            entered: this.#gitignore ? this.#frames(parent, f) : [],
        });
        this.#depth--;
    }

    /**
     * A symlink to something other than a directory, decided as the walk decides it (its rules in
     * its order: outside the access roots or left out by the path filters it is absent; its
     * target's stat gives its type and times). A content search hands it to the workers only
     * when its target is a candidate, or one the table cannot vouch for.
     */
    #linkToFile(i: number, f: Frame, resolved: ResolvedLink): void {
        const { st, target } = resolved;
        const { search, list, changed } = this.#q;
        const table = this.#table;
        const t = table.t;
        const name = t.names.get(i);
        if (search.root.realRoots !== null && !search.root.realRoots.some((r) => isInside(target, r))) return;
        if (this.#leftOut(i, f, false)) return;
        if (!this.#content) {
            this.#hitIfKept(i, f, name, false, () => st);
            return;
        }
        if (!this.#policy.kept(name, subOf(this.#table, i, f), false) || !this.#policy.statOk(st)) return;
        if (!st.isFile()) return; // the walk opens no FIFO, socket or device
        const { tRel, tId } = linkInTable(resolved, this.#q.root, (rel) => table.idOf(rel));
        const vouched = tId !== undefined && t.kind[tId] === Kind.File && !changed.touches(tRel) && st.size === t.size[tId] && st.mtimeMs === t.mtime[tId] && st.birthtimeMs === t.birthtime[tId] && foldChangeTime(st.ctimeMs) === t.ctime[tId] && st.size <= search.maxFileSize;
        if (vouched && t.flags[tId]! & (Flag.Binary | Flag.Empty)) return;
        if (vouched && t.flags[tId]! & Flag.Indexed && list !== null && !list.has(tId)) return;
        this.#toWalk(t.parent[i]!, f, name, Kind.Link);
    }

    /** Decides one table entry (not blocked) of frame `f`; returns the next id to look at. */
    #entry(i: number, f: Frame): number {
        const t = this.#table.t;
        const changed = this.#q.changed;
        const kind = t.kind[i]!;
        const name = t.names.get(i);
        const isDir = kind === Kind.Dir;
        if (isDir && this.#policy.skip.has(name)) return t.end[i]!;
        if (kind === Kind.Link) {
            this.#link(i, f);
            return i + 1;
        }
        if (this.#leftOut(i, f, isDir)) return t.end[i]!;
        const flags = t.flags[i]!;
        if (kind === Kind.Other || (isDir && flags & Flag.Unreadable)) {
            this.#toWalk(t.parent[i]!, f, name, kind);
            return t.end[i]!;
        }
        if (isDir || !this.#content) {
            this.#hitIfKept(i, f, name, isDir, () => changed.statOf(i));
            return i + 1;
        }
        if (!this.#policy.kept(name, subOf(this.#table, i, f), false)) return i + 1;
        // A content search opens the file in a worker, like the scan path (times, size, binary checked there).
        if (flags & Flag.Binary || flags & Flag.Empty) return i + 1;
        this.#toWalk(t.parent[i]!, f, name, kind, i);
        return i + 1;
    }

    /** The entries of frame `f` (a linked directory's) in walk order: every one, or only the listed ids (their directories checked on the way). */
    #runFrame(f: Frame): void {
        const t = this.#table.t;
        const list = this.#q.list;
        const changed = this.#q.changed;
        const a = f.rootId + 1;
        const b = t.end[f.rootId]!;
        if (list === null) {
            for (let i = a; i < b; ) {
                const skipTo = changed.blockedTo(i);
                i = skipTo !== -1 ? skipTo : this.#entry(i, f);
            }
        } else {
            for (const i of list.within(a, b)) if (changed.blockedTo(i) === -1 && this.#dirAllowed(t.parent[i]!, f)) this.#entry(i, f);
        }
    }

    /** The main frame's entries from where its walk stands, with the changed ones in place, until `full()` or its end (then true). */
    #runMain(full: () => boolean): boolean {
        const t = this.#table.t;
        const list = this.#q.list;
        const changed = this.#q.changed;
        const f = this.#main;
        const b = t.end[f.rootId]!;
        if (list === null) {
            for (let i = this.#next; i < b; ) {
                if (full()) {
                    this.#next = i;
                    return false;
                }
                this.#extrasBefore(i);
                const skipTo = changed.blockedTo(i);
                i = skipTo !== -1 ? skipTo : this.#entry(i, f);
            }
            return true;
        }
        for (;;) {
            if (full()) return false;
            const i = this.#cursor!.next();
            if (i === -1) return true;
            this.#extrasBefore(i);
            if (changed.blockedTo(i) === -1 && this.#dirAllowed(t.parent[i]!, f)) this.#entry(i, f);
        }
    }
}
