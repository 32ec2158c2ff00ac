import type { CandidateIds } from './candidate-ids.js';
import type { NgramQuery } from './planner.js';
import { evaluateQuery, maskedAmong, type ListSource, type SegmentLists } from './postings.js';
import { decodePostings, PostingCursor, type MaskedList } from './shared/posting-codec.js';
import type { ListBytes } from './shared/posting-list.js';
import { countIn, isListed, lowerBound, union } from './sorted-ids.js';

/**
 * Content candidates made as the walk goes: the query's posting lists are read (each checked) when
 * first needed, decoded and evaluated one id range at a time, rarest first with the same early
 * stop as a whole evaluation. Perf: a search that stops at `max_results`
 * decodes and intersects the start of long lists only, not every file holding a common word.
 */

/** Links' targets beyond the ranges made decided one by one, and how far ahead the ranges are made for one. */
const POINTS = 32;
const AHEAD = 16_384;

const NO_POSTINGS: MaskedList = { ids: new Uint32Array(0), masks: new Uint16Array(0) };

/** A gram's list in one segment: its bytes and where their decoding stands; `unknown` when a read after the first part failed. */
type Entry = { bytes: ListBytes; cursor: PostingCursor } | 'absent' | 'unknown';

/** One segment's lists of a query's grams, each read and checked when first needed. */
class SegmentBytes {
    readonly firstId: number;
    readonly end: number;
    readonly #src: SegmentLists;
    readonly #strict: () => boolean;
    readonly #failed: (err: unknown) => void;
    readonly #lists = new Map<number, Entry>();

    constructor(src: SegmentLists, strict: () => boolean, failed: (err: unknown) => void) {
        this.#src = src;
        this.#strict = strict;
        this.#failed = failed;
        this.firstId = src.seg.firstId;
        this.end = src.seg.firstId + src.seg.fileCount;
    }

    /**
     * Gram `g`'s list. A read failing while the search is planned fails it (the index is then
     * rebuilt); later (the segment closed by a new generation, a failed check) the gram narrows
     * nothing: every file of the segment holds it, as far as this search knows.
     */
    #entry(g: number): Entry {
        let e = this.#lists.get(g);
        if (e === undefined) {
            try {
                const ref = this.#src.ref(g);
                const bytes = ref === null ? null : this.#src.seg.readList(ref);
                e = bytes === null ? 'absent' : { bytes, cursor: new PostingCursor(bytes, this.firstId) };
            } catch (err) {
                e = this.#fail(err);
            }
            this.#lists.set(g, e);
        }
        return e;
    }

    /** A failed read: thrown while strict, else 'unknown' from now on (and reported). */
    #fail(err: unknown): 'unknown' {
        if (this.#strict()) throw err;
        this.#failed(err);
        return 'unknown';
    }

    /**
     * Gram `g`'s postings decoded by `run`; `unknown` when its list could not be read, or a block
     * of it fails its check as it is decoded (blocks are checked as they are entered, posting-list.ts).
     */
    #decode(g: number, run: (e: { bytes: ListBytes; cursor: PostingCursor }) => MaskedList, unknown: () => MaskedList): MaskedList {
        const e = this.#entry(g);
        if (e === 'absent') return NO_POSTINGS;
        if (e !== 'unknown') {
            try {
                return run(e);
            } catch (err) {
                this.#lists.set(g, this.#fail(err));
            }
        }
        return unknown();
    }

    /** An estimate of the list's length, for the order of the intersection only (0 when the lookup fails after the first part). */
    #size(g: number): number {
        try {
            return this.#src.size(g);
        } catch (err) {
            if (this.#strict()) throw err;
            return 0;
        }
    }

    /**
     * The postings in [a, b) (ranges asked in ascending order), as a source for the evaluation. A
     * gram asked for among candidates is decoded keeping those only; where its list stood at the
     * window's start is kept, should the whole window or other candidates be asked for after.
     */
    window(a: number, b: number): ListSource {
        const whole = new Map<number, MaskedList>();
        const starts = new Map<number, PostingCursor>();
        const all = (): MaskedList => every(Math.max(a, this.firstId), Math.min(b, this.end));
        const wholeOf = (g: number): MaskedList => {
            let l = whole.get(g);
            if (l === undefined) {
                l = this.#decode(g, (e) => (starts.get(g)?.clone() ?? e.cursor).range(a, b), all);
                whole.set(g, l);
            }
            return l;
        };
        const among = (g: number, ids: Uint32Array): MaskedList => {
            const l = whole.get(g);
            if (l !== undefined) return maskedAmong(l, ids);
            return this.#decode(
                g,
                (e) => {
                    const start = starts.get(g);
                    if (start !== undefined) return start.clone().rangeAmong(a, b, ids);
                    starts.set(g, e.cursor.clone());
                    return e.cursor.rangeAmong(a, b, ids);
                },
                () => maskedAmong(wholeOf(g), ids),
            );
        };
        return { list: (g) => wholeOf(g).ids, masks: (g) => wholeOf(g).masks, among, size: (g) => this.#size(g) };
    }

    /** The postings of one id, decoded anew from the lists' starts. */
    at(id: number): ListSource {
        return this.#source((g) => this.#decode(g, (e) => new PostingCursor(e.bytes, this.firstId).range(id, id + 1), () => every(id, id + 1)));
    }

    /** The whole lists, decoded anew from their bytes. */
    whole(): ListSource {
        return this.#source((g) => this.#decode(g, (e) => decodePostings(e.bytes, this.firstId), () => every(this.firstId, this.end)));
    }

    #source(decode: (g: number) => MaskedList): ListSource {
        const memo = new Map<number, MaskedList>();
        const get = (g: number): MaskedList => {
            let l = memo.get(g);
            if (l === undefined) memo.set(g, (l = decode(g)));
            return l;
        };
        return { list: (g) => get(g).ids, masks: (g) => get(g).masks, among: (g, ids) => maskedAmong(get(g), ids), size: (g) => this.#size(g) };
    }
}

/** Every id of [a, b). */
function span(a: number, b: number): Uint32Array {
    return Uint32Array.from({ length: Math.max(0, b - a) }, (_, k) => a + k);
}

/** Postings of every id of [a, b), with masks that rule nothing out. */
function every(a: number, b: number): MaskedList {
    const ids = span(a, b);
    return { ids, masks: new Uint16Array(ids.length).fill(0xffff) };
}

/** Candidates of `q` (neither `all` nor `none`), with `extra` (sorted ids always looked at) added. */
export class WindowedIds implements CandidateIds {
    readonly #q: NgramQuery;
    readonly #segs: SegmentBytes[];
    readonly #extra: Uint32Array;
    /** The ascending ranges made so far, [#from, #done), and their ids (candidates and `extra`): `#made[0, #n)`. */
    #from = -1;
    #done = -1;
    #made = new Uint32Array(1024);
    #n = 0;
    #whole: Uint32Array | null = null;
    /** The query's candidates in it, without `extra`. */
    #allQuery: Uint32Array | null = null;
    /** Ids decided alone so far (see {@link has}). */
    #points = 0;
    /** Candidates of the query made so far (not counting `extra`). */
    listed = 0;

    /** While set, a failed read fails the search (see SegmentBytes); cleared once its first part is made. */
    strict = true;

    /**
     * @param failed - told of a read or check that failed after the first part (the search goes on
     *   without that list; the index is rebuilt).
     */
    constructor(sources: readonly SegmentLists[], q: NgramQuery, extra: Uint32Array, failed: (err: unknown) => void = () => undefined) {
        this.#q = q;
        this.#segs = sources.map((src) => new SegmentBytes(src, () => this.strict, failed));
        this.#extra = extra;
    }

    within(a: number, b: number): Uint32Array {
        if (this.#from === -1) this.#from = this.#done = a;
        if (a < this.#from) {
            const all = this.#all();
            this.listed += countIn(this.#allQuery!, a, b);
            return all.subarray(lowerBound(all, a), lowerBound(all, b));
        }
        this.#makeTo(b);
        const made = this.#made.subarray(0, this.#n);
        return made.subarray(lowerBound(made, a), lowerBound(made, b));
    }

    /**
     * Whether a link's target is a candidate: from the ranges made, made up to it when it lies a
     * little ahead, decoded alone for the first few others; past those it is handed to the workers
     * (Perf: never every candidate made at once for a link).
     */
    has(id: number): boolean {
        if (isListed(this.#extra, id)) return true;
        if (this.#whole !== null) return isListed(this.#whole, id);
        if (this.#from !== -1 && id >= this.#from) {
            if (id >= this.#done && id - this.#done <= AHEAD) this.#makeTo(id + 1);
            if (id < this.#done) return isListed(this.#made.subarray(0, this.#n), id);
        }
        if (this.#points++ >= POINTS) return true;
        const seg = this.#segs.find((x) => id >= x.firstId && id < x.end);
        return seg === undefined || (evaluateQuery(this.#q, seg.at(id))?.length ?? 1) > 0;
    }

    /** Makes the candidates of [#done, b). */
    #makeTo(b: number): void {
        const a = this.#done;
        if (b <= a) return;
        this.#done = b;
        let acc = this.#extra.subarray(lowerBound(this.#extra, a), lowerBound(this.#extra, b));
        for (const seg of this.#segs) {
            if (seg.end <= a || seg.firstId >= b) continue;
            const r = evaluateQuery(this.#q, seg.window(a, b)) ?? span(Math.max(a, seg.firstId), Math.min(b, seg.end));
            this.listed += r.length;
            acc = union(acc, r);
        }
        if (this.#n + acc.length > this.#made.length) {
            const grown = new Uint32Array(Math.max(2 * this.#made.length, this.#n + acc.length));
            grown.set(this.#made.subarray(0, this.#n));
            this.#made = grown;
        }
        this.#made.set(acc, this.#n);
        this.#n += acc.length;
    }

    /** Every candidate, for ranges behind the walk (a linked directory) and links' targets; made once. */
    #all(): Uint32Array {
        if (this.#whole === null) {
            let acc: Uint32Array = new Uint32Array(0);
            for (const seg of this.#segs) acc = union(acc, evaluateQuery(this.#q, seg.whole()) ?? span(seg.firstId, seg.end));
            this.#allQuery = acc;
            this.#whole = union(acc, this.#extra);
        }
        return this.#whole;
    }
}
