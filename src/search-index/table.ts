import { Flag, Kind, type FileTable } from '../common/search-index/format.js';
import { Turns } from '../turns.js';

/**
 * The file table as the index serves it: the stored columns (format.ts `FileTable`) and the
 * lookups derived from them when it is loaded (relative paths, ids by path, the entries a search
 * always decides one by one, and posting lists of the entries' names).
 */

export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Component-wise walk order of two `/`-separated relative paths. */
export function compareWalk(a: string, b: string): number {
    const x = a.split('/');
    const y = b.split('/');
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) {
        const d = byName(x[i]!, y[i]!);
        if (d !== 0) return d;
    }
    return x.length - y.length;
}


/** Shards of {@link PathIds}. */
const SHARDS = 64;

/**
 * Table ids by relative path. Perf: 64 small maps instead of one, so that growing one (a rehash,
 * a single synchronous step) never holds the event loop long while a large table loads.
 */
export class PathIds {
    readonly #maps = Array.from({ length: SHARDS }, () => new Map<string, number>());

    #shard(rel: string): Map<string, number> {
        const n = rel.length;
        const h = n === 0 ? 0 : (rel.charCodeAt(n - 1) * 31 + (n > 1 ? rel.charCodeAt(n - 2) : 0) * 7 + n) % SHARDS;
        return this.#maps[h]!;
    }

    get(rel: string): number | undefined {
        return this.#shard(rel).get(rel);
    }

    has(rel: string): boolean {
        return this.#shard(rel).has(rel);
    }

    set(rel: string, id: number): void {
        this.#shard(rel).set(rel, id);
    }
}

/** The loaded file table with its derived lookups (made by {@link Table.load}). */
export class Table {
    readonly t: FileTable;
    /** Relative path of each entry (`''` for the root). */
    readonly paths: string[];
    readonly idOf = new PathIds();
    /** Entries a content search always hands to the walk: links, special files, unreadable directories, files not indexed. */
    always: Uint32Array = new Uint32Array(0);
    /**
     * Posting lists of the entries' names: name searches are planned like content searches.
     * Perf/memory: sorted gram keys, list starts and one array of ids (a few MB for 100k entries).
     */
    #gramKeys: Uint32Array = new Uint32Array(0);
    #gramStarts: Uint32Array = new Uint32Array(1);
    #gramIds: Uint32Array = new Uint32Array(0);

    /** The ids whose names hold `gram`, ascending. */
    nameIds(gram: number): Uint32Array {
        const r = this.#rank(gram);
        return r === -1 ? this.#gramIds.subarray(0, 0) : this.#gramIds.subarray(this.#gramStarts[r], this.#gramStarts[r + 1]);
    }

    /** How many names hold `gram`. */
    nameCount(gram: number): number {
        const r = this.#rank(gram);
        return r === -1 ? 0 : this.#gramStarts[r + 1]! - this.#gramStarts[r]!;
    }

    #rank(gram: number): number {
        const keys = this.#gramKeys;
        let a = 0;
        let b = keys.length - 1;
        while (a <= b) {
            const m = (a + b) >>> 1;
            const k = keys[m]!;
            if (k === gram) return m;
            if (k < gram) a = m + 1;
            else b = m - 1;
        }
        return -1;
    }

    private constructor(t: FileTable) {
        this.t = t;
        this.paths = new Array<string>(t.names.length);
    }

    /**
     * Derives the lookups in slices of a few milliseconds between yields (Perf: never blocks the
     * host long). `paths`: the entries' relative paths when the caller has them already (the
     * build: fewer strings made on the host, less for its garbage collector to move).
     */
    static async load(t: FileTable, paths?: readonly string[]): Promise<Table> {
        const table = new Table(t);
        const n = t.names.length;
        table.paths[0] = '';
        table.idOf.set('', 0);
        const always: number[] = [];
        const turns = new Turns();
        for (let i = 1; i < n; i++) {
            const p = t.parent[i]!;
            const name = t.names[i]!;
            const rel = paths !== undefined ? paths[i]! : p === 0 ? name : `${table.paths[p]}/${name}`;
            table.paths[i] = rel;
            table.idOf.set(rel, i);
            const k = t.kind[i]!;
            const f = t.flags[i]!;
            if (k === Kind.Link || k === Kind.Other || (k === Kind.Dir && f & Flag.Unreadable) || (k === Kind.File && f & Flag.Unindexed)) always.push(i);
            if ((i & 255) === 0 && turns.due) await turns.yield();
        }
        table.always = Uint32Array.from(always);
        table.#gramKeys = t.grams.keys;
        table.#gramStarts = t.grams.starts;
        table.#gramIds = t.grams.ids;
        return table;
    }

    get size(): number {
        return this.t.names.length;
    }
}
