import { setMaxListeners } from 'node:events';
import fs from 'node:fs/promises';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { CHECKPOINT_BYTES, readCheckpoint, resetCheckpoint } from './shared/checkpoint.js';
import type { TaskRunner } from './task-runner.js';
import { OrderedWalk, type WalkNode } from './ordered.js';
import { expectedEntries, NEAR_HITS, plannedShape, taskShape } from './task-shape.js';
import { HitList, outcomeWithHitList, runHit, runSize } from './shared/hit-list.js';
import { type PreparedSearch, type SearchShared, type SearchSessionResult, type SearchSessionTask, type SearchTask, type SearchTaskResult, type Segment, type SessionTask, type WalkJob, searchTask } from './shared/protocol.js';
import type { SearchHit, SearchOutcome, SearchProgress, SearchStop } from './shared/types.js';

/**
 * One search call on the engine's pool. A search is a parallel walk: the main thread keeps a queue of directories in walk order and
 * hands batches to the pool; each task lists directories, filters entries, scans file contents,
 * descends depth-first until its budget is spent and returns its hits and the directories left
 * over. {@link OrderedWalk} stitches the results into the order of a sequential walk, so output
 * and early stops are deterministic. Stopping early, timeouts and aborts first ask the workers to
 * stop (a shared flag they check at every entry), then terminate any still busy after a short
 * grace, so a runaway regex cannot outlive its call.
 */

/** How long tasks get to return by themselves after a search ends before their workers are terminated. */
const GRACE_MS = 250;
/** Time slice of a task: results stream back at least this often. */
const SLICE_MS = 20;
/**
 * A task running this long (many time slices: it is inside one file or directory) counts as
 * stuck: its search hands out no more tasks until it returns. Shorter for patterns that may
 * backtrack catastrophically; long enough otherwise that a legitimately slow file (10 MB
 * through a slow regex) costs a search little parallelism.
 */
const STUCK_RISKY_MS = 200;
export const STUCK_MS = 2000;

type Resolve<T> = (value: T) => void;

/** The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days); a longer one would fire after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Minimum time between two progress reports. */
const PROGRESS_EVERY_MS = 100;

/** Hooks for streaming consumers. */
export interface RunHooks {
    /** Hits of each finished task, in the task's order (not globally sorted). */
    onHits?: (hits: SearchHit[]) => void;
    /** While true, no new tasks are handed out. */
    paused?: () => boolean;
    onProgress?: (progress: SearchProgress) => void;
}

/** Tasks a session's thread holds at most: the one it runs and the next, posted ahead (see SearchSessionTask). */
const PIPELINE = 2;

/** In-flight task of a search. */
interface Inflight {
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

/**
 * A pool thread running tasks of this search one after the other (a {@link SearchSessionTask}):
 * the search posts each task on `port`, at most {@link PIPELINE} ahead, and gets the answers back
 * in order.
 */
interface Session {
    port: MessagePort;
    wake: Int32Array;
    /** Tasks posted and not answered yet, in order. */
    queue: Inflight[];
    /** No more tasks are posted (`null` was, or its thread is gone). */
    ended: boolean;
    /** Its task left the engine's queue for a thread. */
    started: boolean;
    /** Settles when its thread has returned (or was terminated). */
    done: Promise<void>;
}

/** One search call: dispatch, ordered merge, deadline, teardown. */
export class SearchRun {
    readonly promise: Promise<SearchOutcome>;
    readonly #engine: TaskRunner;
    readonly #search: PreparedSearch;
    readonly #timeoutMs: number;
    readonly #signal: AbortSignal | undefined;
    readonly #hooks: RunHooks;
    readonly #started = performance.now();
    readonly #cancel = new SharedArrayBuffer(4);
    /** Threads of this search waiting for work while none is pending (see SearchTask.hunger). */
    readonly #hunger = new Int32Array(new SharedArrayBuffer(4));
    /**
     * Aborted once at the end of the search to terminate the tasks still running then (piscina
     * ends their threads). Perf: one signal for every task of the search (an AbortController
     * per task costs ~1.5 ms of the host's CPU per name search).
     */
    readonly #kill = killSwitch();
    readonly #inflight = new Set<Inflight>();
    /** Threads running this search's tasks in sessions (all but risky searches). */
    readonly #sessions = new Set<Session>();
    #walk: OrderedWalk | undefined;
    /** Soft deadline of the workers, epoch milliseconds. */
    #deadline = Number.MAX_SAFE_INTEGER;
    /** After this long a task counts as stuck (see {@link STUCK_MS}). */
    #stuckMs = STUCK_MS;
    /** The pattern may backtrack catastrophically: tasks keep checkpoints. */
    #risky = false;
    /** Checkpoint buffers of returned tasks, for the next ones. */
    readonly #spareCheckpoints: SharedArrayBuffer[] = [];
    /** Tasks handed out so far. */
    #dispatched = 0;
    /** The walk was planned by the index: its pending jobs are all the search has (task-shape.ts plannedShape). */
    #planned = false;
    #visited = 0;
    #scanned = 0;
    #found = 0;
    #lastProgress = 0;
    #workerSkips: { path: string; reason: string }[] = [];
    #stop: SearchStop | null = null;
    #resolve!: Resolve<SearchOutcome>;
    #reject!: (err: unknown) => void;
    #timer: ReturnType<typeof setTimeout> | undefined;
    #onAbort = (): void => void this.#finish('aborted');

    constructor(engine: TaskRunner, search: PreparedSearch, timeoutMs: number, signal: AbortSignal | undefined, hooks: RunHooks = {}) {
        this.#engine = engine;
        this.#search = search;
        this.#timeoutMs = timeoutMs;
        this.#signal = signal;
        this.#hooks = hooks;
        this.promise = new Promise<SearchOutcome>((resolve, reject) => {
            this.#resolve = resolve;
            this.#reject = reject;
        });
        this.#start().catch((err: unknown) => {
            // Only a programming error gets here (the request was checked by prepareSearch).
            this.#stop ??= 'aborted';
            Atomics.store(new Int32Array(this.#cancel), 0, 1);
            clearTimeout(this.#timer);
            this.#signal?.removeEventListener('abort', this.#onAbort);
            this.#reject(err);
        });
    }

    async #start(): Promise<void> {
        const search = this.#search;
        if (this.#signal?.aborted) return this.#finish('aborted');
        this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
        if (Number.isFinite(this.#timeoutMs)) this.#timer = setTimeout(() => void this.#finish('timeout'), Math.min(this.#timeoutMs, MAX_TIMER_MS));
        let rootReal: string;
        try {
            // Security: with real roots the caller's checked real path is used as is; resolving it
            // again here could follow a link swapped in since the check. Workers re-check the opened directory.
            rootReal = search.root.realRoots !== null ? search.root.real : await fs.realpath(search.root.real);
        } catch (err) {
            this.#workerSkips.push({ path: search.root.display, reason: err instanceof Error ? err.message : String(err) });
            return this.#finish('done');
        }
        if (this.#stop !== null) return;
        this.#deadline = Number.isFinite(this.#timeoutMs) ? Date.now() + this.#timeoutMs : Number.MAX_SAFE_INTEGER;
        if (search.namePattern?.risky === true || search.contentPattern?.risky === true) {
            this.#risky = true;
            this.#stuckMs = STUCK_RISKY_MS;
        }
        const root: WalkJob = { real: rootReal, rel: search.root.display, jumps: [] };
        if (search.gitignoreAbove.length > 0) root.ignores = [...search.gitignoreAbove];
        this.#walk = new OrderedWalk(root, search.maxResults, search.maxTotalEntries);
        // A backend's walk: the root resolved at once, only the entries it cannot rule out handed to the workers.
        const planned = await this.#engine.planSearch(search, rootReal);
        if (this.#stop !== null) return;
        if (planned !== null) {
            this.#walk.resolve(this.#walk.take(1)[0]!, planned);
            this.#planned = true;
        }
        this.#pump();
    }

    /** Streaming consumer caught up: hand out work again. */
    resume(): void {
        if (this.#stop === null && this.#walk) this.#pump();
    }

    /** Hands out tasks while there is work and room. */
    #pump(): void {
        const walk = this.#walk!;
        // Perf/fairness: no more threads than workers, so the pool's queue stays empty for a lone search
        // and piscina starts spare threads only when other calls are waiting. While a task is stuck
        // (likely in a runaway regex), no more: the search holds one thread until it returns or times out.
        const slots = this.#stuck() ? 1 : this.#engine.maxThreads;
        // Risky patterns keep one pool task per task (their checkpoints and hard aborts are per task).
        const sessions = !this.#risky;
        if (sessions) this.#endIdleSessions(slots);
        while (this.#stop === null && walk.pending > 0 && !this.#hooks.paused?.()) {
            let session: Session | null = null;
            if (sessions) {
                session = this.#sessionFor(slots, walk.pending);
                if (session === null) break;
            } else if (this.#inflight.size >= slots) {
                break;
            }
            const busy = this.#busy(sessions);
            const expected = expectedEntries(walk.hitsNeeded, this.#visited, this.#found);
            const shape = this.#planned ? plannedShape(walk.pending, Math.max(1, slots - busy)) : taskShape(walk.pending, slots, this.#engine.maxThreads, walk.hitsNeeded, this.#dispatched === 0, expected);
            this.#dispatched++;
            if (session !== null) this.#post(session, walk.take(shape.jobs), shape.budget);
            else this.#dispatch(walk.take(shape.jobs), shape.budget);
        }
        // Perf: a thread left without work asks the running tasks for part of theirs, so the end
        // of a walk does not wait on one task per deep subtree while the other threads idle.
        const busy = this.#busy(sessions);
        const idle = this.#stop === null && walk.pending === 0 && this.#inflight.size > 0 && !this.#hooks.paused?.() ? slots - busy : 0;
        Atomics.store(this.#hunger, 0, Math.max(0, idle));
        if (this.#stop === null && this.#inflight.size === 0 && walk.pending === 0 && !this.#hooks.paused?.()) {
            // Nothing running, nothing queued: the cursor has passed everything (or a stop was found).
            walk.advance();
            void this.#finish(walk.stop ?? 'done');
        }
    }

    /**
     * The session the next task goes to: an idle one, else a new one while fewer than `slots`
     * run, else one busy with a single task while there is work for every thread (its next task
     * waits on its thread, not a round trip through the host); `null`: none now. While other
     * calls wait for a thread, tasks go to new sessions only, which queue behind them.
     */
    #sessionFor(slots: number, pending: number): Session | null {
        const yielding = this.#engine.waiting > 0;
        let best: Session | null = null;
        for (const s of this.#sessions) {
            if (!s.ended && !yielding && s.queue.length < PIPELINE && (best === null || s.queue.length < best.queue.length)) best = s;
        }
        if (best !== null && best.queue.length === 0) return best;
        if (this.#liveSessions() < slots) return this.#openSession();
        // Not while few hits are needed: a task in line takes jobs further from the ordered cursor
        // than the next free thread would (a max_results 50 search: 114 ms against 81 without).
        return best !== null && pending >= slots && this.#walk!.hitsNeeded > NEAR_HITS ? best : null;
    }

    /** Sessions not ended (tasks may still be posted to them). */
    #liveSessions(): number {
        let n = 0;
        for (const s of this.#sessions) if (!s.ended) n++;
        return n;
    }

    /** Sessions whose threads have a task of this search. */
    #busySessions(): number {
        let n = 0;
        for (const s of this.#sessions) if (s.queue.length > 0) n++;
        return n;
    }

    /** Ends the sessions with nothing to do that should give their thread back: when paused, when other calls wait, beyond `slots`. */
    #endIdleSessions(slots: number): void {
        const release = this.#stop !== null || this.#hooks.paused?.() === true || this.#engine.waiting > 0;
        let live = this.#liveSessions();
        for (const s of this.#sessions) {
            if (s.ended || s.queue.length > 0) continue;
            if (release || live > slots) {
                this.#endSession(s);
                live--;
            }
        }
    }

    /** Starts a session: a pool task that runs the tasks posted to it until it is ended. */
    #openSession(): Session {
        const { port1, port2 } = new MessageChannel();
        const wake = new Int32Array(new SharedArrayBuffer(4));
        const session: Session = { port: port1, wake, queue: [], ended: false, started: false, done: Promise.resolve() };
        const task: SearchSessionTask = { ...this.#shared(), op: 'search-session', port: port2, wake: wake.buffer as SharedArrayBuffer };
        port1.on('message', (res: SearchTaskResult) => this.#onSessionResult(session, res));
        const onStart = (): void => {
            session.started = true;
            const first = session.queue[0];
            if (first) first.since = performance.now();
        };
        session.done = this.#engine
            .run<SearchSessionResult>(task, { signal: this.#kill.signal, stuckMs: this.#stuckMs, transferList: [port2], onStart, since: () => session.queue[0]?.since ?? performance.now() })
            .then(
                () => this.#closeSession(session, null),
                (err: unknown) => this.#closeSession(session, err),
            );
        this.#sessions.add(session);
        return session;
    }

    /** Posts a task to `session` (its thread takes it when done with the ones before). */
    #post(session: Session, nodes: WalkNode[], budget: number): void {
        let settle!: () => void;
        const done = new Promise<void>((r) => (settle = r));
        // A started thread with nothing before it takes the task now; otherwise it starts later.
        const since = session.started && session.queue.length === 0 ? performance.now() : Number.POSITIVE_INFINITY;
        const entry: Inflight = { done, settle, since, nodes, killed: false };
        session.queue.push(entry);
        this.#inflight.add(entry);
        send(session, this.#work(nodes, budget));
    }

    /** Ends a session: no more tasks; its thread returns once it has answered those posted. */
    #endSession(session: Session): void {
        if (session.ended) return;
        session.ended = true;
        send(session, null);
    }

    /** The answer to a session's oldest task. */
    #onSessionResult(session: Session, res: SearchTaskResult): void {
        const entry = session.queue.shift();
        if (entry === undefined) return;
        // The next task started on that thread as this one ended.
        const next = session.queue[0];
        if (next) next.since = performance.now();
        this.#inflight.delete(entry);
        entry.settle!();
        if (entry.killed) return;
        this.#onResult(entry.nodes, res);
    }

    /** A session's thread has returned (`err` null) or is gone: tasks it did not answer fail, unless the search is over. */
    #closeSession(session: Session, err: unknown): void {
        session.ended = true;
        session.port.close();
        this.#sessions.delete(session);
        const left = session.queue.splice(0);
        for (const entry of left) {
            this.#inflight.delete(entry);
            entry.settle!();
        }
        if (this.#stop !== null) return;
        const message = err instanceof Error ? err.message : String(err ?? 'the search session ended before answering');
        for (const entry of left) {
            if (entry.killed) continue;
            this.#onResult(entry.nodes, { ok: false, code: 'worker_failed', message });
            if (this.#stop !== null) return;
        }
        if (left.length === 0) this.#pump();
    }

    /** Some in-flight task has run longer than {@link STUCK_MS}. */
    #stuck(): boolean {
        const now = performance.now();
        for (const t of this.#inflight) if (now - t.since > this.#stuckMs) return true;
        return false;
    }

    /** What every task of this search shares (see {@link searchTask}). */
    #shared(): SearchShared {
        return { search: this.#search, cancel: this.#cancel, hunger: this.#hunger.buffer as SharedArrayBuffer };
    }

    /** The threads busy with this search's tasks: sessions with a task, or pool tasks in flight (risky patterns). */
    #busy(sessions: boolean): number {
        return sessions ? this.#busySessions() : this.#inflight.size;
    }

    /** The work of a task over `nodes`, as a session takes it; a pool task adds what the session shares. */
    #work(nodes: WalkNode[], budget: number): SessionTask {
        const walk = this.#walk!;
        return { deadline: this.#deadline, jobs: nodes.map((n) => n.job), budget, sliceMs: SLICE_MS, capHits: walk.hitsNeeded, capEntries: walk.entriesNeeded };
    }

    #dispatch(nodes: WalkNode[], budget: number): void {
        const task: SearchTask = searchTask(this.#work(nodes, budget), this.#shared());
        // `since` counts from the start on a thread: time in the engine's queue is not being stuck.
        const entry: Inflight = { done: Promise.resolve(), since: Number.POSITIVE_INFINITY, nodes, killed: false };
        // Perf: only for risky patterns; a returned task's buffer serves the next one.
        if (this.#risky) task.checkpoint = entry.checkpoint = this.#spareCheckpoints.pop() ?? new SharedArrayBuffer(CHECKPOINT_BYTES);
        const onStart = (): void => {
            entry.since = performance.now();
        };
        entry.done = this.#engine.run<SearchTaskResult>(task, { signal: this.#kill.signal, stuckMs: this.#stuckMs, risky: this.#risky, onStart }).then(
            (res: SearchTaskResult) => {
                this.#inflight.delete(entry);
                if (entry.killed) return;
                if (entry.checkpoint) {
                    resetCheckpoint(entry.checkpoint);
                    this.#spareCheckpoints.push(entry.checkpoint);
                }
                this.#onResult(nodes, res);
            },
            (err: unknown) => {
                this.#inflight.delete(entry);
                if (this.#stop !== null) return; // aborted by our own teardown
                this.#onResult(nodes, { ok: false, code: 'worker_failed', message: err instanceof Error ? err.message : String(err) });
            },
        );
        this.#inflight.add(entry);
    }

    #onResult(nodes: WalkNode[], res: SearchTaskResult): void {
        const walk = this.#walk!;
        const ending = this.#stop !== null;
        if (ending && this.#stop !== 'timeout' && this.#stop !== 'aborted') return;
        if (!res.ok) {
            // A task that failed as a whole (a crashed worker): its directories are reported, the walk goes on.
            for (const node of nodes) {
                walk.resolve(node, [{ t: 'run', n: 0, hits: [], at: [], skipped: [{ path: node.job.rel, reason: `search worker failed: ${res.message}` }] }]);
            }
        } else {
            this.#visited += res.visited;
            this.#scanned += res.scanned;
            const fresh: SearchHit[] = [];
            nodes.forEach((node, i) => {
                const segs = res.results[i];
                if (segs === null || segs === undefined) {
                    // Not started: needed later unless a cap made it pointless.
                    if (res.capped) walk.resolve(node, []);
                    else walk.requeue(node);
                    return;
                }
                // Runs stay packed as the worker sent them (see hit-list.ts).
                walk.resolve(node, segs);
                for (const seg of segs) if (seg.t === 'run') this.#found += runSize(seg);
                if (this.#hooks.onHits) collectHits(segs, fresh);
            });
            if (fresh.length > 0 && !ending) this.#hooks.onHits!(fresh);
            this.#progress(ending);
            if (res.timedOut && !ending) {
                void this.#finish('timeout');
                return;
            }
        }
        if (ending) return;
        walk.advance();
        if (walk.stop !== null) {
            void this.#finish(walk.stop);
            return;
        }
        if (walk.complete) {
            void this.#finish('done');
            return;
        }
        this.#pump();
    }

    #progress(ending: boolean): void {
        const report = this.#hooks.onProgress;
        const now = performance.now();
        if (!report || ending || now - this.#lastProgress < PROGRESS_EVERY_MS) return;
        this.#lastProgress = now;
        try {
            report({ visited: this.#visited, scanned: this.#scanned, hits: this.#found });
        } catch {
            // a listener's failure is not the search's
        }
    }

    /** Takes what a task about to be terminated recorded: its hits so far join the partial result, its figures the totals. */
    #salvage(t: Inflight): void {
        const cp = readCheckpoint(t.checkpoint!);
        this.#visited += cp.visited;
        this.#scanned += cp.scanned;
        for (const [job, hits] of cp.hits) {
            const node = t.nodes[job];
            if (node) this.#walk!.partial(node, hits);
        }
    }

    /**
     * Ends the search: signals the workers to stop, gives running tasks a short grace to return
     * (their results still count after a timeout), then terminates what is left. Nothing of this
     * search runs after the promise resolves.
     */
    async #finish(stop: SearchStop): Promise<void> {
        if (this.#stop !== null) return;
        this.#stop = stop;
        Atomics.store(new Int32Array(this.#cancel), 0, 1);
        clearTimeout(this.#timer);
        this.#signal?.removeEventListener('abort', this.#onAbort);
        for (const session of this.#sessions) this.#endSession(session);
        // Tasks still running, and session threads not yet back (they return once they read the end).
        const running = (): Promise<void>[] => [...this.#inflight].map((t) => t.done).concat([...this.#sessions].map((session) => session.done));
        if (this.#inflight.size > 0 || this.#sessions.size > 0) {
            let graceTimer: ReturnType<typeof setTimeout> | undefined;
            const grace = new Promise<void>((r) => (graceTimer = setTimeout(r, GRACE_MS)));
            try {
                await Promise.race([Promise.all(running()), grace]);
            } finally {
                clearTimeout(graceTimer);
            }
            if (this.#inflight.size > 0 || this.#sessions.size > 0) {
                // Hard abort: piscina terminates a worker still running (e.g. stuck in a runaway regex) and starts a new one.
                for (const t of this.#inflight) {
                    t.killed = true;
                    if (t.checkpoint && this.#walk && (stop === 'timeout' || stop === 'aborted')) this.#salvage(t);
                }
                this.#kill.abort();
                await Promise.all(running());
            }
        }
        const walk = this.#walk;
        let hits: SearchHit[] = [];
        let list: HitList | undefined;
        let skipped = [...this.#workerSkips];
        let visited = this.#visited;
        if (walk) {
            const ordered = stop === 'max_results' || stop === 'too_many_entries' || stop === 'done';
            // The ordered hits stay as the workers' runs until a caller reads `hits` (see hit-list.ts).
            if (ordered) list = walk.emittedList;
            else hits = walk.knownHits();
            // Deterministic where the sequential walk's stopping point is known; workers overshoot it.
            if (ordered) visited = walk.visited;
            skipped = skipped.concat(walk.skipped);
        }
        const outcome: SearchOutcome = {
            hits,
            visited,
            scanned: this.#scanned,
            stop,
            skipped,
            tooLarge: walk ? walk.tooLarge : [],
            tooLargeCount: walk ? walk.tooLargeCount : 0,
            elapsedMs: Math.round(performance.now() - this.#started),
        };
        this.#resolve(list ? outcomeWithHitList(outcome, list) : outcome);
    }
}

/** All hits of a task's segments, in order. */
function collectHits(segs: readonly Segment[], out: SearchHit[]): void {
    for (const s of segs) if (s.t === 'run') for (let j = 0, n = runSize(s); j < n; j++) out.push(runHit(s, j));
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

/** Posts `message` to a session's thread (a task, or `null` to end it) and wakes the thread. */
function send(session: Session, message: SessionTask | null): void {
    session.port.postMessage(message);
    Atomics.add(session.wake, 0, 1);
    Atomics.notify(session.wake, 0);
}
