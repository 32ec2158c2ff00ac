import { receiveMessageOnPort } from 'node:worker_threads';
import { endsSession, searchTask, type SearchSessionResult, type SearchSessionTask, type SessionTask } from '../../src/search/shared/protocol.js';
import { runSearchTask } from './walk.js';

/** How long an idle run waits for its next task before it looks at the cancel flag again, in milliseconds. */
const IDLE_CHECK_MS = 1000;

/**
 * Runs the tasks the engine posts on the session's port until it posts `null`, or until the
 * search is cancelled and no task is waiting (see {@link SearchSessionTask}). Every task is
 * answered, in order; one that finds the search cancelled answers at once with nothing started.
 */
export function runSearchSession(task: SearchSessionTask): SearchSessionResult {
    const wake = new Int32Array(task.wake);
    const cancel = new Int32Array(task.cancel);
    let answered = 0;
    try {
        for (;;) {
            // Read before the port: a post after this makes the wait below return at once.
            const seen = Atomics.load(wake, 0);
            const got = receiveMessageOnPort(task.port);
            if (got === undefined) {
                if (Atomics.load(cancel, 0) !== 0) break;
                Atomics.wait(wake, 0, seen, IDLE_CHECK_MS);
                continue;
            }
            const next = got.message as SessionTask | null;
            if (next === null) break;
            const res = runSearchTask(searchTask(next, task));
            task.port.postMessage(res);
            answered++;
            if (endsSession(next.last, res)) break;
        }
    } finally {
        task.port.close();
    }
    return { ok: true, tasks: answered };
}
