/**
 * Page and cell ranges as `read_file` takes them (`"3"`, `"1-5"`, `"2,7-9"`, `"4-"`): 1-based,
 * inclusive, in the order given, each number once.
 */

/** The syntax of a range list; checked by the tool's schema. */
export const RANGE_LIST = /^\s*\d+\s*(-\s*\d*\s*)?(,\s*\d+\s*(-\s*\d*\s*)?)*$/;

/** One range: `last` is `undefined` for an open end (`"4-"`). */
export interface NumberRange {
    first: number;
    last: number | undefined;
}

/**
 * The ranges of `spec`, or a message saying what is wrong with it.
 * @param what - `page` or `cell`, for the message.
 */
export function parseRanges(spec: string, what: string): NumberRange[] | string {
    if (!RANGE_LIST.test(spec)) return `${JSON.stringify(spec)} is not a ${what} list: use e.g. "3", "1-5" or "2,7-9".`;
    const ranges: NumberRange[] = [];
    for (const piece of spec.split(',')) {
        const [a, b] = piece.split('-').map((s) => s.trim());
        // A larger number would be rounded, and the answer would name a number not asked for.
        const huge = [a, b].find((s) => s !== undefined && s !== '' && Number(s) > Number.MAX_SAFE_INTEGER);
        if (huge !== undefined) return `${what} number ${huge} is too large (at most ${Number.MAX_SAFE_INTEGER}).`;
        const first = Number(a);
        const last = b === undefined ? first : b === '' ? undefined : Number(b);
        if (first < 1) return `${what} numbers start at 1 (got ${first}).`;
        if (last !== undefined && last < first) return `${what} range ${first}-${last} ends before it starts.`;
        ranges.push({ first, last });
    }
    return ranges;
}

/**
 * The numbers `ranges` name within `1..count`, in order, each once; or a message when a range
 * starts beyond `count`.
 */
export function numbersIn(ranges: readonly NumberRange[], count: number, what: string): number[] | string {
    const seen = new Set<number>();
    const out: number[] = [];
    for (const r of ranges) {
        if (r.first > count) return `${what} ${r.first} is beyond the end: there ${count === 1 ? 'is' : 'are'} ${count} ${what}${count === 1 ? '' : 's'}.`;
        const last = Math.min(r.last ?? count, count);
        for (let n = r.first; n <= last; n++) if (!seen.has(n)) (seen.add(n), out.push(n));
    }
    return out;
}

/** `[1, 2, 3, 7]` as `1-3, 7`. */
export function describeNumbers(numbers: readonly number[]): string {
    const parts: string[] = [];
    for (let i = 0; i < numbers.length; ) {
        let j = i;
        while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
        parts.push(j === i ? `${numbers[i]}` : `${numbers[i]}-${numbers[j]}`);
        i = j + 1;
    }
    return parts.join(', ');
}

/**
 * The note for the numbers `ranges` name beyond `count` (`"3-9"` of 5 pages: `[pages 6-9 do not
 * exist: the PDF has 5 pages.]`), so that a list cut at the end never passes silently; `undefined`
 * when none is beyond. An open end (`"4-"`) means "to the end" and names none.
 */
export function beyondNote(ranges: readonly NumberRange[], count: number, unit: string, what: string): string | undefined {
    // Every range that passes the end runs from count + 1 on: together, up to the largest end.
    const last = Math.max(count, ...ranges.map((r) => r.last ?? count));
    if (last === count) return undefined;
    const named = last === count + 1 ? `${unit} ${last} does` : `${unit}s ${count + 1}-${last} do`;
    return `[${named} not exist: the ${what} has ${count} ${unit}${count === 1 ? '' : 's'}.]`;
}
