import { COMMON_RANK, findLiteral, foldedAt, planLiteral, type LiteralPlan } from './prefilter.js';

/**
 * The scan's prefilter for an OR of literals (`foo|bar`): the first occurrence of any of them in
 * the raw bytes, ASCII case-insensitively, in one of two ways:
 * - `anchors`: each literal searched on its own through its rarest byte (prefilter.ts), the
 *   earliest winning; a literal's next occurrence is kept between calls on one buffer, so each
 *   is searched once over the buffer, not once per candidate line. Each place its anchor byte
 *   occurs costs a native call, cheap for a rare byte, the bulk of the time for a common one.
 * - `blocks`: Wu and Manber's multi-pattern search ("A fast algorithm for multi-pattern
 *   searching", 1994) over two-byte blocks, one pass for all the literals: a window as long as
 *   the shortest literal slides by the shift of the block at its end (0 where a literal's prefix
 *   ends with that block: checked). Its cost does not depend on how common the literals' bytes
 *   are, but each window is JavaScript work: it pays for long literals with common bytes only.
 * Perf: finding the candidate lines in 200 MB of the Linux tree's drivers/ took, in CPU time,
 * 474 ms by anchors and 179 by blocks for `command|parameters` (both anchored on `m`), 71 and 103
 * for `mutex_lock` (anchored on the rarer `k`).
 */
export class LiteralSet {
    /** The literals, ASCII lower-cased, each at least one byte. */
    readonly literals: readonly string[];
    /** The longest literal's length in bytes: a chunked search keeps this many bytes less one. */
    readonly longest: number;
    /** Which search runs (see the class's docstring). */
    readonly how: 'anchors' | 'blocks';
    readonly #plans: LiteralPlan[];
    /** anchors: per literal, start of its first occurrence at or after {@link #from}, -1 for none, -2 not searched yet. */
    readonly #next: Int32Array;
    #from = 0;
    /** blocks: the window's length, and per block (its two bytes as one index) the shift and the literals (bits) whose prefix ends with it. */
    readonly #window: number;
    readonly #shift: Uint8Array | null;
    readonly #ends: Uint8Array | null;

    /**
     * `how` by default: blocks when every literal is at least {@link BLOCKS_MIN} bytes and every
     * anchor among the commonest bytes (COMMON_RANK), else anchors.
     * @throws RangeError for no literals or an empty one (it would match everywhere: no prefilter at all).
     */
    constructor(literals: readonly string[], how?: 'anchors' | 'blocks') {
        if (literals.length === 0 || literals.some((l) => l.length === 0)) throw new RangeError('a literal set needs at least one literal, none of them empty');
        this.literals = literals;
        this.#plans = literals.map(planLiteral);
        this.longest = Math.max(...this.#plans.map((p) => p.folded.length));
        this.#next = new Int32Array(literals.length);
        const shortest = Math.min(...this.#plans.map((p) => p.folded.length));
        const blocksFit = shortest >= 2 && literals.length <= 8;
        if (how === 'blocks' && !blocksFit) throw new RangeError('a block search needs at most 8 literals of 2 bytes or more');
        this.how = how ?? (blocksFit && shortest >= BLOCKS_MIN && this.#plans.every((p) => p.rank >= COMMON_RANK) ? 'blocks' : 'anchors');
        // Shifts fit a byte: the window stops at 255 bytes (any prefix of the literals will do).
        this.#window = Math.min(shortest, 255);
        [this.#shift, this.#ends] = this.how === 'blocks' ? blockTables(this.#plans, this.#window) : [null, null];
    }

    /**
     * Forgets the occurrences kept: called before searching another buffer, or new content in the
     * same one. (Memory: no buffer is held between calls; a large file's stays released.)
     */
    reset(): void {
        this.#from = 0;
        this.#next.fill(-2);
    }

    /**
     * Start of the first occurrence at or after `from` of any literal in `buf`, or -1. Between two
     * {@link reset}s every call must pass the same unchanged buffer; a call with a `from` below the
     * last one's searches again from there.
     */
    find(buf: Buffer, from: number): number {
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
