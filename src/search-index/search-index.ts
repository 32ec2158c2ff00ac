import type { WatcherKind } from './watch/watch.js';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { isInside } from '../access/shared/contain.js';
import { checkPositiveInt, envBoolean, envString, shownValue } from '../config/shared/env.js';
import type { PreparedSearch } from '../search/shared/protocol.js';
import type { PlannedWalk, SearchBackend, SearchingEngine, WriteEvent } from '../search/backend.js';
import { TreeIndex, type IndexStatus } from './tree-index.js';

/**
 * The search indexes of one engine: one {@link TreeIndex} per indexed directory tree (an access
 * root, or the searched directory when no access roots are known), created and built in the
 * background on the first search under it; until it is ready that search and the next ones take
 * the scan path.
 */

/** Options of the search index (package option `index`). */
export interface SearchIndexOptions {
    /**
     * Where index files are stored (default `LLM_CHAT_FS_INDEX_DIR`, else
     * `$XDG_CACHE_HOME/llm-chat-file/index` or `~/.cache/llm-chat-file/index`). A tree holding
     * this directory is never indexed.
     */
    dir?: string;
    /** Watch for outside changes (default true). Without a watcher searches take the scan path. */
    watch?: boolean;
    /**
     * The watcher: `auto` (default) is the index's own inotify watcher on Linux, which every search
     * reads up to date before it is answered, and @parcel/watcher elsewhere.
     */
    watcher?: WatcherKind;
    /** Changed paths after which a tree is re-indexed in the background (default 2,000). */
    rebuildAfter?: number;
    /** Bytes of file content per segment file (default 64 MiB). */
    segmentBytes?: number;
    /** Merge a build's segment files into one in the background, one dictionary for all (default true; `false` keeps them as built). */
    merge?: boolean;
    /**
     * With code navigation on, make a symbol table per generation and answer `find_symbol` from it
     * (docs/search-index.md, "The symbol table"). Default `LLM_CHAT_FS_INDEX_SYMBOLS` (off when
     * unset): on the Linux tree its build adds about 300 MB to the process while it runs.
     */
    symbols?: boolean;
}

const WATCHERS: ReadonlySet<string> = new Set(['auto', 'inotify', 'parcel']);
const BOOLEANS = ['watch', 'merge', 'symbols'] as const;
const INTEGERS = ['rebuildAfter', 'segmentBytes'] as const;
const KNOWN: ReadonlySet<string> = new Set(['dir', 'watcher', ...BOOLEANS, ...INTEGERS]);

/**
 * Checks the package's `index` options before anything is made on disk, as the engine's options
 * are checked: a wrong value here would otherwise shape every build silently (a negative
 * `segmentBytes` writes one segment file per file).
 * @throws TypeError for a setting it does not know or options that are not an object; Error naming the setting for a wrong value.
 */
export function checkIndexOptions(options: unknown): SearchIndexOptions {
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
        throw new TypeError(`Invalid index: ${shownValue(options)}; expected true, false or an object of options (${[...KNOWN].join(', ')}).`);
    }
    const o = options as Record<string, unknown>;
    for (const key of Object.keys(o)) {
        if (!KNOWN.has(key)) throw new TypeError(`Unknown index setting: ${key}. Settings: ${[...KNOWN].join(', ')}.`);
    }
    if (o.dir !== undefined && (typeof o.dir !== 'string' || o.dir.trim() === '')) throw new Error(`Invalid index.dir: ${shownValue(o.dir)}; expected a directory path.`);
    if (o.watcher !== undefined && !WATCHERS.has(o.watcher as string)) throw new Error(`Invalid index.watcher: ${shownValue(o.watcher)}; expected ${[...WATCHERS].join(', ')}.`);
    for (const key of BOOLEANS) {
        if (o[key] !== undefined && typeof o[key] !== 'boolean') throw new Error(`Invalid index.${key}: ${shownValue(o[key])}; expected true or false.`);
    }
    for (const key of INTEGERS) {
        if (o[key] !== undefined) checkPositiveInt(`index.${key}`, o[key]);
    }
    return o as SearchIndexOptions;
}

/** The default index directory: `LLM_CHAT_FS_INDEX_DIR`, else under the user's cache directory. */
export function defaultIndexDir(env: NodeJS.ProcessEnv = process.env): string {
    const explicit = envString('LLM_CHAT_FS_INDEX_DIR', env);
    if (explicit !== undefined) return path.resolve(explicit);
    const cache = envString('XDG_CACHE_HOME', env) ?? path.join(os.homedir(), '.cache');
    return path.join(path.resolve(cache), 'llm-chat-file', 'index');
}

export class SearchIndex implements SearchBackend {
    readonly dir: string;
    /** Whether code navigation uses a symbol table (the option `symbols`). */
    readonly symbols: boolean;
    readonly #options: SearchIndexOptions;
    readonly #threads: number;
    readonly #maxFileSize: number;
    readonly #trees = new Map<string, TreeIndex>();
    readonly #stateListeners = new Set<(status: IndexStatus) => void>();
    readonly #refused = new Map<string, IndexStatus>();
    #closed = false;
    readonly #engine: Pick<SearchingEngine, 'workerNice' | 'active'> | undefined;

    /**
     * @param threads - threads a build runs on at once (the background pool's, at low priority: build.ts).
     * @param maxFileSize - files above this many bytes are not indexed (the configured `maxFileSize`).
     * @param engine - the engine whose searches it answers: a build shares the CPU with its searches
     *   (at its `workerNice`) while they run or keep coming.
     */
    constructor(threads: number, maxFileSize: number, options: SearchIndexOptions = {}, engine?: Pick<SearchingEngine, 'workerNice' | 'active'>) {
        this.#threads = threads;
        this.#engine = engine;
        this.#maxFileSize = maxFileSize;
        this.#options = checkIndexOptions(options);
        this.dir = path.resolve(options.dir ?? defaultIndexDir());
        this.symbols = options.symbols ?? envBoolean('LLM_CHAT_FS_INDEX_SYMBOLS', false);
    }

    /** The index of the tree holding `rootReal` for a search skipping `skipDirs`, created (and its build started) when missing; `null` when that tree may not be indexed. */
    tree(rootReal: string, skipDirs: readonly string[], accessRoots: readonly string[] | null): TreeIndex | null {
        if (this.#closed) return null;
        for (const t of this.#trees.values()) if (isInside(rootReal, t.root) && sameSet(t.skipDirs, skipDirs)) return t;
        const root = accessRoots?.find((r) => isInside(rootReal, r)) ?? rootReal;
        // Private: never inside the searched tree (and never indexing the index).
        if (isInside(this.dir, root) || isInside(root, this.dir)) {
            this.#refuse(root);
            return null;
        }
        const key = createHash('sha256').update(`${root}\0${[...skipDirs].sort().join('/')}\0${this.#maxFileSize}`).digest('hex').slice(0, 24);
        const tree = new TreeIndex(root, {
            dir: path.join(this.dir, key),
            maxFileSize: this.#maxFileSize,
            skipDirs,
            threads: this.#threads,
            ...(this.#engine !== undefined && { searchNice: this.#engine.workerNice, searching: () => this.#engine!.active > 0 }),
            ...(this.#options.watch !== undefined && { watch: this.#options.watch }),
            ...(this.#options.watcher !== undefined && { watcher: this.#options.watcher }),
            ...(this.#options.rebuildAfter !== undefined && { rebuildAfter: this.#options.rebuildAfter }),
            ...(this.#options.segmentBytes !== undefined && { segmentBytes: this.#options.segmentBytes }),
            ...(this.#options.merge !== undefined && { merge: this.#options.merge }),
        });
        this.#trees.set(`${root}\0${key}`, tree);
        for (const listener of this.#stateListeners) tree.on('state', listener);
        void tree.start();
        return tree;
    }

    /**
     * Starts indexing the tree holding `dir` (real path) now rather than on its first search, and
     * waits until it is ready or has failed. `null` when that tree may not be indexed.
     */
    async warm(dir: string, skipDirs: readonly string[], accessRoots: readonly string[] | null = null): Promise<TreeIndex | null> {
        const tree = this.tree(dir, skipDirs, accessRoots);
        await tree?.start();
        return tree;
    }

    /** The walk of `search` from the index, or `null` for the scan path (see {@link TreeIndex.plan}). */
    async plan(search: PreparedSearch, rootReal: string): Promise<PlannedWalk | null> {
        const tree = this.tree(rootReal, search.skipDirs, search.root.realRoots);
        return tree === null ? null : tree.plan(search, rootReal);
    }

    /** A tree never indexed since it holds the index directory or lies in it: reported once as failed (status, state listeners), its searches scan. */
    #refuse(root: string): void {
        if (this.#refused.has(root)) return;
        const why = isInside(this.dir, root) ? `the index directory ${this.dir} is inside the tree` : `the tree is inside the index directory ${this.dir}`;
        const status: IndexStatus = { root, state: 'failed', filesDone: 0, filesTotal: 0, entries: 0, textBytes: 0, diskBytes: 0, segments: 0, dirty: 0, error: `${why}; an index never indexes itself: set LLM_CHAT_FS_INDEX_DIR or the option dir to a folder outside the tree` };
        this.#refused.set(root, status);
        for (const listener of this.#stateListeners) listener(status);
    }

    /** A tool's write: every index holding the path notes it as changed. */
    write(event: WriteEvent): void {
        this.touch(event.path);
    }

    /** A tool is changing `abs` (absolute path): every index holding it notes it as changed. */
    touch(abs: string): void {
        for (const t of this.#trees.values()) t.touch(abs);
    }

    /**
     * Calls `listener` with each state change of every tree index, those made later included (a
     * host reports a failed index this way: searches then take the scan path). Returns its removal.
     */
    onState(listener: (status: IndexStatus) => void): () => void {
        this.#stateListeners.add(listener);
        for (const t of this.#trees.values()) t.on('state', listener);
        return () => {
            this.#stateListeners.delete(listener);
            for (const t of this.#trees.values()) t.off('state', listener);
        };
    }

    /** Status of every tree index. */
    status(): IndexStatus[] {
        return [...[...this.#trees.values()].map((t) => t.status()), ...this.#refused.values()];
    }

    /** The tree indexes (for waiting on builds and events). */
    trees(): TreeIndex[] {
        return [...this.#trees.values()];
    }

    /** Stops watching and saves the indexes' state; no new index is made afterwards. */
    async close(): Promise<void> {
        this.#closed = true;
        await Promise.all([...this.#trees.values()].map((t) => t.close()));
        this.#trees.clear();
    }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
    const s = new Set(a);
    return a.length === b.length && b.every((x) => s.has(x));
}
