/**
 * CommonJS entry point that piscina loads with `require()`.
 *
 * Node 20.19+ loads an ES module passed to `require()` synchronously, and a worker thread
 * terminated during that synchronous load (the pool closed, or a hard abort, while a worker is
 * still starting) aborts the whole process with a V8 fatal error ("v8::Module::IsGraphAsync must
 * be used on an instantiated module"). Loading the ES module with `import()` keeps the load
 * asynchronous and termination safe.
 */
import os from 'node:os';
import { workerData } from 'node:worker_threads';
import type { ReadTaskResult, SearchTaskResult, WorkerTask } from '../src/search/shared/protocol.js';

// The engine's workerNice (src/engine/engine.ts), taken as the thread starts, so that loading the
// workers' code runs at it too (pool-worker.ts takes it again, for threads started without this
// file; workers/pool/background.ts says why Linux only). Perf: loading that code costs each new thread
// CPU time the host's thread would otherwise have to compete with.
const nice = (workerData as { nice?: unknown } | null | undefined)?.nice;
if (process.platform === 'linux' && typeof nice === 'number' && os.getPriority(0) < nice) {
    try {
        os.setPriority(0, nice);
    } catch {
        // not permitted here: pool-worker.ts tries again, as best effort
    }
}

type Handler = (task: WorkerTask) => Promise<SearchTaskResult | ReadTaskResult | unknown>;

let handler: Promise<Handler> | undefined;

module.exports = async function run(task: WorkerTask): Promise<SearchTaskResult | ReadTaskResult | unknown> {
    handler ??= import('./pool-worker.js').then((m) => m.default);
    return (await handler)(task);
};
