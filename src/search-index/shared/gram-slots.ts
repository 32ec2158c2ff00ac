/**
 * A map from grams (below 2^24, fold.ts) to 32-bit values, by open addressing: what a build
 * thread counts or marks per distinct gram (a part's postings per gram, a file's masks per gram).
 * Memory: it grows with the grams seen (12 bytes a slot, at most half of them used), where a
 * table of a slot per possible gram is 64 MiB a thread (32 MiB as 16-bit), its pages resident once
 * a few parts have touched them. Emptied in constant time (a slot is used when its
 * stamp is the current one), so a file's few grams do not pay for a large map.
 */

/** Slots a new map starts with. */
const FIRST_SLOTS = 1 << 14;

export class GramSlots {
    /** The gram of each slot, when its stamp is {@link #epoch}. */
    #keys = new Uint32Array(FIRST_SLOTS);
    #stamps = new Uint32Array(FIRST_SLOTS);
    #epoch = 1;
    /** The value of each slot. */
    values = new Uint32Array(FIRST_SLOTS);
    #shift = 32 - Math.log2(FIRST_SLOTS);
    #used = 0;
    /** Counts the times the slots moved (a slot found before then must be found again). */
    moves = 0;
    /** True after {@link slot} added its gram. */
    added = false;

    /** Grams held. */
    get size(): number {
        return this.#used;
    }

    /** The slot of `gram` in {@link values}, added (value 0) when absent ({@link added}); may move every slot ({@link moves}). */
    slot(gram: number): number {
        const keys = this.#keys;
        const stamps = this.#stamps;
        const epoch = this.#epoch;
        const mask = keys.length - 1;
        for (let s = Math.imul(gram + 1, 0x9e3779b1) >>> this.#shift; ; s = (s + 1) & mask) {
            if (stamps[s] !== epoch) {
                if (2 * (this.#used + 1) > keys.length) {
                    this.#grow();
                    return this.slot(gram);
                }
                stamps[s] = epoch;
                keys[s] = gram;
                this.values[s] = 0;
                this.#used++;
                this.added = true;
                return s;
            }
            if (keys[s] === gram) {
                this.added = false;
                return s;
            }
        }
    }

    /** Empties the map, keeping its size unless it grew past `keepSlots` (memory: a huge part's map is not kept). */
    clear(keepSlots = 1 << 21): void {
        if (this.#keys.length > keepSlots) this.#resize(FIRST_SLOTS);
        else if (this.#used > 0 && ++this.#epoch === 0xffffffff) {
            this.#stamps.fill(0);
            this.#epoch = 1;
        }
        this.#used = 0;
    }

    #resize(slots: number): void {
        this.#keys = new Uint32Array(slots);
        this.#stamps = new Uint32Array(slots);
        this.values = new Uint32Array(slots);
        this.#shift = 32 - Math.log2(slots);
        this.#epoch = 1;
        this.#used = 0;
        this.moves++;
    }

    #grow(): void {
        const [keys, stamps, values, epoch] = [this.#keys, this.#stamps, this.values, this.#epoch];
        this.#resize(keys.length * 2);
        for (let s = 0; s < keys.length; s++) if (stamps[s] === epoch) this.values[this.slot(keys[s]!)] = values[s]!;
    }
}
