import type { SegmentReader } from './format.js';
import type { NgramQuery } from './planner.js';

/**
 * Evaluates an n-gram query over the segments' posting lists: the ids of the files that may
 * match, ascending, or `null` when the query rules nothing out (`all`).
 */

/** Sorted intersection. */
export function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
    const out = new Uint32Array(Math.min(a.length, b.length));
    let i = 0;
    let j = 0;
    let n = 0;
    while (i < a.length && j < b.length) {
        const x = a[i]!;
        const y = b[j]!;
        if (x === y) {
            out[n++] = x;
            i++;
            j++;
        } else if (x < y) i++;
        else j++;
    }
    return out.subarray(0, n);
}

/** Sorted union. */
export function union(a: Uint32Array, b: Uint32Array): Uint32Array {
    const out = new Uint32Array(a.length + b.length);
    let i = 0;
    let j = 0;
    let n = 0;
    while (i < a.length && j < b.length) {
        const x = a[i]!;
        const y = b[j]!;
        if (x === y) {
            out[n++] = x;
            i++;
            j++;
        } else if (x < y) {
            out[n++] = x;
            i++;
        } else {
            out[n++] = y;
            j++;
        }
    }
    while (i < a.length) out[n++] = a[i++]!;
    while (j < b.length) out[n++] = b[j++]!;
    return out.subarray(0, n);
}

const EMPTY = new Uint32Array(0);

/** Per segment and query: dictionary lookups and lists read so far. */
interface Ctx {
    seg: SegmentReader;
    refs: Map<number, ReturnType<SegmentReader['lookup']>>;
    lists: Map<number, Uint32Array>;
}

function refOf(ctx: Ctx, gram: number): ReturnType<SegmentReader['lookup']> {
    let ref = ctx.refs.get(gram);
    if (ref === undefined) ctx.refs.set(gram, (ref = ctx.seg.lookup(gram)));
    return ref;
}

/** Candidates of one segment; `null` for all of them. */
function evalIn(ctx: Ctx, q: NgramQuery): Uint32Array | null {
    switch (q.kind) {
        case 'all':
            return null;
        case 'none':
            return EMPTY;
        case 'gram': {
            let ids = ctx.lists.get(q.gram);
            if (ids === undefined) {
                const ref = refOf(ctx, q.gram);
                ids = ref === null ? EMPTY : ctx.seg.read(ref);
                ctx.lists.set(q.gram, ids);
            }
            return ids;
        }
        case 'and': {
            // Perf: the rarest grams first; an empty intersection stops early.
            const children = q.of.map((c) => ({ c, size: sizeHint(ctx, c) })).sort((x, y) => x.size - y.size);
            let acc: Uint32Array | null = null;
            for (const { c, size } of children) {
                // Perf: a list far longer than the candidates left costs more to read than the scan of those few files.
                if (acc !== null && acc.length <= 16 && size > 64 * acc.length) break;
                const r = evalIn(ctx, c);
                if (r === null) continue;
                acc = acc === null ? r : intersect(acc, r);
                if (acc.length === 0) return acc;
            }
            return acc;
        }
        case 'or': {
            let acc: Uint32Array = EMPTY;
            for (const c of q.of) {
                const r = evalIn(ctx, c);
                if (r === null) return null;
                acc = union(acc, r);
            }
            return acc;
        }
    }
}

/** Posting list bytes of a gram (a cheap size estimate); other nodes sort last. */
function sizeHint(ctx: Ctx, q: NgramQuery): number {
    if (q.kind !== 'gram') return Number.MAX_SAFE_INTEGER;
    const ref = refOf(ctx, q.gram);
    return ref === null ? 0 : ref.len;
}

/**
 * A rough count of the candidates of `q` in one segment from the dictionary alone (a posting
 * list's bytes, about one per file for the dense lists that matter here), without reading lists.
 */
function estimate(ctx: Ctx, q: NgramQuery): number {
    switch (q.kind) {
        case 'all':
            return Number.POSITIVE_INFINITY;
        case 'none':
            return 0;
        case 'gram':
            return refOf(ctx, q.gram)?.len ?? 0;
        case 'and':
            return Math.min(...q.of.map((c) => estimate(ctx, c)));
        case 'or':
            return q.of.reduce((n, c) => n + estimate(ctx, c), 0);
    }
}

/**
 * The ids in `[lo, hi)` of files that may match `q`, ascending; `null` when `q` rules out none,
 * or when the dictionaries alone show it would keep more than `broad` files (Perf: a broad
 * search takes the scan path without reading long posting lists first).
 * @throws IndexFormatError when a segment read fails its checks.
 */
export function candidates(segments: readonly SegmentReader[], q: NgramQuery, lo: number, hi: number, broad = Number.POSITIVE_INFINITY): Uint32Array | null {
    if (q.kind === 'all') return null;
    const ctxs = new Map<SegmentReader, Ctx>();
    if (Number.isFinite(broad)) {
        let guess = 0;
        for (const seg of segments) {
            if (seg.firstId + seg.fileCount <= lo || seg.firstId >= hi) continue;
            const ctx: Ctx = { seg, refs: new Map(), lists: new Map() };
            ctxs.set(seg, ctx);
            guess += Math.min(estimate(ctx, q), seg.fileCount);
        }
        if (guess > broad) return null;
    }
    const parts: Uint32Array[] = [];
    let total = 0;
    for (const seg of segments) {
        if (seg.firstId + seg.fileCount <= lo || seg.firstId >= hi) continue;
        const r = evalIn(ctxs.get(seg) ?? { seg, refs: new Map(), lists: new Map() }, q);
        if (r === null) return null;
        parts.push(r);
        total += r.length;
    }
    const out = new Uint32Array(total);
    let n = 0;
    for (const p of parts) for (const id of p) if (id >= lo && id < hi) out[n++] = id;
    return out.subarray(0, n);
}
