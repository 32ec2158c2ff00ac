/**
 * The output budget of one tool call: the characters everything it returns may hold
 * (`FileConfiguration.maxCharsPerCall`, `LLM_CHAT_FS_MAX_CHARS_PER_CALL`). The per-file and
 * per-count limits multiply (100 files of `maxCharsPerFile`, `max_results` hits with
 * `context_lines`), while hosts cap one tool result far lower; so each tool that lists files or
 * hits stops adding them when the next would not fit, and ends with a note naming what was left
 * out and how to get it (the remaining paths, the next `offset`). At least one item is always
 * shown, so a call can always make progress. {@link capText} is the last guard for any other
 * result: cut at a line, with a note.
 */

/** What the notes call the limit. */
export const BUDGET_NAME = 'maxCharsPerCall, LLM_CHAT_FS_MAX_CHARS_PER_CALL';

/** Characters kept free for the notes after a list (the budget note itself, the paging note). */
export const NOTE_RESERVE = 1000;

/** The characters a call may still add; taken item by item, in output order. */
export class OutputBudget {
    #left: number;
    #cut = false;
    /** Items taken so far. */
    #taken = 0;

    /** @param limit - the call's budget in characters (UTF-16 code units, as `string.length` counts them). */
    constructor(readonly limit: number) {
        this.#left = limit;
    }

    /** Characters still free. */
    get left(): number {
        return this.#left;
    }

    /** Items taken so far. */
    get taken(): number {
        return this.#taken;
    }

    /** True once an item was refused: the output was cut and needs {@link budgetNote}. */
    get cut(): boolean {
        return this.#cut;
    }

    /** Sets `n` characters aside (notes written after the list). */
    reserve(n: number): void {
        this.#left -= n;
    }

    /**
     * Takes an item of `n` characters (its line break included) if it fits, or if it is the first
     * item (progress); once one is refused, every later one is too, so the items shown are a prefix.
     */
    take(n: number): boolean {
        if (this.#cut) return false;
        if (n > this.#left && this.#taken > 0) {
            this.#cut = true;
            return false;
        }
        this.#left -= n;
        this.#taken++;
        return true;
    }
}

/** Why an output was cut: `this call's output reached its budget of 100000 characters (maxCharsPerCall, ...)`. */
export function budgetReason(limit: number): string {
    return `this call's output reached its budget of ${limit} characters (${BUDGET_NAME})`;
}

/** The note ending a cut output: `what` was left out, `how` to get it. */
export function budgetNote(limit: number, what: string, how: string): string {
    return `[${what}: ${budgetReason(limit)}. ${how}]`;
}

/**
 * `text` cut to `limit` characters at the last line break that leaves room for the note, with a
 * note naming the characters left out; `text` itself when it fits.
 */
export function capText(text: string, limit: number): string {
    if (text.length <= limit) return text;
    const room = Math.max(0, limit - NOTE_RESERVE);
    const nl = text.lastIndexOf('\n', room);
    const kept = text.slice(0, nl > 0 ? nl : room);
    return `${kept}\n${budgetNote(limit, `${text.length - kept.length} characters left out at the end`, 'Narrow the call (a smaller range, max_results, a deeper path) to see the rest.')}`;
}
