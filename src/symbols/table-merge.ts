import fsp from 'node:fs/promises';
import path from 'node:path';
import type { BackgroundTasks } from '../engine/background-pool.js';
import type { SymbolsMergeResult, SymbolsMergeTask } from './shared/table-tasks.js';

/**
 * The symbol table's merge (workers/symbols/symbols-table.ts) in its stages on the build's pool:
 * the names', then the rows deflated and the rows by file side by side (nearly half of the merge's
 * CPU on the Linux tree, which one thread ran while the other core waited), then the join. When a stage fails, the
 * one beside it is waited for and every temporary file of the merge (`task.stem` and a suffix)
 * removed, so that none is made after.
 */
export async function merge(pool: BackgroundTasks, niceOf: () => number | undefined, task: SymbolsMergeTask & { stem: string }): Promise<SymbolsMergeResult & { ok: true }> {
    const run = async (t: SymbolsMergeTask): Promise<SymbolsMergeResult & { ok: true }> => {
        const r = (await pool.run(t, { sharedNice: niceOf() })) as SymbolsMergeResult;
        if (!r.ok) throw new Error(`symbols merge failed: ${r.message}`);
        return r;
    };
    try {
        const { names } = await run({ ...task, stage: 'names' });
        const after = { ...task, parts: [], names };
        const side = await Promise.allSettled([run({ ...after, stage: 'rows' }), run({ ...after, stage: 'file-rows' })]);
        for (const s of side) if (s.status === 'rejected') throw s.reason;
        return await run({ ...after, stage: 'join' });
    } catch (err) {
        const [dir, prefix] = [path.dirname(task.stem), `${path.basename(task.stem)}.`];
        for (const name of await fsp.readdir(dir).catch(() => [])) if (name.startsWith(prefix)) await fsp.rm(path.join(dir, name), { force: true });
        throw err;
    }
}
