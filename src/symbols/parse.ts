import { BackgroundTasks } from '../engine/background-pool.js';
import { releaseFreedMemory } from '../engine/release-memory.js';
import { MAX_TIMER_MS } from '../search/search-run.js';
import { settledWithin } from '../search/search-tasks.js';
import type { TaskRunner } from '../search/task-runner.js';
import type { RealRoots } from '../fs/shared/safe-read.js';
import { SymbolCache, symbolCacheOf } from './cache.js';
import type { FileSymbols, MentionsResult, MentionsTask, SymbolsResult, SymbolsTask } from './shared/types.js';

/** Files per pool task: enough to amortize a round trip, few enough to spread a batch over the threads. */
const FILES_PER_TASK = 16;
/**
 * Files over this size are parsed on a thread of their own, ended when done. Memory: neither a
 * parser's WebAssembly memory nor a thread's heap shrinks after a large file (a 7.5 MB generated
 * header left a pool thread 100 MB larger for the process's life).
 */
export const BIG_FILE = 1 << 20;

export interface ParseOptions {
    realRoots: RealRoots;
    maxBytes: number;
    /** Parse time at most per file, in milliseconds. */
    parseMs: number;
    /** When the call's time ends (epoch ms): files not parsed by then come back `late` (SymbolsTask). */
    deadline?: number;
    /** Also list the uses of this identifier. */
    references?: string;
    /** Uses in a C file with checkpoints may be told by a lexer (SymbolsTask `lexed`). */
    lexed?: boolean;
    /** Real paths whose outcome the cache keeps apart, timeouts too (SymbolCache.set `keep`). */
    keep?: ReadonlySet<string>;
    signal?: AbortSignal;
}

/**
 * The definitions of `files`, one outcome per file in their order: from the engine's cache for a
 * file unchanged since its last parse, else parsed on the pool (and remembered when no references
 * were asked for).
 */
export async function parseFiles(engine: TaskRunner, files: readonly { shown: string; real: string; checkpoints?: number[]; chars?: number; crc?: number }[], opts: ParseOptions): Promise<FileSymbols[]> {
    const cache = opts.references === undefined ? symbolCacheOf(engine) : undefined;
    const roots = JSON.stringify(opts.realRoots);
    const stamps = cache ? await Promise.all(files.map((f) => SymbolCache.stampOf(f.real))) : [];
    const out: FileSymbols[] = new Array(files.length);
    const missed: number[] = [];
    const keep = (i: number): { parseMs: number } | undefined => (opts.keep?.has(files[i]!.real) === true ? { parseMs: opts.parseMs } : undefined);
    files.forEach((f, i) => {
        const hit = keep(i) ? cache?.getKept(f.real, stamps[i]!, roots, opts.parseMs) : cache?.get(f.real, stamps[i]!, roots);
        if (hit) out[i] = hit;
        else missed.push(i);
    });
    // Without a cache (references asked) there are no stamps: every file goes to the pool.
    const big = (i: number): boolean => SymbolCache.sizeOf(stamps[i]) > BIG_FILE;
    const parseOn = async (runner: Pick<TaskRunner, 'run'>, part: number[], size: number): Promise<void> => {
        const parsed = await inTasks<(typeof files)[number], SymbolsResult, FileSymbols>(
            runner,
            part.map((i) => files[i]!),
            size,
            (batch) => ({ op: 'symbols', files: batch, realRoots: opts.realRoots, maxBytes: opts.maxBytes, parseMs: opts.parseMs, ...(opts.deadline !== undefined && { deadline: opts.deadline }), ...(opts.references !== undefined && { references: opts.references }), ...(opts.lexed === true && { lexed: true }) }) satisfies SymbolsTask,
            (r, k) => r.files[k]!,
            (message) => ({ ok: false, kind: 'io', message }),
            opts,
            {
                late: (f) => ({ ok: false, kind: 'timeout', message: `The time limit was reached before ${f.shown} was parsed.`, late: true }),
                // A parse that came back after the call ended still serves the next call.
                later: (j, r) => void cache?.set(files[part[j]!]!.real, stamps[part[j]!]!, roots, r, keep(part[j]!)),
            },
        );
        parsed.forEach((r, j) => {
            const i = part[j]!;
            out[i] = r;
            if (r.ok || r.late !== true) cache?.set(files[i]!.real, stamps[i]!, roots, r, keep(i));
        });
    };
    const large = missed.filter(big);
    await Promise.all([parseOn(engine, missed.filter((i) => !big(i)), FILES_PER_TASK), large.length === 0 ? undefined : parseOn(ownThread(engine, opts.signal), large, 1)]);
    return out;
}

/** Per engine, its thread for large files while it has tasks, and their parses under way by task (less its deadline). */
const LANES = new WeakMap<object, { own: BackgroundTasks; running: number; inFlight: Map<string, Promise<unknown>> }>();

/**
 * The engine's thread for large files (at the pool's nice value): one, its tasks queued, ended
 * once none is left (the C heap's pages it freed handed back). A call asking for a parse under
 * way joins it rather than starting another (a parse of seconds outlives a call's time, and the
 * next call asks again). A cancelled call stops waiting; a task that cannot run comes back failed.
 */
function ownThread(engine: TaskRunner, signal: AbortSignal | undefined): Pick<TaskRunner, 'run'> {
    const nice = (engine as { workerNice?: number }).workerNice ?? 0;
    return {
        run: <T>(task: object): Promise<T> => {
            let lane = LANES.get(engine);
            if (lane === undefined) LANES.set(engine, (lane = { own: new BackgroundTasks(1, true), running: 0, inFlight: new Map() }));
            const l = lane;
            const key = JSON.stringify({ ...task, deadline: undefined });
            let parse = l.inFlight.get(key);
            if (parse === undefined) {
                l.running++;
                parse = l.own
                    .run(task, { sharedNice: nice })
                    .catch((err: unknown) => ({ ok: false, code: 'io', message: err instanceof Error ? err.message : String(err) }))
                    .finally(() => {
                        l.inFlight.delete(key);
                        if (--l.running > 0) return;
                        LANES.delete(engine);
                        void l.own.close().then(releaseFreedMemory);
                    });
                l.inFlight.set(key, parse);
            }
            if (signal === undefined) return parse as Promise<T>;
            if (signal.aborted) return Promise.resolve({ ok: false, code: 'aborted', message: 'The call was cancelled.' } as T);
            const stopped = new Promise<T>((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, code: 'aborted', message: 'The call was cancelled.' } as T), { once: true }));
            return Promise.race([parse as Promise<T>, stopped]);
        },
    };
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
    opts: Pick<ParseOptions, 'realRoots' | 'maxBytes' | 'signal' | 'deadline'>,
): Promise<(Map<string, number> | null)[]> {
    return inTasks<{ shown: string; real: string }, MentionsResult, Map<string, number> | null>(
        engine,
        files,
        FILES_PER_MENTIONS_TASK,
        (batch) => ({ op: 'mentions', files: batch, realRoots: opts.realRoots, maxBytes: opts.maxBytes, names }) satisfies MentionsTask,
        (r, k) => {
            const counts = r.files[k];
            return counts ? new Map(counts.map(([i, c]) => [names[i]!, c])) : null;
        },
        () => null,
        opts,
        { late: () => null },
    );
}

/**
 * `items` run on the pool in tasks of `size` (all at once; the pool queues them), one outcome per
 * item in their order: `pick` for the items of a task that succeeded, `failed` for each item of
 * one that did not. At `stop.deadline` the call answers: `late` for each item of a task not back
 * by then (a thread still starting, or loading a grammar, is not bounded by the task's own
 * deadline), and `later` gets those items' outcomes when their task comes back.
 */
async function inTasks<I, R, O>(
    engine: Pick<TaskRunner, 'run'>,
    items: readonly I[],
    size: number,
    taskOf: (batch: I[]) => object,
    pick: (result: R, k: number) => O,
    failed: (message: string) => O,
    stop: { signal?: AbortSignal | undefined; deadline?: number | undefined },
    ends: { late: (item: I) => O; later?: (index: number, outcome: O) => void },
): Promise<O[]> {
    const out: O[] = new Array(items.length);
    const outcomes = (t: number, r: (R & { ok: true }) | { ok: false; code: string; message: string }): [number, O][] => {
        const n = Math.min(size, items.length - t * size);
        return Array.from({ length: n }, (_, k) => [t * size + k, r.ok ? pick(r, k) : failed(r.message)]);
    };
    const back = new Set<number>();
    let ended = false;
    const tasks: Promise<void>[] = [];
    for (let i = 0, t = 0; i < items.length; i += size, t++) {
        const task = engine.run<(R & { ok: true }) | { ok: false; code: string; message: string }>(taskOf(items.slice(i, i + size)), stop.signal ? { signal: stop.signal } : {});
        tasks.push(
            task.then((r) => {
                const late = stop.deadline !== undefined && ended;
                for (const [j, o] of outcomes(t, r)) {
                    if (late) ends.later?.(j, o);
                    else out[j] = o;
                }
                back.add(t);
            }),
        );
    }
    try {
        if (stop.deadline === undefined) await Promise.all(tasks);
        else await settledWithin(tasks, Math.min(MAX_TIMER_MS, Math.max(0, stop.deadline - Date.now())));
    } finally {
        ended = true;
    }
    for (let i = 0, t = 0; i < items.length; i += size, t++) {
        if (back.has(t)) continue;
        for (let k = i; k < Math.min(items.length, i + size); k++) out[k] = ends.late(items[k]!);
    }
    return out;
}
