import { quotePath } from '../print/shared/display.js';
import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import type { WorkspaceView } from '../access/workspace.js';
import { candidateFiles } from '../symbols/candidates.js';
import { countMentions, parseFiles } from '../symbols/parse.js';
import { buildRepoMap, type MappedFile } from '../symbols/repo-map.js';
import { ok, type ToolCall } from './base.js';
import { NavigationTool } from './navigation-tool.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { rootsOf } from './shared.js';

/** Source files one map reads at most. */
export const MAX_MAP_FILES = 2000;
/** The map's size when the call does not give one. */
const DEFAULT_MAX_CHARS = 8000;

const globs = arg.globs;

const schema = z.strictObject({
    path: arg.path('Directory to map; default "."').optional(),
    max_chars: z.number().int().min(500).max(200_000).optional().describe(`Size of the map in characters (default ${DEFAULT_MAX_CHARS})`),
    include: globs('Globs of files to map, as in search_entries (default: the supported languages)'),
    exclude: globs('Globs of files and directories to leave out'),
});

const declaration = declareTool({
    name: 'repo_map',
    title: 'Map of a directory',
    description:
        "A directory's most used definitions within a character budget: per file, its definitions ranked by how many other files " +
        'mention their name, as "first-last kind name — signature [N files]". Start here in an unknown codebase.',
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/** `repo_map`: the directory's source files parsed on the pool, definitions ranked by the files that mention them. */
export class RepoMapTool extends NavigationTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        const { fileConfig, searchConfig } = this.ctx;
        const engine = await this.ctx.engine();
        const realRoots = await rootsOf(view);
        // The walk and the parses end at the search timeout; the map covers what was parsed by then.
        const deadline = Date.now() + searchConfig.timeoutMs;
        const sources = await candidateFiles(view, engine, {
            tool: this.name,
            path: args.path,
            contentPattern: undefined,
            include: args.include,
            exclude: args.exclude,
            maxFiles: MAX_MAP_FILES,
            maxFileSize: fileConfig.maxFileSize,
            maxTotalEntries: searchConfig.maxTotalEntries,
            timeoutMs: searchConfig.timeoutMs,
            realRoots,
            signal: call.signal,
        });
        const signal = call.signal ? { signal: call.signal } : {};
        const parsed = await parseFiles(engine, sources.files, { realRoots, maxBytes: fileConfig.maxFileSize, parseMs: searchConfig.timeoutMs, deadline, ...signal });
        const names = [...new Set(parsed.flatMap((r) => (r.ok ? r.definitions.map((d) => d.name) : [])))];
        const mentions = names.length === 0 ? [] : await countMentions(engine, sources.files, names, { realRoots, maxBytes: fileConfig.maxFileSize, deadline, ...signal });
        const mapped: MappedFile[] = [];
        const skipped = { failed: 0, late: 0 };
        parsed.forEach((r, i) => {
            if (r.ok) mapped.push({ shown: quotePath(sources.files[i]!.shown), definitions: r.definitions, mentions: mentions[i] ?? null });
            else if (r.late) skipped.late++;
            else skipped.failed++;
        });
        const maxChars = args.max_chars ?? DEFAULT_MAX_CHARS;
        const total = mapped.reduce((n, f) => n + f.definitions.length, 0);
        if (total === 0) return ok(`No definitions found in ${sources.display} (${mapped.length} source ${mapped.length === 1 ? 'file' : 'files'} parsed).` + notes(sources.stop, skipped));
        // Files left unparsed are named in the head too, so its counts are not read as the directory's.
        const of = skipped.failed + skipped.late > 0 ? ` parsed (of ${sources.files.length})` : '';
        const head = (shown: number, files: number) =>
            `--- Map of ${sources.display}: ${shown} of ${total} definitions in ${files} of ${mapped.length} source files${of}, ranked by the other files that mention each name ---`;
        const cut = (left: number) => `\n[${left} more definitions not shown (max_chars ${maxChars}): raise max_chars, map a subdirectory, or use file_outline on one file.]`;
        const tail = notes(sources.stop, skipped);
        // The whole answer within max_chars: the head and notes at their longest, the map in what is left.
        const map = buildRepoMap(mapped, maxChars - head(total, mapped.length).length - cut(total).length - tail.length - 1);
        let out = `${head(map.shown, map.files)}\n${map.lines.join('\n')}`;
        if (map.shown < total) out += cut(total - map.shown);
        return ok(out + tail);
    }
}

function notes(stop: string, skipped: { failed: number; late: number }): string {
    let out = '';
    if (skipped.failed > 0) out += `\n[${skipped.failed} source files could not be parsed (binary, too large or over the time limit) and are left out.]`;
    if (skipped.late > 0) out += `\n[The time limit was reached before ${skipped.late} source ${skipped.late === 1 ? 'file was' : 'files were'} parsed: the map covers the files parsed so far; map a subdirectory.]`;
    if (stop === 'max_results') out += `\n[Only the first ${MAX_MAP_FILES} source files were read: map a subdirectory, or narrow include.]`;
    else if (stop === 'timeout') out += '\n[The walk for source files timed out: the map covers the files found so far; map a subdirectory.]';
    else if (stop !== 'done') out += `\n[The walk for source files stopped early (${stop}): map a subdirectory, or narrow include.]`;
    return out;
}
