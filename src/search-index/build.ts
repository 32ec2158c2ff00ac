import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { BackgroundTasks } from '../engine/background-pool.js';
import { decodeTable, encodeTableParts, FORMAT_VERSION, Kind, type FileTable } from './shared/format.js';
import { releaseFreedMemory } from '../engine/release-memory.js';
import { SegmentReader } from './shared/segment.js';
import type { IndexChunkResult, IndexChunkTask, IndexWalkResult } from './shared/protocol.js';
import type { Manifest } from './store.js';
import { Table } from './table.js';
import { Turns } from '../engine/turns.js';

/**
 * One build of a tree's index, a new generation in its own folder: the walk into a file table
 * (one task), then the files' contents in chunks of about `segmentBytes` (one segment file
 * each), then the table file. The tasks run the engine's worker code on the background pool
 * (src/engine/background-pool.ts: at most `threads` at once, at low priority: searches keep the
 * engine's threads and the CPU before the build, and the build's memory leaves with its threads
 * once they are idle). The host only cuts chunks and writes the table, in slices of a few milliseconds (Perf: the build never
 * holds the event loop long).
 */

export interface BuildContext {
    root: string;
    /** The tree's index folder (store.ts). */
    dir: string;
    /** Threads the build runs on at once (the background pool's, at low priority). */
    threads: number;
    maxFileSize: number;
    segmentBytes: number;
    skipDirs: readonly string[];
    maxEntries: number;
    /** Told when a phase starts and as files are read. */
    progress(phase: 'walk' | 'content' | 'write', filesDone: number, filesTotal: number): void;
    /** True once the index was closed: the build stops. */
    closed(): boolean;
    /** The nice value of searches that keep coming (the build's next task shares the CPU with them); `undefined`: none, idle priority. */
    sharedNice?(): number | undefined;
}

/** A built generation, ready to serve; its manifest is not written yet. */
export interface Generation {
    manifest: Manifest;
    table: Table;
    segs: SegmentReader[];
}

/** Most regular files in one chunk task (its paths are copied to the worker). */
const MAX_CHUNK_FILES = 20_000;

/** Builds a new generation under `ctx.dir`. @throws Error when a task fails or the index is closed (the generation's folder is removed). */
export async function buildGeneration(ctx: BuildContext): Promise<Generation> {
    const t0 = performance.now();
    const gen = `gen-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
    const genDir = path.join(ctx.dir, gen);
    await fsp.mkdir(genDir, { mode: 0o700 });
    const pool = new BackgroundTasks(ctx.threads);
    try {
        // Perf: a process's first pool and its first task compile the pool's code (up to 10 ms): two turns.
        await turns.yield();
        ctx.progress('walk', 0, 0);
        const walked = (await pool.run({ op: 'index-walk', root: ctx.root, skipDirs: [...ctx.skipDirs], maxEntries: ctx.maxEntries }, ctx.sharedNice?.())) as IndexWalkResult;
        if (!walked.ok) throw new Error(`index walk failed: ${walked.message}`);
        const w = walked.table;
        const listed = await decodeTable(Buffer.from(w.buffer, w.byteOffset, w.length), 'the walk\'s file table', pause);
        const { t, segNames, textBytes } = await indexContents(ctx, pool, listed, genDir);
        ctx.progress('write', 0, 0);
        const tableParts = await encodeTableParts(t, pause);
        await fsp.writeFile(path.join(genDir, 'table.bin'), tableParts, { mode: 0o600, flag: 'wx' });
        let diskBytes = tableParts.reduce((sum, part) => sum + part.length, 0);
        const segs: SegmentReader[] = [];
        for (const s of segNames) {
            const reader = new SegmentReader(path.join(genDir, s));
            segs.push(reader);
            diskBytes += reader.bytes;
            await pause();
        }
        const table = await Table.load(t, path.join(genDir, 'table.bin'));
        const manifest: Manifest = {
            version: FORMAT_VERSION,
            root: ctx.root,
            skipDirs: [...ctx.skipDirs],
            maxFileSize: ctx.maxFileSize,
            gen,
            skippedDirs: walked.skipped,
            segments: segNames,
            textBytes,
            diskBytes,
            buildMs: Math.round(performance.now() - t0),
        };
        return { manifest, table, segs };
    } catch (err) {
        // Tasks of other lanes may still write into the folder: ended before it is removed.
        await pool.stop();
        await fsp.rm(genDir, { recursive: true, force: true });
        throw err;
    } finally {
        await releaseFreedMemory();
    }
}

/** The host's slices of build work (see turns.ts). */
const turns = new Turns();
/** Yields to the event loop when the current slice has run its time. */
function pause(): Promise<void> {
    return turns.check();
}

/**
 * Content phase: chunk tasks on the pool, at most `threads` at once; the table's flags are set
 * from their results. Perf: the files' relative paths live only until their chunk's path string
 * is joined (the directories' ones until the walk leaves them): paths kept for the whole phase
 * would survive the host's scavenges and make them hold its event loop (see table.ts).
 */
async function indexContents(ctx: BuildContext, pool: BackgroundTasks, t: FileTable, genDir: string): Promise<{ t: FileTable; segNames: string[]; textBytes: number }> {
    const names = t.names;
    const n = names.length;
    // The relative paths of the directories on the way down to the current entry, by depth.
    const dirs: { id: number; rel: string }[] = [{ id: 0, rel: '' }];
    const chunks: IndexChunkTask[] = [];
    let ids: number[] = [];
    let paths: string[] = [];
    let bytes = 0;
    let first = 0;
    const cut = (end: number): void => {
        chunks.push({
            op: 'index-chunk',
            root: ctx.root,
            firstId: first,
            count: end - first,
            ids: Int32Array.from(ids),
            paths: paths.join('\0'),
            maxFileSize: ctx.maxFileSize,
            out: path.join(genDir, `seg-${String(chunks.length).padStart(4, '0')}.bin`),
        });
        ids = [];
        paths = [];
        bytes = 0;
        first = end;
    };
    for (let i = 1; i < n; i++) {
        const p = t.parent[i]!;
        while (dirs[dirs.length - 1]!.id !== p) dirs.pop();
        const rel = p === 0 ? names.get(i) : `${dirs[dirs.length - 1]!.rel}/${names.get(i)}`;
        if ((i & 1023) === 0) await pause();
        if (t.kind[i] === Kind.Dir) dirs.push({ id: i, rel });
        if (t.kind[i] !== Kind.File) continue;
        ids.push(i);
        paths.push(rel);
        if (t.size[i]! <= ctx.maxFileSize) bytes += t.size[i]!;
        if (bytes >= ctx.segmentBytes || ids.length >= MAX_CHUNK_FILES) cut(i + 1);
    }
    if (ids.length > 0 || chunks.length === 0) cut(n);
    else if (first < n) chunks[chunks.length - 1]!.count = n - chunks[chunks.length - 1]!.firstId;
    const filesTotal = chunks.reduce((s, c) => s + c.ids.length, 0);
    let filesDone = 0;
    ctx.progress('content', 0, filesTotal);
    let next = 0;
    let textBytes = 0;
    const lane = async (): Promise<void> => {
        while (next < chunks.length) {
            if (ctx.closed()) throw new Error('index closed during the build');
            const c = chunks[next++]!;
            const r = (await pool.run(c, ctx.sharedNice?.())) as IndexChunkResult;
            if (!r.ok) throw new Error(`index chunk failed: ${r.message}`);
            for (let k = 0; k < c.ids.length; k++) t.flags[c.ids[k]!] = r.flags[k]!;
            await pause();
            textBytes += r.textBytes;
            filesDone += c.ids.length;
            ctx.progress('content', filesDone, filesTotal);
        }
    };
    await Promise.all(Array.from({ length: Math.min(ctx.threads, chunks.length) }, lane));
    return { t, segNames: chunks.map((c) => path.basename(c.out)), textBytes };
}
