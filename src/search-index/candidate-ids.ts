import { isListed, lowerBound } from './sorted-ids.js';

/**
 * The ids a search answered from the table looks at (content candidates, entries always decided
 * one by one, files too large for the search), asked for by id range, so that a producer may
 * make them as the walk goes.
 */
export interface CandidateIds {
    /** The ids in [a, b), ascending. The main walk asks for ascending ranges; a linked directory's walk may ask for any range. */
    within(a: number, b: number): Uint32Array;
    /** Whether `id` is one of them (any id: the target of a link). */
    has(id: number): boolean;
    /** How many ids the ranges asked for so far held. */
    readonly listed: number;
}

/** Candidate ids held as one sorted list. */
export class ListedIds implements CandidateIds {
    readonly #ids: Uint32Array;
    listed = 0;

    constructor(ids: Uint32Array) {
        this.#ids = ids;
    }

    within(a: number, b: number): Uint32Array {
        const out = this.#ids.subarray(lowerBound(this.#ids, a), lowerBound(this.#ids, b));
        this.listed += out.length;
        return out;
    }

    has(id: number): boolean {
        return isListed(this.#ids, id);
    }
}

/** The ids of `list` in [a, b), one at a time, asked of it in ranges that grow as the walk goes. */
export class IdCursor {
    readonly #list: CandidateIds;
    readonly #end: number;
    #next: number;
    #span = 4096;
    #ids: Uint32Array = new Uint32Array(0);
    #k = 0;

    constructor(list: CandidateIds, a: number, b: number) {
        this.#list = list;
        this.#next = a;
        this.#end = b;
    }

    /** The next id, or -1 past the last. */
    next(): number {
        while (this.#k >= this.#ids.length) {
            if (this.#next >= this.#end) return -1;
            const to = Math.min(this.#end, this.#next + this.#span);
            this.#ids = this.#list.within(this.#next, to);
            this.#k = 0;
            this.#next = to;
            // Perf: small ranges first for a search that stops early, then sized for about 1,024 ids
            // each, so that sparse candidates (a rare word) cross the table in a few ranges.
            const got = this.#ids.length;
            this.#span = Math.min(this.#span * (got === 0 ? 64 : Math.min(64, Math.max(2, Math.ceil(1024 / got)))), 1 << 26);
        }
        return this.#ids[this.#k++]!;
    }
}
