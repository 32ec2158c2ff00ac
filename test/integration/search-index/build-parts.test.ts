/**
 * The build's content phase in pieces: the chunks the host cuts from a walked table
 * (build-chunks.ts) and the segment parts a chunk task writes (index-chunk.ts) once its postings
 * reach the part limit. Chunks are consecutive id ranges covering the table, each file in one
 * with its path, cut in slices with pauses between them; parts are consecutive id ranges whose
 * lists, joined, are the lists of the chunk written as one segment.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChunkCutter } from '../../../src/search-index/build-chunks.js';
import { compactTable, decodeTable, Kind, type FileTable } from '../../../src/search-index/shared/format.js';
import type { IndexChunkTask } from '../../../src/search-index/shared/protocol.js';
import { DICT_ENTRY, SegmentReader } from '../../../src/search-index/shared/segment.js';
import { runIndexChunk } from '../../../workers/search-index/index-chunk.js';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { runIndexWalk, walkEncoded } from '../../../workers/search-index/index-walk.js';
import { tempDir, writeTree } from '../../support/helpers.js';

/** A tree of `dirs` directories of `files` files each (distinct words per file), an empty directory last. */
function tree(dirs: number, files: number): string {
    const root = tempDir('lcf-parts-');
    const content: Record<string, string> = {};
    for (let d = 0; d < dirs; d++) for (let f = 0; f < files; f++) content[`d${d}/sub/f${f}.txt`] = `alpha${d}x${f} beta${f * 7 + d} common words here ${'z'.repeat(f)}\n`;
    writeTree(root, content);
    fs.mkdirSync(path.join(root, 'zz-empty', 'deeper'), { recursive: true });
    return root;
}

async function walked(root: string): Promise<FileTable> {
    const r = await walkEncoded({ op: 'index-walk', root, skipDirs: [], maxEntries: 100_000 });
    if (!r.ok) throw new Error(r.message);
    return decodeTable(Buffer.from(r.table.buffer, r.table.byteOffset, r.table.length), 'walk', async () => undefined);
}

/** Every chunk of `cutter`, in order. */
async function allChunks(cutter: ChunkCutter): Promise<IndexChunkTask[]> {
    const out: IndexChunkTask[] = [];
    for (let c = await cutter.next(); c !== null; c = await cutter.next()) out.push(c);
    return out;
}

const pathsOf = (c: IndexChunkTask): string[] => (c.ids.length === 0 ? [] : Buffer.from(c.paths).toString('utf16le').split('\0'));

/** Relative path of entry `i` of `t`. */
function relOf(t: FileTable, i: number): string {
    const parts: string[] = [];
    for (let at = i; at > 0; at = t.parent[at]!) parts.unshift(t.names.get(at));
    return parts.join('/');
}

describe('build chunks', () => {
    it('cuts consecutive id ranges covering the table, every file once with its path, pausing as it goes', async () => {
        const root = tree(40, 60);
        const t = await walked(root);
        let pauses = 0;
        const cutter = new ChunkCutter(t, { root, genDir: '/nowhere', maxFileSize: 1 << 20, segmentBytes: 4000 }, async () => void pauses++);
        expect(await cutter.fileCount()).toBe(2400);
        const chunks = await allChunks(cutter);
        expect(chunks.length).toBeGreaterThan(5);
        expect(chunks[0]!.firstId).toBe(0);
        for (let k = 1; k < chunks.length; k++) expect(chunks[k]!.firstId).toBe(chunks[k - 1]!.firstId + chunks[k - 1]!.count);
        const last = chunks[chunks.length - 1]!;
        // The trailing empty directories are in the last chunk's range.
        expect(last.firstId + last.count).toBe(t.names.length);
        const files: number[] = [];
        for (const c of chunks) {
            expect(c.out).toBe(path.join('/nowhere', `part-${chunks.indexOf(c)}`));
            const paths = pathsOf(c);
            expect(paths).toHaveLength(c.ids.length);
            for (const [k, id] of c.ids.entries()) {
                expect(id).toBeGreaterThanOrEqual(c.firstId);
                expect(id).toBeLessThan(c.firstId + c.count);
                expect(paths[k]).toBe(relOf(t, id));
                files.push(id);
            }
        }
        const expected = [...t.kind.keys()].filter((i) => t.kind[i] === Kind.File);
        expect(files).toEqual(expected);
        // One pause every 1,024 entries while cutting (and every 65,536 while counting).
        expect(pauses).toBeGreaterThanOrEqual(Math.floor(t.names.length / 1024));
    });

    it('gives a tree without files one empty chunk over the whole table', async () => {
        const root = tempDir('lcf-parts-');
        fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
        const t = await walked(root);
        const chunks = await allChunks(new ChunkCutter(t, { root, genDir: root, maxFileSize: 1 << 20, segmentBytes: 4000 }, async () => undefined));
        expect(chunks.map((c) => [c.firstId, c.count, c.ids.length, c.paths.length])).toEqual([[0, t.names.length, 0, 0]]);
    });

    it('copies the columns out a megabyte at a time, pausing between', async () => {
        const root = tree(2, 3);
        const t = await walked(root);
        // A table of 300,000 entries: columns of 2.4 MB (f64) each.
        const n = 300_000;
        const big: FileTable = { ...t, size: new Float64Array(n).fill(7), mtime: new Float64Array(n), birthtime: new Float64Array(n), ctime: new Uint32Array(n), parent: new Int32Array(n), end: new Int32Array(n), kind: new Uint8Array(n), flags: new Uint8Array(n) };
        let pauses = 0;
        const c = await compactTable(big, async () => void pauses++);
        expect(c.size).not.toBe(big.size);
        expect([...c.size.subarray(n - 3)]).toEqual([7, 7, 7]);
        // 3 columns of 2.4 MB (3 slices each), 2 of 1.2 MB, 2 of 0.3 MB, the gram keys and starts.
        expect(pauses).toBeGreaterThanOrEqual(3 * 3 + 2 * 2 + 2);
    });
});

describe('chunk parts', () => {
    /** The chunk over the whole table, its parts written in `genDir`. */
    async function chunkOf(root: string, genDir: string, partPostings?: number): Promise<IndexChunkTask> {
        const t = await walked(root);
        const [c] = await allChunks(new ChunkCutter(t, { root, genDir, maxFileSize: 1 << 20, segmentBytes: 1 << 30 }, async () => undefined));
        return { ...c!, ...(partPostings !== undefined && { partPostings }) };
    }

    /** Gram -> absolute ids, over the segment files of a chunk. */
    function listsOf(files: string[]): Map<number, number[]> {
        const out = new Map<number, number[]>();
        for (const f of files) {
            const seg = new SegmentReader(f);
            const dict = seg.dictBlocks(0, seg.blockCount);
            for (let at = 0; at < dict.length; at += DICT_ENTRY) {
                const gram = dict.readUInt32LE(at);
                out.set(gram, [...(out.get(gram) ?? []), ...seg.read(seg.lookup(gram)!).ids]);
            }
            seg.close();
        }
        return out;
    }

    it('splits a chunk into parts of bounded postings whose joined lists are those of one segment', async () => {
        const root = tree(10, 20);
        const one = tempDir('lcf-parts-out-');
        const many = tempDir('lcf-parts-out-');
        const whole = runIndexChunk(await chunkOf(root, one));
        const c = await chunkOf(root, many, 500);
        const split = runIndexChunk(c);
        if (!whole.ok || !split.ok) throw new Error(`chunk failed: ${JSON.stringify([whole, split])}`);
        expect(whole.segmentBytes).toHaveLength(1);
        expect(split.segmentBytes.length).toBeGreaterThan(3);
        expect([...split.flags]).toEqual([...whole.flags]);
        const files = split.segmentBytes.map((_, p) => path.join(many, `part-0-${p}.bin`));
        expect(fs.readdirSync(many).sort()).toEqual(files.map((f) => path.basename(f)).sort());
        let end = c.firstId;
        for (const [p, f] of files.entries()) {
            const seg = new SegmentReader(f);
            expect(seg.firstId).toBe(end);
            expect(seg.bytes).toBe(split.segmentBytes[p]);
            end = seg.firstId + seg.fileCount;
            seg.close();
        }
        expect(end).toBe(c.firstId + c.count);
        expect(listsOf(files)).toEqual(listsOf([path.join(one, 'part-0-0.bin')]));
    });

    it('fails with a clear error and leaves no file when a part cannot be written', async () => {
        const root = tree(2, 5);
        const out = tempDir('lcf-parts-out-');
        const r = runIndexChunk(await chunkOf(root, path.join(out, 'missing')));
        expect(r).toMatchObject({ ok: false, code: 'index_failed' });
        expect(r.ok ? '' : r.message).toMatch(/ENOENT/);
        expect(fs.readdirSync(out)).toEqual([]);
    });
});

describe('the walk\'s table handed to the host', () => {
    it('is posted on the task\'s port, moved, with the length the result names, and the port closed', async () => {
        const root = tree(3, 4);
        const { port1, port2 } = new MessageChannel();
        const r = await runIndexWalk({ op: 'index-walk', root, skipDirs: [], maxEntries: 100_000, port: port2 });
        const got = receiveMessageOnPort(port1)?.message as Uint8Array;
        port1.close();
        expect(r.ok).toBe(true);
        expect(r.ok && r.bytes).toBe(got.length);
        const direct = await walkEncoded({ op: 'index-walk', root, skipDirs: [], maxEntries: 100_000 });
        expect(direct.ok && Buffer.from(got).equals(Buffer.from(direct.table))).toBe(true);
        expect(receiveMessageOnPort(port1)).toBeUndefined();
    });

    it('is not posted when the walk fails, and the port is closed all the same', async () => {
        const { port1, port2 } = new MessageChannel();
        const closed = new Promise<void>((resolve) => port1.once('close', () => resolve()));
        const r = await runIndexWalk({ op: 'index-walk', root: path.join(tempDir('lcf-parts-'), 'missing'), skipDirs: [], maxEntries: 100_000, port: port2 });
        expect(r.ok).toBe(false);
        expect(receiveMessageOnPort(port1)).toBeUndefined();
        await closed;
    });
});
