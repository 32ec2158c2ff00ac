import fs from 'node:fs/promises';
import type { FileSymbols } from './shared/types.js';
import { stampOf } from './file-stamp.js';

/** Definitions kept at most per engine: about 25 MB, the definitions of some 2,000 large source files. */
const MAX_DEFINITIONS = 100_000;
/**
 * Files a symbol table lists as timed out whose outcome is kept apart (see {@link SymbolCache.set}),
 * and their definitions at most: room for the kernel's two largest generated headers, whose
 * 205,251 definitions held 78 MB of heap (so up to about 95 MB).
 */
const MAX_KEPT_FILES = 16;
const MAX_KEPT_DEFINITIONS = 250_000;

type Parsed = Extract<FileSymbols, { ok: true }>;

interface Entry {
    /** The file's identity when it was parsed: a change of any of them means another text. */
    stamp: string;
    symbols: Parsed;
    /** The roots the parse was allowed to read under. */
    roots: string;
}

/** A kept outcome: definitions, or a timeout under the parse limit `parseMs`. */
interface Kept {
    stamp: string;
    roots: string;
    symbols: FileSymbols;
    parseMs: number;
}

const countOf = (symbols: FileSymbols): number => (symbols.ok ? symbols.definitions.length : 0);

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
    private readonly kept = new Map<string, Kept>();
    private keptDefinitions = 0;

    /** The file's stamp now, or `null` when it is not a regular file (gone, a link, a directory). */
    static async stampOf(real: string): Promise<string | null> {
        const st = await fs.lstat(real, { bigint: true }).catch(() => null);
        if (st === null || !st.isFile()) return null;
        return stampOf(st);
    }

    /** The size in bytes a stamp of {@link stampOf} records; 0 for none. */
    static sizeOf(stamp: string | null | undefined): number {
        return stamp == null ? 0 : Number(stamp.split(':')[2]);
    }

    /**
     * A kept outcome of `real` (see {@link set}) while the file is unchanged: its definitions, or
     * its timeout when the limit it timed out under is at least `parseMs` (a call allowing more
     * time parses it again).
     */
    getKept(real: string, stamp: string | null, roots: string, parseMs: number): FileSymbols | undefined {
        const e = this.kept.get(real);
        if (e === undefined || stamp === null || e.stamp !== stamp || e.roots !== roots || (!e.symbols.ok && e.parseMs < parseMs)) return undefined;
        this.kept.delete(real);
        this.kept.set(real, e);
        return e.symbols;
    }

    get(real: string, stamp: string | null, roots: string): Parsed | undefined {
        const kept = this.getKept(real, stamp, roots, Infinity);
        if (kept?.ok === true) return kept;
        const e = this.entries.get(real);
        if (e === undefined || stamp === null || e.stamp !== stamp || e.roots !== roots) return undefined;
        this.entries.delete(real);
        this.entries.set(real, e);
        return e.symbols;
    }

    /**
     * With `keep` (a file the symbol table lists as timed out, which every call of the table
     * parses), the outcome is kept apart from the other entries' bound: its definitions however
     * many (above that bound they would be let go as soon as set, and the file parsed by every
     * call), or its timeout, so a pathological file costs one parse per change, not one per call.
     */
    set(real: string, stamp: string | null, roots: string, symbols: FileSymbols, keep?: { parseMs: number }): void {
        this.drop(real);
        this.dropKept(real);
        if (keep !== undefined) {
            if (stamp === null || (symbols.ok && symbols.references !== undefined) || (!symbols.ok && (symbols.kind !== 'timeout' || symbols.late === true))) return;
            this.kept.set(real, { stamp, roots, symbols, parseMs: keep.parseMs });
            this.keptDefinitions += countOf(symbols);
            for (const [key] of this.kept) {
                if (key === real || (this.kept.size <= MAX_KEPT_FILES && this.keptDefinitions <= MAX_KEPT_DEFINITIONS)) break;
                this.dropKept(key);
            }
            return;
        }
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

    /** Outcomes kept apart (see {@link set}). */
    get keptSize(): number {
        return this.kept.size;
    }

    private dropKept(real: string): void {
        const e = this.kept.get(real);
        if (e === undefined) return;
        this.keptDefinitions -= countOf(e.symbols);
        this.kept.delete(real);
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
