import { compactTable, Flag, Kind, tableIdsOffset, type FileTable } from './shared/format.js';
import { Turns } from '../engine/turns.js';
import type { ResolvedLink } from './resolved-link.js';
import { NameIdsOnDisk } from './name-ids.js';
import { EntryPaths } from './shared/entry-paths.js';

/**
 * The file table as the index serves it: the stored columns (format.ts `FileTable`), the lookups
 * made from them (relative paths and ids by path, on demand), the entries a search always decides
 * one by one, and posting lists of the entries' names.
 *
 * Perf: no string per entry is made when a table is loaded; paths are made when a search needs
 * them, from the parent column, the directories' ones kept once made. The Linux tree's 84k
 * relative paths (and a map of them) would keep some 18 MB of young objects alive across the
 * host's scavenges, each of which would then hold its event loop for 12-19 ms.
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


/**
 * Links of a table resolved by earlier searches (answer.ts), valid while no change is noted:
 * {@link at} with the change sequence number of the index (changes.ts `Changes.seq`) empties it
 * when that number moved.
 */
export class LinkCache {
    #seq = -1;
    readonly #links = new Map<number, ResolvedLink>();

    /** The cache as of change number `seq` (emptied if changes were noted since it was filled). */
    at(seq: number): Map<number, ResolvedLink> {
        if (seq !== this.#seq) {
            this.#links.clear();
            this.#seq = seq;
        }
        return this.#links;
    }
}

/** The loaded file table with its derived lookups (made by {@link Table.load}). */
export class Table {
    readonly t: FileTable;
    readonly #paths: EntryPaths;
    /** Links resolved by earlier searches (see {@link LinkCache}). */
    readonly links = new LinkCache();
    /** Entries a content search always hands to the walk: links, special files, unreadable directories, files not indexed. */
    always: Uint32Array = new Uint32Array(0);
    /**
     * Posting lists of the entries' names: name searches are planned like content searches.
     * Perf/memory: sorted gram keys, list starts and one array of ids (a few MB for 100k entries).
     */
    #gramKeys: Uint32Array = new Uint32Array(0);
    #gramStarts: Uint32Array = new Uint32Array(1);
    #gramIds: Uint32Array = new Uint32Array(0);

    /** The ids, when read from the table file (a table loaded from one) rather than held in {@link #gramIds}. */
    #idsOnDisk: NameIdsOnDisk | null = null;

    /** The ids whose names hold `gram`, ascending. @throws IndexFormatError when the table file changed since it was loaded. */
    nameIds(gram: number): Uint32Array {
        const r = this.#rank(gram);
        if (r === -1) return new Uint32Array(0);
        const [from, to] = [this.#gramStarts[r]!, this.#gramStarts[r + 1]!];
        return this.#idsOnDisk === null ? this.#gramIds.subarray(from, to) : this.#idsOnDisk.read(from, to);
    }

    /** Lets go of the table file (its generation is no longer served). */
    close(): void {
        this.#idsOnDisk?.close();
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
        this.#paths = new EntryPaths(t);
    }

    /** Relative path of entry `id` (`''` for the root; components joined by `/`). */
    pathOf(id: number): string {
        return this.#paths.pathOf(id);
    }

    /**
     * Id of the entry at relative path `rel` (`''`: the root), or `undefined`; each component
     * found with {@link childOf}.
     */
    idOf(rel: string): number | undefined {
        if (rel === '') return 0;
        const t = this.t;
        let dir = 0;
        let from = 0;
        for (;;) {
            const slash = rel.indexOf('/', from);
            const name = slash === -1 ? rel.slice(from) : rel.slice(from, slash);
            if (name === '') return undefined;
            const found = this.childOf(dir, name);
            if (found === undefined) return undefined;
            if (slash === -1) return found;
            if (t.kind[found] !== Kind.Dir) return undefined;
            dir = found;
            from = slash + 1;
        }
    }

    /**
     * Id of the entry named `name` in directory `dir`, or `undefined`: the children of a
     * directory follow it in name order up to its `end`, a subdirectory's subtree skipped in one
     * step (O(children) name comparisons, made in place: no string per child).
     */
    childOf(dir: number, name: string): number | undefined {
        const t = this.t;
        for (let c = dir + 1, end = t.end[dir]!; c < end; c = t.end[c]!) {
            const d = t.names.compare(c, name);
            if (d === 0) return c;
            if (d > 0) return undefined;
        }
        return undefined;
    }

    /** Whether an entry has relative path `rel`. */
    has(rel: string): boolean {
        return this.idOf(rel) !== undefined;
    }

    /**
     * The table of `t`; with `file`, the table file `t` was decoded from or written to: its
     * columns are then copied out of the decoded buffer and its name posting lists read from the
     * file on use (memory: a table held whole is ~85 bytes an entry, ~45 without them); with
     * `idsOnDisk`, `t` is such a copy already and its lists are read from there.
     */
    static async load(t: FileTable, file?: string | NameIdsOnDisk): Promise<Table> {
        const turns = new Turns();
        const pause = (): Promise<void> => (turns.due ? turns.yield() : Promise.resolve());
        let idsOnDisk: NameIdsOnDisk | null = null;
        if (file instanceof NameIdsOnDisk) idsOnDisk = file;
        else if (file !== undefined) {
            idsOnDisk = await NameIdsOnDisk.of(file, tableIdsOffset(t), t.grams.ids, pause);
            t = await compactTable(t, pause);
        }
        const table = new Table(t);
        table.#idsOnDisk = idsOnDisk;
        const n = t.names.length;
        const always: number[] = [];
        for (let i = 1; i < n; i++) {
            const k = t.kind[i]!;
            const f = t.flags[i]!;
            if (k === Kind.Link || k === Kind.Other || (k === Kind.Dir && f & Flag.Unreadable) || (k === Kind.File && f & Flag.Unindexed)) always.push(i);
            if ((i & 4095) === 0 && turns.due) await turns.yield();
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
