import type { OrderedWalk } from './ordered.js';
import { HitList, outcomeWithHitList } from './shared/hit-list.js';
import type { SearchHit, SearchOutcome, SearchProgress, SearchStop } from './shared/types.js';

/**
 * What a search counts as its tasks answer (search-run.ts): the figures its progress reports give
 * the caller while it runs, and the outcome made of them and of its ordered walk when it ends.
 */

/** Minimum time between two progress reports. */
const PROGRESS_EVERY_MS = 100;

/** The figures of one search call. */
export class SearchTally {
    visited = 0;
    scanned = 0;
    found = 0;
    /** Where the workers could not search (the root unresolvable), besides the walk's own skips. */
    readonly workerSkips: { path: string; reason: string }[] = [];
    readonly #started = performance.now();
    #lastProgress = 0;
    readonly #report: ((progress: SearchProgress) => void) | undefined;

    constructor(report: ((progress: SearchProgress) => void) | undefined) {
        this.#report = report;
    }

    /** Reports the figures to the caller, at most every {@link PROGRESS_EVERY_MS}; never once the search is `ending`. */
    progress(ending: boolean): void {
        const report = this.#report;
        const now = performance.now();
        if (!report || ending || now - this.#lastProgress < PROGRESS_EVERY_MS) return;
        this.#lastProgress = now;
        try {
            report({ visited: this.visited, scanned: this.scanned, hits: this.found });
        } catch {
            // a listener's failure is not the search's
        }
    }

    /** The search's outcome when it ends with `stop`, from its ordered walk (none when it never began). */
    outcome(walk: OrderedWalk | undefined, stop: SearchStop): SearchOutcome {
        let hits: SearchHit[] = [];
        let list: HitList | undefined;
        let skipped = [...this.workerSkips];
        let visited = this.visited;
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
            scanned: this.scanned,
            stop,
            skipped,
            tooLarge: walk ? walk.tooLarge : [],
            tooLargeCount: walk ? walk.tooLargeCount : 0,
            elapsedMs: Math.round(performance.now() - this.#started),
        };
        return list ? outcomeWithHitList(outcome, list) : outcome;
    }
}
