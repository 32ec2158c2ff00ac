import { forEachGram } from '../../search/shared/fold.js';
import type { NameGrams } from './format.js';
import type { Names } from './table-names.js';

/**
 * Per-gram counters of {@link nameGrams}: open addressing (linear probing) over typed arrays,
 * grown at half full. Perf/memory: a table of 90,000 entries makes some 1.3 million gram
 * lookups, which in Maps would take most of its time, and Map growth makes garbage.
 * Ids start at 1, so `last` 0 means "none yet".
 */
class GramSlots {
    #bits = 12;
    /** Per slot: its gram + 1 (grams are 24-bit), 0 when free. */
    #keys = new Uint32Array(1 << 12);
    /** Per slot: the names holding the gram (then, while the lists are filled, the next free position). */
    count = new Uint32Array(1 << 12);
    /** Per slot: the last id counted. */
    last = new Int32Array(1 << 12);
    #size = 0;

    /** The slot of `gram`, taken when missing. */
    slot(gram: number): number {
        const mask = (1 << this.#bits) - 1;
        let s = Math.imul(gram, 0x9e3779b1) >>> (32 - this.#bits);
        for (;;) {
            const k = this.#keys[s]!;
            if (k === gram + 1) return s;
            if (k === 0) break;
            s = (s + 1) & mask;
        }
        if (2 * (this.#size + 1) > this.#keys.length) {
            this.#grow();
            return this.slot(gram);
        }
        this.#keys[s] = gram + 1;
        this.#size++;
        return s;
    }

    /** The grams in use, in slot order. */
    keys(): Uint32Array<ArrayBuffer> {
        const out = new Uint32Array(this.#size);
        let n = 0;
        for (const k of this.#keys) if (k !== 0) out[n++] = k - 1;
        return out;
    }

    #grow(): void {
        const keys = this.#keys;
        const count = this.count;
        const last = this.last;
        this.#bits++;
        this.#keys = new Uint32Array(1 << this.#bits);
        this.count = new Uint32Array(1 << this.#bits);
        this.last = new Int32Array(1 << this.#bits);
        this.#size = 0;
        for (let s = 0; s < keys.length; s++) {
            if (keys[s] === 0) continue;
            const t = this.slot(keys[s]! - 1);
            this.count[t] = count[s]!;
            this.last[t] = last[s]!;
        }
    }
}

/** The posting lists of `names` (id = index; the root, id 0, has the empty name). */
export function nameGrams(names: Names): NameGrams {
    const slots = new GramSlots();
    let id = 0;
    const countGram = (g: number): void => {
        const s = slots.slot(g);
        if (slots.last[s] === id) return;
        slots.last[s] = id;
        slots.count[s]!++;
    };
    for (id = 1; id < names.length; id++) forEachGram(names.get(id), countGram);
    const keys = slots.keys().sort();
    const starts = new Uint32Array(keys.length + 1);
    // From here on a slot's count is its gram's next free position in `ids`.
    let total = 0;
    for (let r = 0; r < keys.length; r++) {
        const s = slots.slot(keys[r]!);
        starts[r] = total;
        total += slots.count[s]!;
        slots.count[s] = starts[r]!;
    }
    starts[keys.length] = total;
    const ids = new Uint32Array(total);
    slots.last.fill(0);
    const fill = (g: number): void => {
        const s = slots.slot(g);
        if (slots.last[s] === id) return;
        slots.last[s] = id;
        ids[slots.count[s]!++] = id;
    };
    for (id = 1; id < names.length; id++) forEachGram(names.get(id), fill);
    return { keys, starts, ids };
}
