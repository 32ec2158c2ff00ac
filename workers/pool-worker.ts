import type { ReadTaskResult, SearchTaskResult, WorkerTask } from '../src/engine/protocol.js';
import { runReadTask } from './read.js';
import { runSearchTask } from './walk.js';

/**
 * Entry point of the engine's piscina pool: dispatches a task by its `op`. Never throws: a
 * failure comes back as `{ ok: false, code, message }`, since thrown errors lose their class
 * when cloned across threads.
 */
export default async function handle(task: WorkerTask): Promise<SearchTaskResult | ReadTaskResult> {
    try {
        switch (task.op) {
            case 'search':
                return runSearchTask(task);
            case 'read':
                return await runReadTask(task);
            default:
                return { ok: false, code: 'unknown_op', message: `Unknown task: ${JSON.stringify((task as { op?: unknown }).op)}` };
        }
    } catch (err) {
        return { ok: false, code: 'worker_failed', message: err instanceof Error ? err.message : String(err) };
    }
}
