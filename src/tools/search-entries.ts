import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AccessType } from '../config/configuration.js';
import type { SearchProgress } from '../engine/engine.js';
import { sortInTurns, Turns } from '../turns.js';
import { ancestorIgnores, compileGlobs, globList, ignoredRoot } from '../engine/filters.js';
import type { SearchHit, SearchOutcome, SearchRequest } from '../engine/types.js';
import { errors } from '../errors.js';
import type { Workspace, WorkspaceView } from '../workspace.js';
import { arg, fail, FileTool, ok, type ToolShared } from './base.js';
import { byCodePoint, childPrefix, quotePath } from './display.js';
import { checkPattern, patternNotes, patternSource } from './search-patterns.js';
import { rootsOf } from './shared.js';

/** Most context lines around a content match. */
const MAX_CONTEXT_LINES = 10;

const globs = (desc: string) =>
    z
        .union([z.string(), z.array(z.string())], { error: 'expected a glob string or a list of glob strings' })
        .optional()
        .describe(desc);

const schema = z.strictObject({
    path: arg.path('Directory to search; default "." (the workspace root)').optional(),
    type: z.enum(['file', 'directory', 'both']).optional().describe('Entry type filter: "file", "directory", or "both" (default)'),
    name_pattern: z.string().optional().describe('JavaScript regex matched against file/directory names (case-insensitive)'),
    content_pattern: z.string().optional().describe('JavaScript regex searched in file contents, line by line (case-insensitive, files only)'),
    literal: z
        .boolean()
        .optional()
        .describe('Treat name_pattern and content_pattern as plain text, not regexes (like grep -F): "foo(", "a[0]" and "$5.00" match as written. Default false'),
    max_results: arg.count(
        'Maximum results; each matching line counts as one, or each file with output_mode "files_with_matches" or "count" (default: config max)',
    ).optional(),
    offset: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('Results to skip, for the next page of a search cut by max_results: the same call with offset = results already seen (default 0; same order every time)'),
    max_size: z.number().int().min(1).optional().describe('Maximum file size in bytes for content searches (capped by config)'),
    created_after: arg.isoDate('ISO 8601 datetime: entries created after this time').optional(),
    created_before: arg.isoDate('ISO 8601 datetime: entries created before this time').optional(),
    modified_after: arg.isoDate('ISO 8601 datetime: entries modified after this time').optional(),
    modified_before: arg.isoDate('ISO 8601 datetime: entries modified before this time').optional(),
    respect_gitignore: z
        .boolean()
        .optional()
        .describe(
            'Leave out entries ignored by .gitignore files, with git\'s rules: those of the searched directory, of its subdirectories ' +
                '(each relative to its own directory), and of the directories above it up to the repository root; a deeper .gitignore ' +
                'and a later line win, "!" re-includes. Default false',
        ),
    include: globs(
        'Glob or list of globs: only files whose path matches one are returned (directories are still searched below). ' +
            'A glob without "/" matches the name at any depth ("*.ts", "*.{js,mjs}"); one with "/" matches the path relative to `path` ' +
            '("src/**/*.test.ts"); case-insensitive. Directories are returned only if they match too',
    ),
    exclude: globs(
        'Glob or list of globs (same syntax as include): matching files and directories are left out, and matching directories are ' +
            'not searched ("*.min.js", "dist/", "**/fixtures/**"); a trailing "/" matches directories only',
    ),
    context_lines: z
        .number()
        .int()
        .min(0)
        .max(MAX_CONTEXT_LINES)
        .optional()
        .describe(
            `Lines of context shown before and after each content match (0-${MAX_CONTEXT_LINES}, default 0), like grep -C: ` +
                'context lines read "path-line- text", groups are separated by "--"; they do not count toward max_results. Needs content_pattern',
        ),
    output_mode: z
        .enum(['content', 'files_with_matches', 'count'])
        .optional()
        .describe(
            'For content_pattern searches: "content" (default) lists matching lines as "path:line: text"; "files_with_matches" lists ' +
                'only the paths of files with a match; "count" lists "path: N", the number of matching lines per file',
        ),
});

type Args = z.infer<typeof schema>;

const DESCRIPTION =
    'Searches for files and directories by name, content pattern, and/or creation/modification timestamps. ' +
    'If no filter is provided, all entries are returned (up to max_results). Patterns are case-insensitive JavaScript regexes; ' +
    'name and content patterns combine with AND. Output: one entry per line, sorted by path: "path:line: text" for content matches, ' +
    '"path" for files, "path/" for directories. Optional: include/exclude globs, respect_gitignore, context_lines around content ' +
    'matches, and output_mode "files_with_matches" or "count". A path containing a control character (e.g. a newline) is shown ' +
    'JSON-quoted; pass it back as that JSON string.';

/** Unreadable entries, and files too large to search, named in the output at most. */
const SKIPPED_SHOWN = 5;
/** Top-level directories listed in a count summary at most. */
const SUMMARY_GROUPS = 50;

/**
 * `search_entries`: a parallel, streaming search on the engine's worker pool. Results are sorted
 * by path, then line; `max_results` keeps exactly the first results of that order. Above
 * `maxDisplayEntries` result lines a count summary per top-level directory replaces the list;
 * a walk above `maxTotalEntries` entries is an error that says what to raise or narrow and still
 * shows the matches found; a timeout returns the matches found so far.
 *
 * Options beyond the reference, all off by default: `respect_gitignore`, `include`/`exclude`
 * globs (see `compileGlobs` in engine/filters.ts), `context_lines` (ripgrep's `-C` output:
 * `path-line- text` context lines, `--` between groups) and `output_mode` (`files_with_matches`:
 * one path per file; `count`: `path: N`; `max_results` then counts files).
 */
export class SearchEntriesTool extends FileTool<typeof schema> {
    constructor(workspace: Workspace, shared?: ToolShared) {
        super('search_entries', DESCRIPTION, schema, workspace, shared);
    }

    protected async run(args: Args, view: WorkspaceView): Promise<PartialToolResult> {
        const literal = args.literal === true;
        const namePattern = patternSource(args.name_pattern, literal);
        const contentPattern = patternSource(args.content_pattern, literal);
        checkPattern(this.name, 'name_pattern', namePattern);
        checkPattern(this.name, 'content_pattern', contentPattern);
        const include = checkGlobs(this.name, 'include', args.include);
        const exclude = checkGlobs(this.name, 'exclude', args.exclude);
        const mode = args.output_mode ?? 'content';
        const context = mode === 'content' ? (args.context_lines ?? 0) : 0;
        if (args.content_pattern === undefined && (args.context_lines ?? 0) > 0) {
            throw errors.invalidArgument(this.name, 'context_lines shows lines around content matches: set content_pattern too, or leave context_lines out.');
        }
        if (args.content_pattern === undefined && mode === 'count') {
            throw errors.invalidArgument(this.name, 'output_mode "count" counts matching lines per file: set content_pattern too, or use the default output_mode.');
        }
        const checked = await view.check(args.path ?? '.', AccessType.Read, this.name);
        const st = await fs.stat(checked.real).catch((err: unknown) => {
            throw errors.statFailed('Directory', err, checked.real, checked.abs);
        });
        if (!st.isDirectory()) {
            throw errors.wrongType(checked.abs, 'directory', 'file (search_entries searches a directory; use read_file to read a file, or search its parent with name_pattern)');
        }
        const { searchConfig, fileConfig } = this.ctx;
        const realRoots = await rootsOf(view);
        const above = args.respect_gitignore === true ? await ancestorIgnores(checked.real, realRoots ?? view.accesses) : [];
        const ignoredBy = ignoredRoot(above);
        if (ignoredBy !== null) {
            // Git semantics: nothing below an ignored directory counts. Say so rather than list nothing.
            const depth = above[ignoredBy.frame]!.up.split('/').length - 1;
            const file = view.display(path.join(checked.abs, '../'.repeat(depth), '.gitignore'));
            return ok(
                `No entries found in ${checked.display}: it is itself ignored by the rule "${ignoredBy.pattern}" in ${file}, and respect_gitignore ` +
                    'leaves out everything git ignores. Search again without respect_gitignore to see its entries.',
            );
        }
        const req: SearchRequest = {
            root: checked.real,
            displayRoot: checked.display,
            type: args.type ?? 'both',
            // Paging: the first offset + max_results of the same deterministic order, then the page.
            maxResults: (args.max_results ?? searchConfig.maxSearchResults) + (args.offset ?? 0),
            maxFileSize: Math.min(args.max_size ?? fileConfig.maxFileSize, fileConfig.maxFileSize),
            maxTotalEntries: searchConfig.maxTotalEntries,
            skipDirs: view.skipDirs,
            realRoots,
            ...(namePattern !== undefined && { namePattern }),
            ...(contentPattern !== undefined && { contentPattern }),
            ...(args.created_after !== undefined && { createdAfter: Date.parse(args.created_after) }),
            ...(args.created_before !== undefined && { createdBefore: Date.parse(args.created_before) }),
            ...(args.modified_after !== undefined && { modifiedAfter: Date.parse(args.modified_after) }),
            ...(args.modified_before !== undefined && { modifiedBefore: Date.parse(args.modified_before) }),
            ...(mode !== 'content' && { outputMode: mode }),
            ...(context > 0 && { contextLines: context }),
            ...(include !== undefined && { include }),
            ...(exclude !== undefined && { exclude }),
            ...(args.respect_gitignore === true && { respectGitignore: true, gitignoreAbove: above }),
        };
        const { signal, onProgress } = this.call;
        const outcome = await this.ctx.engine.search(req, {
            timeoutMs: searchConfig.timeoutMs,
            // The host's cancellation (an MCP client's notifications/cancelled) stops the workers too.
            ...(signal && { signal }),
            ...(onProgress && {
                onProgress: (p: SearchProgress) =>
                    onProgress({ progress: p.visited, message: `visited ${p.visited} entries, scanned ${p.scanned} files, ${p.hits} matches so far` }),
            }),
        });
        // A directory with more entries than the limit by itself: no filter can help, say so.
        let flat: number | undefined;
        if (outcome.stop === 'too_many_entries') {
            const direct = await fs.readdir(checked.real).then((names) => names.length, () => 0);
            if (direct > searchConfig.maxTotalEntries) flat = direct;
        }
        return this.format(args, req, outcome, flat);
    }

    private async format(args: Args, req: SearchRequest, outcome: SearchOutcome, flat?: number): Promise<PartialToolResult> {
        // Perf: tens of thousands of hits are formatted in slices, giving the host's event loop a
        // turn every few milliseconds (81,383 hits listed held it ~270 ms in one turn before).
        const turns = new Turns();
        const { maxDisplayEntries, maxTotalEntries, timeoutMs } = this.ctx.searchConfig;
        const timed = [req.createdAfter, req.createdBefore, req.modifiedAfter, req.modifiedBefore].some((t) => t !== undefined);
        const offset = args.offset ?? 0;
        const pageSize = req.maxResults - offset;
        const hits = offset > 0 ? outcome.hits.slice(offset) : outcome.hits;
        const root = quotePath(req.displayRoot);
        const body: string[] = [];
        if (hits.length === 0) {
            const criteria = describeCriteria(args);
            body.push(`No entries found in ${root}${criteria ? ` matching ${criteria}` : ''}.`);
        } else if (hits.length > maxDisplayEntries) {
            body.push(...(await summarize(hits, req.displayRoot, maxDisplayEntries, turns)));
        } else if ((req.contextLines ?? 0) > 0) {
            body.push(...(await withContext(hits, timed, turns)));
        } else {
            for (let i = 0; i < hits.length; i++) {
                if ((i & 255) === 255 && turns.due) await turns.yield();
                body.push(lineOf(hits[i]!, timed));
            }
        }
        const unit = (req.outputMode ?? 'content') === 'content' || args.content_pattern === undefined ? 'results' : 'files';
        switch (outcome.stop) {
            case 'max_results': {
                const shown = offset > 0 ? `${unit} ${offset + 1}-${offset + hits.length} (offset = ${offset}, max_results = ${pageSize})` : `the first ${hits.length} ${unit} (max_results = ${pageSize})`;
                body.push(`[Showing ${shown}; there may be more. Raise max_results or narrow the search; for the next page, call again with offset=${offset + hits.length}.]`);
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
        if (offset > 0 && hits.length === 0 && outcome.stop === 'done') body.push(`[offset ${offset} is past the last result: the search has ${outcome.hits.length} ${unit}.]`);
        if (hits.length > maxDisplayEntries) {
            body.push(`[To list them page by page, call again with max_results=${maxDisplayEntries} and offset=${offset}, then offset=${offset + maxDisplayEntries}, and so on.]`);
        }
        body.push(...patternNotes(args, hits.length > 0));
        if (outcome.skipped.length > 0) {
            const n = outcome.skipped.length;
            const shown = outcome.skipped.slice(0, SKIPPED_SHOWN).map((s) => `${quotePath(s.path)} (${s.reason})`);
            const more = n > SKIPPED_SHOWN ? ', ...' : '';
            body.push(`[Skipped ${n} unreadable ${n === 1 ? 'entry' : 'entries'}: ${shown.join(', ')}${more}]`);
        }
        if (outcome.tooLargeCount > 0) body.push(this.tooLargeNote(args, req, outcome));
        if (outcome.stop === 'too_many_entries') {
            // The limit the sorted walk passed, not the workers' count: they overshoot it by a varying amount.
            const head =
                `Search stopped: visited more than the limit of ${maxTotalEntries} entries under ${root} ` +
                `(maxTotalEntries; raise it with LLM_CHAT_FS_MAX_TOTAL_ENTRIES=<n>). ` +
                narrowAdvice(args, flat) +
                (hits.length > 0 ? `Matches found before stopping (${hits.length}):` : 'No matches were found before stopping.');
            return fail([head, ...(hits.length > 0 ? body : body.slice(1))].join('\n'));
        }
        return ok(body.join('\n'));
    }

    /** The files a content search left out for their size, and which limit to raise. */
    private tooLargeNote(args: Args, req: SearchRequest, outcome: SearchOutcome): string {
        const n = outcome.tooLargeCount;
        const configured = this.ctx.fileConfig.maxFileSize;
        const byArg = args.max_size !== undefined && args.max_size < configured;
        const limit = byArg ? `max_size (${req.maxFileSize} bytes)` : `maxFileSize (${req.maxFileSize} bytes)`;
        const shown = outcome.tooLarge.slice(0, SKIPPED_SHOWN).map((f) => `${quotePath(f.path)} (${f.size} bytes)`);
        const more = n > shown.length ? ', ...' : '';
        const raise = byArg ? `raise max_size (up to maxFileSize, ${configured} bytes)` : 'raise LLM_CHAT_FS_MAX_FILE_SIZE';
        return `[Not searched: ${n} ${n === 1 ? 'file' : 'files'} above ${limit}: ${shown.join(', ')}${more}; ${raise} to search them.]`;
    }
}

/**
 * How to narrow a search stopped by maxTotalEntries, naming only what the call has not used yet;
 * `flat` is the number of entries directly in the searched directory when that alone is above the limit.
 */
function narrowAdvice(args: Args, flat: number | undefined): string {
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

/**
 * Checks include/exclude globs and returns them as a list (`undefined`: no filter).
 * @throws ToolError (invalid_argument) naming the parameter and the glob.
 */
function checkGlobs(tool: string, param: string, value: string | string[] | undefined): string[] | undefined {
    const list = globList(value);
    if (list === undefined) return undefined;
    try {
        compileGlobs(list);
    } catch (err) {
        throw errors.invalidArgument(tool, `${param}: ${err instanceof Error ? err.message : String(err)}.`);
    }
    return list;
}

/** One output line for a hit. Security: a path with a control character is JSON-quoted, so a newline in a name cannot fake entries. */
function lineOf(hit: SearchHit, timed: boolean): string {
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
function describeCriteria(args: Args): string {
    const parts: string[] = [];
    const show = (p: string): string => (args.literal === true ? JSON.stringify(p) : `/${p}/i`);
    if (args.name_pattern !== undefined) parts.push(`name_pattern ${show(args.name_pattern)}`);
    if (args.content_pattern !== undefined) parts.push(`content_pattern ${show(args.content_pattern)}`);
    if (args.type !== undefined && args.type !== 'both') parts.push(`type ${args.type}`);
    if (args.created_after !== undefined) parts.push(`created after ${args.created_after}`);
    if (args.created_before !== undefined) parts.push(`created before ${args.created_before}`);
    if (args.modified_after !== undefined) parts.push(`modified after ${args.modified_after}`);
    if (args.modified_before !== undefined) parts.push(`modified before ${args.modified_before}`);
    const inc = globList(args.include);
    const exc = globList(args.exclude);
    if (inc !== undefined) parts.push(`include ${inc.join(', ')}`);
    if (exc !== undefined) parts.push(`exclude ${exc.join(', ')}`);
    if (args.respect_gitignore === true) parts.push('not ignored by .gitignore');
    return parts.join(', ');
}

/** Count summary of too many hits: total, then counts per top-level directory under the searched one. */
async function summarize(hits: readonly SearchHit[], displayRoot: string, maxDisplayEntries: number, turns: Turns): Promise<string[]> {
    const prefix = childPrefix(displayRoot);
    const groups = new Map<string, number>();
    const files = new Set<string>();
    let direct = 0;
    let counted = 0;
    for (let i = 0; i < hits.length; i++) {
        if ((i & 1023) === 1023 && turns.due) await turns.yield();
        const h = hits[i]!;
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
            ? `${hits.length} matching lines in ${files.size} files`
            : counted > 0
              ? `${counted} matching lines in ${hits.length} files`
              : `${hits.length} matching entries`;
    const lines = [`Found ${what} in ${quotePath(displayRoot)}: too many to list (above maxDisplayEntries = ${maxDisplayEntries}, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES). Counts by top-level directory:`];
    const sorted = [...groups.entries()];
    await sortInTurns(sorted, (a, b) => byCodePoint(a[0], b[0]), turns);
    for (const [dir, n] of sorted.slice(0, SUMMARY_GROUPS)) lines.push(`  ${quotePath(dir)}: ${n}`);
    if (sorted.length > SUMMARY_GROUPS) lines.push(`  ... and ${sorted.length - SUMMARY_GROUPS} more directories`);
    if (direct > 0) lines.push(`  (directly in ${quotePath(displayRoot)}): ${direct}`);
    lines.push('Narrow the search to list the entries: a deeper path (one of the directories above), a name_pattern, a content_pattern, type, or a smaller max_results.');
    return lines;
}
