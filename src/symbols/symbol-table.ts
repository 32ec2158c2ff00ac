import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { takeLock } from '../search-index/lock.js';
import type { TreeIndex } from '../search-index/tree-index.js';
import type { ServedGeneration } from '../search-index/tree-state.js';
import { SYMBOLS_FILE } from './shared/symbol-format.js';
import { SymbolStore } from './symbol-store.js';
import { startBuildProcess } from './build-process.js';
import { isPartFile, type BuildSpec } from './table-build.js';

/** Source files per part at most (build-plan.ts: bytes of source per part). */
const PART_FILES = 2_000;
/** Parse time at most per file in the build's parts; a file over it is parsed again alone (below). */
const BUILD_PARSE_MS = 10_000;
/**
 * Parse time at most of a file's second try, alone on the large-file thread after the parts. The
 * limit is wall-clock at idle priority, so on a busy machine it measures the load more than the
 * file: 120 s is some 25 times the idle parse of the kernel's largest generated headers, and
 * still ends a pathological file, which is then parsed when a call asks for it.
 */
const RETRY_PARSE_MS = 120_000;

/** The build's parse limits per file (ms): the parts', and the second try's. */
export interface BuildLimits {
    parseMs: number;
    retryMs: number;
}
const BUILD_LIMITS: Readonly<BuildLimits> = Object.freeze({ parseMs: BUILD_PARSE_MS, retryMs: RETRY_PARSE_MS });
/** The lock file of a table's build, beside it in the generation's folder. */
const SYMBOLS_LOCK = 'symbols.lock';
/** How often a process waiting for another's build looks again. */
const LOCK_POLL_MS = 500;
/** A failed build is tried again by a call this long after. */
const RETRY_MS = 60_000;

/** What a build of the table measured (benchmarks). */
export interface SymbolBuildFigures {
    files: number;
    definitions: number;
    names: number;
    bytes: number;
    ms: number;
    /** The build process's peak resident memory (bytes) and CPU time, all its threads (ms). */
    peakRss: number;
    cpuMs: number;
}

/**
 * The symbol table of one tree's index: built for each served generation on the index's
 * background pool (at the build's priority: idle, or the searches' nice while they keep coming),
 * right after the generation is first asked for, and stored in its folder (`symbols.bin`, checked
 * when loaded; a file that fails is removed and made again). Until it is loaded, calls take the
 * bounded scan.
 */
export class TreeSymbols {
    readonly #tree: TreeIndex;
    #gen: string | null = null;
    #store: SymbolStore | null = null;
    #making: Promise<void> | null = null;
    #stopBuild: (() => Promise<void>) | null = null;
    /** The build process's pid while a build runs (benchmarks add its memory to the host's). */
    buildPid: number | undefined;
    /** The last build's figures, and the last failure's message. */
    figures: SymbolBuildFigures | undefined;
    error: string | undefined;
    /** Calls the table answered. */
    answered = 0;
    /** After a failed build, the next call's wait before the table is made again (ms). */
    retryMs = RETRY_MS;
    /** The parse limits of the next build (tests make them small). */
    limits: Readonly<BuildLimits> = BUILD_LIMITS;
    #failedAt = 0;

    constructor(tree: TreeIndex) {
        this.#tree = tree;
        tree.on('state', (status: { state: string }) => {
            if (status.state !== 'closed') return;
            // A build under way stops with its index (its part files go with it).
            void this.#stopBuild?.();
            void this.#store?.close();
            [this.#gen, this.#store] = [null, null];
        });
    }

    /** The table of `served`'s generation when loaded; else `null`, its loading or build started. */
    current(served: ServedGeneration): SymbolStore | null {
        if (this.#gen === served.gen && this.#store !== null && !this.#store.broken) return this.#store;
        // A table whose file changed under it fails its load's check and is made again.
        if (this.#store?.broken === true) this.#making = null;
        const retry = this.error !== undefined && Date.now() - this.#failedAt >= this.retryMs;
        if (this.#making === null || this.#gen !== served.gen || retry) this.#start(served);
        return null;
    }

    /** Resolves once the table of the generation served now is loaded, or its build failed. */
    async ready(): Promise<SymbolStore | null> {
        const served = this.#tree.served();
        if (served === null) return null;
        this.current(served);
        await this.#making;
        return this.#gen === served.gen ? this.#store : null;
    }

    #start(served: ServedGeneration): void {
        const old = this.#store;
        [this.#gen, this.#store, this.error] = [served.gen, null, undefined];
        void old?.close();
        const making = this.#make(served).then(
            (store) => {
                if (this.#gen === served.gen) this.#store = store;
                else void store.close();
            },
            (err: unknown) => {
                if (this.#gen !== served.gen) return;
                this.error = err instanceof Error ? err.message : String(err);
                this.#failedAt = Date.now();
            },
        );
        this.#making = making;
    }

    /**
     * The generation's table loaded, made first when missing or not whole. One process makes it at
     * a time (a lock file beside it, taken over from a process that died); another waits and then
     * loads what the first made.
     */
    async #make(served: ServedGeneration): Promise<SymbolStore> {
        const file = path.join(served.genDir, SYMBOLS_FILE);
        const tableSize = served.table.size;
        try {
            return await SymbolStore.load(file, tableSize);
        } catch {
            // Missing, or not whole: made under the lock.
        }
        for (;;) {
            if (this.#gen !== served.gen) throw new Error('the symbol table was stopped with its index');
            const lock = await takeLock(served.genDir, SYMBOLS_LOCK);
            if (lock === null) {
                await sleep(LOCK_POLL_MS);
                continue;
            }
            try {
                try {
                    return await SymbolStore.load(file, tableSize);
                } catch {
                    // Missing, or not whole: made again (a wrong answer is never served from it).
                    await fsp.rm(file, { force: true });
                }
                this.figures = await buildSymbols(served, file, (stop, pid) => ([this.#stopBuild, this.buildPid] = [stop, pid]), PART_FILES, this.limits).finally(() => (this.buildPid = undefined));
                return await SymbolStore.load(file, tableSize);
            } finally {
                await lock.release();
            }
        }
    }
}

/**
 * Parses the generation's source files in parts (of `partFiles` files at most) and joins them into
 * `file`, in a process of its own (build-process.ts) at the build's priority, which plans the parts
 * from the table's columns (build-plan.ts); `started` is given the means to stop it and its pid. A
 * file whose parse timed out is parsed again after the parts, alone on the large-file thread with
 * `limits.retryMs`; only a file over that is recorded as timed out. A build that fails, is stopped
 * or whose process dies leaves none of its files behind.
 */
export async function buildSymbols(served: ServedGeneration, file: string, started?: (stop: () => Promise<void>, pid: number | undefined) => void, partFiles = PART_FILES, limits: Readonly<BuildLimits> = BUILD_LIMITS): Promise<SymbolBuildFigures> {
    const t0 = performance.now();
    const t = served.table.t;
    const tag = randomBytes(4).toString('hex');
    const stem = `${file}.${process.pid}.${tag}`;
    const spec: BuildSpec = { root: served.root, tableSize: served.table.size, maxFileSize: served.maxFileSize, threads: served.threads, partFiles, dir: served.genDir, tag, file, stem, parseMs: limits.parseMs, retryMs: limits.retryMs };
    const build = startBuildProcess(spec, { names: t.names.bytes, parent: t.parent, kind: t.kind, size: t.size }, served.searchNice, () => served.sharedNice());
    started?.(() => build.stop(), build.pid);
    try {
        const r = await build.outcome;
        return { files: r.files, definitions: r.definitions, names: r.names, bytes: r.bytes, ms: Math.round(performance.now() - t0), peakRss: r.peakRss, cpuMs: r.cpuMs };
    } catch (err) {
        await build.stop();
        // The process's part files and the merge's temporary files (`stem` and a suffix).
        const debris = (n: string): boolean => isPartFile(n, tag) || n.startsWith(`${path.basename(stem)}.`);
        for (const n of await fsp.readdir(served.genDir).catch(() => [])) if (debris(n)) await fsp.rm(path.join(served.genDir, n), { force: true });
        throw err;
    }
}

const TABLES = new WeakMap<TreeIndex, TreeSymbols>();

/** The symbol table of `tree`. */
export function symbolsOf(tree: TreeIndex): TreeSymbols {
    let s = TABLES.get(tree);
    if (s === undefined) TABLES.set(tree, (s = new TreeSymbols(tree)));
    return s;
}
