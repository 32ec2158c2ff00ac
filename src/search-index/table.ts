import { forEachGram } from '../common/search/fold.js';
import { Flag, Kind, type FileTable } from '../common/search-index/format.js';

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

/** Milliseconds of work between two yields to the event loop while a table is loaded. */
const SLICE_MS = 4;
/** Gives the event loop a turn. */
export const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));

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

/**
 * Per-gram counters of {@link Table.load}: open addressing (linear probing) over typed arrays,
 * grown at half full. Perf/memory: a load of a 90,000-entry table makes some 1.3 million gram
 * lookups; with two Maps they were most of its time, and Map growth made garbage on the host.
 * Ids start at 1, so `last` 0 means "none yet".
 */
class GramSlots {
    #bits = 12;
    /** Per slot: its gram + 1 (grams are 24-bit), 0 when free. */
    #keys = new Uint32Array(1 << 12);
    /** Per slot: the names holding the gram (then, while the lists are filled, the next free position). */
    count = new Uint32Array(1 << 12);
    /** Per slot: the last id counted. */
    last = new Int32Array(1 << 12);
    #size = 0;

    /** The slot of `gram`, taken when missing. */
    slot(gram: number): number {
        const mask = (1 << this.#bits) - 1;
        let s = Math.imul(gram, 0x9e3779b1) >>> (32 - this.#bits);
        for (;;) {
            const k = this.#keys[s]!;
            if (k === gram + 1) return s;
            if (k === 0) break;
            s = (s + 1) & mask;
        }
        if (2 * (this.#size + 1) > this.#keys.length) {
            this.#grow();
            return this.slot(gram);
        }
        this.#keys[s] = gram + 1;
        this.#size++;
        return s;
    }

    /** The grams in use, in slot order. */
    keys(): Uint32Array<ArrayBuffer> {
        const out = new Uint32Array(this.#size);
        let n = 0;
        for (const k of this.#keys) if (k !== 0) out[n++] = k - 1;
        return out;
    }

    #grow(): void {
        const keys = this.#keys;
        const count = this.count;
        const last = this.last;
        this.#bits++;
        this.#keys = new Uint32Array(1 << this.#bits);
        this.count = new Uint32Array(1 << this.#bits);
        this.last = new Int32Array(1 << this.#bits);
        this.#size = 0;
        for (let s = 0; s < keys.length; s++) {
            if (keys[s] === 0) continue;
            const t = this.slot(keys[s]! - 1);
            this.count[t] = count[s]!;
            this.last[t] = last[s]!;
        }
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
    #gramKeys = new Uint32Array(0);
    #gramStarts = new Uint32Array(1);
    #gramIds = new Uint32Array(0);

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
        // Name grams in two passes (count per gram, then fill): Memory: no growing arrays per gram.
        const slots = new GramSlots();
        let sliceStart = performance.now();
        const maybeYield = async (i: number): Promise<void> => {
            if ((i & 255) === 0 && performance.now() - sliceStart > SLICE_MS) {
                await yieldNow();
                sliceStart = performance.now();
            }
        };
        let id = 0;
        const countGram = (g: number): void => {
            const s = slots.slot(g);
            if (slots.last[s] === id) return;
            slots.last[s] = id;
            slots.count[s]!++;
        };
        for (let i = 1; i < n; i++) {
            const p = t.parent[i]!;
            const name = t.names[i]!;
            const rel = paths !== undefined ? paths[i]! : p === 0 ? name : `${table.paths[p]}/${name}`;
            table.paths[i] = rel;
            table.idOf.set(rel, i);
            const k = t.kind[i]!;
            const f = t.flags[i]!;
            if (k === Kind.Link || k === Kind.Other || (k === Kind.Dir && f & Flag.Unreadable) || (k === Kind.File && f & Flag.Unindexed)) always.push(i);
            id = i;
            forEachGram(name, countGram);
            await maybeYield(i);
        }
        table.always = Uint32Array.from(always);
        const keys = slots.keys().sort();
        const starts = new Uint32Array(keys.length + 1);
        // From here on a slot's count is its gram's next free position in `ids`.
        let total = 0;
        for (let r = 0; r < keys.length; r++) {
            const s = slots.slot(keys[r]!);
            starts[r] = total;
            total += slots.count[s]!;
            slots.count[s] = starts[r]!;
            await maybeYield(r);
        }
        starts[keys.length] = total;
        const ids = new Uint32Array(total);
        slots.last.fill(0);
        const fill = (g: number): void => {
            const s = slots.slot(g);
            if (slots.last[s] === id) return;
            slots.last[s] = id;
            ids[slots.count[s]!++] = id;
        };
        for (let i = 1; i < n; i++) {
            id = i;
            forEachGram(t.names[i]!, fill);
            await maybeYield(i);
        }
        table.#gramKeys = keys;
        table.#gramStarts = starts;
        table.#gramIds = ids;
        return table;
    }

    get size(): number {
        return this.t.names.length;
    }
}
