/**
 * A build or a merge ended early on the shared background pool (src/engine/background-pool.ts):
 * a build closed or failing midway removes its generation's folder only once its tasks have
 * ended, a cancelled merge leaves the manifest and segments as they were and lets go of the
 * lock, and either way the pool runs the next build.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { buildGeneration, type BuildContext } from '../../../src/search-index/build.js';
import { SegmentMerge } from '../../../src/search-index/merge.js';
import { readManifest, takeLock, writeManifest } from '../../../src/search-index/store.js';
import { tempDir, writeTree } from '../../support/helpers.js';

/** 48 files of about 1 KB: with 2 KiB segments, some 24 chunk tasks. */
function tree(): string {
    const root = tempDir('lcf-bg-stop-tree-');
    writeTree(root, Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`d${i % 6}/f${i}.txt`, `word${i} ${'filler '.repeat(140)}\n`])));
    return root;
}

function context(root: string, dir: string, over: Partial<BuildContext> = {}): BuildContext {
    return {
        root,
        dir,
        threads: 2,
        maxFileSize: 1 << 20,
        segmentBytes: 2048,
        skipDirs: DEFAULT_SKIP_DIRS,
        maxEntries: 1_000_000,
        progress: () => undefined,
        closed: () => false,
        ...over,
    };
}

const generations = (dir: string): string[] => fs.readdirSync(dir).filter((n) => n.startsWith('gen-'));

describe('background work ended early', () => {
    it('a build closed midway fails, leaves no generation folder, and the next build completes', async () => {
        const root = tree();
        const dir = tempDir('lcf-bg-stop-index-');
        let closed = false;
        let chunksDone = 0;
        const progress: BuildContext['progress'] = (phase, filesDone) => {
            if (phase === 'content' && filesDone > 0 && ++chunksDone === 3) closed = true;
        };
        await expect(buildGeneration(context(root, dir, { progress, closed: () => closed }))).rejects.toThrow('index closed during the build');
        expect(chunksDone).toBeGreaterThanOrEqual(3);
        expect(generations(dir)).toEqual([]);
        const built = await buildGeneration(context(root, dir));
        expect(built.manifest.segments.length).toBeGreaterThan(3);
        expect(generations(dir)).toEqual([built.manifest.gen]);
        for (const s of built.segs) s.close();
    });

    it('a build whose chunk fails rejects with the failure and removes its folder once the other tasks have ended', async () => {
        const root = tree();
        const dir = tempDir('lcf-bg-stop-index-');
        let removed = false;
        // The generation's folder taken away under the build: the next segment cannot be written.
        const progress: BuildContext['progress'] = (phase, filesDone) => {
            if (phase !== 'content' || filesDone === 0 || removed) return;
            removed = true;
            // Retried: the build's threads may add a file while the folder is emptied (ENOTEMPTY at its rmdir).
            for (const g of generations(dir)) fs.rmSync(path.join(dir, g), { recursive: true, force: true, maxRetries: 20, retryDelay: 5 });
        };
        await expect(buildGeneration(context(root, dir, { progress }))).rejects.toThrow(/^index chunk failed: /);
        expect(removed).toBe(true);
        expect(generations(dir)).toEqual([]);
        const built = await buildGeneration(context(root, dir));
        expect(generations(dir)).toEqual([built.manifest.gen]);
        for (const s of built.segs) s.close();
    });

    it('a cancelled merge changes nothing, releases the lock, and a merge after it joins the segments', async () => {
        const root = tree();
        const dir = tempDir('lcf-bg-stop-index-');
        const built = await buildGeneration(context(root, dir));
        for (const s of built.segs) s.close();
        await writeManifest(dir, built.manifest);
        const segments = built.manifest.segments;
        expect(segments.length).toBeGreaterThan(3);
        const served: string[][] = [];
        const ctx = { root, dir, manifest: built.manifest, current: () => true, serve: (m: { segments: string[] }, segs: { close(): void }[]) => {
            served.push(m.segments);
            for (const s of segs) s.close();
        } };
        const genDir = path.join(dir, built.manifest.gen);
        const cancelled = new SegmentMerge(ctx);
        let ended = false;
        void cancelled.done.then(() => (ended = true));
        // Cancelled once its task writes the merged file (its temporary name), if it has not ended first.
        while (!ended && !fs.readdirSync(genDir).some((n) => n.endsWith('.tmp'))) await new Promise((r) => setImmediate(r));
        await cancelled.cancel();
        await cancelled.done;
        // Whether it was cancelled before, during or after its task, the folder is let go and whole.
        const lock = await takeLock(dir, 'build.lock');
        expect(lock).not.toBeNull();
        await lock!.release();
        const after = await readManifest(dir, root);
        expect(after).not.toBeNull();
        for (const s of after!.segments) expect(fs.existsSync(path.join(genDir, s)), s).toBe(true);
        if (served.length === 0) expect(after!.segments).toEqual(segments);
        // A merge run to its end joins what is left.
        const merged = new SegmentMerge({ ...ctx, manifest: after! });
        await merged.done;
        const final = await readManifest(dir, root);
        expect(final!.segments.length).toBeLessThan(segments.length);
        expect(final!.segments.every((s) => s.startsWith('merged-'))).toBe(true);
        // The next merge cleared what a cut-off one left: no temporary file, no input no longer named.
        expect(fs.readdirSync(genDir).sort()).toEqual([...final!.segments, 'table.bin'].sort());
    });
});
