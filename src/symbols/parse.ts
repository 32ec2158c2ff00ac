import type { TaskRunner } from '../search/task-runner.js';
import type { RealRoots } from '../fs/shared/safe-read.js';
import { SymbolCache, symbolCacheOf } from './cache.js';
import type { FileSymbols, MentionsResult, MentionsTask, SymbolsResult, SymbolsTask } from './shared/types.js';

/** Files per pool task: enough to amortize a round trip, few enough to spread a batch over the threads. */
const FILES_PER_TASK = 16;

export interface ParseOptions {
    realRoots: RealRoots;
    maxBytes: number;
    /** Parse time at most per file, in milliseconds. */
    parseMs: number;
    /** Also list the uses of this identifier. */
    references?: string;
    signal?: AbortSignal;
}

/**
 * The definitions of `files`, one outcome per file in their order: from the engine's cache for a
 * file unchanged since its last parse, else parsed on the pool (and remembered when no references
 * were asked for).
 */
export async function parseFiles(engine: TaskRunner, files: readonly { shown: string; real: string }[], opts: ParseOptions): Promise<FileSymbols[]> {
    const cache = opts.references === undefined ? symbolCacheOf(engine) : undefined;
    const roots = JSON.stringify(opts.realRoots);
    const stamps = cache ? await Promise.all(files.map((f) => SymbolCache.stampOf(f.real))) : [];
    const out: FileSymbols[] = new Array(files.length);
    const missed: number[] = [];
    files.forEach((f, i) => {
        const hit = cache?.get(f.real, stamps[i]!, roots);
        if (hit) out[i] = hit;
        else missed.push(i);
    });
    const tasks: Promise<SymbolsResult | { ok: false; code: string; message: string }>[] = [];
    for (let k = 0; k < missed.length; k += FILES_PER_TASK) {
        const batch = missed.slice(k, k + FILES_PER_TASK).map((i) => files[i]!);
        const task: SymbolsTask = { op: 'symbols', files: batch, realRoots: opts.realRoots, maxBytes: opts.maxBytes, parseMs: opts.parseMs, ...(opts.references !== undefined && { references: opts.references }) };
        tasks.push(engine.run(task, opts.signal ? { signal: opts.signal } : {}));
    }
    for (const [t, r] of (await Promise.all(tasks)).entries()) {
        const batch = missed.slice(t * FILES_PER_TASK, (t + 1) * FILES_PER_TASK);
        batch.forEach((i, k) => {
            out[i] = r.ok ? r.files[k]! : { ok: false, kind: 'io', message: r.message };
            cache?.set(files[i]!.real, stamps[i]!, roots, out[i]!);
        });
    }
    return out;
}

/** Files per `mentions` task: reading is cheap next to parsing, and each task carries the names. */
const FILES_PER_MENTIONS_TASK = 128;

/**
 * How often each of `names` occurs as a word in each file, counted on the pool: one map per file in
 * their order (`null` for a file that could not be read).
 */
export async function countMentions(
    engine: TaskRunner,
    files: readonly { shown: string; real: string }[],
    names: readonly string[],
    opts: Pick<ParseOptions, 'realRoots' | 'maxBytes' | 'signal'>,
): Promise<(Map<string, number> | null)[]> {
    const tasks: Promise<MentionsResult | { ok: false; code: string; message: string }>[] = [];
    for (let i = 0; i < files.length; i += FILES_PER_MENTIONS_TASK) {
        const task: MentionsTask = { op: 'mentions', files: files.slice(i, i + FILES_PER_MENTIONS_TASK), realRoots: opts.realRoots, maxBytes: opts.maxBytes, names: [...names] };
        tasks.push(engine.run(task, opts.signal ? { signal: opts.signal } : {}));
    }
    const out: (Map<string, number> | null)[] = [];
    for (const [t, r] of (await Promise.all(tasks)).entries()) {
        const n = Math.min(FILES_PER_MENTIONS_TASK, files.length - t * FILES_PER_MENTIONS_TASK);
        for (let k = 0; k < n; k++) {
            const counts = r.ok ? r.files[k] : null;
            out.push(counts ? new Map(counts.map(([i, c]) => [names[i]!, c])) : null);
        }
    }
    return out;
}
