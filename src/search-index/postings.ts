import { keepFitting } from './shared/masks.js';
import { decodeAmong, decodePostings, type MaskedList } from './shared/posting-codec.js';
import type { ListBytes } from './shared/posting-list.js';
import type { SegmentReader } from './shared/segment.js';
import type { NgramQuery } from './planner.js';
import { intersect, union } from './sorted-ids.js';

/**
 * Evaluates an n-gram query over posting lists (a segment's, or the file table's name grams):
 * the ids of the entries that may match, ascending, or `null` when the query rules nothing out
 * (`all`).
 */

/** Where a query's posting lists come from. */
export interface ListSource {
    /** The ids holding `gram`, ascending. */
    list(gram: number): Uint32Array;
    /** That list's length, read without the list (a segment's dictionary entry, the names' list starts). */
    size(gram: number): number;
    /** The packed masks (shared/masks.ts) of `list(gram)`'s postings, when the source has them. */
    masks?(gram: number): Uint16Array;
    /** The postings of `list(gram)` whose ids are in `ids` (ascending), with their masks; a source with masks has it. */
    among?(gram: number, ids: Uint32Array): MaskedList;
}

const EMPTY = new Uint32Array(0);
const NO_POSTINGS: MaskedList = { ids: EMPTY, masks: new Uint16Array(0) };

/**
 * Candidates of `q` in one source; `null` for all of them. With `among` (ascending ids), only
 * those of `among` are looked for: the result is then within it (or `null`).
 */
export function evaluateQuery(q: NgramQuery, src: ListSource, among: Uint32Array | null = null): Uint32Array | null {
    switch (q.op) {
        case 'all':
            return null;
        case 'none':
            return EMPTY;
        case 'gram':
            return among === null ? src.list(q.gram) : narrowed(src, q.gram, among).ids;
        case 'seq':
            return literalCandidates(q.grams, src, among);
        case 'and': {
            // Perf: the rarest grams first; an empty intersection stops early.
            const children = q.of.map((c) => ({ c, size: c.op === 'gram' || c.op === 'seq' ? estimate(c, src) : Number.MAX_SAFE_INTEGER })).sort((x, y) => x.size - y.size);
            let acc: Uint32Array | null = among;
            for (const { c, size } of children) {
                // Perf: a list far longer than the candidates left costs more to read than the scan of those few files.
                if (acc !== null && acc.length <= 16 && size > 64 * acc.length) break;
                // Each child looks only among the candidates left (its result is within them).
                const r = evaluateQuery(c, src, acc);
                if (r === null) continue;
                acc = r;
                if (acc.length === 0) return acc;
            }
            return acc;
        }
        case 'or': {
            let acc: Uint32Array = EMPTY;
            for (const c of q.of) {
                const r = evaluateQuery(c, src, among);
                if (r === null) return null;
                acc = union(acc, r);
            }
            return acc;
        }
    }
}

/**
 * A rough count of the candidates of `q` from the list lengths alone (exact for one gram; the
 * least of a literal's grams, the sum of an `or`'s), without reading lists.
 */
function estimate(q: NgramQuery, src: ListSource): number {
    switch (q.op) {
        case 'all':
            return Number.POSITIVE_INFINITY;
        case 'none':
            return 0;
        case 'gram':
            return src.size(q.gram);
        case 'seq':
            return Math.min(...q.grams.map((g) => src.size(g)));
        case 'and':
            return Math.min(...q.of.map((c) => estimate(c, src)));
        case 'or':
            return q.of.reduce((n, c) => n + estimate(c, src), 0);
    }
}

/**
 * The files that may hold a literal whose grams are `grams` (in order, gram `i` at its byte `i`):
 * the lists intersected as an `and` is (rarest first, stopping early), then, where the source has
 * masks, each file kept only when the masks of the grams read allow them to lie side by side
 * (shared/masks.ts `keepFitting`; a gram whose list was not read is left out of that check).
 */
function literalCandidates(grams: readonly number[], src: ListSource, among: Uint32Array | null): Uint32Array {
    const order = [...new Set(grams)].map((g) => ({ g, size: src.size(g) })).sort((x, y) => x.size - y.size);
    let acc: Uint32Array | null = among;
    // The grams read: their postings among the candidates left when each was read (null: the whole list).
    const read = new Map<number, MaskedList | null>();
    for (const { g, size } of order) {
        if (acc !== null && acc.length <= 16 && size > 64 * acc.length) break;
        if (acc === null) {
            acc = src.list(g);
            read.set(g, null);
        } else {
            const r = narrowed(src, g, acc);
            acc = r.ids;
            read.set(g, r);
        }
        if (acc.length === 0) return acc;
    }
    if (acc === null) return EMPTY;
    if (src.masks === undefined || read.size === 0) return acc;
    const masks = src.masks.bind(src);
    // Each list read holds every id kept (they lie within the candidates left when it was read).
    return keepFitting(grams, acc, (g) => {
        const r = read.get(g);
        return r === undefined ? null : (r ?? { ids: src.list(g), masks: masks(g) });
    });
}

/** The postings of gram `g` among `ids`: from the source's own narrowed decoding, else from its whole list. */
function narrowed(src: ListSource, g: number, ids: Uint32Array): MaskedList {
    if (src.among !== undefined) return src.among(g, ids);
    if (src.masks !== undefined) return maskedAmong({ ids: src.list(g), masks: src.masks(g) }, ids);
    return { ids: intersect(ids, src.list(g)), masks: NO_MASKS };
}

const NO_MASKS = new Uint16Array(0);

/** The postings of `list` whose ids are in `ids` (both ascending). */
export function maskedAmong(list: MaskedList, ids: Uint32Array): MaskedList {
    const out = new Uint32Array(Math.min(ids.length, list.ids.length));
    const masks = new Uint16Array(out.length);
    const lid = list.ids;
    let n = 0;
    for (let i = 0, j = 0; i < lid.length && j < ids.length; ) {
        const x = lid[i]!;
        const y = ids[j]!;
        if (x < y) i++;
        else if (x > y) j++;
        else {
            out[n] = x;
            masks[n++] = list.masks[i]!;
            i++;
            j++;
        }
    }
    return { ids: out.subarray(0, n), masks: masks.subarray(0, n) };
}

/** One segment's posting lists for one query: dictionary lookups and lists read once. */
export class SegmentLists implements ListSource {
    readonly seg: SegmentReader;
    readonly #refs = new Map<number, ReturnType<SegmentReader['lookup']>>();
    readonly #bytes = new Map<number, ListBytes | null>();
    readonly #lists = new Map<number, MaskedList>();

    constructor(seg: SegmentReader) {
        this.seg = seg;
    }

    /** Where the gram's list is (looked up once). */
    ref(gram: number): ReturnType<SegmentReader['lookup']> {
        let ref = this.#refs.get(gram);
        if (ref === undefined) this.#refs.set(gram, (ref = this.seg.lookup(gram)));
        return ref;
    }

    /**
     * The files of this segment that hold the gram, as its dictionary entry counts them: exact, for
     * the order of reads and the choice between whole lists, lists made as the walk goes and the
     * scan path (a list's bytes are no measure: packs hold a dense list in a few bits a posting).
     */
    size(gram: number): number {
        return this.ref(gram)?.count ?? 0;
    }

    /** The list, read once (its blocks checked as they are decoded); `null` when no file holds the gram. */
    #bytesOf(gram: number): ListBytes | null {
        let bytes = this.#bytes.get(gram);
        if (bytes === undefined) {
            const ref = this.ref(gram);
            bytes = ref === null ? null : this.seg.readList(ref);
            this.#bytes.set(gram, bytes);
        }
        return bytes;
    }

    #read(gram: number): MaskedList {
        let list = this.#lists.get(gram);
        if (list === undefined) {
            const bytes = this.#bytesOf(gram);
            list = bytes === null ? NO_POSTINGS : decodePostings(bytes, this.seg.firstId);
            this.#lists.set(gram, list);
        }
        return list;
    }

    among(gram: number, ids: Uint32Array): MaskedList {
        const whole = this.#lists.get(gram);
        if (whole !== undefined) return maskedAmong(whole, ids);
        const bytes = this.#bytesOf(gram);
        return bytes === null ? NO_POSTINGS : decodeAmong(bytes, this.seg.firstId, ids);
    }

    list(gram: number): Uint32Array {
        return this.#read(gram).ids;
    }

    masks(gram: number): Uint16Array {
        return this.#read(gram).masks;
    }
}

/** The segments holding ids in `[lo, hi)`, each with its lists for one query. */
export function segmentSources(segments: readonly SegmentReader[], lo: number, hi: number): SegmentLists[] {
    return segments.filter((seg) => seg.firstId + seg.fileCount > lo && seg.firstId < hi).map((seg) => new SegmentLists(seg));
}

/** At most how many files of `sources` may match `q`, from the dictionaries alone (no list read). */
export function guessCandidates(sources: readonly SegmentLists[], q: NgramQuery): number {
    let guess = 0;
    for (const src of sources) guess += Math.min(estimate(q, src), src.seg.fileCount);
    return guess;
}

/**
 * The ids in `[lo, hi)` of files that may match `q`, ascending; `null` when `q` rules out none,
 * or when the dictionaries alone show it would keep more than `broad` files (Perf: a broad
 * search takes the scan path without reading long posting lists first).
 * @throws IndexFormatError when a segment read fails its checks.
 */
export function segmentCandidates(segments: readonly SegmentReader[], q: NgramQuery, lo: number, hi: number, broad = Number.POSITIVE_INFINITY): Uint32Array | null {
    if (q.op === 'all') return null;
    const used = segmentSources(segments, lo, hi);
    if (Number.isFinite(broad) && guessCandidates(used, q) > broad) return null;
    return evaluateSegments(used, q, lo, hi);
}

/** The ids in `[lo, hi)` of files of `sources` that may match `q` (not `all`), ascending; `null` when it rules out none. */
export function evaluateSegments(sources: readonly SegmentLists[], q: NgramQuery, lo: number, hi: number): Uint32Array | null {
    const parts: Uint32Array[] = [];
    let total = 0;
    for (const src of sources) {
        const r = evaluateQuery(q, src);
        if (r === null) return null;
        parts.push(r);
        total += r.length;
    }
    const out = new Uint32Array(total);
    let n = 0;
    for (const p of parts) for (const id of p) if (id >= lo && id < hi) out[n++] = id;
    return out.subarray(0, n);
}

/** A sorted, duplicate-free list of file numbers. */
export type PostingList = ArrayLike<number>;

/**
 * The candidate files of `q` as a sorted list of file numbers: posting lists intersected for
 * `and`, merged for `or`. `postings(gram)` gives the sorted files holding `gram` (empty when
 * none); `everyFile()` the sorted list of all files, asked only when `q` rules out none.
 */
export function candidates(q: NgramQuery, postings: (gram: number) => PostingList, everyFile: () => PostingList): Uint32Array {
    const list = (g: number): Uint32Array => Uint32Array.from(postings(g));
    return evaluateQuery(q, { list, size: (g) => postings(g).length }) ?? Uint32Array.from(everyFile());
}
