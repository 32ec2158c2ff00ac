/**
 * The time filters of `search_entries` (`created_after`, `created_before`, `modified_after`,
 * `modified_before`) read in one frame: UTC, the frame of every time the tools print. A date
 * alone is midnight UTC and a date-time without an offset is UTC too, whatever the host's time
 * zone; an explicit offset (`Z`, `+02:00`) is honoured. The resolved instants are echoed in the
 * no-match note, and after the results when an input had no offset, so the model sees what was
 * compared.
 */

/** The time filter arguments, as the tool's schema parses them. */
export interface TimeArgs {
    created_after?: string | undefined;
    created_before?: string | undefined;
    modified_after?: string | undefined;
    modified_before?: string | undefined;
}

const FILTERS = [
    ['created_after', 'created after'],
    ['created_before', 'created before'],
    ['modified_after', 'modified after'],
    ['modified_before', 'modified before'],
] as const;

/** An explicit offset at the end of an ISO 8601 date-time: `Z`, `+02:00`, `-0530`, `+02`. */
const OFFSET = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

/** True when `s` (a checked ISO 8601 date or date-time) says its own frame: a date-time with an offset. */
export function hasOffset(s: string): boolean {
    return s.length > 10 && OFFSET.test(s);
}

/**
 * The instant `s` names, in epoch milliseconds: offset-less input is UTC (`Date.parse` would read
 * a date-time without an offset in the host's zone, a date alone in UTC).
 */
export function instantOf(s: string): number {
    return Date.parse(s.length > 10 && !OFFSET.test(s) ? `${s}Z` : s);
}

/** One filter as the no-match note names it: `modified after 2025-01-31T00:00:00.000Z`, with the input beside it when it was written otherwise. */
function shown(label: string, input: string): string {
    const iso = new Date(instantOf(input)).toISOString();
    return iso === input ? `${label} ${iso}` : `${label} ${iso} (${input}${hasOffset(input) ? '' : ', read as UTC'})`;
}

/** The active time filters with their resolved instants, for the criteria of the no-match note. */
export function timeCriteria(args: TimeArgs): string[] {
    const parts: string[] = [];
    for (const [key, label] of FILTERS) {
        const v = args[key];
        if (v !== undefined) parts.push(shown(label, v));
    }
    return parts;
}

/**
 * The line after a search's results saying how offset-less time filters were read, or `null`
 * when every filter carried its own offset (nothing to resolve: the result stays as it was).
 */
export function timeFrameNote(args: TimeArgs): string | null {
    const offsetless = FILTERS.filter(([key]) => args[key] !== undefined && !hasOffset(args[key]!));
    if (offsetless.length === 0) return null;
    return `[Time filters read as UTC, the frame of the times shown: ${timeCriteria(args).join(', ')}.]`;
}
