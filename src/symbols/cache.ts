import fs from 'node:fs/promises';
import type { FileSymbols } from './shared/types.js';

/** Definitions kept at most per engine: about 25 MB, the definitions of some 2,000 large source files. */
const MAX_DEFINITIONS = 100_000;

type Parsed = Extract<FileSymbols, { ok: true }>;

interface Entry {
    /** The file's identity when it was parsed: a change of any of them means another text. */
    stamp: string;
    symbols: Parsed;
    /** The roots the parse was allowed to read under. */
    roots: string;
}

/**
 * Parsed definitions by real path, kept while the file is unchanged: each use compares the file's
 * lstat (device, inode, size, modification and change times in nanoseconds) with the one taken
 * before it was parsed, so a write by any process, a rename over it or a replaced link is a miss.
 * A link is never served from here (the worker checks where it leads). Least recently used first
 * out, bounded by the number of definitions.
 */
export class SymbolCache {
    private readonly entries = new Map<string, Entry>();
    private definitions = 0;

    /** The file's stamp now, or `null` when it is not a regular file (gone, a link, a directory). */
    static async stampOf(real: string): Promise<string | null> {
        const st = await fs.lstat(real, { bigint: true }).catch(() => null);
        if (st === null || !st.isFile()) return null;
        return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    }

    /** The size in bytes a stamp of {@link stampOf} records; 0 for none. */
    static sizeOf(stamp: string | null | undefined): number {
        return stamp == null ? 0 : Number(stamp.split(':')[2]);
    }

    get(real: string, stamp: string | null, roots: string): Parsed | undefined {
        const e = this.entries.get(real);
        if (e === undefined || stamp === null || e.stamp !== stamp || e.roots !== roots) return undefined;
        this.entries.delete(real);
        this.entries.set(real, e);
        return e.symbols;
    }

    set(real: string, stamp: string | null, roots: string, symbols: FileSymbols): void {
        this.drop(real);
        if (stamp === null || !symbols.ok || symbols.references !== undefined) return;
        this.entries.set(real, { stamp, symbols, roots });
        this.definitions += symbols.definitions.length;
        for (const [key] of this.entries) {
            if (this.definitions <= MAX_DEFINITIONS) break;
            this.drop(key);
        }
    }

    get size(): number {
        return this.entries.size;
    }

    private drop(real: string): void {
        const e = this.entries.get(real);
        if (e === undefined) return;
        this.definitions -= e.symbols.definitions.length;
        this.entries.delete(real);
    }
}

const CACHES = new WeakMap<object, SymbolCache>();

/** The cache of one engine (its pool parses, its cache remembers). */
export function symbolCacheOf(engine: object): SymbolCache {
    let c = CACHES.get(engine);
    if (c === undefined) CACHES.set(engine, (c = new SymbolCache()));
    return c;
}
