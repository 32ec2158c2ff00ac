import { DEFAULT_WORKER_NICE } from '../engine/engine.js';
import type { Changes } from './watch/changes.js';
import type { SegmentReader } from './shared/segment.js';
import type { ReopenContext } from './reopen.js';
import type { Manifest, Stored } from './store.js';
import type { Table } from './table.js';
import type { IndexState, IndexStatus, ResolvedTreeOptions } from './status.js';
import { changesAllow } from './plan.js';
import path from 'node:path';

/**
 * What one tree's index is and serves: its state and figures, as its status reports them, and
 * the generation it serves. Its lifecycle (tree-index.ts) and its builds (tree-build.ts) both
 * change them, so they live apart from either.
 */
/** Searches asked within this long compete with a build for the CPU (an agent's next call comes within seconds). */
const SEARCHES_RECENT_MS = 3_000;

/** A served generation: its folder, file table and the paths changed since it was built. */
export interface ServedGeneration {
    root: string;
    gen: string;
    genDir: string;
    table: Table;
    changes: Changes;
    maxFileSize: number;
    threads: number;
    /** The nice value searches run at (what {@link sharedNice} gives while they keep coming). */
    searchNice: number;
    sharedNice(): number | undefined;
}

export class TreeState {
    readonly root: string;
    readonly opts: ResolvedTreeOptions;
    readonly changes: Changes;
    state: IndexState = 'idle';
    phase: IndexStatus['phase'];
    #error: string | undefined;
    table: Table | null = null;
    segments: SegmentReader[] = [];
    manifest: Manifest | null = null;
    filesDone = 0;
    filesTotal = 0;
    openMs: number | undefined;
    reopenedFrom: IndexStatus['reopenedFrom'];
    /** When a search last asked this index (performance.now()); a build shares the CPU with searches while they keep coming. */
    searchedAt = -Infinity;
    /** Told of every state change, with the status after it. */
    readonly #onState: (status: IndexStatus) => void;

    constructor(root: string, opts: ResolvedTreeOptions, changes: Changes, onState: (status: IndexStatus) => void) {
        this.root = root;
        this.opts = opts;
        this.changes = changes;
        this.#onState = onState;
    }

    /**
     * The nice value a build's next task runs at to share the CPU with searches (one asked within
     * the last {@link SEARCHES_RECENT_MS}); `undefined`: idle priority (no search competes).
     */
    sharedNice(): number | undefined {
        const searching = performance.now() - this.searchedAt < SEARCHES_RECENT_MS || this.opts.searching?.() === true;
        return searching ? this.#searchNice() : undefined;
    }

    /** The nice value searches run at. */
    #searchNice(): number {
        return this.opts.searchNice ?? DEFAULT_WORKER_NICE;
    }

    status(): IndexStatus {
        const m = this.manifest;
        return {
            root: this.root,
            state: this.state,
            ...(this.phase !== undefined && { phase: this.phase }),
            filesDone: this.filesDone,
            filesTotal: this.filesTotal,
            entries: this.table?.size ?? 0,
            textBytes: m?.textBytes ?? 0,
            diskBytes: m?.diskBytes ?? 0,
            segments: this.segments.length,
            dirty: this.changes.dirty.size,
            ...(m && { buildMs: m.buildMs }),
            ...(this.openMs !== undefined && { openMs: this.openMs }),
            ...(this.reopenedFrom !== undefined && { reopenedFrom: this.reopenedFrom }),
            ...(this.#error !== undefined && { error: this.#error }),
        };
    }

    /** The served generation as code navigation reads it (src/symbols/), or `null` while the index may not answer. */
    served(): ServedGeneration | null {
        this.searchedAt = performance.now();
        this.changes.drain();
        const m = this.manifest;
        if (m === null || this.table === null || !changesAllow(this.state, this.changes)) return null;
        const o = this.opts;
        return { root: this.root, gen: m.gen, genDir: path.join(o.dir, m.gen), table: this.table, changes: this.changes, maxFileSize: o.maxFileSize, threads: o.threads, searchNice: this.#searchNice(), sharedNice: () => this.sharedNice() };
    }

    /** Changes the state (with why, when it fails) and tells of it. */
    set(state: IndexState, error?: string): void {
        this.state = state;
        if (error !== undefined) this.#error = error;
        this.#onState(this.status());
    }

    /** What finding the changes since a generation needs (reopen.ts). */
    reopenContext(): ReopenContext {
        return { root: this.root, dir: this.opts.dir, skipDirs: this.opts.skipDirs, maxEntries: this.opts.maxEntries, changes: this.changes, sharedNice: () => this.sharedNice() };
    }

    /** Serves `s` from now on; the segments and table served before are closed. */
    serve(s: Stored): void {
        const old = this.segments;
        if (this.table !== s.table) this.table?.close();
        this.table = s.table;
        this.segments = s.segs;
        this.manifest = s.m;
        for (const seg of old) if (!s.segs.includes(seg)) seg.close();
    }
}
