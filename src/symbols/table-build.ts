import path from 'node:path';
import { BackgroundTasks, SHARED_YOUNG_GENERATION_MB } from '../engine/background-pool.js';
import type { SymbolsPartResult, SymbolsPartTask } from './shared/table-tasks.js';
import { merge } from './table-merge.js';

/**
 * The symbol table's build as its own process runs it (src/symbols-build.ts): the parts parsed on
 * the build's threads, the timed-out files tried again, the parts merged into the table. The host
 * plans the parts and names every file the build writes (symbol-table.ts `buildSymbols`).
 */

/**
 * The heaps of the build's threads (MiB). The young generation larger than the shared pools'
 * threads have it: a parse makes short-lived objects by the million (a node's per capture and
 * per look at the tree), and with the shared pools' 4 MiB their scavenges were often enough to
 * cost some 6% of the parts' CPU. The old generation bounded far above a part's heap (an 8 MB
 * header's: some 110 MB) because with V8's default for a thread, sized from the machine's memory,
 * two threads parsing the kernel's generated headers peaked some 75-140 MB higher than with any
 * bound from 48 MB to 1 GB.
 */
const BUILD_HEAP = Object.freeze({ youngMb: 4 * SHARED_YOUNG_GENERATION_MB, oldMb: 1024 });

/** A large file's thread is kept for the next one while its heap is at most this size (see runBuild). */
const KEEP_HEAP_BYTES = 64 << 20;

/** One part: table ids and their paths relative to the root. */
export interface BuildPart {
    ids: number[];
    paths: string[];
}

/** What the build runs: the host's {@link BuildSpec} with the parts planned from the table (build-plan.ts). */
export interface BuildPlan {
    root: string;
    tableSize: number;
    maxFileSize: number;
    threads: number;
    /** The parts of the small files, then {@link big} parts of one large file each. */
    parts: BuildPart[];
    big: number;
    /** The folder of the part files and their names' tag: the part at index `k` is written to {@link partPath}. */
    dir: string;
    tag: string;
    /** The table file, and the merge's temporary files' prefix. */
    file: string;
    stem: string;
    parseMs: number;
    retryMs: number;
}

/** What the host gives the build process, besides the table's columns: the plan but its parts, and the most files of a part. */
export type BuildSpec = Omit<BuildPlan, 'parts' | 'big'> & { partFiles: number };

/** What a finished build tells the host. */
export interface BuildResult {
    definitions: number;
    names: number;
    bytes: number;
}

const PART_PREFIX = 'symbols-part-';
const PART_SUFFIX = '.part';

/** The part file of the part at index `k` (removed by the merge, or by the host when the build fails: {@link isPartFile}). */
export function partPath(plan: Pick<BuildPlan, 'dir' | 'tag'>, k: number): string {
    return path.join(plan.dir, `${PART_PREFIX}${k}.${plan.tag}${PART_SUFFIX}`);
}

/** Whether `name` is a part file of the build tagged `tag` (see {@link partPath}). */
export function isPartFile(name: string, tag: string): boolean {
    return name.startsWith(PART_PREFIX) && name.endsWith(`.${tag}${PART_SUFFIX}`);
}

/**
 * Runs `plan` on threads of this process's own; `niceOf` gives the searches' nice value a task
 * shares the CPU at, or `undefined` for idle priority. A file whose parse timed out is parsed
 * again after the parts, alone on the large-file thread with `plan.retryMs`.
 */
export async function runBuild(plan: BuildPlan, niceOf: () => number | undefined): Promise<BuildResult> {
    const { parts } = plan;
    const outs = parts.map((_, k) => partPath(plan, k));
    const pathOf = new Map<number, string>();
    for (const p of parts) p.ids.forEach((id, i) => pathOf.set(id, p.paths[i]!));
    // Memory: the build's threads are its own, with a bound on their heaps (BUILD_HEAP). A
    // parser's memory grows to its largest file's tree and stays (WebAssembly memory does not
    // shrink), and a thread's heap grows over the files it parses. Large files go one at a time on
    // a thread of their own, beside the other parts' threads. A thread that loaded tree-sitter for
    // one (one thread over the Linux tree's 8 MB headers in turn grew past 300 MB; one per file
    // peaks at about 190 MB) or whose heap grew past {@link KEEP_HEAP_BYTES} is ended after it, so
    // that no thread holding that much lives on; one that read its file without a parse (a C
    // header of directives alone: 78 of the kernel's 83 large files) takes the next. Perf: a
    // thread per large file cost the Linux tree's build some 10 s of a lane's time in starts.
    const pool = new BackgroundTasks(plan.threads, true, BUILD_HEAP);
    let own = new BackgroundTasks(1, true, BUILD_HEAP);
    try {
        const small = parts.length - plan.big;
        const timedOut: number[] = [];
        const runPart = async (k: number, on: BackgroundTasks, parseMs = plan.parseMs): Promise<SymbolsPartResult & { ok: true }> => {
            const task: SymbolsPartTask = { op: 'symbols-part', root: plan.root, ...parts[k]!, maxBytes: plan.maxFileSize, parseMs, out: outs[k]! };
            const r = (await on.run(task, { sharedNice: niceOf() })) as SymbolsPartResult;
            if (!r.ok) throw new Error(`symbols part failed: ${r.message}`);
            return r;
        };
        let next = 0;
        const lane = async (): Promise<void> => {
            for (let k = next++; k < small; k = next++) timedOut.push(...(await runPart(k, pool)).timedOut);
        };
        // The large files' lane runs beside the others' (one fewer), then takes parts too: the
        // build keeps its threads' count, and no core waits while the large files go one by one.
        /** Ends the large files' thread (its memory with it); the next task there starts a new one. */
        const renewOwn = async (): Promise<void> => {
            await own.close();
            own = new BackgroundTasks(1, true, BUILD_HEAP);
        };
        const largeLane = async (): Promise<void> => {
            for (let k = small; k < parts.length; k++) {
                const r = await runPart(k, own);
                timedOut.push(...r.timedOut);
                if (r.parser || r.heapBytes > KEEP_HEAP_BYTES) await renewOwn();
            }
            // A thread kept after the last large file would hold its heap through the rest of the build.
            await renewOwn();
            await lane();
        };
        await Promise.all([largeLane(), ...Array.from({ length: Math.max(1, plan.threads) - 1 }, lane)]);
        // Second tries: one file at a time, a part each, listed last for the merge (`retried`).
        const retried = timedOut.sort((a, b) => a - b);
        for (const id of retried) {
            parts.push({ ids: [id], paths: [pathOf.get(id)!] });
            outs.push(partPath(plan, parts.length - 1));
            await runPart(parts.length - 1, own, plan.retryMs);
        }
        await own.close();
        const r = await merge(pool, niceOf, { op: 'symbols-merge', parts: outs, tableSize: plan.tableSize, out: plan.file, retried, stem: plan.stem });
        await pool.close();
        return { definitions: r.definitions, names: r.names, bytes: r.bytes };
    } catch (err) {
        await Promise.all([pool.stop(), own.stop()]);
        throw err;
    }
}
