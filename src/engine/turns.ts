/**
 * Cooperative scheduling on the host's main thread: long loops check {@link Turns.due} and
 * `await` {@link Turns.yield} so that no single turn of the event loop runs longer than a few
 * milliseconds and timers, I/O and other calls of the host keep running.
 *
 * Perf: the target is no tool call blocking the loop for more than 20 ms (bench/event-loop.ts).
 * On a loaded machine the thread is often descheduled in the middle of a turn, which adds 5-20 ms
 * to it; a slice of 4 ms keeps the work part of every turn small, with room for one indivisible
 * step (a sort of 2,048 names, one native call) after the check. A yield costs ~0.05 ms.
 */

/** Work time after which a loop gives the event loop a turn, in milliseconds. */
export const TURN_MS = 4;

/** Resolves on a later turn of the event loop, after pending I/O callbacks (setImmediate). */
export function nextTurn(): Promise<void> {
    return new Promise<void>((resolve) => setImmediate(resolve));
}

export class Turns {
    #since = performance.now();

    constructor(readonly sliceMs = TURN_MS) {}

    /** This turn has run for `sliceMs` or longer: time to yield. */
    get due(): boolean {
        return performance.now() - this.#since >= this.sliceMs;
    }

    /** Resolves on a later turn of the event loop (after pending I/O callbacks), then starts a new slice. */
    async yield(): Promise<void> {
        await nextTurn();
        this.#since = performance.now();
    }

    /** Yields when {@link due}; resolves at once otherwise. */
    async check(): Promise<void> {
        if (this.due) await this.yield();
    }
}

/** Elements sorted in one piece by `Array#sort` before the pieces are merged. */
const SORT_RUN = 2048;

/**
 * Sorts `items` in place by `compare` (stable), yielding to the event loop through `turns`
 * between bounded steps. Perf: one `Array#sort` of 100,000 directory entries in hash order with
 * a comparator blocks the loop for a few hundred milliseconds; here the runs of {@link SORT_RUN}
 * are sorted one by one and merged bottom-up, each step checking the clock every 4,096 elements.
 */
export async function sortInTurns<T>(items: T[], compare: (a: T, b: T) => number, turns: Turns): Promise<void> {
    const n = items.length;
    if (n <= SORT_RUN) {
        items.sort(compare);
        return;
    }
    for (let i = 0; i < n; i += SORT_RUN) {
        const run = items.slice(i, i + SORT_RUN).sort(compare);
        for (let k = 0; k < run.length; k++) items[i + k] = run[k]!;
        if (turns.due) await turns.yield();
    }
    let src = items;
    let dst = new Array<T>(n);
    for (let width = SORT_RUN; width < n; width *= 2) {
        for (let lo = 0; lo < n; lo += 2 * width) {
            const mid = Math.min(lo + width, n);
            const hi = Math.min(lo + 2 * width, n);
            let i = lo;
            let j = mid;
            for (let k = lo; k < hi; k++) {
                // Stable: on ties the left run's element goes first.
                if (i < mid && (j >= hi || compare(src[j]!, src[i]!) >= 0)) dst[k] = src[i++]!;
                else dst[k] = src[j++]!;
                if ((k & 4095) === 4095 && turns.due) await turns.yield();
            }
        }
        [src, dst] = [dst, src];
    }
    if (src !== items) for (let k = 0; k < n; k++) items[k] = src[k]!;
}

/**
 * `parts` joined with `sep`, without copying them: the result is built by `+`, which V8 keeps as
 * a tree of the parts (a cons string) until it is first read, and that read copies it once.
 * Event loop: `Array#join` of the 320 blocks of 81,383 hit lines (7.8 MB) copies them in one
 * turn of 4-10 ms, longer than a slice.
 */
export function joinParts(parts: readonly string[], sep: string): string {
    let out = parts[0] ?? '';
    for (let i = 1; i < parts.length; i++) out = out + sep + parts[i]!;
    return out;
}
