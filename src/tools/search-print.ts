import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import type { SearchConfiguration } from '../config/shared/configuration.js';
import { globList } from '../search/shared/filters.js';
import type { PreparedSearch } from '../search/shared/protocol.js';
import type { SearchHit, SearchOutcome } from '../search/shared/types.js';
import { hitListOf } from '../search/shared/hit-list.js';
import { joinParts, sortInTurns, Turns } from '../engine/turns.js';
import { fail, ok } from './base.js';
import { byCodePoint, childPrefix, quotePath } from '../print/shared/display.js';
import { globNotes, patternNotes } from './search-patterns.js';
import { hitBlocks, lineOf, withContext } from './search-lines.js';
import { budgetReason, NOTE_RESERVE, OutputBudget } from '../print/budget.js';
import { BLOCK_BYTES, Utf16Writer } from '../print/utf16-writer.js';
import { timeCriteria, timeFrameNote } from './search-times.js';

export { lineOf } from './search-lines.js';

/**
 * What `search_entries` prints of a finished search: one line per hit (or ripgrep's context
 * groups, or a count summary per top-level directory above `maxDisplayEntries`), then the notes
 * on why it stopped, the next page, the patterns, skipped entries and files too large to search.
 */

/** Unreadable entries, and files too large to search, named in the output at most. */
const SKIPPED_SHOWN = 5;
/** Top-level directories listed in a count summary at most. */
const SUMMARY_GROUPS = 50;

/**
 * The arguments of a `search_entries` call that the output reads, named and typed as the tool's
 * schema parses them (search-entries.ts passes its parsed arguments).
 */
export interface PrintArgs {
    type?: 'file' | 'directory' | 'both' | undefined;
    name_pattern?: string | undefined;
    content_pattern?: string | undefined;
    literal?: boolean | undefined;
    offset?: number | undefined;
    max_size?: number | undefined;
    created_after?: string | undefined;
    created_before?: string | undefined;
    modified_after?: string | undefined;
    modified_before?: string | undefined;
    respect_gitignore?: boolean | undefined;
    include?: string | string[] | undefined;
    exclude?: string | string[] | undefined;
}

/** The limits the output names: the search configuration's, the configured maxFileSize in bytes and the call's output budget in characters. */
export type PrintConfig = Pick<SearchConfiguration, 'maxDisplayEntries' | 'maxTotalEntries' | 'timeoutMs'> & { maxFileSize: number; maxCharsPerCall: number };

/** The tool's result for `outcome`; `flat` is the number of entries directly in the searched directory when that alone is above maxTotalEntries. */
export async function printSearch(args: PrintArgs, search: PreparedSearch, outcome: SearchOutcome, config: PrintConfig, flat?: number): Promise<PartialToolResult> {
    // Perf: tens of thousands of hits are formatted in slices, giving the host's event loop a
    // turn every few milliseconds (81,383 hits listed in one turn would hold it ~270 ms).
    const turns = new Turns();
    const { maxDisplayEntries, maxTotalEntries, timeoutMs } = config;
    const timed = search.needTimes;
    const offset = args.offset ?? 0;
    const pageSize = search.maxResults - offset;
    // The hits as the engine kept them (runs, see src/search/shared/hit-list.ts) when it did: no
    // object per hit lives past its line.
    const list = hitListOf(outcome);
    const all = list?.length ?? outcome.hits.length;
    const page = (): Iterable<SearchHit> => (list ? list.hits(offset) : offset > 0 ? outcome.hits.slice(offset) : outcome.hits);
    /** Hits on this page. */
    const count = Math.max(0, all - offset);
    const root = quotePath(search.root.display);
    const unit = search.outputMode === 'content' || args.content_pattern === undefined ? 'results' : 'files';
    // The notes after the list are known before it: their room in the call's budget is set aside first.
    const tail = tailNotes(args, search, outcome, config, count);
    const budget = new OutputBudget(config.maxCharsPerCall);
    budget.reserve(NOTE_RESERVE + tail.reduce((n, line) => n + line.length + 1, 0));
    let body: string[] = [];
    if (count === 0) {
        const criteria = describeCriteria(args);
        body.push(`No entries found in ${root}${criteria ? ` matching ${criteria}` : ''}.`);
    } else if (count > maxDisplayEntries) {
        body = body.concat(await summarize(page(), count, search.root.display, maxDisplayEntries, turns));
    } else if (search.contextLines > 0) {
        body = body.concat(await withContext([...page()], timed, turns, budget));
    } else if (list !== undefined && !timed) {
        // Event loop: written from the runs' columns, no object per hit (see search-lines.ts).
        for await (const block of hitBlocks(list, offset, (h) => lineOf(h, timed), turns, BLOCK_BYTES, budget)) body.push(block);
    } else {
        const block = new Utf16Writer();
        let n = 0;
        for (const h of page()) {
            const line = lineOf(h, timed);
            if (!budget.take(line.length + 1)) break;
            block.startLine();
            block.string(line);
            const full = block.takeFull();
            if (full !== undefined) body.push(full);
            if ((++n & 255) === 0 && turns.due) await turns.yield();
        }
        if (block.size > 0) body.push(block.take());
    }
    if (budget.cut) {
        // The budget note names the next page; the max_results note would name a later one.
        const shown = budget.taken;
        const more = outcome.stop === 'max_results' ? ' or more' : '';
        body.push(
            `[Showing ${unit} ${offset + 1}-${offset + shown} of the ${offset + count}${more} found: ${budgetReason(config.maxCharsPerCall)}. ` +
                `For the rest, call again with offset=${offset + shown}${search.contextLines > 0 ? ' (fewer context_lines fit more results in a call)' : ''}.]`,
        );
    }
    switch (budget.cut && outcome.stop === 'max_results' ? 'done' : outcome.stop) {
        case 'max_results': {
            const shown = offset > 0 ? `${unit} ${offset + 1}-${offset + count} (offset = ${offset}, max_results = ${pageSize})` : `the first ${count} ${unit} (max_results = ${pageSize})`;
            body.push(`[Showing ${shown}; there may be more. Raise max_results or narrow the search; for the next page, call again with offset=${offset + count}.]`);
            break;
        }
        case 'timeout':
            body.push(
                `[Search timed out after ${timeoutMs} ms, having visited ${outcome.visited} entries and scanned ${outcome.scanned} files; the results are partial. ` +
                    'Narrow the search (a deeper path, name_pattern, type) or raise LLM_CHAT_FS_SEARCH_TIMEOUT.]',
            );
            break;
        case 'aborted':
            body.push('[Search aborted; the results are partial.]');
            break;
        default:
            break;
    }
    if (offset > 0 && count === 0 && outcome.stop === 'done') body.push(`[offset ${offset} is past the last result: the search has ${all} ${unit}.]`);
    if (count > maxDisplayEntries) {
        body.push(`[To list them page by page, call again with max_results=${maxDisplayEntries} and offset=${offset}, then offset=${offset + maxDisplayEntries}, and so on.]`);
    }
    if (search.maxMatchesPerFile !== undefined && count > 0 && count <= maxDisplayEntries) {
        const capped = cappedFiles(page(), search.maxMatchesPerFile, budget.cut ? budget.taken : count);
        if (capped > 0) {
            body.push(
                `[${capped} ${capped === 1 ? 'file shows' : 'files show'} max_matches_per_file = ${search.maxMatchesPerFile} matching lines and may have more: ` +
                    'search one alone (its path in include) to see them all, or use output_mode "count".]',
            );
        }
    }
    body.push(...tail);
    if (outcome.stop === 'too_many_entries') {
        // The limit the sorted walk passed, not the workers' count: they overshoot it by a varying amount.
        const head =
            `Search stopped: visited more than the limit of ${maxTotalEntries} entries under ${root} ` +
            `(maxTotalEntries; raise it with LLM_CHAT_FS_MAX_TOTAL_ENTRIES=<n>). ` +
            narrowAdvice(args, flat) +
            (count > 0 ? `Matches found before stopping (${count}):` : 'No matches were found before stopping.');
        return fail([head].concat(count > 0 ? body : body.slice(1)).join('\n'), 'too_large');
    }
    return ok(joinParts(body, '\n'));
}

/** The notes after the list that do not depend on where it ends: time frame, patterns, skipped entries, files too large. */
function tailNotes(args: PrintArgs, search: PreparedSearch, outcome: SearchOutcome, config: PrintConfig, count: number): string[] {
    const notes: string[] = [];
    // With no result, the no-match line names the resolved instants already.
    const frame = count > 0 ? timeFrameNote(args) : null;
    if (frame !== null) notes.push(frame);
    // Files were content-searched or held back for their size: the name part of the search matched.
    const namesMatched = outcome.scanned > 0 || outcome.tooLargeCount > 0;
    notes.push(...patternNotes(args, count > 0, namesMatched), ...globNotes(args, count > 0));
    if (outcome.skipped.length > 0) {
        const n = outcome.skipped.length;
        const shown = outcome.skipped.slice(0, SKIPPED_SHOWN).map((s) => `${quotePath(s.path)} (${s.reason})`);
        const more = n > SKIPPED_SHOWN ? ', ...' : '';
        notes.push(`[Skipped ${n} unreadable ${n === 1 ? 'entry' : 'entries'}: ${shown.join(', ')}${more}]`);
    }
    if (outcome.tooLargeCount > 0) notes.push(tooLargeNote(args, search, outcome, config.maxFileSize));
    return notes;
}

/** How many files of the first `shown` hits show exactly `max` matching lines (content hits are in path order). */
function cappedFiles(hits: Iterable<SearchHit>, max: number, shown: number): number {
    let capped = 0;
    let path: string | undefined;
    let n = 0;
    let i = 0;
    for (const h of hits) {
        if (i++ >= shown) break;
        if (h.line === undefined) continue;
        if (h.path !== path) {
            path = h.path;
            n = 0;
        }
        if (++n === max) capped++;
    }
    return capped;
}

/** The files a content search left out for their size, and which limit to raise. */
function tooLargeNote(args: PrintArgs, search: PreparedSearch, outcome: SearchOutcome, configured: number): string {
    const n = outcome.tooLargeCount;
    const byArg = args.max_size !== undefined && args.max_size < configured;
    const limit = byArg ? `max_size (${search.maxFileSize} bytes)` : `maxFileSize (${search.maxFileSize} bytes)`;
    const shown = outcome.tooLarge.slice(0, SKIPPED_SHOWN).map((f) => `${quotePath(f.path)} (${f.size} bytes)`);
    const more = n > shown.length ? ', ...' : '';
    const raise = byArg ? `raise max_size (up to maxFileSize, ${configured} bytes)` : 'raise LLM_CHAT_FS_MAX_FILE_SIZE';
    return `[Not searched: ${n} ${n === 1 ? 'file' : 'files'} above ${limit}: ${shown.join(', ')}${more}; ${raise} to search them.]`;
}


/**
 * How to narrow a search stopped by maxTotalEntries, naming only what the call has not used yet;
 * `flat` is the number of entries directly in the searched directory when that alone is above the limit.
 */
function narrowAdvice(args: PrintArgs, flat: number | undefined): string {
    if (flat !== undefined) {
        return (
            `The directory itself holds ${flat} entries, more than the limit: every one is visited whatever the filters, so only a deeper \`path\` ` +
            'or a higher limit helps; list_directory shows its entries page by page (offset). '
        );
    }
    const unused = ['a deeper `path`'];
    if (args.name_pattern === undefined) unused.push('a `name_pattern`');
    if (args.type === undefined || args.type === 'both') unused.push('`type`');
    return `Narrow the search with ${unused.slice(0, -1).join(', ')}${unused.length > 1 ? ' or ' : ''}${unused.at(-1)}. `;
}

/** The active filters, for the "no entries found" line. */
function describeCriteria(args: PrintArgs): string {
    const parts: string[] = [];
    const show = (p: string): string => (args.literal === true ? JSON.stringify(p) : `/${p}/i`);
    if (args.name_pattern !== undefined) parts.push(`name_pattern ${show(args.name_pattern)}`);
    if (args.content_pattern !== undefined) parts.push(`content_pattern ${show(args.content_pattern)}`);
    if (args.type !== undefined && args.type !== 'both') parts.push(`type ${args.type}`);
    parts.push(...timeCriteria(args));
    const inc = globList(args.include);
    const exc = globList(args.exclude);
    if (inc !== undefined) parts.push(`include ${inc.join(', ')}`);
    if (exc !== undefined) parts.push(`exclude ${exc.join(', ')}`);
    if (args.respect_gitignore === true) parts.push('not ignored by .gitignore');
    return parts.join(', ');
}

/** Count summary of too many hits: total, then counts per top-level directory under the searched one. */
async function summarize(hits: Iterable<SearchHit>, count: number, displayRoot: string, maxDisplayEntries: number, turns: Turns): Promise<string[]> {
    const prefix = childPrefix(displayRoot);
    const groups = new Map<string, number>();
    const files = new Set<string>();
    let direct = 0;
    let counted = 0;
    let i = 0;
    for (const h of hits) {
        if ((i++ & 1023) === 1023 && turns.due) await turns.yield();
        if (h.line !== undefined) files.add(h.path);
        counted += h.count ?? 0;
        const rel = h.path.startsWith(prefix) ? h.path.slice(prefix.length) : h.path;
        const slash = rel.indexOf('/');
        if (slash === -1 && h.kind !== 'directory') direct++;
        else {
            const top = `${prefix}${slash === -1 ? rel : rel.slice(0, slash)}/`;
            groups.set(top, (groups.get(top) ?? 0) + 1);
        }
    }
    const what =
        files.size > 0
            ? `${count} matching lines in ${files.size} files`
            : counted > 0
              ? `${counted} matching lines in ${count} files`
              : `${count} matching entries`;
    const lines = [`Found ${what} in ${quotePath(displayRoot)}: too many to list (above maxDisplayEntries = ${maxDisplayEntries}, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES). Counts by top-level directory:`];
    const sorted = [...groups.entries()];
    await sortInTurns(sorted, (a, b) => byCodePoint(a[0], b[0]), turns);
    for (const [dir, n] of sorted.slice(0, SUMMARY_GROUPS)) lines.push(`  ${quotePath(dir)}: ${n}`);
    if (sorted.length > SUMMARY_GROUPS) lines.push(`  ... and ${sorted.length - SUMMARY_GROUPS} more directories`);
    if (direct > 0) lines.push(`  (directly in ${quotePath(displayRoot)}): ${direct}`);
    lines.push('Narrow the search to list the entries: a deeper path (one of the directories above), a name_pattern, a content_pattern, type, or a smaller max_results.');
    return lines;
}
