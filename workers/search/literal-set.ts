import { byteRank, COMMON_RANK, findLiteral, foldedAt, planLiteral, type LiteralPlan } from './prefilter.js';
import { SIMD_MAX_LITERALS, SimdFind, simdAvailable, type ScreenedLiteral } from './simd/simd-find.js';

/**
 * The scan's prefilter for an OR of literals (`foo|bar`): the first occurrence of any of them in
 * the raw bytes, ASCII case-insensitively, in one of three ways:
 * - `simd`: up to 8 literals screened 64 places at a time by two bytes each in WebAssembly SIMD
 *   (simd/find.wat), each place that passes verified; one pass whatever the bytes.
 * - `anchors`: each literal searched on its own through its rarest byte (prefilter.ts), the
 *   earliest winning; a literal's next occurrence is kept between calls on one buffer, so each
 *   is searched once over the buffer, not once per candidate line. Each place its anchor byte
 *   occurs costs a native call, cheap for a rare byte, the bulk of the time for a common one.
 * - `blocks`: Wu and Manber's multi-pattern search ("A fast algorithm for multi-pattern
 *   searching", 1994) over two-byte blocks, one pass for all the literals, in JavaScript: where
 *   WebAssembly SIMD does not run.
 * Perf: over 128 MB of the Linux tree's drivers/net, one thread (SIMD screening 16 places a
 * step then), `Command|parameters` took 422 ms by anchors, 210 by blocks and 82 by SIMD;
 * `unsigned` 109, 150 and 27; `mutex_lock` (anchored on the rarer `k`) 51, 123 and 55.
 */
export class LiteralSet {
    /** The literals, ASCII lower-cased, each at least one byte. */
    readonly literals: readonly string[];
    /** The longest literal's length in bytes: a chunked search keeps this many bytes less one. */
    readonly longest: number;
    /** Which search runs (see the class's docstring). */
    readonly how: LiteralSearch;
    readonly #plans: LiteralPlan[];
    /** anchors: per literal, start of its first occurrence at or after {@link #from}, -1 for none, -2 not searched yet. */
    readonly #next: Int32Array;
    #from = 0;
    /** blocks: the window's length, and per block (its two bytes as one index) the shift and the literals (bits) whose prefix ends with it. */
    readonly #window: number;
    readonly #shift: Uint8Array | null;
    readonly #ends: Uint8Array | null;
    readonly #simd: SimdFind | null;

    /**
     * `how` by default: see {@link defaultSearch}.
     * @throws RangeError for no literals or an empty one (it would match everywhere: no prefilter at all).
     */
    constructor(literals: readonly string[], how?: LiteralSearch) {
        if (literals.length === 0 || literals.some((l) => l.length === 0)) throw new RangeError('a literal set needs at least one literal, none of them empty');
        this.literals = literals;
        this.#plans = literals.map(planLiteral);
        this.longest = Math.max(...this.#plans.map((p) => p.folded.length));
        this.#next = new Int32Array(literals.length);
        const shortest = Math.min(...this.#plans.map((p) => p.folded.length));
        const blocksFit = shortest >= 2 && literals.length <= 8;
        if (how === 'blocks' && !blocksFit) throw new RangeError('a block search needs at most 8 literals of 2 bytes or more');
        if (how === 'simd' && (literals.length > SIMD_MAX_LITERALS || !simdAvailable())) throw new RangeError(`a SIMD search needs WebAssembly SIMD and at most ${SIMD_MAX_LITERALS} literals`);
        this.how = how ?? defaultSearch(this.#plans, blocksFit && shortest >= BLOCKS_MIN);
        // Shifts fit a byte: the window stops at 255 bytes (any prefix of the literals will do).
        this.#window = Math.min(shortest, 255);
        [this.#shift, this.#ends] = this.how === 'blocks' ? blockTables(this.#plans, this.#window) : [null, null];
        this.#simd = this.how === 'simd' ? new SimdFind(this.#plans.map(screened)) : null;
    }

    /**
     * Forgets the occurrences kept: called before searching another buffer, or new content in the
     * same one. (Memory: no buffer is held between calls; a large file's stays released.)
     */
    reset(): void {
        this.#simd?.reset();
        this.#from = 0;
        this.#next.fill(-2);
    }

    /**
     * Start of the first occurrence at or after `from` of any literal in `buf`, or -1. Between two
     * {@link reset}s every call must pass the same unchanged buffer; a call with a `from` below the
     * last one's searches again from there.
     */
    find(buf: Buffer, from: number): number {
        if (this.#simd !== null) return this.#simd.find(buf, from);
        if (this.#shift !== null) return this.#findBlocks(buf, from);
        const plans = this.#plans;
        if (plans.length === 1) return findLiteral(buf, plans[0]!, from);
        const next = this.#next;
        if (from < this.#from) next.fill(-2);
        this.#from = from;
        let best = -1;
        for (let i = 0; i < plans.length; i++) {
            let at = next[i]!;
            if (at === -1) continue;
            if (at < from) next[i] = at = findLiteral(buf, plans[i]!, from);
            if (at !== -1 && (best === -1 || at < best)) best = at;
        }
        return best;
    }

    /**
     * The number of newline bytes in `buf[from, to)`. Like {@link lineStart} and {@link nextNewline},
     * the scan's line bookkeeping between two {@link find} calls on one buffer (the same contract).
     * Perf: where the SIMD search holds a copy of the bytes, it counts them 16 at a time; elsewhere
     * a native `indexOf` per newline. Counting the lines before each hit of `void|using` over the
     * Linux tree's drivers (275k hits, one thread) took 270 ms of a 600 ms scan that way.
     */
    newlines(buf: Buffer, from: number, to: number): number {
        const simd = this.#simd;
        if (simd !== null) {
            const lo = Math.max(from, simd.windowFrom);
            const hi = Math.min(to, simd.windowTo);
            if (lo < hi) return countNewlines(buf, from, lo) + simd.newlines(lo, hi) + countNewlines(buf, hi, to);
        }
        return countNewlines(buf, from, to);
    }

    /** The start of the line holding `buf[pos]` (just after the last newline in `[floor, pos)`), at least `floor`. */
    lineStart(buf: Buffer, pos: number, floor: number): number {
        const simd = this.#simd;
        let to = pos;
        if (simd !== null && simd.windowFrom < to && simd.windowTo > floor) {
            const top = simd.windowTo;
            if (to > top) {
                const at = lastNewline(buf, top, to);
                if (at !== -1) return at + 1;
                to = top;
            }
            const lo = Math.max(floor, simd.windowFrom);
            const at = simd.lastNewline(lo, to);
            if (at !== -1) return at + 1;
            to = lo;
        }
        const at = lastNewline(buf, floor, to);
        return at === -1 ? floor : at + 1;
    }

    /** The place of the first newline at or after `from` in `buf`, or -1. */
    nextNewline(buf: Buffer, from: number): number {
        const simd = this.#simd;
        if (simd !== null && from >= simd.windowFrom && from < simd.windowTo) {
            const at = simd.nextNewline(from, simd.windowTo);
            if (at !== -1) return at;
            from = simd.windowTo;
        }
        return buf.indexOf(10, from);
    }

    /** The block search: windows in order of their start, so the first literal found starts first. */
    #findBlocks(buf: Buffer, from: number): number {
        const shift = this.#shift!;
        const ends = this.#ends!;
        const plans = this.#plans;
        const len = buf.length;
        const last = this.#window - 1;
        for (let end = from + last; end < len; ) {
            const block = (buf[end - 1]! << 8) | buf[end]!;
            const s = shift[block]!;
            if (s !== 0) {
                end += s;
                continue;
            }
            const start = end - last;
            for (let bits = ends[block]!, i = 0; bits !== 0; bits >>= 1, i++) {
                const folded = plans[i]!.folded;
                if ((bits & 1) !== 0 && start + folded.length <= len && foldedAt(buf, start, folded)) return start;
            }
            end++;
        }
        return -1;
    }
}

/** Newline bytes in `buf[from, to)`, a native search for each. */
function countNewlines(buf: Buffer, from: number, to: number): number {
    let n = 0;
    for (let nl = from < to ? buf.indexOf(10, from) : -1; nl !== -1 && nl < to; nl = buf.indexOf(10, nl + 1)) n++;
    return n;
}

/** The place of the last newline byte in `buf[from, to)`, or -1. */
function lastNewline(buf: Buffer, from: number, to: number): number {
    // Buffer#lastIndexOf counts a negative offset from the end: guarded.
    if (to <= from) return -1;
    const at = buf.lastIndexOf(10, to - 1);
    return at >= from ? at : -1;
}

/** The ways a set is searched (see {@link LiteralSet}). */
export type LiteralSearch = 'anchors' | 'blocks' | 'simd';

/** A literal's two rarest places (the same one twice for a single byte), screened by the SIMD search. */
function screened(plan: LiteralPlan): ScreenedLiteral {
    const f = plan.folded;
    let second = plan.anchor;
    let best = Infinity;
    for (let i = 0; i < f.length; i++) {
        const r = i === plan.anchor ? Infinity : byteRank(f[i]!) * 2 + (f[i] === f[plan.anchor] ? 1 : 0);
        if (r < best) {
            best = r;
            second = i;
        }
    }
    return { folded: f, first: Math.min(plan.anchor, second), second: Math.max(plan.anchor, second) };
}

/**
 * `simd` where WebAssembly SIMD runs, unless the set is one literal with a rare anchor (its
 * native memchr is as fast); else `blocks` when every literal is at least {@link BLOCKS_MIN} bytes
 * and every anchor among the commonest bytes (COMMON_RANK), else `anchors`.
 */
function defaultSearch(plans: readonly LiteralPlan[], longEnough: boolean): LiteralSearch {
    const allCommon = plans.every((p) => p.rank >= COMMON_RANK);
    if (plans.length <= SIMD_MAX_LITERALS && (plans.length > 1 || allCommon) && simdAvailable()) return 'simd';
    return longEnough && allCommon ? 'blocks' : 'anchors';
}

/** Shortest literal for which a set whose anchors are all common is searched by blocks. */
export const BLOCKS_MIN = 7;

/**
 * The block search's tables over the literals' first `window` bytes: per block of two bytes (in
 * every ASCII case), how far the window's end may move when it ends with that block (the window
 * less one where no prefix holds it), and which literals' prefixes end with it.
 */
function blockTables(plans: LiteralPlan[], window: number): [Uint8Array, Uint8Array] {
    const shift = new Uint8Array(1 << 16).fill(window - 1);
    const ends = new Uint8Array(1 << 16);
    const cases = (b: number): number[] => (b >= 97 && b <= 122 ? [b, b - 32] : [b]);
    plans.forEach((p, i) => {
        for (let j = 1; j < window; j++) {
            const s = window - 1 - j;
            for (const a of cases(p.folded[j - 1]!)) {
                for (const b of cases(p.folded[j]!)) {
                    const block = (a << 8) | b;
                    if (s < shift[block]!) shift[block] = s;
                    if (s === 0) ends[block] = ends[block]! | (1 << i);
                }
            }
        }
    });
    return [shift, ends];
}
