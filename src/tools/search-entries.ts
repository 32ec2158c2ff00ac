import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AccessType } from '../config/shared/configuration.js';
import type { SearchProgress } from '../search/shared/types.js';
import { ignoredRoot } from '../search/shared/filters.js';
import { prepareSearch } from '../search/prepare.js';
import { errors } from '../errors/shared/errors.js';
import type { CheckedPath, WorkspaceView } from '../access/workspace.js';
import { FileTool, ok, type ToolCall } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { patternSource } from './search-patterns.js';
import { printSearch } from './search-print.js';
import { instantOf } from './search-times.js';
import { rootsOf } from './shared.js';
import { osPath } from '../print/shared/byte-names.js';

/** Most context lines around a content match. */
const MAX_CONTEXT_LINES = 10;

const globs = arg.globs;

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
    offset: arg.offset('Results to skip, for the next page of a search cut by max_results: the same call with offset = results already seen (default 0; same order every time)'),
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
    max_matches_per_file: arg
        .count('Most matching lines shown per file in output_mode "content" (default: no cap), so one file cannot fill the page. Needs content_pattern')
        .optional(),
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
    'matches, max_matches_per_file, and output_mode "files_with_matches" or "count". Times without an offset are UTC. A path containing a control character (e.g. a newline) is shown ' +
    'JSON-quoted; pass it back as that JSON string.';

const declaration = declareTool({
    name: 'search_entries',
    title: 'Search files and directories',
    description: DESCRIPTION,
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/**
 * `search_entries`: a parallel, streaming search on the engine's worker pool. Results are sorted
 * by path, then line; `max_results` keeps exactly the first results of that order. Above
 * `maxDisplayEntries` result lines a count summary per top-level directory replaces the list;
 * a walk above `maxTotalEntries` entries is an error that says what to raise or narrow and still
 * shows the matches found; a timeout returns the matches found so far.
 *
 * Options beyond the reference, all off by default: `respect_gitignore`, `include`/`exclude`
 * globs (see `compileGlobs` in src/search/shared/filters.ts), `context_lines` (ripgrep's `-C` output:
 * `path-line- text` context lines, `--` between groups) and `output_mode` (`files_with_matches`:
 * one path per file; `count`: `path: N`; `max_results` then counts files).
 */
export class SearchEntriesTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: Args, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        const literal = args.literal === true;
        const namePattern = patternSource(args.name_pattern, literal);
        const contentPattern = patternSource(args.content_pattern, literal);
        const { searchConfig, fileConfig } = this.ctx;
        let checked: CheckedPath | undefined;
        // The engine checks the options (naming the parameters) before the path is checked.
        const search = await prepareSearch(
            {
                root: async () => {
                    const { checked: c, stat: st } = await view.checkStat(args.path ?? '.', AccessType.Read, this.name);
                    if (st instanceof Error) throw errors.statFailed('Directory', st, c.real, c.abs);
                    if (!st.isDirectory()) {
                        throw errors.wrongType(c.abs, 'directory', 'file (search_entries searches a directory; use read_file to read a file, or search its parent with name_pattern)');
                    }
                    checked = c;
                    const realRoots = await rootsOf(view);
                    const roots = (realRoots ?? view.accesses).map((a) => a.path);
                    return { real: c.real, display: c.display, realRoots: realRoots === null ? null : roots, bounds: roots };
                },
                type: args.type ?? 'both',
                // Paging: the first offset + max_results of the same deterministic order, then the page.
                maxResults: (args.max_results ?? searchConfig.maxSearchResults) + (args.offset ?? 0),
                maxFileSize: Math.min(args.max_size ?? fileConfig.maxFileSize, fileConfig.maxFileSize),
                maxTotalEntries: searchConfig.maxTotalEntries,
                skipDirs: view.skipDirs,
                ...(namePattern !== undefined && { namePattern }),
                ...(contentPattern !== undefined && { contentPattern }),
                ...(args.created_after !== undefined && { createdAfter: instantOf(args.created_after) }),
                ...(args.created_before !== undefined && { createdBefore: instantOf(args.created_before) }),
                ...(args.modified_after !== undefined && { modifiedAfter: instantOf(args.modified_after) }),
                ...(args.modified_before !== undefined && { modifiedBefore: instantOf(args.modified_before) }),
                ...(args.output_mode !== undefined && { outputMode: args.output_mode }),
                ...(args.context_lines !== undefined && { contextLines: args.context_lines }),
                ...(args.max_matches_per_file !== undefined && { maxMatchesPerFile: args.max_matches_per_file }),
                ...(args.include !== undefined && { include: args.include }),
                ...(args.exclude !== undefined && { exclude: args.exclude }),
                ...(args.respect_gitignore !== undefined && { respectGitignore: args.respect_gitignore }),
            },
            this.name,
        );
        const ignoredBy = ignoredRoot(search.gitignoreAbove);
        if (ignoredBy !== null) {
            // Git semantics: nothing below an ignored directory counts. Say so rather than list nothing.
            const depth = search.gitignoreAbove[ignoredBy.frame]!.up.split('/').length - 1;
            const file = view.display(path.join(checked!.abs, '../'.repeat(depth), '.gitignore'));
            return ok(
                `No entries found in ${checked!.display}: it is itself ignored by the rule "${ignoredBy.pattern}" in ${file}, and respect_gitignore ` +
                    'leaves out everything git ignores. Search again without respect_gitignore to see its entries.',
            );
        }
        const { signal, onProgress } = call;
        const outcome = await (await this.ctx.engine()).search(search, {
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
            const direct = await fs.readdir(osPath(search.root.real)).then((names) => names.length, () => 0);
            if (direct > searchConfig.maxTotalEntries) flat = direct;
        }
        return printSearch(args, search, outcome, { ...searchConfig, maxFileSize: fileConfig.maxFileSize, maxCharsPerCall: fileConfig.maxCharsPerCall }, flat);
    }
}
