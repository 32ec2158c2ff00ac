import { workerData } from 'node:worker_threads';
import type { ReadTaskResult, SearchSessionResult, SearchTaskResult, WorkerTask } from '../src/common/search/protocol.js';
import { runReadTask } from './read.js';
import { runSearchTask } from './walk.js';
import { runSearchSession } from './search-session.js';
import type { IndexCheckResult, IndexChunkResult, IndexTask, IndexWalkResult } from '../src/common/search-index/protocol.js';
import { runIndexChunk } from './index-chunk.js';
import { runIndexCheck, runIndexWalk } from './index-walk.js';
import { takeNice } from './background.js';

// The engine's pool threads run at its workerNice (src/engine/engine.ts): entry.cts takes it as
// the thread starts, and this again as the thread loads this code (the tests' bundle and tsx
// start here); threads of other pools are given none.
takeNice((workerData as { nice?: number } | null | undefined)?.nice);

/**
 * Entry point of the engine's piscina pool: dispatches a task by its `op`. Never throws: a
 * failure comes back as `{ ok: false, code, message }`, since thrown errors lose their class
 * when cloned across threads.
 */
export default async function handle(task: WorkerTask | IndexTask): Promise<SearchTaskResult | SearchSessionResult | ReadTaskResult | IndexWalkResult | IndexChunkResult | IndexCheckResult> {
    try {
        switch (task.op) {
            case 'search':
                return runSearchTask(task);
            case 'search-session':
                return runSearchSession(task);
            case 'read':
                return await runReadTask(task);
            case 'index-walk':
                return runIndexWalk(task);
            case 'index-chunk':
                return runIndexChunk(task);
            case 'index-check':
                return await runIndexCheck(task);
            default:
                return { ok: false, code: 'unknown_op', message: `Unknown task: ${JSON.stringify((task as { op?: unknown }).op)}` };
        }
    } catch (err) {
        return { ok: false, code: 'worker_failed', message: err instanceof Error ? err.message : String(err) };
    }
}
