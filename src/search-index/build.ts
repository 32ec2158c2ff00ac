import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { BackgroundTasks, endIdleThreads } from '../engine/background-pool.js';
import { compactTable, decodeTable, FORMAT_VERSION, tableIdsOffset, type FileTable } from './shared/format.js';
import { NameIdsOnDisk } from './name-ids.js';
import { TableFileWriter } from './table-file.js';
import { freeBuffer, releaseFreedMemory } from '../engine/release-memory.js';
import { SegmentReader } from './shared/segment.js';
import type { IndexChunkResult, IndexWalkResult } from './shared/protocol.js';
import { ChunkCutter } from './build-chunks.js';
import type { Manifest } from './store.js';
import { Table } from './table.js';
import { Turns } from '../engine/turns.js';

/**
 * One build of a tree's index, a new generation in its own folder: the walk into a file table
 * (one task), then the files' contents in chunks of about `segmentBytes` (a segment file for
 * each part of a chunk of bounded postings, index-chunk.ts), then the table file. The tasks run the engine's worker code on the background pool
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


/** Builds a new generation under `ctx.dir`. @throws Error when a task fails or the index is closed (the generation's folder is removed). */
export async function buildGeneration(ctx: BuildContext): Promise<Generation> {
    const t0 = performance.now();
    const gen = `gen-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
    const genDir = path.join(ctx.dir, gen);
    await fsp.mkdir(genDir, { mode: 0o700 });
    const pool = new BackgroundTasks(ctx.threads);
    let walked: Walked | undefined;
    try {
        // Perf: a process's first pool and its first task compile the pool's code (up to 10 ms): two turns.
        await turns.yield();
        ctx.progress('walk', 0, 0);
        walked = await walkInto(ctx, path.join(genDir, 'table.bin'));
        // Memory: what the walk's thread freed goes back to the system before the content's threads grow.
        await releaseFreedMemory();
        const { t, segNames, textBytes } = await indexContents(ctx, pool, walked.t, genDir);
        // Memory: the content threads' heaps and buffers leave before the table is written and loaded.
        endIdleThreads();
        ctx.progress('write', 0, 0);
        let diskBytes = await walked.writer.finish(t, pause);
        const segs: SegmentReader[] = [];
        for (const s of segNames) {
            const reader = new SegmentReader(path.join(genDir, s));
            segs.push(reader);
            diskBytes += reader.bytes;
            await pause();
        }
        const table = await Table.load(t, walked.idsOnDisk);
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
        walked?.idsOnDisk.close();
        await walked?.writer.abort();
        await fsp.rm(genDir, { recursive: true, force: true });
        throw err;
    } finally {
        await releaseFreedMemory();
    }
}

/** The walk's table, compact, with its table file begun and the name lists' ids read from there. */
interface Walked {
    t: FileTable;
    skipped: string[];
    writer: TableFileWriter;
    idsOnDisk: NameIdsOnDisk;
}

/**
 * The walk, on a thread of its own that ends after it: its heap (every entry's name, the
 * columns, their encoding: ~280 MB at ten times the Linux tree) would stay with a shared thread
 * as it goes on to index contents. Its table is decoded, the parts known now written to `file`,
 * and copied out of the walk's buffer, which is then freed at once (with the name lists' ids).
 */
async function walkInto(ctx: BuildContext, file: string): Promise<Walked> {
    const walker = new BackgroundTasks(1, true);
    const { port1, port2 } = new MessageChannel();
    let walked: IndexWalkResult;
    let w: Uint8Array | undefined;
    try {
        walked = (await walker.run({ op: 'index-walk', root: ctx.root, skipDirs: [...ctx.skipDirs], maxEntries: ctx.maxEntries, port: port2 }, { move: [port2], sharedNice: ctx.sharedNice?.(), build: true }).finally(() => walker.close())) as IndexWalkResult;
        // Posted before the task returned, so already queued on this end.
        w = receiveMessageOnPort(port1)?.message as Uint8Array | undefined;
    } finally {
        port1.close();
    }
    if (!walked.ok) throw new Error(`index walk failed: ${walked.message}`);
    if (w?.length !== walked.bytes) throw new Error('index walk failed: its file table did not arrive');
    try {
        const listed = await decodeTable(Buffer.from(w.buffer, w.byteOffset, w.length), 'the walk\'s file table', pause);
        const writer = await TableFileWriter.start(file, listed, pause);
        try {
            const idsOnDisk = await NameIdsOnDisk.of(file, tableIdsOffset(listed), listed.grams.ids, pause);
            return { t: await compactTable(listed, pause), skipped: walked.skipped, writer, idsOnDisk };
        } catch (err) {
            await writer.abort();
            throw err;
        }
    } finally {
        // Memory: everything kept was copied out (compactTable, the file); the walk's buffer goes now.
        freeBuffer(w.buffer as ArrayBuffer);
    }
}

/** The host's slices of build work (see turns.ts). */
const turns = new Turns();
/** Yields to the event loop when the current slice has run its time. */
function pause(): Promise<void> {
    return turns.check();
}

/**
 * Content phase: chunk tasks on the pool, at most `threads` at once, each cut from the table as a
 * thread takes it (build-chunks.ts); the table's flags are set from their results, and the
 * chunks' segment parts are numbered in id order once all are written.
 */
async function indexContents(ctx: BuildContext, pool: BackgroundTasks, t: FileTable, genDir: string): Promise<{ t: FileTable; segNames: string[]; textBytes: number }> {
    const cutter = new ChunkCutter(t, { root: ctx.root, genDir, maxFileSize: ctx.maxFileSize, segmentBytes: ctx.segmentBytes }, pause);
    const filesTotal = await cutter.fileCount();
    let filesDone = 0;
    ctx.progress('content', 0, filesTotal);
    let textBytes = 0;
    const chunks: { out: string; parts: number }[] = [];
    const lane = async (): Promise<void> => {
        for (;;) {
            if (ctx.closed()) throw new Error('index closed during the build');
            const c = await cutter.next();
            if (c === null) return;
            const chunk = { out: c.out, parts: 0 };
            chunks.push(chunk);
            const ids = c.ids.slice();
            const r = (await pool.run(c, { move: [c.ids.buffer as ArrayBuffer, c.paths.buffer as ArrayBuffer], sharedNice: ctx.sharedNice?.(), build: true })) as IndexChunkResult;
            if (!r.ok) throw new Error(`index chunk failed: ${r.message}`);
            chunk.parts = r.segmentBytes.length;
            for (let k = 0; k < ids.length; k++) t.flags[ids[k]!] = r.flags[k]!;
            await pause();
            textBytes += r.textBytes;
            filesDone += ids.length;
            ctx.progress('content', filesDone, filesTotal);
        }
    };
    await Promise.all(Array.from({ length: Math.max(1, ctx.threads) }, lane));
    // A chunk's parts (index-chunk.ts) numbered in id order, as a generation's segments are.
    const segNames: string[] = [];
    chunks.sort((a, b) => byNumber(a.out) - byNumber(b.out));
    for (const c of chunks) {
        for (let p = 0; p < c.parts; p++) {
            const name = `seg-${String(segNames.length).padStart(4, '0')}.bin`;
            await fsp.rename(`${c.out}-${p}.bin`, path.join(genDir, name));
            segNames.push(name);
        }
    }
    return { t, segNames, textBytes };
}

/** The number `k` of a chunk's `part-<k>` prefix. */
function byNumber(out: string): number {
    return Number(out.slice(out.lastIndexOf('-') + 1));
}
