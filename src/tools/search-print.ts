import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import type { SearchConfiguration } from '../config/shared/configuration.js';
import { globList } from '../search/shared/filters.js';
import type { PreparedSearch } from '../search/shared/protocol.js';
import type { SearchHit, SearchOutcome } from '../search/shared/types.js';
import { hitListOf } from '../search/shared/hit-list.js';
import { joinParts, sortInTurns, Turns } from '../engine/turns.js';
import { fail, ok } from './base.js';
import { byCodePoint, childPrefix, quotePath } from '../print/shared/display.js';
import { patternNotes } from './search-patterns.js';
import { hitBlocks } from './search-lines.js';
import { Utf16Writer } from '../print/utf16-writer.js';
import { timeCriteria, timeFrameNote } from './search-times.js';

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

/** The limits the output names: the search configuration's, and the configured maxFileSize in bytes. */
export type PrintConfig = Pick<SearchConfiguration, 'maxDisplayEntries' | 'maxTotalEntries' | 'timeoutMs'> & { maxFileSize: number };

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
    let body: string[] = [];
    if (count === 0) {
        const criteria = describeCriteria(args);
        body.push(`No entries found in ${root}${criteria ? ` matching ${criteria}` : ''}.`);
    } else if (count > maxDisplayEntries) {
        body = body.concat(await summarize(page(), count, search.root.display, maxDisplayEntries, turns));
    } else if (search.contextLines > 0) {
        body = body.concat(await withContext([...page()], timed, turns));
    } else if (list !== undefined && !timed) {
        // Event loop: written from the runs' columns, no object per hit (see search-lines.ts).
        for await (const block of hitBlocks(list, offset, (h) => lineOf(h, timed), turns)) body.push(block);
    } else {
        const block = new Utf16Writer();
        let n = 0;
        for (const h of page()) {
            block.startLine();
            block.string(lineOf(h, timed));
            const full = block.takeFull();
            if (full !== undefined) body.push(full);
            if ((++n & 255) === 0 && turns.due) await turns.yield();
        }
        if (block.size > 0) body.push(block.take());
    }
    const unit = search.outputMode === 'content' || args.content_pattern === undefined ? 'results' : 'files';
    switch (outcome.stop) {
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
    // With no result, the no-match line names the resolved instants already.
    const frame = count > 0 ? timeFrameNote(args) : null;
    if (frame !== null) body.push(frame);
    // Files were content-searched or held back for their size: the name part of the search matched.
    const namesMatched = outcome.scanned > 0 || outcome.tooLargeCount > 0;
    for (const note of patternNotes(args, count > 0, namesMatched)) body.push(note);
    if (outcome.skipped.length > 0) {
        const n = outcome.skipped.length;
        const shown = outcome.skipped.slice(0, SKIPPED_SHOWN).map((s) => `${quotePath(s.path)} (${s.reason})`);
        const more = n > SKIPPED_SHOWN ? ', ...' : '';
        body.push(`[Skipped ${n} unreadable ${n === 1 ? 'entry' : 'entries'}: ${shown.join(', ')}${more}]`);
    }
    if (outcome.tooLargeCount > 0) body.push(tooLargeNote(args, search, outcome, config.maxFileSize));
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

/** One output line for a hit. Security: a path with a control character is JSON-quoted, so a newline in a name cannot fake entries. */
export function lineOf(hit: SearchHit, timed: boolean): string {
    const base =
        hit.line !== undefined
            ? `${quotePath(hit.path)}:${hit.line}: ${hit.text ?? ''}`
            : hit.count !== undefined
              ? `${quotePath(hit.path)}: ${hit.count}`
              : hit.kind === 'directory'
                ? quotePath(`${hit.path}/`)
                : quotePath(hit.path);
    if (!timed) return base;
    return `${base}  (created: ${iso(hit.birthtimeMs)}, modified: ${iso(hit.mtimeMs)})`;
}

/**
 * Content hits with their context lines, as ripgrep prints them: `path:line: text` for matches,
 * `path-line- text` for context, `--` between groups that are not adjacent. Overlapping context
 * is shown once, and a context line that is itself a match is shown as the match.
 */
async function withContext(hits: readonly SearchHit[], timed: boolean, turns: Turns): Promise<string[]> {
    const out: string[] = [];
    let file: string | undefined;
    /** The last line shown of `file`. */
    let last = 0;
    for (let i = 0; i < hits.length; i++) {
        if ((i & 255) === 255 && turns.due) await turns.yield();
        const h = hits[i]!;
        if (h.line === undefined) {
            out.push(lineOf(h, timed));
            file = undefined;
            continue;
        }
        const before = h.before ?? [];
        const first = h.line - before.length;
        const same = h.path === file;
        const start = same ? Math.max(first, last + 1) : first;
        if (out.length > 0 && (!same || start > last + 1)) out.push('--');
        const shownPath = quotePath(h.path);
        for (let n = start; n < h.line; n++) out.push(`${shownPath}-${n}- ${before[n - first]}`);
        out.push(lineOf(h, timed));
        last = h.line;
        const next = hits[i + 1];
        const nextLine = next !== undefined && next.path === h.path && next.line !== undefined ? next.line : Number.POSITIVE_INFINITY;
        const after = h.after ?? [];
        for (let k = 0; k < after.length && h.line + 1 + k < nextLine; k++) {
            last = h.line + 1 + k;
            out.push(`${shownPath}-${last}- ${after[k]}`);
        }
        file = h.path;
    }
    return out;
}

function iso(ms: number | undefined): string {
    return ms === undefined || !Number.isFinite(ms) ? 'unknown' : new Date(ms).toISOString();
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
