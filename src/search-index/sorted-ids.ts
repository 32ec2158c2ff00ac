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

/**
 * Ids in either list (a new array). Perf: a few ids merged into a long list (a query's candidates
 * into the table's entries always decided one by one, every search) are placed by binary search,
 * the long list copied in runs between them, rather than compared id by id.
 */
export function union(a: Uint32Array, b: Uint32Array): Uint32Array {
    const [few, many] = a.length <= b.length ? [a, b] : [b, a];
    if (few.length * GALLOP > many.length) return merge(a, b, true);
    const out = new Uint32Array(a.length + b.length);
    let n = 0;
    let j = 0;
    for (let i = 0; i < few.length; i++) {
        const x = few[i]!;
        const k = lowerBound(many, x, j);
        out.set(many.subarray(j, k), n);
        n += k - j;
        j = k < many.length && many[k] === x ? k + 1 : k;
        out[n++] = x;
    }
    out.set(many.subarray(j), n);
    return out.subarray(0, n + many.length - j);
}

/** Ratio of the longer list's length to the shorter one's above which {@link union} places the shorter one's ids by binary search. */
const GALLOP = 16;

/** Index of the first element of a sorted list at or after `from` that is at least `x`. */
export function lowerBound(list: ArrayLike<number>, x: number, from = 0): number {
    let a = from;
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
    const ab = union(a, b.subarray(lowerBound(b, lo), lowerBound(b, hi)));
    return c === null || c.length === 0 ? ab : union(ab, c);
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
