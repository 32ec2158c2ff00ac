/**
 * CommonJS entry point that piscina loads with `require()`.
 *
 * Node 20.19+ loads an ES module passed to `require()` synchronously, and a worker thread
 * terminated during that synchronous load (the pool closed, or a hard abort, while a worker is
 * still starting) aborts the whole process with a V8 fatal error. Seen here: 2 of 60 CLI runs
 * under load crashed with "v8::Module::IsGraphAsync must be used on an instantiated module".
 * Loading the ES module with `import()` keeps the load asynchronous and termination safe.
 */
import type { ReadTaskResult, SearchTaskResult, WorkerTask } from '../src/common/search/protocol.js';

type Handler = (task: WorkerTask) => Promise<SearchTaskResult | ReadTaskResult | unknown>;

let handler: Promise<Handler> | undefined;

module.exports = async function run(task: WorkerTask): Promise<SearchTaskResult | ReadTaskResult | unknown> {
    handler ??= import('./pool-worker.js').then((m) => m.default);
    return (await handler)(task);
};
