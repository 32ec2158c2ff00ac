/**
 * How a search cuts its walk into pool tasks: how many pending jobs one task takes and how much
 * work (its budget) it does before handing back what is left. Pure: the search run (search-run.ts)
 * asks it for each task it hands out.
 */

/**
 * Work units of a task when the queue is short (small tasks spread the walk) and when it is long.
 * Perf: each task is a round trip through the host (0.6-1.2 ms in which its thread waits), so
 * tasks are large; a thread left without work gets part of a running task's (SearchTask.hunger),
 * so large tasks do not leave threads idle at the end of a walk.
 */
export const SMALL_BUDGET = 256;
export const LARGE_BUDGET = 8192;
/** Work units of a task at most while few hits are needed (see {@link NEAR_HITS}): work past the stop is wasted. */
export const NEAR_BUDGET = 4096;
/**
 * Work units of the first task: it lists the searched directory and hands its entries back as
 * jobs almost at once, so every thread has work within one round trip instead of waiting for one
 * task to walk its first {@link SMALL_BUDGET} entries alone.
 */
export const FIRST_BUDGET = 16;
/**
 * A search that needs at most this many more hits (a small `max_results`) hands out one job per
 * task with the small budget: its threads stay next to the ordered cursor, where the first
 * results in path order are, rather than on jobs far ahead that a stop makes useless.
 */
export const NEAR_HITS = 1000;
/** Jobs per task at most. */
export const MAX_JOBS_PER_TASK = 32;

/** What the next task takes: `jobs` pending jobs (earliest in walk order first) and a budget in work units (entries, plus scanned bytes / 16 KiB). */
export interface TaskShape {
    jobs: number;
    budget: number;
}

/**
 * The next task's shape.
 * @param pending - jobs waiting, before this task takes its own
 * @param slots - tasks the search may run at once now
 * @param threads - the engine's maxThreads
 * @param hitsNeeded - hits the search still needs (maxResults minus those already in order)
 * @param first - no task of this search was handed out yet
 * @param expected - while few hits are needed: entries the walk is expected to visit until it
 *   has them ({@link expectedEntries}); absent: unknown (small tasks of one job)
 */
export function taskShape(pending: number, slots: number, threads: number, hitsNeeded: number, first: boolean, expected?: number): TaskShape {
    const near = hitsNeeded <= NEAR_HITS;
    const spread = Math.min(MAX_JOBS_PER_TASK, Math.max(1, Math.ceil(pending / slots)));
    if (near && expected !== undefined && !first) {
        // Perf: each task is a round trip through the main thread (on a loaded host, two wake-ups of
        // threads that wait for a core). Tasks as large as the expected work left, shared by the
        // threads, keep the count of round trips low while the threads stay near the cursor.
        return { jobs: spread, budget: Math.min(NEAR_BUDGET, Math.max(SMALL_BUDGET, Math.ceil(expected / threads))) };
    }
    const jobs = near ? 1 : spread;
    const left = pending - Math.min(jobs, pending);
    const budget = first ? FIRST_BUDGET : near || left < threads ? SMALL_BUDGET : LARGE_BUDGET;
    return { jobs, budget };
}

/**
 * The next task's shape for a search planned by the index (src/search-index): its jobs are the
 * candidates the index could not rule out, all known at once, mostly single files. They are
 * shared evenly among the `free` slots in one step, with the large budget. Perf: the halving
 * shapes of {@link taskShape}, made for a walk that discovers its work, would take 5-7 round trips
 * through the host for 20-100 candidates (about half of a selective search's time); two tasks
 * take one.
 * @param pending - jobs waiting
 * @param free - tasks the search may still start now (at least 1)
 */
export function plannedShape(pending: number, free: number): TaskShape {
    return { jobs: Math.min(MAX_JOBS_PER_TASK, Math.max(1, Math.ceil(pending / Math.max(1, free)))), budget: LARGE_BUDGET };
}

/**
 * Work units (entries, plus their bytes / 16 KiB) of a planned part at most that one thread takes
 * alone. Perf: each further thread of a search is a session opened on the pool (a message
 * channel, the search cloned to the thread, a thread woken: 0.5-1.5 ms of the host's time on a
 * busy machine, see bench/query-phases.ts) for work that one thread does in about that time; a
 * rare identifier's few candidates, or a capped search's first files, are such parts.
 */
export const ONE_THREAD_UNITS = 96;

/**
 * Work units of the first planned part of a search that needs few hits (see {@link NEAR_HITS}) at
 * most that one thread takes alone. Perf: that part is about as many candidates as the hits
 * needed (search-index/plan.ts), and a candidate mostly holds a hit, so one thread usually ends
 * the search with it, and a second session's task was speculative work the search waited for (on
 * the Linux tree at max_results 50, with the smaller first part: p90 15.7 → 10.6 ms, docs/performance.md).
 * A part holding large files (more units) still takes every thread.
 */
export const NEAR_FIRST_UNITS = 4 * ONE_THREAD_UNITS;

/**
 * Tasks a search planned by the index may run at once for a part of `work` units (see
 * {@link ONE_THREAD_UNITS}, and {@link NEAR_FIRST_UNITS} for a `nearFirst` part: the first part
 * of a search needing few hits); `slots` otherwise.
 */
export function plannedSlots(work: number | undefined, slots: number, nearFirst = false): number {
    return work !== undefined && work <= (nearFirst ? NEAR_FIRST_UNITS : ONE_THREAD_UNITS) ? 1 : slots;
}

/**
 * Entries the walk of a search stopped by `max_results` is expected to visit before it has the
 * `hitsNeeded` hits it still needs, from what its tasks found so far: at the density of hits seen
 * (`visited` entries gave `found` hits); with no hit yet, as many entries again as visited (so
 * that task sizes grow geometrically while nothing is found).
 */
export function expectedEntries(hitsNeeded: number, visited: number, found: number): number {
    if (found === 0) return visited;
    return Math.ceil((hitsNeeded * visited) / found);
}
