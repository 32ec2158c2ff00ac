import { setMaxListeners } from 'node:events';
import { CHECKPOINT_BYTES, resetCheckpoint } from './shared/checkpoint.js';
import type { WalkNode } from './ordered.js';
import { type SearchTask, type SearchTaskResult, type SessionTask, searchTask } from './shared/protocol.js';
import { type Inflight, SearchSessions, type TaskHost } from './search-sessions.js';

/**
 * A search's tasks on the engine's pool (search-run.ts decides what they do): in sessions, or,
 * with a pattern that may backtrack catastrophically, one pool task each that records its hits
 * in a checkpoint; when one counts as stuck; and their end with the search, a short grace and
 * then termination, so that a runaway regex cannot outlive its call.
 */

/** How long tasks get to return by themselves after a search ends before their workers are terminated. */
const GRACE_MS = 250;

/**
 * The grace of a search allowed `timeoutMs`: at most a quarter of it, since the grace is taken
 * from the search's own time (a 40 ms search stops its workers at 30 ms, not at 40 ms plus 250).
 */
export function graceWithin(timeoutMs: number): number {
    return Math.min(GRACE_MS, Math.floor(timeoutMs / 4));
}

/** The grace of a search begun at `startedAt` (epoch ms) that stops now: up to its end, at least its share. */
export function graceLeft(timeoutMs: number, startedAt: number): number {
    return Math.max(graceWithin(timeoutMs), Math.min(GRACE_MS, startedAt + timeoutMs - Date.now()));
}
/**
 * A task running this long (many time slices: it is inside one file or directory) counts as
 * stuck: its search hands out no more tasks until it returns. Shorter for patterns that may
 * backtrack catastrophically; long enough otherwise that a legitimately slow file (10 MB
 * through a slow regex) costs a search little parallelism.
 */
const STUCK_RISKY_MS = 200;
export const STUCK_MS = 2000;

/** The tasks of one search: those in flight, its sessions, the kill switch that ends them all. */
export class SearchTasks {
    /** Tasks handed out and not answered yet, in sessions or on their own. */
    readonly inflight = new Set<Inflight>();
    /** Threads running this search's tasks in sessions (all but risky searches). */
    readonly sessions: SearchSessions;
    readonly #host: TaskHost;
    /**
     * Aborted once at the end of the search to terminate the tasks still running then (piscina
     * ends their threads). Perf: one signal for every task of the search (an AbortController
     * per task costs ~1.5 ms of the host's CPU per name search).
     */
    readonly #kill = killSwitch();
    /** After this long a task counts as stuck (see {@link STUCK_MS}). */
    #stuckMs = STUCK_MS;
    /** The pattern may backtrack catastrophically: tasks keep checkpoints. */
    #risky = false;
    /** Checkpoint buffers of returned tasks, for the next ones. */
    readonly #spareCheckpoints: SharedArrayBuffer[] = [];

    constructor(host: TaskHost) {
        this.#host = host;
        this.sessions = new SearchSessions(host, this.inflight, () => ({ signal: this.#kill.signal, stuckMs: this.#stuckMs }));
    }

    /**
     * The pattern may backtrack catastrophically: one pool task per task (their checkpoints and
     * hard aborts are per task), stuck sooner.
     */
    get risky(): boolean {
        return this.#risky;
    }

    setRisky(): void {
        this.#risky = true;
        this.#stuckMs = STUCK_RISKY_MS;
    }

    /** Some in-flight task has run longer than {@link STUCK_MS}. */
    stuck(): boolean {
        const now = performance.now();
        for (const t of this.inflight) if (now - t.since > this.#stuckMs) return true;
        return false;
    }

    /** The threads busy with this search's tasks: sessions with a task, or pool tasks in flight (risky patterns). */
    busy(): number {
        return this.#risky ? this.inflight.size : this.sessions.busy();
    }

    /** Runs the task `work` over `nodes` as a pool task of its own (risky patterns). */
    dispatch(nodes: WalkNode[], work: SessionTask): void {
        const task: SearchTask = searchTask(work, this.#host.shared());
        // `since` counts from the start on a thread: time in the engine's queue is not being stuck.
        const entry: Inflight = { done: Promise.resolve(), since: Number.POSITIVE_INFINITY, nodes, killed: false };
        // Perf: only for risky patterns; a returned task's buffer serves the next one.
        if (this.#risky) task.checkpoint = entry.checkpoint = this.#spareCheckpoints.pop() ?? new SharedArrayBuffer(CHECKPOINT_BYTES);
        const onStart = (): void => {
            entry.since = performance.now();
        };
        entry.done = this.#host.engine.run<SearchTaskResult>(task, { signal: this.#kill.signal, stuckMs: this.#stuckMs, risky: this.#risky, onStart }).then(
            (res: SearchTaskResult) => {
                this.inflight.delete(entry);
                if (entry.killed) return;
                if (entry.checkpoint) {
                    resetCheckpoint(entry.checkpoint);
                    this.#spareCheckpoints.push(entry.checkpoint);
                }
                this.#host.onResult(nodes, res);
            },
            (err: unknown) => {
                this.inflight.delete(entry);
                if (this.#host.stopped()) return; // aborted by our own teardown
                this.#host.onResult(nodes, { ok: false, code: 'worker_failed', message: err instanceof Error ? err.message : String(err) });
            },
        );
        this.inflight.add(entry);
    }

    /**
     * Ends the tasks: the sessions take no more, running tasks get `graceMs` to return, then
     * what is left is handed to `onKilled` and its answer ignored. With the whole grace given,
     * those tasks are terminated before this resolves. With a shorter one (a short timeout), they
     * are terminated only if still running when the whole grace is over: a thread still loading
     * an operation's code reads the stop once it starts and returns, and stays for the next call.
     */
    async end(graceMs: number, onKilled: (t: Inflight) => void): Promise<void> {
        this.sessions.endAll();
        // Tasks still running, and session threads not yet back (they return once they read the end).
        const running = (): Promise<void>[] => [...this.inflight].map((t) => t.done).concat(this.sessions.done());
        const left = (): boolean => this.inflight.size > 0 || this.sessions.size > 0;
        if (!left() || (await settledWithin(running(), graceMs))) return;
        for (const t of this.inflight) {
            t.killed = true;
            onKilled(t);
        }
        const rest = GRACE_MS - graceMs;
        if (rest <= 0) return this.#terminate(running);
        void settledWithin(running(), rest).then((settled) => (settled ? undefined : this.#terminate(running)));
    }

    /** Terminates the tasks still running (piscina ends their threads and starts new ones). */
    async #terminate(running: () => Promise<void>[]): Promise<void> {
        this.#kill.abort();
        await Promise.all(running());
    }
}

/** Whether all of `tasks` settle within `ms` milliseconds (at most a timer's range). */
export async function settledWithin(tasks: Promise<void>[], ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
    try {
        return await Promise.race([Promise.all(tasks).then(() => true), late]);
    } finally {
        clearTimeout(timer);
    }
}

/**
 * An AbortController whose signal takes any number of listeners without Node's leak warning:
 * each running task of a search (up to `maxThreads`, any number) listens to it.
 */
function killSwitch(): AbortController {
    const ac = new AbortController();
    setMaxListeners(0, ac.signal);
    return ac;
}
