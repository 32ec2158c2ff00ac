import type { Segment, WalkJob } from '../search/shared/protocol.js';
import type { SearchHit } from '../search/shared/types.js';

/** A job's directory and what the workers need of it; its entries are added one by one. */
export type JobHead = Omit<WalkJob, 'names' | 'kinds'>;

/**
 * The output of a walk answered from the index, in walk order, as the engine's ordered merge
 * takes a task's output ({@link Segment}): consecutive hits the table decided form a run, and
 * consecutive entries left to the workers form one job per directory.
 */
export class SegmentWriter {
    readonly #out: Segment[] = [];
    #hits: SearchHit[] | null = null;
    #job: { parent: number; frame: object; job: WalkJob & { names: string[]; kinds: number[] } } | null = null;
    /** Entries handed to the workers. */
    handedOut = 0;
    /** Entries decided so far: hits made here and entries handed to the workers. */
    decided = 0;
    /** Work units of the entries handed out since the last {@link finish} (see `PlannedWalk.work`; infinite once one of unknown work was). */
    work = 0;

    hit(h: SearchHit): void {
        this.#flushJob();
        this.decided++;
        (this.#hits ??= []).push(h);
    }

    /**
     * Hands an entry to the workers, whose work is `units`: added to the current job when it is for
     * the same directory (`parent` reached through `frame`), else to a new one headed by `head()`.
     */
    toWalk(parent: number, frame: object, name: string, kind: number, units: number, head: () => JobHead): void {
        this.#flushRun();
        this.work += units;
        if (this.#job === null || this.#job.parent !== parent || this.#job.frame !== frame) {
            this.#flushJob();
            this.#job = { parent, frame, job: { ...head(), names: [], kinds: [] } };
        }
        this.decided++;
        this.#job.job.names.push(name);
        this.#job.job.kinds.push(kind);
    }

    /** The segments since the last call, the last run or job included (a directory's entries may go on in the next job). */
    finish(): Segment[] {
        this.#flushRun();
        this.#flushJob();
        this.work = 0;
        return this.#out.splice(0);
    }

    #flushRun(): void {
        const hits = this.#hits;
        if (hits !== null && hits.length > 0) this.#out.push({ t: 'run', n: hits.length, hits, at: hits.map((_, k) => k) });
        this.#hits = null;
    }

    #flushJob(): void {
        const job = this.#job?.job;
        if (job !== undefined) {
            this.handedOut += job.names.length;
            this.#out.push({ t: 'job', job });
        }
        this.#job = null;
    }
}
