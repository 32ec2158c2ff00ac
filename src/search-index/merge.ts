import fsp from 'node:fs/promises';
import path from 'node:path';
import { BackgroundTasks } from '../engine/background-pool.js';
import { releaseFreedMemory } from '../engine/release-memory.js';
import { SegmentReader } from './shared/segment.js';
import type { IndexMergeResult, IndexMergeTask } from './shared/protocol.js';
import { readManifest, takeLock, writeManifest, type Manifest } from './store.js';

/**
 * The merge of a served generation's segment files into one (or a few), in the background after
 * a build or a reopen: a query looks each gram up once instead of once per segment (see
 * docs/search-index.md, "One dictionary"). It runs one task at a time on a background thread
 * of its own (src/engine/background-pool.ts), at the build's priority, holds the build lock (one builder or
 * merger per tree folder), writes the merged file whole under a temporary name before renaming it
 * (workers/search-index/index-merge.ts), then
 * replaces the manifest atomically and only then removes the merged inputs. A crash at any point
 * leaves a manifest naming whole files: the inputs, or the merged file; what is left over (a
 * temporary file, a merged file not yet in the manifest, inputs no longer in it) is removed by the
 * next merge of that generation.
 */

/** A merged segment file: `merged-<first input's number>.bin`. */
const MERGED_NAME = /^merged-\d{4,}\.bin$/;
/** A file a build or merge of a generation writes: its segments and their temporary files. */
const GEN_FILE = /^(seg|merged)-\d{4,}\.bin(\.\d+\.[0-9a-f]{8}\.tmp)?$/;
/** Bytes of inputs per merged file: a dictionary's 32-bit offsets stay valid. */
const MAX_MERGED_BYTES = 2 ** 31;
/**
 * Young generation of the merge's thread, in MiB: its data is in buffers it keeps, its garbage a
 * small cursor per list; the shared pools' 4 MiB kept 3 MB more resident beside a serving index
 * for the merge's minutes, at no measured cost in time.
 */
const MERGE_YOUNG_GENERATION_MB = 1;
/**
 * Old generation of the merge's thread, in MiB. What lives there is a few objects per input (its
 * buffers are outside V8's heap: 4.1 MB live after a full collection in a merge of 60 segments at
 * ten times the Linux tree, the thread's code included), but what a list's decoding leaves promoted
 * piled up until V8's own limit: the server grew by some 25 MB over each 30 s of the merge (240 →
 * 265 MB) before a collection took it back; held at 8 MiB it stayed level (208-217 MB) and the merge
 * took as long (83.6 s). Three times the live heap: a thread held far nearer its live heap spends
 * its time collecting.
 */
const MERGE_OLD_GENERATION_MB = 12;

/** Whether a generation has segment files a merge would join. */
export function needsMerge(m: Manifest): boolean {
    return m.segments.length > 1 && m.segments.some((s) => !MERGED_NAME.test(s));
}

/** Consecutive runs of segments (by index) whose sizes add up to at most {@link MAX_MERGED_BYTES}. */
function groups(sizes: readonly number[]): number[][] {
    const out: number[][] = [];
    let sum = Infinity;
    for (const [i, size] of sizes.entries()) {
        if (sum + size > MAX_MERGED_BYTES) {
            out.push([]);
            sum = 0;
        }
        out[out.length - 1]!.push(i);
        sum += size;
    }
    return out;
}

export interface MergeContext {
    root: string;
    /** The tree's index folder. */
    dir: string;
    /** The served generation's manifest. */
    manifest: Manifest;
    /** True while the tree still serves that generation and is open. */
    current(): boolean;
    /** Serves the merged generation (called once its manifest is written; the old readers are closed by the caller). */
    serve(m: Manifest, segs: SegmentReader[]): void;
}

/** One merge, running from its construction; {@link cancel} stops it (nothing changes then). */
export class SegmentMerge {
    /** Resolves when the merge has ended, merged or not; never rejects. */
    readonly done: Promise<void>;
    #pool: BackgroundTasks | null = null;
    #cancelled = false;

    constructor(ctx: MergeContext) {
        this.done = this.#run(ctx).catch(() => undefined);
    }

    /** Stops the merge and waits until it has let go of the folder (its lock released). */
    async cancel(): Promise<void> {
        this.#cancelled = true;
        await this.#pool?.stop();
        await this.done;
    }

    async #run(ctx: MergeContext): Promise<void> {
        const lock = await takeLock(ctx.dir, 'build.lock');
        if (lock === null) return;
        const opened: SegmentReader[] = [];
        let served = false;
        try {
            const m = await readManifest(ctx.dir, ctx.root);
            if (m === null || m.gen !== ctx.manifest.gen || m.segments.join('/') !== ctx.manifest.segments.join('/') || this.#stopped(ctx)) return;
            const genDir = path.join(ctx.dir, m.gen);
            await removeLeftovers(genDir, m.segments);
            // One at a time: a few hundred stats started (and answered) at once hold the event loop for tens of milliseconds.
            const sizes: number[] = [];
            for (const s of m.segments) sizes.push((await fsp.stat(path.join(genDir, s))).size);
            const names: string[] = [];
            let diskBytes = m.diskBytes;
            // A thread of its own, ended after: a shared one comes from the build with the content
            // tasks' buffers (tens of MB kept from part to part), which it would hold for the
            // minutes a large merge runs; and the merge's own memory leaves with it.
            this.#pool = new BackgroundTasks(1, true, { youngMb: MERGE_YOUNG_GENERATION_MB, oldMb: MERGE_OLD_GENERATION_MB });
            for (const g of groups(sizes)) {
                if (this.#stopped(ctx)) return;
                if (g.length === 1) {
                    names.push(m.segments[g[0]!]!);
                    continue;
                }
                const out = `merged-${String(g[0]).padStart(4, '0')}.bin`;
                const task: IndexMergeTask = { op: 'index-merge', inputs: g.map((i) => path.join(genDir, m.segments[i]!)), out: path.join(genDir, out) };
                const r = (await this.#pool.run(task)) as IndexMergeResult;
                if (!r.ok) throw new Error(`index merge failed: ${r.message}`);
                names.push(out);
                diskBytes += r.bytes - g.reduce((sum, i) => sum + sizes[i]!, 0);
            }
            for (const s of names) opened.push(new SegmentReader(path.join(genDir, s)));
            if (this.#stopped(ctx)) return;
            const merged: Manifest = { ...m, segments: names, diskBytes };
            await writeManifest(ctx.dir, merged);
            // From here on the merged files are the generation's, whatever happens to this process.
            served = true;
            if (!this.#stopped(ctx)) ctx.serve(merged, opened);
            else for (const s of opened) s.close();
            await removeLeftovers(genDir, names);
        } finally {
            if (!served) for (const s of opened) s.close();
            await this.#pool?.stop();
            await this.#pool?.close();
            await lock.release();
            await releaseFreedMemory();
        }
    }

    #stopped(ctx: MergeContext): boolean {
        return this.#cancelled || !ctx.current();
    }
}

/** Removes the files of a generation's folder a build or merge writes that `keep` does not name (best effort). */
async function removeLeftovers(genDir: string, keep: readonly string[]): Promise<void> {
    const kept = new Set(keep);
    for (const name of await fsp.readdir(genDir).catch(() => [] as string[])) {
        if (kept.has(name) || !GEN_FILE.test(name)) continue;
        const st = await fsp.lstat(path.join(genDir, name)).catch(() => null);
        if (st?.isFile()) await fsp.rm(path.join(genDir, name), { force: true }).catch(() => undefined);
    }
}
