/**
 * The end of a search's tasks (search-tasks.ts `end`) on a stand-in pool, with fake timers: the
 * grace comes out of the search's time (`graceWithin`), a task still running after a short grace
 * is given up at once and terminated only if it has not returned when the whole grace is over,
 * and with the whole grace given it is terminated before the end resolves.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WalkNode } from '../../../src/search/ordered.js';
import type { Inflight, TaskHost } from '../../../src/search/search-sessions.js';
import { graceWithin, SearchTasks } from '../../../src/search/search-tasks.js';
import type { PreparedSearch, SearchTaskResult, SessionTask } from '../../../src/search/shared/protocol.js';
import type { TaskRunner } from '../../../src/search/task-runner.js';

const work: SessionTask = { deadline: Number.MAX_SAFE_INTEGER, jobs: [], budget: 16, sliceMs: 20, capHits: 50, capEntries: 1000 };
const answer: SearchTaskResult = { ok: true, results: [[]], visited: 1, scanned: 1, capped: false, timedOut: false };

/** One task dispatched on a stand-in pool that answers when `finish` is called, or fails when its signal aborts. */
function oneTask(): { tasks: SearchTasks; finish: () => void; aborted: () => boolean; got: SearchTaskResult[] } {
    let finish: () => void = () => undefined;
    let signal: AbortSignal | undefined;
    const got: SearchTaskResult[] = [];
    let stopped = false;
    const engine: TaskRunner = {
        maxThreads: 2,
        waiting: 0,
        closes: 0,
        planSearch: () => Promise.resolve(null),
        run: <T>(_task: object, opts: { signal?: AbortSignal } = {}): Promise<T> =>
            new Promise<T>((resolve, reject) => {
                signal = opts.signal;
                finish = () => resolve(answer as T);
                signal?.addEventListener('abort', () => reject(new Error('terminated')), { once: true });
            }),
    };
    const host: TaskHost = {
        engine,
        shared: () => ({ search: {} as PreparedSearch, cancel: new SharedArrayBuffer(4), hunger: new SharedArrayBuffer(4) }),
        stopped: () => stopped,
        onResult: (_nodes, res) => void got.push(res),
        pump: () => undefined,
    };
    const tasks = new SearchTasks(host);
    tasks.setRisky();
    tasks.dispatch([] as WalkNode[], work);
    stopped = true;
    return { tasks, finish: () => finish(), aborted: () => signal?.aborted === true, got };
}

describe('the end of a search\'s tasks', () => {
    beforeEach(() => void vi.useFakeTimers());
    afterEach(() => void vi.useRealTimers());

    it('takes the grace from the search\'s own time: a quarter of a short timeout, at most 250 ms', () => {
        expect(graceWithin(40)).toBe(10);
        expect(graceWithin(1)).toBe(0);
        expect(graceWithin(1000)).toBe(250);
        expect(graceWithin(10_000)).toBe(250);
        expect(graceWithin(Number.POSITIVE_INFINITY)).toBe(250);
    });

    it('after a short grace, answers without the late task and leaves its thread to return by itself', async () => {
        const { tasks, finish, aborted, got } = oneTask();
        const killed: Inflight[] = [];
        let ended = false;
        const end = tasks.end(10, (t) => void killed.push(t)).then(() => (ended = true));
        await vi.advanceTimersByTimeAsync(10);
        await end;
        expect(ended).toBe(true);
        expect(killed).toHaveLength(1);
        expect(aborted()).toBe(false);
        // The thread was loading; it returns 100 ms later and is not terminated, its answer not taken.
        await vi.advanceTimersByTimeAsync(100);
        finish();
        await vi.advanceTimersByTimeAsync(1000);
        expect(aborted()).toBe(false);
        expect(got).toEqual([]);
        expect(tasks.inflight.size).toBe(0);
    });

    it('after a short grace, terminates a task still running when the whole grace is over', async () => {
        const { tasks, aborted } = oneTask();
        const end = tasks.end(10, () => undefined);
        await vi.advanceTimersByTimeAsync(10);
        await end;
        await vi.advanceTimersByTimeAsync(200);
        expect(aborted()).toBe(false);
        await vi.advanceTimersByTimeAsync(40);
        expect(aborted()).toBe(true);
        await vi.advanceTimersByTimeAsync(0);
        expect(tasks.inflight.size).toBe(0);
    });

    it('with the whole grace given, terminates a task still running before the end resolves', async () => {
        const { tasks, aborted } = oneTask();
        let abortedAtEnd: boolean | undefined;
        const end = tasks.end(250, () => undefined).then(() => (abortedAtEnd = aborted()));
        await vi.advanceTimersByTimeAsync(249);
        expect(abortedAtEnd).toBeUndefined();
        await vi.advanceTimersByTimeAsync(1);
        await end;
        expect(abortedAtEnd).toBe(true);
        expect(tasks.inflight.size).toBe(0);
    });

    it('ends at once when the task returns within the grace, terminating nothing', async () => {
        const { tasks, finish, aborted, got } = oneTask();
        const killed: Inflight[] = [];
        const end = tasks.end(250, (t) => void killed.push(t));
        await vi.advanceTimersByTimeAsync(5);
        finish();
        await vi.advanceTimersByTimeAsync(0);
        await end;
        expect(killed).toEqual([]);
        expect(aborted()).toBe(false);
        // A task back within the grace hands its answer to the search, as before.
        expect(got).toEqual([answer]);
    });
});
