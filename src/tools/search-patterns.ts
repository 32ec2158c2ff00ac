import { globHint, looksLikeGlob } from '../search/glob-hint.js';
import { globList } from '../search/shared/filters.js';
import { escapeRegex } from '../search/regex.js';

/**
 * How `search_entries` takes its `name_pattern` and `content_pattern` from the model: as regexes,
 * or as plain text with `literal: true` (grep's `-F`, ripgrep's `--fixed-strings`), which becomes
 * the equivalent escaped regex, so the engine and the workers run it unchanged (the engine's
 * prepareSearch rejects an invalid one, naming the parameter). Patterns that probably meant text
 * and patterns holding a line break get a note that says what to do.
 */

/** The regex source the search runs for `pattern`: escaped when `literal`. */
export function patternSource(pattern: string | undefined, literal: boolean): string | undefined {
    return pattern === undefined || !literal ? pattern : escapeRegex(pattern);
}

/** Regex syntax that text usually holds with another meaning (`a[0]`, `$5.00`, `f(x)`, `a|b`, `C++`, `a^2`). */
const SYNTAX_IN_TEXT = /[[\](){}|*+?]|\$(?!$)|(?<!^)\^/;

/** A line break in the pattern: the character itself, or a `\n` / `\r` escape (not `\\n`). */
const LINE_BREAK = /[\n\r]|(?<!\\)(?:\\\\)*\\[nr]/;

/**
 * Lines added after a search's output about the patterns: a pattern with a line break can match
 * nothing (content is matched line by line); a regex pattern that found nothing but holds syntax
 * text often holds may have been meant literally, except a `name_pattern` that matched
 * (`namesMatched`: files passing the name filters were content-searched), which is not the cause.
 */
export function patternNotes(
    args: { name_pattern?: string | undefined; content_pattern?: string | undefined; literal?: boolean | undefined },
    found: boolean,
    namesMatched = false,
): string[] {
    const notes: string[] = [];
    for (const param of ['content_pattern', 'name_pattern'] as const) {
        const p = args[param];
        if (p === undefined) continue;
        if (LINE_BREAK.test(p)) {
            notes.push(
                param === 'content_pattern'
                    ? `[content_pattern contains a line break, but contents are matched one line at a time, so no match can span lines. Search for one line of the text (context_lines shows its neighbours), then read_file the lines around a hit.]`
                    : `[name_pattern contains a line break; names are matched one at a time and rarely contain one.]`,
            );
        } else if (param === 'name_pattern' && args.literal !== true && looksLikeGlob(p)) {
            notes.push(`[${globHint(param, p, true)}]`);
        } else if (!found && args.literal !== true && !(param === 'name_pattern' && namesMatched) && SYNTAX_IN_TEXT.test(p)) {
            notes.push(`[${param} is a regular expression, in which characters such as [ ] ( ) $ ^ * + ? | have special meanings. To search for the text as written, set literal: true.]`);
        }
    }
    return notes;
}

/** A comma outside braces: `"*.c,*.h"` is one glob that matches names holding a comma, rarely what was meant. */
function commaList(glob: string): boolean {
    let depth = 0;
    for (const c of glob) {
        if (c === '{') depth++;
        else if (c === '}') depth = Math.max(0, depth - 1);
        else if (c === ',' && depth === 0) return true;
    }
    return false;
}

/**
 * Lines about globs written as one comma-separated string: an `include` that found nothing, an
 * `exclude` always (it left out nothing it was meant to).
 */
export function globNotes(args: { include?: string | string[] | undefined; exclude?: string | string[] | undefined }, found: boolean): string[] {
    const notes: string[] = [];
    for (const param of ['include', 'exclude'] as const) {
        if (param === 'include' && found) continue;
        for (const glob of globList(args[param]) ?? []) {
            if (!commaList(glob)) continue;
            const list = glob.split(',').map((g) => g.trim()).filter((g) => g !== '');
            if (list.length < 2) continue;
            notes.push(`[${param} ${JSON.stringify(glob)} is one glob, which matches names holding a comma; for several globs pass a list: ${JSON.stringify(list)}.]`);
        }
    }
    return notes;
}

