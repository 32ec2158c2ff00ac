/**
 * A search's sessions (search-sessions.ts) with a stand-in for the pool: when a session's thread
 * ends by itself with its last answer (protocol.ts `endsSession`), and answers read after the
 * thread's return is known (two ports: the order they are read in is not the order sent).
 */
import type { MessagePort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { WalkNode } from '../../../src/search/ordered.js';
import { type Inflight, SearchSessions, type TaskHost } from '../../../src/search/search-sessions.js';
import { endsSession, type PreparedSearch, type SearchSessionTask, type SearchTaskResult, type SessionTask } from '../../../src/search/shared/protocol.js';
import type { TaskRunner } from '../../../src/search/task-runner.js';

const done = (over: Partial<Extract<SearchTaskResult, { ok: true }>> = {}): SearchTaskResult => ({ ok: true, results: [[]], visited: 1, scanned: 1, capped: false, timedOut: false, ...over });

const work = (last?: SessionTask['last']): SessionTask => ({ deadline: Number.MAX_SAFE_INTEGER, jobs: [], budget: 16, sliceMs: 20, capHits: 50, capEntries: 1000, ...(last && { last }) });

describe('a session task as its thread\'s last', () => {
    it('ends the session when capped at the cursor, or done with every job left and none handed back', () => {
        expect(endsSession('capped', done({ capped: true }))).toBe(true);
        expect(endsSession('all', done({ capped: true }))).toBe(true);
        expect(endsSession('all', done())).toBe(true);
        // Not capped while jobs after it wait; a job handed back or not started; a timeout; a failure; no mark.
        expect(endsSession('capped', done())).toBe(false);
        expect(endsSession('all', done({ results: [[{ t: 'job', job: { real: '/x', rel: 'x', jumps: [] } }]] }))).toBe(false);
        expect(endsSession('all', done({ results: [[], null] }))).toBe(false);
        expect(endsSession('all', done({ capped: true, timedOut: true }))).toBe(false);
        expect(endsSession('all', { ok: false, code: 'worker_failed', message: 'x' })).toBe(false);
        expect(endsSession(undefined, done({ capped: true }))).toBe(false);
    });
});

describe('search sessions', () => {
    /** Sessions on a stand-in pool whose thread answers its first task with `answer`, then returns at once. */
    function sessionsAnswering(answer: SearchTaskResult): { sessions: SearchSessions; got: SearchTaskResult[]; inflight: Set<Inflight>; posted: unknown[] } {
        const got: SearchTaskResult[] = [];
        const posted: unknown[] = [];
        const engine: TaskRunner = {
            maxThreads: 2,
            waiting: 0,
            closes: 0,
            planSearch: () => Promise.resolve(null),
            run: <T>(task: object): Promise<T> =>
                new Promise<T>((resolve) => {
                    const port = (task as SearchSessionTask).port as MessagePort;
                    port.on('message', (m: unknown) => {
                        posted.push(m);
                        if (m === null) return;
                        // The answer, then the return: the return's promise settles before the answer's message is delivered.
                        port.postMessage(answer);
                        port.close();
                        resolve({ ok: true, tasks: 1 } as T);
                    });
                }),
        };
        const host: TaskHost = {
            engine,
            shared: () => ({ search: {} as PreparedSearch, cancel: new SharedArrayBuffer(4), hunger: new SharedArrayBuffer(4) }),
            stopped: () => false,
            onResult: (_nodes, res) => void got.push(res),
            pump: () => undefined,
        };
        const inflight = new Set<Inflight>();
        return { sessions: new SearchSessions(host, inflight, () => ({ signal: new AbortController().signal, stuckMs: 2000 })), got, inflight, posted };
    }

    it('takes an answer its thread posted before returning, though the return is known first', async () => {
        const answer = done({ capped: true, visited: 7 });
        const { sessions, got, inflight } = sessionsAnswering(answer);
        const s = sessions.pick(2, 1, 50)!;
        sessions.post(s, [] as WalkNode[], work('capped'));
        await Promise.all(sessions.done());
        expect(got).toEqual([answer]);
        expect(inflight.size).toBe(0);
        expect(sessions.size).toBe(0);
    });

    it('posts nothing more to a session whose task may be its last, and no end to one that ended with its answer', async () => {
        const { sessions, got, posted } = sessionsAnswering(done());
        const s = sessions.pick(1, 2, 50)!;
        sessions.post(s, [] as WalkNode[], work('all'));
        // Its task may end it: no other task is put in line behind it, and no second thread is opened past the slots.
        expect(sessions.pick(1, 2, 2000)).toBeNull();
        await Promise.all(sessions.done());
        expect(got).toHaveLength(1);
        sessions.endAll();
        expect(posted).toEqual([work('all')]);
    });
});
