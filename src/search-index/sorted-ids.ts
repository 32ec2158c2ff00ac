/**
 * Sorted lists of file-table ids (ascending, no repeats, as Uint32Array): the posting lists'
 * intersection and union, and the lookups the index's walk needs.
 */

/** Merge of two ascending lists: the ids in both, and for a union also those in one of them. */
function merge(a: Uint32Array, b: Uint32Array, union: boolean): Uint32Array {
    const out = new Uint32Array(union ? a.length + b.length : Math.min(a.length, b.length));
    let i = 0;
    let j = 0;
    let n = 0;
    while (i < a.length && j < b.length) {
        const x = a[i]!;
        const y = b[j]!;
        if (x <= y) {
            if (union || x === y) out[n++] = x;
            i++;
            if (x === y) j++;
        } else {
            if (union) out[n++] = y;
            j++;
        }
    }
    if (union) {
        out.set(a.subarray(i), n);
        n += a.length - i;
        out.set(b.subarray(j), n);
        n += b.length - j;
    }
    return out.subarray(0, n);
}

/** Ids in both lists. */
export function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
    return merge(a, b, false);
}

/** Ids in either list. */
export function union(a: Uint32Array, b: Uint32Array): Uint32Array {
    return merge(a, b, true);
}

/** Index of the first element of a sorted list that is at least `x`. */
export function lowerBound(list: ArrayLike<number>, x: number): number {
    let a = 0;
    let b = list.length;
    while (a < b) {
        const m = (a + b) >>> 1;
        if (list[m]! < x) a = m + 1;
        else b = m;
    }
    return a;
}

/** The sorted `list` holds `id`. */
export function isListed(list: Uint32Array, id: number): boolean {
    const k = lowerBound(list, id);
    return k < list.length && list[k] === id;
}

/** How many ids of a sorted list lie in [lo, hi). */
export function countIn(list: Uint32Array, lo: number, hi: number): number {
    return lowerBound(list, hi) - lowerBound(list, lo);
}

/** Sorted, deduplicated ids of `a`, of `b` within [lo, hi), and of `c`. */
export function mergeIds(a: Uint32Array, b: Uint32Array, lo: number, hi: number, c: Uint32Array | null): Uint32Array {
    return union(union(a, b.subarray(lowerBound(b, lo), lowerBound(b, hi))), c ?? new Uint32Array(0));
}

/** Union of [start, end) spans as disjoint spans, ascending. */
export function mergeSpans(spans: readonly [number, number][]): [number, number][] {
    const sorted = [...spans].sort((a, b) => a[0] - b[0]);
    const out: [number, number][] = [];
    for (const [a, b] of sorted) {
        const last = out[out.length - 1];
        if (last !== undefined && a <= last[1]) last[1] = Math.max(last[1], b);
        else out.push([a, b]);
    }
    return out;
}

/** End of the span of `spans` (disjoint, ascending) holding `id`, or -1. */
export function spanEnd(spans: readonly [number, number][], id: number): number {
    let a = 0;
    let b = spans.length - 1;
    while (a <= b) {
        const m = (a + b) >>> 1;
        const [s0, e0] = spans[m]!;
        if (id < s0) b = m - 1;
        else if (id >= e0) a = m + 1;
        else return e0;
    }
    return -1;
}
