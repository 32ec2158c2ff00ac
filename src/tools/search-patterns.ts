import { compilePattern } from '../engine/regex.js';
import { errors } from '../errors.js';

/**
 * How `search_entries` takes its `name_pattern` and `content_pattern` from the model: as regexes,
 * or as plain text with `literal: true` (grep's `-F`, ripgrep's `--fixed-strings`), which becomes
 * the equivalent escaped regex, so the engine and the workers run it unchanged. Invalid
 * patterns, patterns that probably meant text, and patterns holding a line break get a message
 * that says what to do.
 */

/** `text` as a regex source matching exactly that text (every syntax character escaped). */
export function escapeRegex(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The regex source the search runs for `pattern`: escaped when `literal`. */
export function patternSource(pattern: string | undefined, literal: boolean): string | undefined {
    return pattern === undefined || !literal ? pattern : escapeRegex(pattern);
}

/**
 * @throws ToolError (invalid_argument) naming the parameter when `pattern` is not a valid regex,
 * saying how to escape it and that `literal: true` searches the text as written.
 */
export function checkPattern(tool: string, param: string, pattern: string | undefined): void {
    if (pattern === undefined) return;
    try {
        compilePattern(pattern);
    } catch (err) {
        throw errors.invalidArgument(
            tool,
            `${param} is not a valid JavaScript regular expression: ${err instanceof Error ? err.message : String(err)}. ` +
                `To search for the text as written, set literal: true, or escape the special characters with a backslash: ${JSON.stringify(escapeRegex(pattern))}.`,
        );
    }
}

/** Regex syntax that text usually holds with another meaning (`a[0]`, `$5.00`, `f(x)`, `a|b`, `C++`, `a^2`). */
const SYNTAX_IN_TEXT = /[[\](){}|*+?]|\$(?!$)|(?<!^)\^/;

/** A line break in the pattern: the character itself, or a `\n` / `\r` escape (not `\\n`). */
const LINE_BREAK = /[\n\r]|(?<!\\)(?:\\\\)*\\[nr]/;

/**
 * Lines added after a search's output about the patterns: a pattern with a line break can match
 * nothing (content is matched line by line); a regex pattern that found nothing but holds syntax
 * text often holds may have been meant literally.
 */
export function patternNotes(args: { name_pattern?: string | undefined; content_pattern?: string | undefined; literal?: boolean | undefined }, found: boolean): string[] {
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
        } else if (!found && args.literal !== true && SYNTAX_IN_TEXT.test(p)) {
            notes.push(`[${param} is a regular expression, in which characters such as [ ] ( ) $ ^ * + ? | have special meanings. To search for the text as written, set literal: true.]`);
        }
    }
    return notes;
}
