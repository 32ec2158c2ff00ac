import fsp from 'node:fs/promises';
import path from 'node:path';
import type { BackgroundTasks } from '../engine/background-pool.js';
import { newProgress, progressFailed } from './shared/merge-progress.js';
import type { SymbolsMergeResult, SymbolsMergeTask } from './shared/table-tasks.js';

/**
 * The symbol table's merge (workers/symbols/symbols-table.ts) in its stages on the build's pool,
 * so that both threads have work while the names' stage, which one thread runs alone, goes on:
 * beside it the rows deflated as it writes them (merge-progress.ts); after it the rows by file in
 * two halves, the first on its thread, the second on the other once the rows are deflated; then
 * the join. With one thread the stages run in turn, each after the one before. When a stage
 * fails, those under way are waited for and every temporary file of the merge (`task.stem` and a
 * suffix) removed, so that none is made after.
 */
export async function merge(pool: BackgroundTasks, niceOf: () => number | undefined, task: SymbolsMergeTask & { stem: string }): Promise<SymbolsMergeResult & { ok: true }> {
    const run = async (t: SymbolsMergeTask): Promise<SymbolsMergeResult & { ok: true }> => {
        const r = (await pool.run(t, { sharedNice: niceOf() })) as SymbolsMergeResult;
        if (!r.ok) throw new Error(`symbols merge failed: ${r.message}`);
        return r;
    };
    const progress = newProgress();
    try {
        // The names' task is queued first: on one thread the rows' task, which waits for it, runs after it.
        const named = run({ ...task, stage: 'names', progress: progress.buffer as SharedArrayBuffer }).catch((err: unknown) => {
            // Its thread may have ended without telling the rows' task, which would wait on.
            progressFailed(progress);
            throw err;
        });
        const rows = run({ ...task, parts: [], stage: 'rows', progress: progress.buffer as SharedArrayBuffer });
        const halves = (split: number | undefined): (0 | 1 | undefined)[] => (split === undefined ? [undefined] : [0, 1]);
        const byFile = named.then(({ names, split }) => settled(halves(split).map((half) => run({ ...task, parts: [], names, split, half, stage: 'file-rows' }))));
        await settled<unknown>([named, rows, byFile]);
        const { names, split } = await named;
        return await run({ ...task, parts: [], names, split, stage: 'join' });
    } catch (err) {
        const [dir, prefix] = [path.dirname(task.stem), `${path.basename(task.stem)}.`];
        for (const name of await fsp.readdir(dir).catch(() => [])) if (name.startsWith(prefix)) await fsp.rm(path.join(dir, name), { force: true });
        throw err;
    }
}

/** The outcomes of `list` once every one has settled; the first failure's reason when one failed. */
async function settled<T>(list: readonly Promise<T>[]): Promise<T[]> {
    const out = await Promise.allSettled(list);
    for (const s of out) if (s.status === 'rejected') throw s.reason;
    return out.map((s) => (s as PromiseFulfilledResult<T>).value);
}
