import type { CandidateIds } from './candidate-ids.js';
import type { NgramQuery } from './planner.js';
import { evaluateQuery, type ListSource, type SegmentLists } from './postings.js';
import { decodePostings, MASK_BYTES, PostingCursor, type MaskedList } from './shared/posting-codec.js';
import { isListed, lowerBound, union } from './sorted-ids.js';

/**
 * Content candidates made as the walk goes: the query's posting lists are read and checked when
 * the search is planned (so later parts read no file, whatever happens to the index meanwhile),
 * then decoded and evaluated one id range at a time. Perf: a search that stops at `max_results`
 * decodes and intersects the start of long lists only, not every file holding a common word.
 */

/** Links' targets decided one by one before all candidates are made at once. */
const POINTS = 32;

const NO_POSTINGS: MaskedList = { ids: new Uint32Array(0), masks: new Uint16Array(0) };

/** One segment's lists of a query's grams. */
class SegmentBytes {
    readonly firstId: number;
    readonly end: number;
    readonly #lists = new Map<number, { bytes: Uint8Array; cursor: PostingCursor } | null>();

    constructor(src: SegmentLists, grams: Iterable<number>) {
        this.firstId = src.seg.firstId;
        this.end = src.seg.firstId + src.seg.fileCount;
        for (const g of grams) {
            const ref = src.ref(g);
            const bytes = ref === null ? null : src.seg.readBytes(ref);
            this.#lists.set(g, bytes === null ? null : { bytes, cursor: new PostingCursor(bytes, this.firstId) });
        }
    }

    #size(g: number): number {
        return Math.ceil((this.#lists.get(g)?.bytes.length ?? 0) / (1 + MASK_BYTES));
    }

    /** The postings in [a, b) (ranges asked in ascending order), as a source for the evaluation. */
    window(a: number, b: number): ListSource {
        return this.#source((g) => this.#lists.get(g)?.cursor.range(a, b) ?? NO_POSTINGS);
    }

    /** The postings of one id, decoded anew from the lists' starts. */
    at(id: number): ListSource {
        return this.#source((g) => {
            const l = this.#lists.get(g);
            return l ? new PostingCursor(l.bytes, this.firstId).range(id, id + 1) : NO_POSTINGS;
        });
    }

    /** The whole lists, decoded anew from their bytes. */
    whole(): ListSource {
        return this.#source((g) => {
            const l = this.#lists.get(g);
            return l ? decodePostings(l.bytes, this.firstId) : NO_POSTINGS;
        });
    }

    #source(decode: (g: number) => MaskedList): ListSource {
        const memo = new Map<number, MaskedList>();
        const get = (g: number): MaskedList => {
            let l = memo.get(g);
            if (l === undefined) memo.set(g, (l = decode(g)));
            return l;
        };
        return { list: (g) => get(g).ids, masks: (g) => get(g).masks, size: (g) => this.#size(g) };
    }
}

/** The grams a query names. */
function gramsOf(q: NgramQuery, out = new Set<number>()): Set<number> {
    if (q.op === 'gram') out.add(q.gram);
    else if (q.op === 'seq') for (const g of q.grams) out.add(g);
    else if (q.op === 'and' || q.op === 'or') for (const c of q.of) gramsOf(c, out);
    return out;
}

/** Every id of [a, b). */
function span(a: number, b: number): Uint32Array {
    return Uint32Array.from({ length: Math.max(0, b - a) }, (_, k) => a + k);
}

/** Candidates of `q` (neither `all` nor `none`), with `extra` (sorted ids always looked at) added. */
export class WindowedIds implements CandidateIds {
    readonly #q: NgramQuery;
    readonly #segs: SegmentBytes[];
    readonly #extra: Uint32Array;
    /** Where the ascending ranges stand. */
    #at = 0;
    #whole: Uint32Array | null = null;
    /** Ids decided alone so far (see {@link has}). */
    #points = 0;
    /** Candidates of the query in the ranges asked for (not counting `extra`). */
    listed = 0;

    constructor(sources: readonly SegmentLists[], q: NgramQuery, extra: Uint32Array) {
        this.#q = q;
        const grams = gramsOf(q);
        this.#segs = sources.map((src) => new SegmentBytes(src, grams));
        this.#extra = extra;
    }

    within(a: number, b: number): Uint32Array {
        const all = a >= this.#at ? null : this.#all();
        const out = all === null ? this.#forward(a, b) : all.subarray(lowerBound(all, a), lowerBound(all, b));
        this.listed += out.length - (lowerBound(this.#extra, b) - lowerBound(this.#extra, a));
        return out;
    }

    has(id: number): boolean {
        if (isListed(this.#extra, id)) return true;
        // Perf: a link's target decoded alone, up to its id (the lists' starts), for the first few links a walk meets.
        if (this.#whole === null && this.#points++ < POINTS) {
            const seg = this.#segs.find((x) => id >= x.firstId && id < x.end);
            return seg === undefined || (evaluateQuery(this.#q, seg.at(id))?.length ?? 1) > 0;
        }
        return isListed(this.#all(), id);
    }

    #forward(a: number, b: number): Uint32Array {
        this.#at = b;
        let acc = this.#extra.subarray(lowerBound(this.#extra, a), lowerBound(this.#extra, b));
        for (const seg of this.#segs) {
            if (seg.end <= a || seg.firstId >= b) continue;
            const r = evaluateQuery(this.#q, seg.window(a, b));
            acc = union(acc, r ?? span(Math.max(a, seg.firstId), Math.min(b, seg.end)));
        }
        return acc;
    }

    /** Every candidate, for ranges behind the walk (a linked directory) and links' targets; made once. */
    #all(): Uint32Array {
        if (this.#whole === null) {
            let acc = this.#extra;
            for (const seg of this.#segs) acc = union(acc, evaluateQuery(this.#q, seg.whole()) ?? span(seg.firstId, seg.end));
            this.#whole = acc;
        }
        return this.#whole;
    }
}
