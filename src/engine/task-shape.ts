/**
 * How a search cuts its walk into pool tasks: how many pending jobs one task takes and how much
 * work (its budget) it does before handing back what is left. Pure: the search run (search-run.ts)
 * asks it for each task it hands out.
 */

/** Work units of a task when the queue is short (small tasks spread the walk) and when it is long. */
export const SMALL_BUDGET = 256;
export const LARGE_BUDGET = 4096;
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
 */
export function taskShape(pending: number, slots: number, threads: number, hitsNeeded: number, first: boolean): TaskShape {
    const near = hitsNeeded <= NEAR_HITS;
    const jobs = near ? 1 : Math.min(MAX_JOBS_PER_TASK, Math.max(1, Math.ceil(pending / slots)));
    const left = pending - Math.min(jobs, pending);
    const budget = first ? FIRST_BUDGET : near || left < threads ? SMALL_BUDGET : LARGE_BUDGET;
    return { jobs, budget };
}
