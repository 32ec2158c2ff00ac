/**
 * The reusable room a posting list's decoding (./posting-codec.ts) writes its postings into,
 * copied out at the decoding's end. Its arrays are live bindings: {@link grow} replaces them.
 */

/** A decoded posting list: absolute ids ascending, and each one's packed masks. */
export interface MaskedList {
    ids: Uint32Array;
    masks: Uint16Array;
}

/** Reusable room for one decoding's postings, copied out at its end. Perf: arrays sized for the most a range's bytes could hold cost more than the decoding. */
const SCRATCH = 4096;
export let scratchIds = new Uint32Array(SCRATCH);
export let scratchMasks = new Uint16Array(SCRATCH);

export function grow(): void {
    const ids = new Uint32Array(scratchIds.length * 2);
    const masks = new Uint16Array(scratchMasks.length * 2);
    ids.set(scratchIds);
    masks.set(scratchMasks);
    [scratchIds, scratchMasks] = [ids, masks];
}

/** The first `n` postings of the scratch room, copied; a room grown for a long list is let go. */
export function copied(n: number): MaskedList {
    const out = { ids: scratchIds.slice(0, n), masks: scratchMasks.slice(0, n) };
    if (scratchIds.length > 64 * SCRATCH) {
        scratchIds = new Uint32Array(SCRATCH);
        scratchMasks = new Uint16Array(SCRATCH);
    }
    return out;
}
