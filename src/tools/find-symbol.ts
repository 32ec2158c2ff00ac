import { quotePath } from '../print/shared/display.js';
import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import type { WorkspaceView } from '../access/workspace.js';
import { candidateFiles, cutNote, lateNote, type Candidates } from '../symbols/candidates.js';
import { nameQuery } from '../symbols/names.js';
import { formatDefinition } from '../symbols/outline.js';
import { parseFiles } from '../symbols/parse.js';
import { findInTable } from '../symbols/table-find.js';
import { SYMBOL_KINDS, type Definition } from '../symbols/shared/types.js';
import { ok, type ToolCall } from './base.js';
import { NavigationTool } from './navigation-tool.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { rootsOf } from './shared.js';

/** Files that mention the name parsed at most by one call. */
export const MAX_CANDIDATE_FILES = 2000;

const globs = arg.globs;
const TABLE_TIMEOUT_NOTE = "\n[The search timed out: these are the definitions of the names looked at so far; narrow the regex, path or kind.]";

const schema = z.strictObject({
    name: z.string().min(1).describe('Exact name, a name path ("Class/method", "ns::name"), or with regex: true a regex matched against names'),
    kind: z.enum(SYMBOL_KINDS).optional().describe(`Only definitions of this kind: ${SYMBOL_KINDS.join(', ')}`),
    path: arg.path('Directory (or file) to search; default "."').optional(),
    include: globs('Globs of files to search, as in search_entries (default: the supported languages)'),
    exclude: globs('Globs of files and directories to leave out, as in search_entries'),
    regex: z.boolean().optional().describe('name is a JavaScript regex (default false)'),
    max_results: arg.count('Definitions listed at most (default 100)').optional(),
});

const declaration = declareTool({
    name: 'find_symbol',
    title: 'Find definitions',
    description:
        'Finds where a name is defined (function, method, class, struct, type, macro, ...) in source files under a directory, one per line: ' +
        '"path:line: kind container.name — signature". Syntactic (tree-sitter, no type resolution). Read one with read_symbol.',
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/** `find_symbol`: definitions by name, from the files a content search finds mentioning it. */
export class FindSymbolTool extends NavigationTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        const query = nameQuery(args.name, args.regex === true, this.name);
        const { fileConfig, searchConfig } = this.ctx;
        const engine = await this.ctx.engine();
        const realRoots = await rootsOf(view);
        const started = Date.now();
        // The whole call, table, search and parses, ends at the search timeout with what it found.
        const deadline = started + searchConfig.timeoutMs;
        const max = args.max_results ?? 100;
        const wanted = (d: Definition): boolean => query.matches(d) && (args.kind === undefined || d.kind === args.kind);
        // From the index's symbol table when it can answer. When it finds nothing, the content
        // search alone says how many files mention the name: parsing them (seconds for a common
        // word) would find what the table found, since it holds what a parse of each file finds.
        const fromTable = await findInTable(view, engine, query, {
            tool: this.name,
            path: args.path,
            include: args.include,
            exclude: args.exclude,
            realRoots,
            maxFileSize: fileConfig.maxFileSize,
            parseMs: searchConfig.timeoutMs,
            signal: call.signal,
            deadline,
            wanted,
            shown: max,
        });
        if (fromTable !== null) {
            const listed = listDefinitions(fromTable.files, wanted, max);
            // Stopped by the time limit: what was found so far and a note as the search's (a scan now would stop too).
            const note = (fromTable.stopped ? TABLE_TIMEOUT_NOTE : '') + lateNote(fromTable.late, 'definitions');
            if (listed.total > 0) return ok(listDefinitionsText(listed, fromTable.skipped) + note);
            if (fromTable.stopped) return ok(`No definitions of ${JSON.stringify(args.name)}${args.kind ? ` (kind ${args.kind})` : ''} found in the names looked at before the time limit.${note}`);
        }
        const candidates = await candidateFiles(view, engine, {
            tool: this.name,
            path: args.path,
            contentPattern: query.contentPattern,
            include: args.include,
            exclude: args.exclude,
            maxFiles: MAX_CANDIDATE_FILES,
            maxFileSize: fileConfig.maxFileSize,
            maxTotalEntries: searchConfig.maxTotalEntries,
            timeoutMs: Math.max(1, deadline - Date.now()),
            realRoots,
            signal: call.signal,
        });
        if (fromTable !== null) return ok(noDefinitions(args, candidates, fromTable.skipped) + lateNote(fromTable.late, 'definitions'));
        const parsed = await parseFiles(engine, candidates.files, {
            realRoots,
            maxBytes: fileConfig.maxFileSize,
            parseMs: searchConfig.timeoutMs,
            deadline,
            ...(call.signal && { signal: call.signal }),
        });
        const skipped: string[] = [];
        let late = 0;
        const files: { shown: string; definitions: readonly Definition[] }[] = [];
        parsed.forEach((r, i) => {
            const shown = candidates.files[i]!.shown;
            if (r.ok) files.push({ shown, definitions: r.definitions });
            else if (r.late) late++;
            else if (r.kind === 'timeout') skipped.push(shown);
        });
        const listed = listDefinitions(files, wanted, max);
        const notes = cutNote(candidates, MAX_CANDIDATE_FILES) + lateNote(late, 'definitions');
        return ok(listed.total > 0 ? listDefinitionsText(listed, skipped) + notes : noDefinitions(args, candidates, skipped) + lateNote(late, 'definitions'));
    }
}

/** The answer when no definition was found: how many source files mention the name, and the notes. */
function noDefinitions(args: { name: string; kind?: string | undefined }, candidates: Candidates, skipped: readonly string[]): string {
    const n = candidates.files.length;
    const files = `${n} source ${n === 1 ? 'file' : 'files'}`;
    // A count from a search that stopped early is a lower bound, not the number of files that mention the name.
    const mentions = candidates.stop === 'done' ? `${files} ${n === 1 ? 'mentions' : 'mention'} it, in any case` : `${files} found mentioning it before the search stopped`;
    return (
        `No definitions of ${JSON.stringify(args.name)}${args.kind ? ` (kind ${args.kind})` : ''} found in ${candidates.display} (${mentions}).` +
        listDefinitionsText({ lines: [], total: 0 }, skipped) +
        cutNote(candidates, MAX_CANDIDATE_FILES)
    );
}

/** The wanted definitions of `files` as printed lines, at most `max`, and how many there are. */
function listDefinitions(files: readonly { shown: string; definitions: readonly Definition[] }[], wanted: (d: Definition) => boolean, max: number): { lines: string[]; total: number } {
    const lines: string[] = [];
    let total = 0;
    for (const f of files) {
        for (const d of f.definitions) {
            if (!wanted(d)) continue;
            total++;
            // As search results show paths: a name with a control character or a byte that is not UTF-8 quoted.
            if (lines.length < max) lines.push(formatDefinition(quotePath(f.shown), d));
        }
    }
    return { lines, total };
}

/** The lines, then the notes: definitions not shown, files not parsed in time. */
function listDefinitionsText(listed: { lines: string[]; total: number }, skipped: readonly string[]): string {
    let out = listed.lines.join('\n');
    if (listed.total > listed.lines.length) out += `\n[${listed.total - listed.lines.length} more definitions not shown: raise max_results, or narrow path, kind or the name path.]`;
    if (skipped.length > 0) out += `\n[Not parsed within the time limit: ${skipped.slice(0, 10).map(quotePath).join(', ')}${skipped.length > 10 ? ', …' : ''}]`;
    return out;
}
