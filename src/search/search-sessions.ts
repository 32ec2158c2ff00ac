import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { WalkNode } from './ordered.js';
import { NEAR_HITS } from './task-shape.js';
import { endsSession, type LastTask, type SearchSessionResult, type SearchSessionTask, type SearchShared, type SearchTaskResult, type SessionTask } from './shared/protocol.js';
import type { TaskRunner } from './task-runner.js';

/**
 * The sessions of a search (search-run.ts): pool threads that each run the search's tasks one
 * after the other, the next posted while the thread still runs the one before, so that a thread
 * never waits a round trip through the host between two tasks of its search.
 */

/** Tasks a session's thread holds at most: the one it runs and the next, posted ahead (see SearchSessionTask). */
const PIPELINE = 2;

/** In-flight task of a search. */
export interface Inflight {
    done: Promise<void>;
    /** Settles {@link done} (a session's task: when answered, or when its session's thread is gone). */
    settle?: () => void;
    /** `performance.now()` when it started on a thread (infinite while it waits for one). */
    since: number;
    nodes: WalkNode[];
    /** Its checkpoint buffer (risky patterns only). */
    checkpoint?: SharedArrayBuffer;
    /** Terminated at the end of the search, its checkpoint taken instead of a result. */
    killed: boolean;
}

/** What a search's tasks need of the search that hands them out. */
export interface TaskHost {
    readonly engine: TaskRunner;
    /** What every task of the search shares (see `searchTask`). */
    shared(): SearchShared;
    /** The search has ended. */
    stopped(): boolean;
    /** A task's answer (or its failure as one). */
    onResult(nodes: WalkNode[], res: SearchTaskResult): void;
    /** Hands out tasks while there is work and room. */
    pump(): void;
}

/**
 * A pool thread running tasks of this search one after the other (a {@link SearchSessionTask}):
 * the search posts each task on `port`, at most {@link PIPELINE} ahead, and gets the answers back
 * in order.
 */
export interface Session {
    port: MessagePort;
    wake: Int32Array;
    /** Tasks posted and not answered yet, in order. */
    queue: Inflight[];
    /** No more tasks are posted (`null` was, its thread is gone, or it returns by itself). */
    ended: boolean;
    /** Its task in flight may be its last (see {@link LastTask}): nothing is posted to it until answered. */
    last: LastTask | undefined;
    /** Its task left the engine's queue for a thread. */
    started: boolean;
    /** Settles when its thread has returned (or was terminated). */
    done: Promise<void>;
}

/** The sessions of one search. */
export class SearchSessions {
    readonly #host: TaskHost;
    /** The search's tasks in flight (a session's join them as they are posted). */
    readonly #inflight: Set<Inflight>;
    /** What each session's pool task runs with: the search's kill signal and stuck time. */
    readonly #options: () => { signal: AbortSignal; stuckMs: number };
    readonly #all = new Set<Session>();

    constructor(host: TaskHost, inflight: Set<Inflight>, options: () => { signal: AbortSignal; stuckMs: number }) {
        this.#host = host;
        this.#inflight = inflight;
        this.#options = options;
    }

    /** Sessions whose threads have not returned yet. */
    get size(): number {
        return this.#all.size;
    }

    /** Settle when the threads of the sessions now on have returned (or were terminated). */
    done(): Promise<void>[] {
        return [...this.#all].map((session) => session.done);
    }

    /**
     * The session the next task goes to: an idle one, else a new one while fewer than `slots`
     * run, else one busy with a single task while there is work for every thread (its next task
     * waits on its thread, not a round trip through the host); `null`: none now. While other
     * calls wait for a thread, tasks go to new sessions only, which queue behind them.
     */
    pick(slots: number, pending: number, hitsNeeded: number): Session | null {
        const yielding = this.#host.engine.waiting > 0;
        let best: Session | null = null;
        for (const s of this.#all) {
            if (!s.ended && s.last === undefined && !yielding && s.queue.length < PIPELINE && (best === null || s.queue.length < best.queue.length)) best = s;
        }
        if (best !== null && best.queue.length === 0) return best;
        if (this.#live() < slots) return this.#open();
        // Not while few hits are needed: a task in line takes jobs further from the ordered cursor
        // than the next free thread would (a max_results 50 search: 114 ms against 81 without).
        return best !== null && pending >= slots && hitsNeeded > NEAR_HITS ? best : null;
    }

    /** Sessions not ended (tasks may still be posted to them). */
    #live(): number {
        let n = 0;
        for (const s of this.#all) if (!s.ended) n++;
        return n;
    }

    /** Sessions whose threads have a task of this search. */
    busy(): number {
        let n = 0;
        for (const s of this.#all) if (s.queue.length > 0) n++;
        return n;
    }

    /**
     * Ends the sessions with nothing to do that should give their thread back: all of them when
     * `release` (the search stopped or paused, other calls wait), else those beyond `slots`.
     */
    endIdle(slots: number, release: boolean): void {
        let live = this.#live();
        for (const s of this.#all) {
            if (s.ended || s.queue.length > 0) continue;
            if (release || live > slots) {
                this.end(s);
                live--;
            }
        }
    }

    /** Starts a session: a pool task that runs the tasks posted to it until it is ended. */
    #open(): Session {
        const { port1, port2 } = new MessageChannel();
        const wake = new Int32Array(new SharedArrayBuffer(4));
        const session: Session = { port: port1, wake, queue: [], ended: false, last: undefined, started: false, done: Promise.resolve() };
        const task: SearchSessionTask = { ...this.#host.shared(), op: 'search-session', port: port2, wake: wake.buffer as SharedArrayBuffer };
        port1.on('message', (res: SearchTaskResult) => this.#onResult(session, res));
        const onStart = (): void => {
            session.started = true;
            const first = session.queue[0];
            if (first) first.since = performance.now();
        };
        session.done = this.#host.engine
            .run<SearchSessionResult>(task, { ...this.#options(), transferList: [port2], onStart, since: () => session.queue[0]?.since ?? performance.now() })
            .then(
                () => this.#close(session, null),
                (err: unknown) => this.#close(session, err),
            );
        this.#all.add(session);
        return session;
    }

    /** Posts the task `work` over `nodes` to `session` (its thread takes it when done with the ones before). */
    post(session: Session, nodes: WalkNode[], work: SessionTask): void {
        let settle!: () => void;
        const done = new Promise<void>((r) => (settle = r));
        // A started thread with nothing before it takes the task now; otherwise it starts later.
        const since = session.started && session.queue.length === 0 ? performance.now() : Number.POSITIVE_INFINITY;
        const entry: Inflight = { done, settle, since, nodes, killed: false };
        session.queue.push(entry);
        this.#inflight.add(entry);
        session.last = work.last;
        send(session, work);
    }

    /** Ends a session: no more tasks; its thread returns once it has answered those posted. */
    end(session: Session): void {
        if (session.ended) return;
        session.ended = true;
        send(session, null);
    }

    /** The answer to a session's oldest task. */
    #onResult(session: Session, res: SearchTaskResult): void {
        const entry = session.queue.shift();
        if (entry === undefined) return;
        // The next task started on that thread as this one ended.
        const next = session.queue[0];
        if (next) next.since = performance.now();
        this.#inflight.delete(entry);
        entry.settle!();
        // The thread returns by itself after this answer: no `null` is posted to it.
        if (endsSession(session.last, res)) session.ended = true;
        session.last = undefined;
        if (entry.killed) return;
        this.#host.onResult(entry.nodes, res);
    }

    /** A session's thread has returned (`err` null) or is gone: tasks it did not answer fail, unless the search is over. */
    #close(session: Session, err: unknown): void {
        // A thread's answers may be read after its return (another port): they are taken first.
        for (let m = receiveMessageOnPort(session.port); m !== undefined && session.queue.length > 0; m = receiveMessageOnPort(session.port)) this.#onResult(session, m.message as SearchTaskResult);
        session.ended = true;
        session.port.close();
        this.#all.delete(session);
        const left = session.queue.splice(0);
        for (const entry of left) {
            this.#inflight.delete(entry);
            entry.settle!();
        }
        if (this.#host.stopped()) return;
        const message = err instanceof Error ? err.message : String(err ?? 'the search session ended before answering');
        for (const entry of left) {
            if (entry.killed) continue;
            this.#host.onResult(entry.nodes, { ok: false, code: 'worker_failed', message });
            if (this.#host.stopped()) return;
        }
        if (left.length === 0) this.#host.pump();
    }

    /** Ends every session (see {@link end}). */
    endAll(): void {
        for (const session of this.#all) this.end(session);
    }
}

/** Posts `message` to a session's thread (a task, or `null` to end it) and wakes the thread. */
function send(session: Session, message: SessionTask | null): void {
    session.port.postMessage(message);
    Atomics.add(session.wake, 0, 1);
    Atomics.notify(session.wake, 0);
}
