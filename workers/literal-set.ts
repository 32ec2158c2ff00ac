import { findLiteral, planLiteral, type LiteralPlan } from './prefilter.js';

/**
 * The scan's prefilter for an OR of literals (`foo|bar`): the first occurrence of any of them in
 * the raw bytes, ASCII case-insensitively. Each literal is searched on its own through its rarest
 * byte (prefilter.ts) and the earliest wins; a literal's next occurrence is kept between calls on
 * one buffer, so each is searched once over the buffer, not once per candidate line.
 * Perf: the candidate lines of `mutex_destroy|psoc_etr_itmiscop0_acqcomp_mask` in 200 MB of the
 * Linux tree's drivers/ took 145 ms so, 918 ms by one `/…|…/gi` over the Latin-1 text (a JS loop
 * over the bytes with a table of first bytes was slower than both on `command|parameters`).
 */
export class LiteralSet {
    /** The literals, ASCII lower-cased, each at least one byte. */
    readonly literals: readonly string[];
    /** The longest literal's length in bytes: a chunked search keeps this many bytes less one. */
    readonly longest: number;
    readonly #plans: LiteralPlan[];
    /** Per literal: start of its first occurrence at or after {@link #from}, -1 for none, -2 not searched yet. */
    readonly #next: Int32Array;
    #from = 0;

    /** @throws RangeError for no literals or an empty one (it would match everywhere: no prefilter at all). */
    constructor(literals: readonly string[]) {
        if (literals.length === 0 || literals.some((l) => l.length === 0)) throw new RangeError('a literal set needs at least one literal, none of them empty');
        this.literals = literals;
        this.#plans = literals.map(planLiteral);
        this.longest = Math.max(...this.#plans.map((p) => p.folded.length));
        this.#next = new Int32Array(literals.length);
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
}
