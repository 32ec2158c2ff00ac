/**
 * The merged format (src/search-index/merge.ts): a build of many segments merged into one file
 * answers exactly as the scan path does; a corrupt merged file is detected and rebuilt; a merge
 * cut off at any point (a crash) leaves an index that opens and answers, and the next merge
 * clears what it left.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS, type TreeIndex } from '../../../src/internals.js';
import type { Worker } from 'node:worker_threads';
import { SegmentMerge } from '../../../src/search-index/merge.js';
import { FORMAT_VERSION } from '../../../src/search-index/shared/format.js';
import { SegmentReader } from '../../../src/search-index/shared/segment.js';
import { encodeSegment } from '../../../src/search-index/shared/segment-encode.js';
import { readManifest, writeManifest, type Manifest } from '../../../src/search-index/store.js';
import { gramsOf } from '../../../src/search/shared/fold.js';
import { SHARED_POOL, tempDir, writeTree } from '../../support/helpers.js';
import { COMPARED_TIMEOUT_MS, scanPathPackage, WIDE_OUTPUT } from '../../support/scan-path.js';
import { ownThreadsEndWithCaller } from '../../support/own-threads.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

/** A package with the index, or without it (the scan path, on the file's one engine: support/scan-path.ts). */
function pkgOf(root: string, index: false | { dir: string; segmentBytes?: number; merge?: boolean }): FileToolPackage {
    if (index === false) return scanPathPackage(root, new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS));
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS), WIDE_OUTPUT(), undefined, { index, engine: SHARED_POOL });
    open.push(pkg);
    return pkg;
}

async function call(pkg: FileToolPackage, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === 'search_entries')!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa', 'lambda', 'omicron'];

/** A tree of 240 files whose small segments (2 KiB of text each) make many segment files. */
function manyChunkTree(): string {
    const root = tempDir('lcf-tree-');
    const files: Record<string, string> = {};
    for (let i = 0; i < 240; i++) {
        const a = WORDS[i % WORDS.length]!;
        const b = WORDS[(i * 7 + 3) % WORDS.length]!;
        files[`d${i % 12}/f${i}.txt`] = `${a}_${b}_${i} line\n${'filler text '.repeat(i % 40)}\nend ${b}${i % 5}\n`;
    }
    writeTree(root, files);
    return root;
}

const PATTERNS = [...WORDS.map((w) => `${w}_`), ...WORDS.map((w) => `_${w}_1\\d`), 'end kappa3', 'LAMBDA_ALPHA', 'zeta_theta_2', 'alpha_beta_\\d+ line'];

/** Every pattern through the index and the scan path: identical outputs; how many the index answered. */
async function compare(tree: TreeIndex, indexed: FileToolPackage, plain: FileToolPackage): Promise<number> {
    let answered = 0;
    for (const q of PATTERNS) {
        const before = tree.counts.answered;
        const a = await call(indexed, { content_pattern: q });
        expect(a, q).toBe(await call(plain, { content_pattern: q }));
        expect(a, q).toMatch(/^success: /);
        if (tree.counts.answered > before) answered++;
    }
    return answered;
}

/** The tree folder, its manifest's generation folder and segment list. */
function stored(indexDir: string): { dir: string; genDir: string; segments: string[] } {
    const dir = path.join(indexDir, fs.readdirSync(indexDir)[0]!);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8').split('\n')[0]!) as { gen: string; segments: string[] };
    return { dir, genDir: path.join(dir, m.gen), segments: m.segments };
}

async function warm(pkg: FileToolPackage, root: string): Promise<TreeIndex> {
    const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(tree.status().state).toBe('ready');
    return tree;
}

describe('merged segments', () => {
    it('merges a build of many segments into one file that answers exactly as the scan path does', async () => {
        const root = manyChunkTree();
        const indexDir = tempDir('lcf-index-');
        const indexed = pkgOf(root, { dir: indexDir, segmentBytes: 2048 });
        const plain = pkgOf(root, false);
        const tree = await warm(indexed, root);
        const built = stored(indexDir).segments.length;
        expect(built).toBeGreaterThan(20);
        // Searches while the merge runs, then once it is served.
        expect(await compare(tree, indexed, plain)).toBeGreaterThanOrEqual(PATTERNS.length - 1);
        await tree.settled();
        expect(tree.status().segments).toBe(1);
        const s = stored(indexDir);
        expect(s.segments).toEqual(['merged-0000.bin']);
        expect(fs.readdirSync(s.genDir).sort()).toEqual(['merged-0000.bin', 'table.bin']);
        expect(await compare(tree, indexed, plain)).toBeGreaterThanOrEqual(PATTERNS.length - 1);
        // The next process opens the merged file.
        await indexed.close();
        const again = pkgOf(root, { dir: indexDir, segmentBytes: 2048 });
        const reopened = await warm(again, root);
        expect(reopened.status().openMs).toBeDefined();
        expect(reopened.status().segments).toBe(1);
        expect(await compare(reopened, again, plain)).toBeGreaterThanOrEqual(PATTERNS.length - 1);
    });

    it('detects a corrupt merged file, at open and while serving, and rebuilds the index', async () => {
        const root = manyChunkTree();
        const indexDir = tempDir('lcf-index-');
        const plain = pkgOf(root, false);
        const first = pkgOf(root, { dir: indexDir, segmentBytes: 2048 });
        await (await warm(first, root)).settled();
        await first.close();
        // At open: a byte of the block index.
        const merged = path.join(stored(indexDir).genDir, 'merged-0000.bin');
        const bytes = fs.readFileSync(merged);
        bytes[70] = bytes[70]! ^ 0xff;
        fs.writeFileSync(merged, bytes);
        const second = pkgOf(root, { dir: indexDir, segmentBytes: 2048 });
        const rebuilt = await warm(second, root);
        expect(rebuilt.status().openMs).toBeUndefined();
        expect(await compare(rebuilt, second, plain)).toBeGreaterThanOrEqual(PATTERNS.length - 1);
        await rebuilt.settled();
        expect(stored(indexDir).segments).toEqual(['merged-0000.bin']);
        // While serving: the posting list of the gram "alp" in the merged file.
        const file = path.join(stored(indexDir).genDir, 'merged-0000.bin');
        const reader = new SegmentReader(file);
        const ref = reader.lookup([...gramsOf('alp')][0]!)!;
        const at = reader.postingsAt + ref.off;
        reader.close();
        const fd = fs.openSync(file, 'r+');
        const list = Buffer.alloc(ref.len);
        fs.readSync(fd, list, 0, ref.len, at);
        fs.writeSync(fd, list.map((x) => x ^ 0x5a), 0, ref.len, at);
        fs.closeSync(fd);
        const before = rebuilt.counts.answered;
        expect(await call(second, { content_pattern: 'alpha_' })).toBe(await call(plain, { content_pattern: 'alpha_' }));
        expect(rebuilt.counts.answered).toBe(before);
        await new Promise<void>((resolve) => {
            const check = (): void => (rebuilt.state === 'ready' ? resolve() : void setTimeout(check, 50));
            check();
        });
        expect(await compare(rebuilt, second, plain)).toBeGreaterThanOrEqual(PATTERNS.length - 1);
    });

    it('runs the merge on a thread of its own that has exited when the merge is done (a shared thread keeps a build\'s buffers)', async () => {
        ownThreadsEndWithCaller();
        const root = tempDir('lcf-tree-');
        const dir = tempDir('lcf-index-');
        const gen = 'gen-abc-0123abcd';
        fs.mkdirSync(path.join(dir, gen));
        const segments: string[] = [];
        for (let s = 0; s < 3; s++) {
            const name = `seg-000${s}.bin`;
            const keys = Uint32Array.from([0x616263, 0x626364 + s]);
            fs.writeFileSync(path.join(dir, gen, name), encodeSegment(keys, Uint32Array.from([0, 2, 3]), Uint32Array.from([0, 4, 1]), Uint16Array.from([1, 2, 3]), 1 + 10 * s, 10));
            segments.push(name);
        }
        const manifest: Manifest = { version: FORMAT_VERSION, root, skipDirs: [], maxFileSize: 1 << 20, gen, skippedDirs: [], segments, textBytes: 0, diskBytes: segments.reduce((n, f) => n + fs.statSync(path.join(dir, gen, f)).size, 0), buildMs: 0 };
        await writeManifest(dir, manifest);
        const started: Worker[] = [];
        const exited: Worker[] = [];
        const onWorker = (w: Worker): void => {
            started.push(w);
            w.once('exit', () => exited.push(w));
        };
        process.on('worker', onWorker);
        let served: Manifest | null = null;
        try {
            const merge = new SegmentMerge({ root, dir, manifest, current: () => true, serve: (m, segs) => {
                served = m;
                for (const r of segs) r.close();
            } });
            await merge.done;
        } finally {
            process.off('worker', onWorker);
        }
        expect(served).not.toBeNull();
        expect((await readManifest(dir, root))!.segments).toEqual(['merged-0000.bin']);
        expect(started).toHaveLength(1);
        expect(exited).toEqual(started);
    });

    it("merges a list of 2 million postings and 60,000 grams on its merge thread's small heap", async () => {
        const root = tempDir('lcf-tree-');
        const dir = tempDir('lcf-index-');
        const gen = 'gen-abc-0123abcd';
        fs.mkdirSync(path.join(dir, gen));
        const [inputs, perInput, common] = [16, 125_000, 0x616263];
        const segments: string[] = [];
        for (let s = 0; s < inputs; s++) {
            // Every file holds the common gram; 4,000 grams of each input's own hold a file each.
            const own = Uint32Array.from({ length: 4000 }, (_, k) => 0x700000 + s * 4000 + k);
            const keys = Uint32Array.from([common, ...own]);
            const starts = Uint32Array.from({ length: keys.length + 1 }, (_, r) => (r === 0 ? 0 : perInput + r - 1));
            const ids = new Uint32Array(perInput + own.length);
            for (let i = 0; i < perInput; i++) ids[i] = i;
            for (let k = 0; k < own.length; k++) ids[perInput + k] = k % perInput;
            const name = `seg-${String(s).padStart(4, '0')}.bin`;
            fs.writeFileSync(path.join(dir, gen, name), encodeSegment(keys, starts, ids, new Uint16Array(ids.length), 1 + s * perInput, perInput));
            segments.push(name);
        }
        const manifest: Manifest = { version: FORMAT_VERSION, root, skipDirs: [], maxFileSize: 1 << 20, gen, skippedDirs: [], segments, textBytes: 0, diskBytes: 0, buildMs: 0 };
        await writeManifest(dir, manifest);
        let served: Manifest | null = null;
        const merge = new SegmentMerge({ root, dir, manifest, current: () => true, serve: (m, segs) => {
            served = m;
            for (const r of segs) r.close();
        } });
        await merge.done;
        expect(served).not.toBeNull();
        const merged = new SegmentReader(path.join(dir, gen, 'merged-0000.bin'));
        try {
            expect(merged.gramCount).toBe(1 + inputs * 4000);
            const all = merged.read(merged.lookup(common)!).ids;
            expect(all.length).toBe(inputs * perInput);
            expect(all.every((id, i) => id === i + 1)).toBe(true);
            expect([...merged.read(merged.lookup(0x700000 + 15 * 4000 + 3999)!).ids]).toEqual([1 + 15 * perInput + 3999]);
        } finally {
            merged.close();
        }
    });

    it('a merge cut off at any point (a crash) leaves an index that opens and answers; the next merge clears what it left', async () => {
        const root = manyChunkTree();
        const indexDir = tempDir('lcf-index-');
        const plain = pkgOf(root, false);
        // Built without merging: the state a crash before the merge's end leaves.
        const first = pkgOf(root, { dir: indexDir, segmentBytes: 2048, merge: false });
        const unmerged = await warm(first, root);
        expect(await compare(unmerged, first, plain)).toBeGreaterThanOrEqual(PATTERNS.length - 1);
        await first.close();
        const { genDir, segments } = stored(indexDir);
        expect(segments.length).toBeGreaterThan(20);
        // What a crash leaves: a temporary file cut off mid-write, and a merged file renamed but not yet in the manifest.
        fs.writeFileSync(path.join(genDir, `merged-0000.bin.${process.pid}.0badf00d.tmp`), Buffer.from('LCFSEG\0\0 cut off'));
        fs.writeFileSync(path.join(genDir, 'merged-0000.bin'), Buffer.alloc(100, 7));
        // Opened without merging: answers from the inputs the manifest names.
        const second = pkgOf(root, { dir: indexDir, segmentBytes: 2048, merge: false });
        const reopened = await warm(second, root);
        expect(reopened.status().openMs).toBeDefined();
        expect(reopened.status().segments).toBe(segments.length);
        expect(await compare(reopened, second, plain)).toBeGreaterThanOrEqual(PATTERNS.length - 1);
        await second.close();
        // Opened with merging: the leftovers are removed, the merge made and served.
        const third = pkgOf(root, { dir: indexDir, segmentBytes: 2048 });
        const merging = await warm(third, root);
        expect(merging.status().openMs).toBeDefined();
        await merging.settled();
        expect(merging.status().segments).toBe(1);
        expect(fs.readdirSync(genDir).sort()).toEqual(['merged-0000.bin', 'table.bin']);
        expect(await compare(merging, third, plain)).toBeGreaterThanOrEqual(PATTERNS.length - 1);
        await third.close();
        // A crash after the manifest named the merged file, before the inputs were removed: opens and answers.
        fs.writeFileSync(path.join(genDir, 'seg-0003.bin'), Buffer.alloc(10, 1));
        const fourth = pkgOf(root, { dir: indexDir, segmentBytes: 2048 });
        const last = await warm(fourth, root);
        expect(last.status().openMs).toBeDefined();
        expect(await compare(last, fourth, plain)).toBeGreaterThanOrEqual(PATTERNS.length - 1);
    });
});
