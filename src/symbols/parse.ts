import type { TaskRunner } from '../search/task-runner.js';
import type { RealRoots } from '../fs/shared/safe-read.js';
import type { FileSymbols, SymbolsResult, SymbolsTask } from './shared/types.js';

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

/** The definitions of `files`, parsed on the pool, one outcome per file in their order. */
export async function parseFiles(engine: TaskRunner, files: readonly { shown: string; real: string }[], opts: ParseOptions): Promise<FileSymbols[]> {
    const tasks: Promise<SymbolsResult | { ok: false; code: string; message: string }>[] = [];
    for (let i = 0; i < files.length; i += FILES_PER_TASK) {
        const task: SymbolsTask = { op: 'symbols', files: files.slice(i, i + FILES_PER_TASK), realRoots: opts.realRoots, maxBytes: opts.maxBytes, parseMs: opts.parseMs, ...(opts.references !== undefined && { references: opts.references }) };
        tasks.push(engine.run(task, opts.signal ? { signal: opts.signal } : {}));
    }
    const out: FileSymbols[] = [];
    for (const [t, r] of (await Promise.all(tasks)).entries()) {
        if (r.ok) out.push(...r.files);
        else for (let k = 0; k < Math.min(FILES_PER_TASK, files.length - t * FILES_PER_TASK); k++) out.push({ ok: false, kind: 'io', message: r.message });
    }
    return out;
}
