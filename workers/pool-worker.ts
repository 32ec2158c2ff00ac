import { workerData } from 'node:worker_threads';
import { isOperation, loadOperation, type OperationName, type ResultOf } from './operations.js';
import { takeNice } from './pool/background.js';

// The engine's pool threads run at its workerNice (src/engine/engine.ts): entry.cts takes it as
// the thread starts, and this again as the thread loads this code (the tests' bundle and tsx
// start here); threads of other pools are given none.
takeNice((workerData as { nice?: number } | null | undefined)?.nice);

/**
 * Entry point of the engine's piscina pool: runs a task by its `op` (operations.ts). Never
 * throws: a failure comes back as `{ ok: false, code, message }`, since thrown errors lose their
 * class when cloned across threads.
 */
export default async function handle(task: { op: string }): Promise<ResultOf<OperationName> | { ok: false; code: string; message: string }> {
    try {
        if (!isOperation(task.op)) return { ok: false, code: 'unknown_op', message: `Unknown task: ${JSON.stringify(task.op)}` };
        const run = (await loadOperation(task.op)) as (t: unknown) => ResultOf<OperationName> | Promise<ResultOf<OperationName>>;
        return await run(task);
    } catch (err) {
        return { ok: false, code: 'worker_failed', message: err instanceof Error ? err.message : String(err) };
    }
}
