/**
 * A bounded map from keys to values, the least recently used dropped first once the values'
 * total weight passes `most` (each value weighs 1 unless `weigh` says otherwise).
 */
export class Lru<K, V> {
    readonly #map = new Map<K, { v: V; w: number }>();
    #weight = 0;

    constructor(
        readonly most: number,
        readonly weigh: (v: V) => number = () => 1,
    ) {}

    get size(): number {
        return this.#map.size;
    }

    get weight(): number {
        return this.#weight;
    }

    get(k: K): V | undefined {
        const e = this.#map.get(k);
        if (e === undefined) return undefined;
        this.#map.delete(k);
        this.#map.set(k, e);
        return e.v;
    }

    set(k: K, v: V): void {
        this.delete(k);
        const w = this.weigh(v);
        if (w > this.most) return;
        this.#map.set(k, { v, w });
        this.#weight += w;
        for (const [old, e] of this.#map) {
            if (this.#weight <= this.most) break;
            this.#map.delete(old);
            this.#weight -= e.w;
        }
    }

    delete(k: K): void {
        const e = this.#map.get(k);
        if (e === undefined) return;
        this.#map.delete(k);
        this.#weight -= e.w;
    }

    clear(): void {
        this.#map.clear();
        this.#weight = 0;
    }
}
