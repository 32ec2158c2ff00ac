import fs from 'node:fs/promises';
import { readCheckpoint } from './shared/checkpoint.js';
import type { PlannedWalk } from './backend.js';
import type { TaskRunner } from './task-runner.js';
import { OrderedWalk, type WalkNode } from './ordered.js';
import { expectedEntries, NEAR_HITS, plannedShape, plannedSlots, taskShape } from './task-shape.js';
import { runHit, runSize } from './shared/hit-list.js';
import type { PreparedSearch, SearchShared, SearchTaskResult, Segment, SessionTask, WalkJob } from './shared/protocol.js';
import type { SearchHit, SearchOutcome, SearchProgress, SearchStop } from './shared/types.js';
import type { Inflight, Session, TaskHost } from './search-sessions.js';
import { SearchTally } from './search-tally.js';
import { graceLeft, graceWithin, SearchTasks } from './search-tasks.js';

/**
 * One search call on the engine's pool. A search is a parallel walk: the main thread keeps a queue of directories in walk order and
 * hands batches to the pool; each task lists directories, filters entries, scans file contents,
 * descends depth-first until its budget is spent and returns its hits and the directories left
 * over. {@link OrderedWalk} stitches the results into the order of a sequential walk, so output
 * and early stops are deterministic. Stopping early, timeouts and aborts first ask the workers to
 * stop (a shared flag they check at every entry), then terminate any still busy 250 ms later, so
 * a runaway regex dies with its call; the call answers within its timeout. The tasks (sessions, pool tasks,
 * their end) are search-tasks.ts's; the figures and the outcome search-tally.ts's.
 */

/** Time slice of a task: results stream back at least this often. */
const SLICE_MS = 20;

type Resolve<T> = (value: T) => void;

/** The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days); a longer one would fire after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Hooks for streaming consumers. */
export interface RunHooks {
    /** Hits of each finished task, in the task's order (not globally sorted). */
    onHits?: (hits: SearchHit[]) => void;
    /** While true, no new tasks are handed out. */
    paused?: () => boolean;
    onProgress?: (progress: SearchProgress) => void;
}

/** One search call: dispatch, ordered merge, deadline, teardown. */
export class SearchRun {
    readonly promise: Promise<SearchOutcome>;
    readonly #engine: TaskRunner;
    readonly #search: PreparedSearch;
    readonly #timeoutMs: number;
    readonly #signal: AbortSignal | undefined;
    readonly #hooks: RunHooks;
    readonly #cancel = new SharedArrayBuffer(4);
    /** Threads of this search waiting for work while none is pending (see SearchTask.hunger). */
    readonly #hunger = new Int32Array(new SharedArrayBuffer(4));
    /** The search's tasks on the pool. */
    readonly #tasks: SearchTasks;
    readonly #tally: SearchTally;
    #walk: OrderedWalk | undefined;
    /** Soft deadline of the workers, epoch milliseconds. */
    #deadline = Number.MAX_SAFE_INTEGER;
    /** Tasks handed out so far. */
    #dispatched = 0;
    /** The rest of a backend's walk, asked for once every job before it is taken (see {@link PlannedWalk}). */
    #more: (() => PlannedWalk) | null = null;
    /** The work of the planned walk's last part placed, when its backend tells it (see {@link PlannedWalk.work}). */
    #partWork: number | undefined = undefined;
    /** Parts of a backend's walk placed so far; from one on, its pending jobs are all the search has (task-shape.ts plannedShape). */
    #parts = 0;
    #stop: SearchStop | null = null;
    #resolve!: Resolve<SearchOutcome>;
    #reject!: (err: unknown) => void;
    #timer: ReturnType<typeof setTimeout> | undefined;
    readonly #startedAt = Date.now();
    #onAbort = (): void => void this.#finish('aborted');
    /** The engine's closes when this search began: a task failing after another one was terminated by the close. */
    readonly #closes: number;

    constructor(engine: TaskRunner, search: PreparedSearch, timeoutMs: number, signal: AbortSignal | undefined, hooks: RunHooks = {}) {
        this.#engine = engine;
        this.#closes = engine.closes;
        this.#search = search;
        this.#timeoutMs = timeoutMs;
        this.#signal = signal;
        this.#hooks = hooks;
        this.#tally = new SearchTally(hooks.onProgress);
        const host: TaskHost = {
            engine,
            shared: () => this.#shared(),
            stopped: () => this.#stop !== null,
            onResult: (nodes, res) => this.#onResult(nodes, res),
            pump: () => this.#pump(),
        };
        this.#tasks = new SearchTasks(host);
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
        // The workers' grace is taken from the call's time: it answers within its timeout.
        const stopAt = this.#timeoutMs - graceWithin(this.#timeoutMs);
        if (Number.isFinite(this.#timeoutMs)) this.#timer = setTimeout(() => void this.#finish('timeout'), Math.min(stopAt, MAX_TIMER_MS));
        let rootReal: string;
        try {
            // Security: with real roots the caller's checked real path is used as is; resolving it
            // again here could follow a link swapped in since the check. Workers re-check the opened directory.
            rootReal = search.root.realRoots !== null ? search.root.real : await fs.realpath(search.root.real);
        } catch (err) {
            this.#tally.workerSkips.push({ path: search.root.display, reason: err instanceof Error ? err.message : String(err) });
            return this.#finish('done');
        }
        if (this.#stop !== null) return;
        this.#deadline = Number.isFinite(this.#timeoutMs) ? Date.now() + stopAt : Number.MAX_SAFE_INTEGER;
        if (search.namePattern?.risky === true || search.contentPattern?.risky === true) this.#tasks.setRisky();
        const root: WalkJob = { real: rootReal, rel: search.root.display, jumps: [] };
        if (search.gitignoreAbove.length > 0) root.ignores = [...search.gitignoreAbove];
        this.#walk = new OrderedWalk(root, search.maxResults, search.maxTotalEntries);
        // A backend's walk: the root resolved at once, only the entries it cannot rule out handed to the workers.
        const planned = await this.#engine.planSearch(search, rootReal);
        if (this.#stop !== null) return;
        if (planned !== null) this.#place(this.#walk.take(1)[0]!, planned);
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
        const tasks = this.#tasks;
        const slots = tasks.stuck() ? 1 : this.#parts > 0 ? plannedSlots(this.#partWork, this.#engine.maxThreads, this.#parts === 1 && walk.hitsNeeded <= NEAR_HITS) : this.#engine.maxThreads;
        // Risky patterns keep one pool task per task (their checkpoints and hard aborts are per task).
        const sessions = !tasks.risky;
        if (sessions) tasks.sessions.endIdle(slots, this.#stop !== null || this.#hooks.paused?.() === true || this.#engine.waiting > 0);
        while (this.#stop === null && walk.pending > 0 && !this.#hooks.paused?.()) {
            // The rest of a planned walk is the last job in walk order: its part is made when nothing
            // else waits, a thread is idle, and the tasks have not found `maxResults` hits yet (those
            // all come before the rest in walk order, so the first ones are certain without it).
            const held = this.#more !== null ? 1 : 0;
            if (walk.pending === held) {
                if ((sessions ? tasks.busy() : tasks.inflight.size) >= slots || this.#tally.found >= walk.maxResults) break;
                const more = this.#more!;
                this.#more = null;
                this.#place(walk.take(1)[0]!, more());
                continue;
            }
            let session: Session | null = null;
            if (sessions) {
                session = tasks.sessions.pick(slots, walk.pending, walk.hitsNeeded);
                if (session === null) break;
            } else if (tasks.inflight.size >= slots) {
                break;
            }
            const busy = tasks.busy();
            const expected = expectedEntries(walk.hitsNeeded, this.#tally.visited, this.#tally.found);
            const shape = this.#parts > 0 ? plannedShape(walk.pending - held, Math.max(1, slots - busy)) : taskShape(walk.pending, slots, this.#engine.maxThreads, walk.hitsNeeded, this.#dispatched === 0, expected);
            this.#dispatched++;
            const nodes = walk.take(Math.min(shape.jobs, walk.pending - held));
            if (session !== null) tasks.sessions.post(session, nodes, this.#work(nodes, shape.budget));
            else tasks.dispatch(nodes, this.#work(nodes, shape.budget));
        }
        // Perf: a thread left without work asks the running tasks for part of theirs, so the end
        // of a walk does not wait on one task per deep subtree while the other threads idle.
        const busy = tasks.busy();
        const idle = this.#stop === null && walk.pending === 0 && tasks.inflight.size > 0 && !this.#hooks.paused?.() ? slots - busy : 0;
        Atomics.store(this.#hunger, 0, Math.max(0, idle));
        if (this.#stop === null && tasks.inflight.size === 0 && walk.pending === 0 && !this.#hooks.paused?.()) {
            // Nothing running, nothing queued: the cursor has passed everything (or a stop was found).
            walk.advance();
            void this.#finish(walk.stop ?? 'done');
        }
    }

    /**
     * A part of a planned walk in place of `node` (the searched root, or the job that stood for the
     * rest): its segments, and a job standing for the next part, which no worker is given.
     */
    #place(node: WalkNode, part: PlannedWalk): void {
        const segments = part.segments;
        this.#partWork = part.work;
        this.#parts++;
        if (part.more !== null) {
            segments.push({ t: 'job', job: { ...node.job } });
            this.#more = part.more;
        }
        this.#walk!.resolve(node, segments);
    }

    /** What every task of this search shares (see `searchTask` in protocol.ts). */
    #shared(): SearchShared {
        return { search: this.#search, cancel: this.#cancel, hunger: this.#hunger.buffer as SharedArrayBuffer };
    }

    /** The work of a task over `nodes`, as a session takes it; a pool task adds what the session shares. */
    #work(nodes: WalkNode[], budget: number): SessionTask {
        const walk = this.#walk!;
        // With no task in flight its first job is the cursor's (see LastTask); `all` when no job is left after it.
        const last = this.#tasks.inflight.size > 0 ? undefined : walk.pending === 0 ? 'all' : 'capped';
        return { deadline: this.#deadline, jobs: nodes.map((n) => n.job), budget, sliceMs: SLICE_MS, capHits: walk.hitsNeeded, capEntries: walk.entriesNeeded, ...(last && { last }) };
    }

    #onResult(nodes: WalkNode[], res: SearchTaskResult): void {
        const walk = this.#walk!;
        const ending = this.#stop !== null;
        if (ending && this.#stop !== 'timeout' && this.#stop !== 'aborted') return;
        // The engine was closed under the search (its threads terminated): partial, and said so.
        if (!res.ok && this.#engine.closes !== this.#closes) return void this.#finish('aborted');
        if (!res.ok) {
            // A task that failed as a whole (a crashed worker): its directories are reported, the walk goes on.
            for (const node of nodes) {
                walk.resolve(node, [{ t: 'run', n: 0, hits: [], at: [], skipped: [{ path: node.job.rel, reason: `search worker failed: ${res.message}` }] }]);
            }
        } else {
            this.#tally.visited += res.visited;
            this.#tally.scanned += res.scanned;
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
                for (const seg of segs) if (seg.t === 'run') this.#tally.found += runSize(seg);
                if (this.#hooks.onHits) collectHits(segs, fresh);
            });
            if (fresh.length > 0 && !ending) this.#hooks.onHits!(fresh);
            this.#tally.progress(ending);
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

    /** Takes what a task about to be terminated recorded: its hits so far join the partial result, its figures the totals. */
    #salvage(t: Inflight): void {
        const cp = readCheckpoint(t.checkpoint!);
        this.#tally.visited += cp.visited;
        this.#tally.scanned += cp.scanned;
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
        await this.#tasks.end(graceLeft(this.#timeoutMs, this.#startedAt), (t) => {
            if (t.checkpoint && this.#walk && (stop === 'timeout' || stop === 'aborted')) this.#salvage(t);
        });
        this.#resolve(this.#tally.outcome(this.#walk, stop));
    }
}

/** All hits of a task's segments, in order. */
function collectHits(segs: readonly Segment[], out: SearchHit[]): void {
    for (const s of segs) if (s.t === 'run') for (let j = 0, n = runSize(s); j < n; j++) out.push(runHit(s, j));
}
