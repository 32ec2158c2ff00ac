import { crc32 } from 'node:zlib';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Piscina } from 'piscina';
import { EntryKind, type PreparedSearch, type Segment } from '../engine/protocol.js';
import type { IgnoreFrame, SearchHit } from '../engine/types.js';
import { compileGlobs, IgnoreCache, readGitignoreFile, type PathTest } from '../engine/filters.js';
import { isInside } from '../access/contain.js';
import { decodeTable, encodeTable, Flag, FORMAT_VERSION, IndexFormatError, Kind, SegmentReader, type FileTable } from './format.js';
import { candidates, intersect } from './postings.js';
import { forEachGram } from './fold.js';
import { candidates as candidatesOf, planQuery } from './planner.js';
import type { IndexCheckResult, IndexCheckTask, IndexChunkResult, IndexChunkTask, IndexWalkResult, WalkedTable } from './protocol.js';
import { Piscina as PiscinaPool } from 'piscina';
import { workerEntry } from '../engine/engine.js';

/**
 * The search index of one directory tree (see README "Search index"): a file table in walk
 * order and posting lists (trigram -> files) in immutable segment files, built on the engine's
 * worker pool, persisted in a private cache directory, kept fresh by the tools (which report the
 * paths they change) and a file watcher (@parcel/watcher's live events); what changed while no
 * process watched is found when the index is reopened, by listing the tree again and comparing
 * each entry's type, size and modification time with the table (on the pool).
 *
 * Freshness: a changed path is "dirty" until the next rebuild. A dirty file is always a
 * candidate (its current content is scanned), a dirty directory is walked as the scan path walks
 * it; deleted entries disappear; paths under a dirty root of the search make the whole search
 * take the scan path. Nothing is ever answered from stale data: when the watcher is unavailable
 * or fails (an overflow), every search takes the scan path until a rebuild completes.
 */

/** What a {@link TreeIndex} does now. */
export type IndexState = 'idle' | 'building' | 'ready' | 'failed' | 'closed';

/** Progress and figures of an index. */
export interface IndexStatus {
    root: string;
    state: IndexState;
    /** Build phase while building. */
    phase?: 'walk' | 'content' | 'write';
    /** Files read / to read in the content phase. */
    filesDone: number;
    filesTotal: number;
    /** Entries (files, directories, links) in the file table. */
    entries: number;
    /** Bytes of text indexed. */
    textBytes: number;
    /** Bytes the index takes on disk. */
    diskBytes: number;
    /** Paths changed since the build (candidates whatever the query). */
    dirty: number;
    /** Milliseconds of the last build, or of the reopen. */
    buildMs?: number;
    openMs?: number;
    /** Why the index is not used, when failed. */
    error?: string;
}

export interface TreeIndexOptions {
    /** Directory of this tree's index files (private, outside the tree). */
    dir: string;
    /** Files above this many bytes are not indexed (always candidates). */
    maxFileSize: number;
    /** Directory names left out of the index (a search must skip them too for the index to answer it). */
    skipDirs: readonly string[];
    /** The tree holding more entries than this is not indexed (default 3,000,000). */
    maxEntries?: number;
    /** Bytes of file content per segment (default 64 MiB). */
    segmentBytes?: number;
    /** Dirty paths above which the index is rebuilt in the background (default 2,000). */
    rebuildAfter?: number;
    /** Threads a build runs on at once. */
    threads: number;
    /** Watch for outside changes (default true). Without a watcher the index is never used. */
    watch?: boolean;
}

interface Manifest {
    version: number;
    root: string;
    skipDirs: string[];
    maxFileSize: number;
    gen: string;
    segments: string[];
    textBytes: number;
    diskBytes: number;
    buildMs: number;
}

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

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

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

/** Entries processed between two yields to the event loop while a table is loaded. */
const YIELD_EVERY = 4096;
const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));

/** The loaded file table with its derived lookups (made by {@link Table.load}). */
class Table {
    readonly t: FileTable;
    /** Relative path of each entry (`''` for the root). */
    readonly paths: string[];
    readonly idOf = new Map<string, number>();
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
        const keys = this.#gramKeys;
        let a = 0;
        let b = keys.length - 1;
        while (a <= b) {
            const m = (a + b) >>> 1;
            const k = keys[m]!;
            if (k === gram) return this.#gramIds.subarray(this.#gramStarts[m], this.#gramStarts[m + 1]);
            if (k < gram) a = m + 1;
            else b = m - 1;
        }
        return this.#gramIds.subarray(0, 0);
    }

    private constructor(t: FileTable) {
        this.t = t;
        this.paths = new Array<string>(t.names.length);
    }

    /** Derives the lookups, yielding to the event loop every few thousand entries (Perf: never blocks the host long). */
    static async load(t: FileTable): Promise<Table> {
        const table = new Table(t);
        const n = t.names.length;
        table.paths[0] = '';
        table.idOf.set('', 0);
        const always: number[] = [];
        const lists = new Map<number, number[]>();
        for (let i = 1; i < n; i++) {
            const p = t.parent[i]!;
            const name = t.names[i]!;
            const rel = p === 0 ? name : `${table.paths[p]}/${name}`;
            table.paths[i] = rel;
            table.idOf.set(rel, i);
            const k = t.kind[i]!;
            const f = t.flags[i]!;
            if (k === Kind.Link || k === Kind.Other || (k === Kind.Dir && f & Flag.Unreadable) || (k === Kind.File && f & Flag.Unindexed)) always.push(i);
            forEachGram(name, (g) => {
                let l = lists.get(g);
                if (l === undefined) lists.set(g, (l = []));
                if (l[l.length - 1] !== i) l.push(i);
            });
            if (i % YIELD_EVERY === 0) await yieldNow();
        }
        table.always = Uint32Array.from(always);
        const keys = Uint32Array.from(lists.keys()).sort();
        const starts = new Uint32Array(keys.length + 1);
        let total = 0;
        keys.forEach((g, r) => {
            starts[r] = total;
            total += lists.get(g)!.length;
        });
        starts[keys.length] = total;
        const ids = new Uint32Array(total);
        for (let r = 0; r < keys.length; r++) {
            ids.set(lists.get(keys[r]!)!, starts[r]!);
            if (r % YIELD_EVERY === 0) await yieldNow();
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

/** An entry handed to the walk that the table does not describe (changed since the build). */
interface Extra {
    rel: string;
    name: string;
    parent: number;
    kind: number;
    /** The base id it goes before in walk order. */
    key: number;
}

/** One tree's index. Events: `state` (IndexStatus) on every state change, `progress` during a build, `change` after outside changes are noted. */
export class TreeIndex extends EventEmitter {
    readonly root: string;
    readonly #opts: Required<Omit<TreeIndexOptions, 'skipDirs'>> & { skipDirs: readonly string[] };
    readonly #pool: () => Piscina;
    #state: IndexState = 'idle';
    #phase: IndexStatus['phase'];
    #error: string | undefined;
    #table: Table | null = null;
    #segments: SegmentReader[] = [];
    #manifest: Manifest | null = null;
    /** Changed paths (relative), with the sequence number of the change. */
    #dirty = new Map<string, number>();
    /** Directories whose times changed while no process watched (their table times are stale). */
    #dirTimes = new Set<string>();
    #seq = 0;
    #watcher: Subscription | null = null;
    /** The watcher failed (overflow, error): nothing is known about outside changes until the next build. */
    #blind = false;
    #filesDone = 0;
    #filesTotal = 0;
    #openMs: number | undefined;
    #starting: Promise<void> | null = null;
    /** Searches the index answered, and those it left to the scan path while ready. */
    readonly counts = { answered: 0, scanned: 0 };
    /** The last answered search: files the index kept as candidates under the searched directory, and entries handed to the workers. */
    lastPlan = { candidates: 0, handedOut: 0 };

    constructor(root: string, pool: () => Piscina, options: TreeIndexOptions) {
        super();
        this.root = root;
        this.#pool = pool;
        this.#opts = {
            maxEntries: 3_000_000,
            segmentBytes: 64 * 1024 * 1024,
            rebuildAfter: 2000,
            watch: true,
            ...options,
        };
    }

    get state(): IndexState {
        return this.#state;
    }

    /** Directory names the index leaves out. */
    get skipDirs(): readonly string[] {
        return this.#opts.skipDirs;
    }

    status(): IndexStatus {
        const m = this.#manifest;
        return {
            root: this.root,
            state: this.#state,
            ...(this.#phase !== undefined && { phase: this.#phase }),
            filesDone: this.#filesDone,
            filesTotal: this.#filesTotal,
            entries: this.#table?.size ?? 0,
            textBytes: m?.textBytes ?? 0,
            diskBytes: m?.diskBytes ?? 0,
            dirty: this.#dirty.size,
            ...(m && { buildMs: m.buildMs }),
            ...(this.#openMs !== undefined && { openMs: this.#openMs }),
            ...(this.#error !== undefined && { error: this.#error }),
        };
    }

    #setState(state: IndexState, error?: string): void {
        this.#state = state;
        if (error !== undefined) this.#error = error;
        this.emit('state', this.status());
    }

    /**
     * Opens the stored index (brought up to date with the changes since it was saved) or builds
     * it. Resolves when the index is ready or has failed (see {@link status}); never rejects.
     */
    start(): Promise<void> {
        return (this.#starting ??= this.#start().catch((err: unknown) => {
            this.#setState('failed', err instanceof Error ? err.message : String(err));
        }));
    }

    async #start(): Promise<void> {
        const t0 = performance.now();
        await fsp.mkdir(this.#opts.dir, { recursive: true, mode: 0o700 });
        // Perf: the stored table loads while the watcher starts (both take a while on a large tree).
        const stored = this.#loadStored();
        if (this.#opts.watch) await this.#subscribe();
        if (this.#state === 'closed' || (this.#opts.watch && this.#watcher === null)) {
            const s = await stored;
            for (const seg of s?.segs ?? []) seg.close();
            if (this.#state !== 'closed') this.#setState('failed', 'file watcher unavailable: searches use the scan path');
            return;
        }
        if (await this.#open(await stored)) {
            this.#openMs = Math.round(performance.now() - t0);
            this.#setState('ready');
            return;
        }
        await this.#build();
    }

    async #subscribe(): Promise<void> {
        const w = await loadWatcher();
        if (w === null) return;
        try {
            this.#watcher = await w.subscribe(
                this.root,
                (err, events) => {
                    if (err) {
                        // An overflow or backend failure: outside changes are unknown from here on.
                        this.#blind = true;
                        this.emit('change');
                        this.#scheduleRebuild();
                        return;
                    }
                    for (const e of events) this.#noteAbs(e.path);
                    this.emit('change');
                },
                { ignore: this.#opts.skipDirs.map((d) => `**/${d}`) },
            );
        } catch {
            this.#watcher = null;
        }
    }

    /** The tools report a path they are about to change or have changed (absolute, real or as written). */
    touch(abs: string): void {
        this.#noteAbs(abs);
    }

    #noteAbs(abs: string): void {
        const rel = path.relative(this.root, abs);
        if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return;
        this.#note(rel.split(path.sep).join('/'));
    }

    #note(rel: string): void {
        this.#dirty.set(rel, ++this.#seq);
        if (this.#dirty.size > this.#opts.rebuildAfter) this.#scheduleRebuild();
    }

    /**
     * Brings the index up to date with the disk now: the tree is listed again (on the pool) and
     * every entry whose type, size or modification time differs from the table is noted as
     * changed. Use it where waiting for the watcher's event is not possible (tests, after a bulk
     * change); a reopened index does the same once.
     */
    async sync(): Promise<void> {
        const m = this.#manifest;
        if (m === null || this.#state !== 'ready') return;
        await this.#check(m);
    }

    /** Notes what changed since the table of `m` was made. @throws Error when the check fails. */
    async #check(m: Manifest): Promise<void> {
        this.#noteChanges(await this.#changes(m));
    }

    #noteChanges(c: { changed: string[]; dirTimes: string[] }): void {
        for (const rel of c.changed) this.#note(rel);
        for (const rel of c.dirTimes) this.#dirTimes.add(rel);
    }

    /** What changed since the table of `m` was made (listed again on the pool). @throws Error when the check fails. */
    async #changes(m: Manifest): Promise<{ changed: string[]; dirTimes: string[] }> {
        const task: IndexCheckTask = {
            op: 'index-check',
            root: this.root,
            skipDirs: [...this.#opts.skipDirs],
            maxEntries: this.#opts.maxEntries,
            table: path.join(this.#opts.dir, m.gen, 'table.bin'),
        };
        // A thread of its own (a one-thread pool on the engine's worker code), which exits after:
        // the engine's threads would keep the check's memory (some 100 MB for a large tree).
        const oneOff = new PiscinaPool({ ...workerEntry(), minThreads: 0, maxThreads: 1 });
        let res: IndexCheckResult;
        try {
            res = (await oneOff.run(task)) as IndexCheckResult;
        } finally {
            await oneOff.destroy();
        }
        if (!res.ok) throw new Error(`index check failed: ${res.message}`);
        return res;
    }

    // ---- storage ----

    get #manifestFile(): string {
        return path.join(this.#opts.dir, 'manifest.json');
    }

    async #readManifest(): Promise<Manifest | null> {
        let text: string;
        try {
            text = await fsp.readFile(this.#manifestFile, 'utf8');
        } catch {
            return null;
        }
        text = text.trimEnd();
        const nl = text.lastIndexOf('\n');
        const body = text.slice(0, nl);
        const crc = text.slice(nl + 1);
        if (nl === -1 || crc32(Buffer.from(body, 'utf8')).toString(16) !== crc) return null;
        try {
            const m = JSON.parse(body) as Manifest;
            if (m.version !== FORMAT_VERSION || m.root !== this.root) return null;
            return m;
        } catch {
            return null;
        }
    }

    async #writeManifest(m: Manifest): Promise<void> {
        const body = JSON.stringify(m);
        const tmp = path.join(this.#opts.dir, `manifest.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
        await fsp.writeFile(tmp, `${body}\n${crc32(Buffer.from(body, 'utf8')).toString(16)}\n`, { mode: 0o600 });
        await fsp.rename(tmp, this.#manifestFile);
    }

    /** Opens the stored index; false (nothing opened) when there is none or it does not check out. */
    /** The stored index (manifest, table, segments), checked; `null` when there is none or it does not check out. */
    async #loadStored(): Promise<{ m: Manifest; table: Table; segs: SegmentReader[] } | null> {
        const m = await this.#readManifest();
        if (m === null || m.maxFileSize !== this.#opts.maxFileSize || !sameList(m.skipDirs, this.#opts.skipDirs)) return null;
        const genDir = path.join(this.#opts.dir, m.gen);
        const segs: SegmentReader[] = [];
        try {
            const file = path.join(genDir, 'table.bin');
            const table = await Table.load(decodeTable(await fsp.readFile(file), file));
            for (const s of m.segments) segs.push(new SegmentReader(path.join(genDir, s)));
            return { m, table, segs };
        } catch {
            for (const s of segs) s.close();
            return null;
        }
    }

    /**
     * Opens the stored index, once the watcher is on: the changes made while no process watched
     * are found by listing the tree again; false (nothing opened) when there is none or it does
     * not check out.
     */
    async #open(stored: { m: Manifest; table: Table; segs: SegmentReader[] } | null): Promise<boolean> {
        if (stored === null) return false;
        const { m, table, segs } = stored;
        const changed = await this.#changes(m).catch(() => null);
        if (changed === null) {
            for (const s of segs) s.close();
            return false;
        }
        this.#table = table;
        this.#segments = segs;
        this.#manifest = m;
        this.#noteChanges(changed);
        return true;
    }

    /** Builds the index anew (a new generation), then replaces the current one. */
    async #build(): Promise<void> {
        const lock = await this.#lock('build.lock');
        if (lock === null) {
            // Another process builds this tree: use its index once it is there.
            this.#setState('building');
            this.#phase = 'walk';
            await this.#waitForOther();
            return;
        }
        const startSeq = this.#seq;
        this.#blind = false;
        const t0 = performance.now();
        const gen = `gen-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
        const genDir = path.join(this.#opts.dir, gen);
        try {
            this.#phase = 'walk';
            this.#filesDone = 0;
            this.#filesTotal = 0;
            this.#setState('building');
            await fsp.mkdir(genDir, { mode: 0o700 });
            const walked = (await this.#pool().run({ op: 'index-walk', root: this.root, skipDirs: [...this.#opts.skipDirs], maxEntries: this.#opts.maxEntries })) as IndexWalkResult;
            if (!walked.ok) throw new Error(`index walk failed: ${walked.message}`);
            const table = await this.#indexContents(walked.table, genDir);
            this.#phase = 'write';
            this.emit('progress', this.status());
            const tableBytes = encodeTable(table.t);
            await fsp.writeFile(path.join(genDir, 'table.bin'), tableBytes, { mode: 0o600 });
            const segNames = table.segNames;
            let diskBytes = tableBytes.length;
            for (const s of segNames) diskBytes += (await fsp.stat(path.join(genDir, s))).size;
            const readers = segNames.map((s) => new SegmentReader(path.join(genDir, s)));
            const loaded = await Table.load(table.t);
            const old = this.#segments;
            const oldGen = this.#manifest?.gen;
            this.#table = loaded;
            this.#segments = readers;
            // Changes noted since the build started stay dirty; earlier ones are in the new generation.
            for (const [k, s] of this.#dirty) if (s <= startSeq) this.#dirty.delete(k);
            this.#dirTimes.clear();
            this.#manifest = {
                version: FORMAT_VERSION,
                root: this.root,
                skipDirs: [...this.#opts.skipDirs],
                maxFileSize: this.#opts.maxFileSize,
                gen,
                segments: segNames,
                textBytes: table.textBytes,
                diskBytes,
                buildMs: Math.round(performance.now() - t0),
            };
            await this.#writeManifest(this.#manifest);
            for (const s of old) s.close();
            if (oldGen !== undefined && oldGen !== gen) await fsp.rm(path.join(this.#opts.dir, oldGen), { recursive: true, force: true });
            await this.#cleanup();
            this.#phase = undefined;
            this.#setState(this.#blind ? 'failed' : 'ready', this.#blind ? 'file watcher failed during the build' : undefined);
            if (this.#blind) this.#scheduleRebuild();
        } catch (err) {
            await fsp.rm(genDir, { recursive: true, force: true });
            throw err;
        } finally {
            await lock.release();
        }
    }

    /** Content phase: chunk tasks on the pool, at most `threads` at once. */
    async #indexContents(w: WalkedTable, genDir: string): Promise<{ t: FileTable; segNames: string[]; textBytes: number }> {
        const names = w.names.split('\0');
        const t: FileTable = { names, parent: w.parent, kind: w.kind, flags: w.flags, size: w.size, mtime: w.mtime, birthtime: w.birthtime, end: w.end };
        const n = names.length;
        // Relative paths, built on the way (parents come first).
        const rel = new Array<string>(n);
        rel[0] = '';
        const chunks: IndexChunkTask[] = [];
        let ids: number[] = [];
        let paths: string[] = [];
        let bytes = 0;
        let first = 0;
        const cut = (end: number): void => {
            chunks.push({
                op: 'index-chunk',
                root: this.root,
                firstId: first,
                count: end - first,
                ids: Int32Array.from(ids),
                paths,
                maxFileSize: this.#opts.maxFileSize,
                out: path.join(genDir, `seg-${String(chunks.length).padStart(4, '0')}.bin`),
            });
            ids = [];
            paths = [];
            bytes = 0;
            first = end;
        };
        for (let i = 1; i < n; i++) {
            const p = t.parent[i]!;
            rel[i] = p === 0 ? names[i]! : `${rel[p]}/${names[i]}`;
            if (t.kind[i] !== Kind.File) continue;
            ids.push(i);
            paths.push(rel[i]!);
            if (t.size[i]! <= this.#opts.maxFileSize) bytes += t.size[i]!;
            if (bytes >= this.#opts.segmentBytes || ids.length >= 20000) cut(i + 1);
            // Perf: the host yields every few thousand entries, so a big tree never blocks it for long.
            if (i % 4096 === 0) await new Promise((r) => setImmediate(r));
        }
        if (ids.length > 0 || chunks.length === 0) cut(n);
        else if (first < n) chunks[chunks.length - 1]!.count = n - chunks[chunks.length - 1]!.firstId;
        this.#phase = 'content';
        this.#filesTotal = chunks.reduce((s, c) => s + c.ids.length, 0);
        this.#filesDone = 0;
        this.emit('progress', this.status());
        let next = 0;
        let textBytes = 0;
        const lane = async (): Promise<void> => {
            while (next < chunks.length) {
                if (this.#state === 'closed') throw new Error('index closed during the build');
                const c = chunks[next++]!;
                const r = (await this.#pool().run(c)) as IndexChunkResult;
                if (!r.ok) throw new Error(`index chunk failed: ${r.message}`);
                for (let k = 0; k < c.ids.length; k++) t.flags[c.ids[k]!] = r.flags[k]!;
                textBytes += r.textBytes;
                this.#filesDone += c.ids.length;
                this.emit('progress', this.status());
            }
        };
        await Promise.all(Array.from({ length: Math.min(this.#opts.threads, chunks.length) }, lane));
        return { t, segNames: chunks.map((c) => path.basename(c.out)), textBytes };
    }

    /** Waits for another process's build, then opens its index; builds itself if that process died. */
    async #waitForOther(): Promise<void> {
        for (;;) {
            await new Promise((r) => setTimeout(r, 500));
            if (this.#state === 'closed') return;
            const lock = await this.#lock('build.lock');
            if (lock !== null) {
                await lock.release();
                const t0 = performance.now();
                if (await this.#open(await this.#loadStored())) {
                    this.#openMs = Math.round(performance.now() - t0);
                    this.#setState('ready');
                } else {
                    await this.#build();
                }
                return;
            }
        }
    }

    /** An exclusive lock file (pid inside); a lock of a dead process is taken over. `null` while another live process holds it. */
    async #lock(name: string): Promise<{ release: () => Promise<void> } | null> {
        const file = path.join(this.#opts.dir, name);
        for (let attempt = 0; attempt < 2; attempt++) {
            try {
                const fh = await fsp.open(file, 'wx', 0o600);
                await fh.writeFile(String(process.pid));
                await fh.close();
                return { release: () => fsp.rm(file, { force: true }) };
            } catch (err) {
                if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
                const pid = Number(await fsp.readFile(file, 'utf8').catch(() => ''));
                if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) return null;
                if (pid === process.pid) return null;
                await fsp.rm(file, { force: true });
            }
        }
        return null;
    }

    /** Removes generations no manifest names (left by crashed builds or older processes). */
    async #cleanup(): Promise<void> {
        const m = this.#manifest;
        if (m === null) return;
        const hour = 60 * 60 * 1000;
        for (const name of await fsp.readdir(this.#opts.dir).catch(() => [] as string[])) {
            if (name === m.gen || !(name.startsWith('gen-') || name.endsWith('.tmp'))) continue;
            const st = await fsp.stat(path.join(this.#opts.dir, name)).catch(() => null);
            // Another process may still read an older generation for a while.
            if (st && Date.now() - st.mtimeMs > hour) await fsp.rm(path.join(this.#opts.dir, name), { recursive: true, force: true });
        }
    }

    #rebuildQueued = false;
    #scheduleRebuild(): void {
        if (this.#rebuildQueued || this.#state === 'closed') return;
        this.#rebuildQueued = true;
        setTimeout(() => {
            void (async () => {
                await this.#starting;
                this.#rebuildQueued = false;
                if (this.#state === 'building' || this.#state === 'closed') return;
                try {
                    await this.#build();
                } catch (err) {
                    this.#setState('failed', err instanceof Error ? err.message : String(err));
                }
            })();
        }, 1000).unref();
    }

    /** Stops watching; the index files stay for the next process (which checks what changed meanwhile). */
    async close(): Promise<void> {
        if (this.#state === 'closed') return;
        this.#setState('closed');
        await this.#starting?.catch(() => undefined);
        await this.#watcher?.unsubscribe().catch(() => undefined);
        this.#watcher = null;
        for (const s of this.#segments) s.close();
        this.#segments = [];
    }

    /** The index failed a check while serving: drop it and rebuild. */
    #corrupt(err: unknown): void {
        this.#table = null;
        for (const s of this.#segments) s.close();
        this.#segments = [];
        this.#manifest = null;
        this.#setState('failed', err instanceof Error ? err.message : String(err));
        void fsp.rm(this.#manifestFile, { force: true }).then(() => this.#scheduleRebuild());
    }

    // ---- queries ----

    /**
     * The walk of one search as the index answers it: segments of an already "walked" root for
     * the engine's ordered merge (hits decided here, and jobs for the workers with the entries
     * they must open), in the order of the sequential walk. `null` when the index cannot answer
     * (not ready, the watcher failed, filters it does not model, a query that rules nothing out):
     * the search then takes the scan path.
     */
    plan(search: PreparedSearch, rootReal: string): Segment[] | null {
        if (this.#state !== 'ready' || this.#blind || this.#table === null) return null;
        // A changed `.gitignore` changes what its whole directory shows: the scan path.
        if (search.respectGitignore === true) for (const d of this.#dirty.keys()) if (d === '.gitignore' || d.endsWith('/.gitignore')) return null;
        const skip = new Set(search.skipDirs);
        for (const d of this.#opts.skipDirs) if (!skip.has(d)) return null;
        const relRoot = path.relative(this.root, rootReal).split(path.sep).join('/');
        if (relRoot === '..' || relRoot.startsWith('../') || path.isAbsolute(relRoot)) return null;
        const table = this.#table;
        const t = table.t;
        const sId = table.idOf.get(relRoot);
        if (sId === undefined || t.kind[sId] !== Kind.Dir || t.flags[sId]! & Flag.Unreadable) return null;
        for (let p = relRoot; ; p = p.slice(0, Math.max(0, p.lastIndexOf('/')))) {
            if (this.#dirty.has(p)) return null;
            if (p === '') break;
        }
        try {
            const segs = this.#plan(search, table, sId, relRoot, skip);
            if (segs === null) this.counts.scanned++;
            else this.counts.answered++;
            return segs;
        } catch (err) {
            if (err instanceof IndexFormatError) {
                this.#corrupt(err);
                return null;
            }
            throw err;
        }
    }

    #plan(search: PreparedSearch, table: Table, sId: number, relRoot: string, skip: Set<string>): Segment[] | null {
        const t = table.t;
        const n = table.size;
        const lo = sId + 1;
        const hi = t.end[sId]!;
        const content = search.contentPattern !== undefined;
        // Candidates over the whole table: a symlinked directory may lead anywhere in it.
        let cands: Uint32Array | null = null;
        // Estimated from the dictionaries to keep more than 60% of the files: broad, the scan path.
        if (content) cands = candidates(this.#segments, planQuery(search.contentPattern!.source, search.contentPattern!.flags), 1, n, 0.6 * n);
        if (search.namePattern) {
            const q = planQuery(search.namePattern.source, search.namePattern.flags);
            if (q.kind !== 'all') {
                const byName = Uint32Array.from(
                    candidatesOf(q, (g) => table.nameIds(g), () => {
                        throw new Error('unreachable: `all` is handled above');
                    }),
                );
                cands = cands === null ? byName : intersect(cands, byName);
            }
        }
        // A content search the index does not narrow to under half the entries: the scan path is as fast.
        if (content && (cands === null || countIn(cands, lo, hi) * 2 > hi - lo)) return null;
        const realOf = (rel: string): string => (rel === '' ? this.root : this.root === '/' ? `/${rel}` : `${this.root}/${rel}`);
        const include: PathTest | null = search.include ? compileGlobs(search.include) : null;
        const exclude: PathTest | null = search.exclude ? compileGlobs(search.exclude) : null;
        const nameRe = search.namePattern ? new RegExp(search.namePattern.source, search.namePattern.flags) : null;
        const wantFiles = search.type !== 'directory';
        const wantDirs = search.type !== 'file' && !content;
        const relStart = relRoot === '' ? 0 : relRoot.length + 1;
        const timesOk = (b: number, m: number): boolean => {
            if (search.createdAfter !== undefined && !(b > search.createdAfter)) return false;
            if (search.createdBefore !== undefined && !(b < search.createdBefore)) return false;
            if (search.modifiedAfter !== undefined && !(m > search.modifiedAfter)) return false;
            if (search.modifiedBefore !== undefined && !(m < search.modifiedBefore)) return false;
            return true;
        };

        // Changed paths under the searched directory: the entries the walk gets instead of the table's.
        const blocked: [number, number][] = [];
        const extras: Extra[] = [];
        const seen = new Set<string>();
        for (const rel0 of this.#dirty.keys()) {
            if (relRoot !== '' && !rel0.startsWith(relRoot + '/')) continue;
            // The topmost part of the path the table does not know (a new directory is walked whole).
            let rel = rel0;
            const parts = rel0.split('/');
            for (let k = relStart === 0 ? 1 : relRoot.split('/').length + 1; k <= parts.length; k++) {
                const prefix = parts.slice(0, k).join('/');
                if (!table.idOf.has(prefix)) {
                    rel = prefix;
                    break;
                }
            }
            if (seen.has(rel)) continue;
            seen.add(rel);
            const id = table.idOf.get(rel);
            if (id !== undefined) blocked.push([id, t.end[id]!]);
            let st: fs.Stats;
            try {
                st = fs.lstatSync(realOf(rel));
            } catch {
                continue; // gone: the table's entry (blocked above) is left out
            }
            const slash = rel.lastIndexOf('/');
            const name = rel.slice(slash + 1);
            const parent = table.idOf.get(slash === -1 ? '' : rel.slice(0, slash))!;
            const kind = st.isDirectory() ? EntryKind.Dir : st.isFile() ? EntryKind.File : st.isSymbolicLink() ? EntryKind.Link : EntryKind.Other;
            let key = id;
            if (key === undefined) {
                // Before the first child of the parent with a greater name.
                key = t.end[parent]!;
                for (let c = parent + 1; c < t.end[parent]!; c = t.end[c]!) {
                    if (byName(t.names[c]!, name) > 0) {
                        key = c;
                        break;
                    }
                }
            }
            extras.push({ rel, name, parent, kind, key });
        }
        extras.sort((a, b) => a.key - b.key || compareWalk(a.rel, b.rel));

        /**
         * Where entries are shown and filtered from: the searched directory, or a symlinked
         * directory's target (its entries shown under the link, as the walk shows them).
         */
        interface Frame {
            rootId: number;
            /** Characters of a table path before the part below the frame's root. */
            relCut: number;
            /** Path of the frame's root relative to the searched directory, with `/` (or `''`). */
            subPrefix: string;
            /** Display path of the frame's root. */
            display: string;
            jumps: string[];
            dirOk: Map<number, boolean>;
            /** `.gitignore` frames in force in a directory of this frame (with `respect_gitignore`). */
            ignores: Map<number, IgnoreFrame[]>;
            /** The frames the frame's root was entered with. */
            entered: IgnoreFrame[];
        }
        const gitignore = search.respectGitignore;
        const main: Frame = { rootId: sId, relCut: relStart, subPrefix: '', display: search.root.display, jumps: [], dirOk: new Map(), ignores: new Map(), entered: [...search.gitignoreAbove] };
        const below = (i: number, f: Frame): string => table.paths[i]!.slice(f.relCut);
        const subOf = (i: number, f: Frame): string => f.subPrefix + below(i, f);
        const displayOf = (i: number, f: Frame): string => {
            const d = f.display;
            const rest = below(i, f);
            return d === '.' ? rest : d.endsWith('/') ? d + rest : `${d}/${rest}`;
        };

        const out: Segment[] = [];
        let run: { hits: SearchHit[] } | null = null;
        let job: { parent: number; frame: Frame; names: string[]; kinds: number[] } | null = null;
        const flushRun = (): void => {
            if (run !== null && run.hits.length > 0) out.push({ t: 'run', n: run.hits.length, hits: run.hits, at: run.hits.map((_, k) => k) });
            run = null;
        };
        const flushJob = (): void => {
            if (job !== null) {
                const f = job.frame;
                const rel = job.parent === f.rootId ? f.display : displayOf(job.parent, f);
                const frames = gitignore ? framesIn(job.parent, f) : [];
                out.push({ t: 'job', job: { real: realOf(table.paths[job.parent]!), rel, jumps: f.jumps, names: job.names, kinds: job.kinds, ...(frames.length > 0 && { ignores: frames }) } });
            }
            job = null;
        };
        const toWalk = (parent: number, f: Frame, name: string, kind: number): void => {
            flushRun();
            if (job === null || job.parent !== parent || job.frame !== f) {
                flushJob();
                job = { parent, frame: f, names: [], kinds: [] };
            }
            job.names.push(name);
            job.kinds.push(kind);
        };
        const hit = (h: SearchHit): void => {
            flushJob();
            (run ??= { hits: [] }).hits.push(h);
        };
        // Changed subtrees (their extras stand in), as disjoint sorted intervals.
        const spans = mergeSpans(blocked);
        /** End of the blocked span holding `id`, or -1. */
        const blockedTo = (id: number): number => {
            let a = 0;
            let b = spans.length - 1;
            while (a <= b) {
                const m = (a + b) >>> 1;
                const [s0, e0] = spans[m]!;
                if (id < s0) b = m - 1;
                else if (id >= e0) a = m + 1;
                else return e0;
            }
            return -1;
        };
        const ignoreCache = gitignore ? new IgnoreCache() : null;
        /**
         * The `.gitignore` frames in force in directory `d` of frame `f`, as the walk builds them:
         * those it was entered with, then each directory's own `.gitignore` on the way down
         * (read now, through no link; the table says which directories have one).
         */
        const framesIn = (d: number, f: Frame): IgnoreFrame[] => {
            let frames = f.ignores.get(d);
            if (frames !== undefined) return frames;
            frames = d === f.rootId ? f.entered : framesIn(t.parent[d]!, f);
            const gi = table.idOf.get(table.paths[d] === '' ? '.gitignore' : `${table.paths[d]}/.gitignore`);
            if (gi !== undefined && t.kind[gi] === Kind.File) {
                const rules = readGitignoreFile(realOf(table.paths[gi]!));
                if (rules !== null) frames = [...frames, { base: d !== f.rootId ? `${subOf(d, f)}/` : f === main ? '' : f.subPrefix, up: '', rules }];
            }
            f.ignores.set(d, frames);
            return frames;
        };
        /** Left out by `exclude` or by `.gitignore` (as the walk's `#leftOut`). */
        const leftOut = (i: number, f: Frame, isDir: boolean): boolean => {
            const name = t.names[i]!;
            if (exclude !== null && exclude(subOf(i, f), name, isDir)) return true;
            if (ignoreCache === null) return false;
            const frames = framesIn(t.parent[i]!, f);
            return frames.length > 0 && ignoreCache.ignored(frames, subOf(i, f), isDir);
        };
        /** A directory is walked: neither skipped nor excluded, nor below one that is (within its frame). */
        const dirAllowed = (d: number, f: Frame): boolean => {
            if (d === f.rootId) return true;
            let ok = f.dirOk.get(d);
            if (ok === undefined) {
                ok = !skip.has(t.names[d]!) && !leftOut(d, f, true) && dirAllowed(t.parent[d]!, f);
                f.dirOk.set(d, ok);
            }
            return ok;
        };
        let ex = 0;
        const extrasBefore = (id: number): void => {
            while (ex < extras.length && extras[ex]!.key <= id) {
                const e = extras[ex++]!;
                if (blockedTo(e.parent) === -1 && dirAllowed(e.parent, main)) toWalk(e.parent, main, e.name, e.kind);
            }
        };
        // Fresh times of the directories whose entries changed (their mtime moved).
        const fresh = new Map<number, fs.Stats>();
        if (search.needTimes) {
            for (const rel0 of [...this.#dirty.keys(), ...[...this.#dirTimes].map((d) => `${d}/x`)]) {
                const slash = rel0.lastIndexOf('/');
                const pid = table.idOf.get(slash === -1 ? '' : rel0.slice(0, slash));
                if (pid === undefined || fresh.has(pid)) continue;
                try {
                    fresh.set(pid, fs.lstatSync(realOf(table.paths[pid]!)));
                } catch {
                    // the walk reports it
                }
            }
        }
        const birthOf = (i: number): number => fresh.get(i)?.birthtimeMs ?? t.birthtime[i]!;
        const mtimeOf = (i: number): number => fresh.get(i)?.mtimeMs ?? t.mtime[i]!;
        const times = (b: number, m: number): Partial<SearchHit> => (search.needTimes ? { birthtimeMs: b, mtimeMs: m } : {});
        /** A changed path is the directory `rel`, inside it or above it: its contents are uncertain. */
        const touchesDirty = (rel: string): boolean => {
            for (const d of this.#dirty.keys()) if (d === rel || d.startsWith(rel + '/') || rel.startsWith(d + '/') || d === '') return true;
            return false;
        };
        let depth = 0;

        /** A symlink: followed here when it leads to an unchanged directory of the table, else handed to the walk. */
        const link = (i: number, f: Frame): void => {
            const name = t.names[i]!;
            const parent = t.parent[i]!;
            const parentReal = realOf(table.paths[parent]!);
            let st: fs.Stats;
            let target: string;
            try {
                st = fs.statSync(realOf(table.paths[i]!));
                target = fs.realpathSync.native(realOf(table.paths[i]!));
            } catch {
                toWalk(parent, f, name, Kind.Link); // the walk reports it as the scan path does
                return;
            }
            if (!st.isDirectory()) {
                toWalk(parent, f, name, Kind.Link);
                return;
            }
            // The walk's rules for a link to a directory (workers/walk.ts), in its order.
            if (skip.has(name)) return;
            if (search.root.realRoots !== null && !search.root.realRoots.some((r) => isInside(target, r))) return;
            if (isInside(parentReal, target) || f.jumps.some((j) => isInside(j, target))) return;
            const sub = subOf(i, f);
            if (exclude !== null && exclude(sub, name, true)) return;
            if (ignoreCache !== null) {
                const frames = framesIn(parent, f);
                if (frames.length > 0 && ignoreCache.ignored(frames, sub, true)) return;
            }
            const tRel = path.relative(this.root, target).split(path.sep).join('/');
            const tId = tRel.startsWith('..') || path.isAbsolute(tRel) ? undefined : table.idOf.get(tRel);
            if (tId === undefined || t.kind[tId] !== Kind.Dir || t.flags[tId]! & Flag.Unreadable || touchesDirty(tRel) || depth >= 16 || (search.needTimes && this.#dirTimes.size > 0)) {
                toWalk(parent, f, name, Kind.Link);
                return;
            }
            if (!content && wantDirs && (nameRe === null || nameRe.test(name)) && (include === null || include(sub, name, true)) && timesOk(st.birthtimeMs, st.mtimeMs)) {
                hit({ path: displayOf(i, f), kind: 'directory', ...times(st.birthtimeMs, st.mtimeMs) });
            }
            depth++;
            runFrame({
                rootId: tId,
                relCut: tRel === '' ? 0 : tRel.length + 1,
                subPrefix: `${sub}/`,
                display: displayOf(i, f),
                jumps: [...f.jumps, parentReal],
                dirOk: new Map(),
                ignores: new Map(),
                entered: gitignore ? framesIn(parent, f) : [],
            });
            depth--;
        };

        /** Decides one table entry (not blocked) of frame `f`; returns the next id to look at. */
        const entry = (i: number, f: Frame): number => {
            const kind = t.kind[i]!;
            const name = t.names[i]!;
            const isDir = kind === Kind.Dir;
            if (isDir && skip.has(name)) return t.end[i]!;
            if (kind === Kind.Link) {
                link(i, f);
                return i + 1;
            }
            if ((exclude !== null || ignoreCache !== null) && leftOut(i, f, isDir)) return t.end[i]!;
            const flags = t.flags[i]!;
            if (kind === Kind.Other || (isDir && flags & Flag.Unreadable)) {
                toWalk(t.parent[i]!, f, name, kind);
                return t.end[i]!;
            }
            if (isDir) {
                if (!content && wantDirs && (nameRe === null || nameRe.test(name)) && (include === null || include(subOf(i, f), name, true)) && timesOk(birthOf(i), mtimeOf(i))) {
                    hit({ path: displayOf(i, f), kind: 'directory', ...times(birthOf(i), mtimeOf(i)) });
                }
                return i + 1;
            }
            if (!wantFiles || (nameRe !== null && !nameRe.test(name)) || (include !== null && !include(subOf(i, f), name, false))) return i + 1;
            if (!content) {
                if (timesOk(birthOf(i), mtimeOf(i))) hit({ path: displayOf(i, f), kind: 'file', ...times(birthOf(i), mtimeOf(i)) });
                return i + 1;
            }
            // A content search opens the file in a worker, like the scan path (times, size, binary checked there).
            if (flags & Flag.Binary || flags & Flag.Empty) return i + 1;
            toWalk(t.parent[i]!, f, name, kind);
            return i + 1;
        };

        // Sparse: candidates, entries always decided one by one (links, special files, files not
        // indexed), files too large for this search; their directories are checked on the way.
        const list = cands === null ? null : mergeIds(cands, table.always, 1, n, content && search.maxFileSize < this.#opts.maxFileSize ? bigFiles(t, 1, n, search.maxFileSize) : null);
        const runFrame = (f: Frame): void => {
            const a = f.rootId + 1;
            const b = t.end[f.rootId]!;
            const isMain = f === main;
            if (list === null) {
                for (let i = a; i < b; ) {
                    if (isMain) extrasBefore(i);
                    const skipTo = blockedTo(i);
                    i = skipTo !== -1 ? skipTo : entry(i, f);
                }
            } else {
                for (let k = lowerBound(list, a); k < list.length && list[k]! < b; k++) {
                    const i = list[k]!;
                    if (isMain) extrasBefore(i);
                    if (blockedTo(i) !== -1 || !dirAllowed(t.parent[i]!, f)) continue;
                    entry(i, f);
                }
            }
            if (isMain) extrasBefore(Number.MAX_SAFE_INTEGER);
        };
        runFrame(main);
        flushRun();
        flushJob();
        let handedOut = 0;
        for (const seg of out) if (seg.t === 'job') handedOut += seg.job.names?.length ?? 0;
        this.lastPlan = { candidates: cands === null ? hi - lo : countIn(cands, lo, hi), handedOut };
        return out;
    }
}


/** Index of the first element of a sorted list that is at least `x`. */
function lowerBound(list: Uint32Array, x: number): number {
    let a = 0;
    let b = list.length;
    while (a < b) {
        const m = (a + b) >>> 1;
        if (list[m]! < x) a = m + 1;
        else b = m;
    }
    return a;
}

/** How many ids of a sorted list lie in [lo, hi). */
function countIn(list: Uint32Array, lo: number, hi: number): number {
    return lowerBound(list, hi) - lowerBound(list, lo);
}

/** Union of [start, end) spans as disjoint spans, ascending. */
function mergeSpans(spans: [number, number][]): [number, number][] {
    const sorted = [...spans].sort((a, b) => a[0] - b[0]);
    const out: [number, number][] = [];
    for (const [a, b] of sorted) {
        const last = out[out.length - 1];
        if (last !== undefined && a <= last[1]) last[1] = Math.max(last[1], b);
        else out.push([a, b]);
    }
    return out;
}

/** Sorted, deduplicated ids in [lo, hi) of the given lists. */
function mergeIds(a: Uint32Array, b: Uint32Array, lo: number, hi: number, c: Uint32Array | null): Uint32Array {
    const all = new Uint32Array(a.length + b.length + (c?.length ?? 0));
    let n = 0;
    for (const x of a) all[n++] = x;
    for (const x of b) if (x >= lo && x < hi) all[n++] = x;
    if (c) for (const x of c) all[n++] = x;
    const sorted = all.subarray(0, n).sort();
    let m = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[m++] = sorted[i]!;
    return sorted.subarray(0, m);
}

/** Text files in [lo, hi) above `max` bytes: the walk reports them as too large. */
function bigFiles(t: FileTable, lo: number, hi: number, max: number): Uint32Array {
    const out: number[] = [];
    for (let i = lo; i < hi; i++) if (t.kind[i] === Kind.File && t.size[i]! > max && !(t.flags[i]! & Flag.Binary)) out.push(i);
    return Uint32Array.from(out);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
    return a.length === b.length && [...a].sort().join('\0') === [...b].sort().join('\0');
}

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
}
