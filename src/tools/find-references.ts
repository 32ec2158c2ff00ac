import { quotePath } from '../print/shared/display.js';
import fs from 'node:fs/promises';
import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import type { WorkspaceView } from '../access/workspace.js';
import { candidateFiles, cutNote, lateNote } from '../symbols/candidates.js';
import { dotted, nameQuery } from '../symbols/names.js';
import { parseFiles, type ParseOptions } from '../symbols/parse.js';
import { withCheckpoints } from '../symbols/table-points.js';
import { referencesIn } from '../symbols/table-references.js';
import { AccessType } from '../config/shared/configuration.js';
import { errors, ToolError } from '../errors/shared/errors.js';
import type { TaskRunner } from '../search/task-runner.js';
import type { Definition } from '../symbols/shared/types.js';
import { ok, type ToolCall } from './base.js';
import { NavigationTool } from './navigation-tool.js';
import { declareTool } from './declaration.js';
import { MAX_CANDIDATE_FILES } from './find-symbol.js';
import { arg } from './schema.js';
import { rootsOf } from './shared.js';

const globs = arg.globs;

const schema = z.strictObject({
    name: z.string().min(1).describe('The identifier'),
    path: arg.path('Directory (or file) to search; default "."').optional(),
    include: globs('Globs of files to search, as in search_entries (default: the supported languages)'),
    exclude: globs('Globs of files and directories to leave out, as in search_entries'),
    max_results: arg.count('References listed at most (default 200)').optional(),
    line: arg.line('With path a file: a line of it where the name occurs').optional(),
});

const declaration = declareTool({
    name: 'find_references',
    title: 'Find references',
    description:
        'Finds where an identifier is used as an identifier (not in comments or strings) in source files under a directory, one per line: ' +
        '"path:line: [enclosing definition] code line". Syntactic: every identifier of that name counts, with no type resolution. ' +
        'With line, path is a file and the workspace is searched (only that file for a C static).',
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/**
 * The innermost definition whose lines hold `line`; of several with as few lines (`int one(void)
 * {…} int two(void) {…}` on one line), the one holding the use itself when the parse told it
 * (`within`, its index), else the later.
 */
function enclosing(definitions: readonly Definition[], line: number, within: number | undefined): Definition | undefined {
    let best: Definition | undefined;
    const holds = (d: Definition): boolean => d.line <= line && line <= d.endLine;
    for (const d of definitions) {
        if (holds(d) && (best === undefined || d.endLine - d.line <= best.endLine - best.line)) best = d;
    }
    const own = within === undefined ? undefined : definitions[within];
    return own !== undefined && best !== undefined && holds(own) && own.endLine - own.line === best.endLine - best.line ? own : best;
}

/**
 * What `line` points at: the file's definition of the name there (its own line, or the one it is
 * used in the scope of), and whether that definition is file-local (`static` in C and C++).
 */
async function definitionAt(view: WorkspaceView, engine: TaskRunner, args: { path?: string | undefined; line?: number | undefined; name: string }, word: string, opts: ParseOptions) {
    if (args.path === undefined) throw errors.invalidArgument('find_references', 'line needs path to name the file it is a line of.');
    const checked = await view.check(args.path, AccessType.Read, 'find_references');
    if ((await fs.stat(checked.real).catch(() => null))?.isDirectory()) {
        throw errors.invalidArgument('find_references', `with line, path names the file the line is in; ${checked.display} is a directory.`);
    }
    const [r] = await parseFiles(engine, [{ shown: checked.display, real: checked.real }], { ...opts, references: word });
    if (!r!.ok) throw new ToolError(r!.kind, r!.message);
    if (args.line !== undefined && args.line > r!.lines) {
        throw errors.invalidArgument('find_references', `line ${args.line} is past the end of ${checked.display} (${r!.lines} lines).`);
    }
    if (!r!.references!.some((ref) => ref.line === args.line)) {
        throw errors.invalidArgument('find_references', `${JSON.stringify(word)} is not an identifier on line ${args.line} of ${checked.display}.`);
    }
    // The definition on that line, else the file's own file-scope definition of the name.
    const own = r!.definitions.filter((d) => d.name === word);
    const definition = own.find((d) => d.line === args.line) ?? own.find((d) => d.container.length === 0);
    if (definition === undefined) return undefined;
    const before = definition.signature.slice(0, Math.max(0, definition.signature.indexOf(word)));
    const local = (r!.language === 'c' || r!.language === 'cpp') && definition.container.length === 0 && /\bstatic\b/.test(before);
    return { definition, local, shown: checked.display };
}

/** `find_references`: identifier nodes of one name in the files a content search finds mentioning it. */
export class FindReferencesTool extends NavigationTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        const query = nameQuery(args.name, false, this.name);
        const { fileConfig, searchConfig } = this.ctx;
        const engine = await this.ctx.engine();
        const realRoots = await rootsOf(view);
        // The whole call, search and parses, ends at the search timeout with what it found.
        const deadline = Date.now() + searchConfig.timeoutMs;
        const at = args.line === undefined ? undefined : await definitionAt(view, engine, args, query.word!, { realRoots, maxBytes: fileConfig.maxFileSize, parseMs: searchConfig.timeoutMs, deadline, ...(call.signal && { signal: call.signal }) });
        const candidates = await candidateFiles(view, engine, {
            tool: this.name,
            path: args.line === undefined || at?.local ? args.path : '.',
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
        // With the index's symbol table, a file it vouches for is parsed only around the name's occurrences, or a C file lexed.
        const { files, store } = await withCheckpoints(view, engine, args.line === undefined || at?.local ? args.path : '.', candidates.files, realRoots);
        const parsed = await referencesIn(engine, files, store, {
            realRoots,
            maxBytes: fileConfig.maxFileSize,
            parseMs: searchConfig.timeoutMs,
            deadline,
            references: query.word!,
            ...(call.signal && { signal: call.signal }),
        });
        const max = args.max_results ?? 200;
        const lines: string[] = [];
        let total = 0;
        let late = 0;
        const skipped: string[] = [];
        parsed.forEach((r, i) => {
            if (!r.ok) {
                if (r.late) late++;
                else if (r.kind === 'timeout') skipped.push(quotePath(candidates.files[i]!.shown));
                return;
            }
            const seen = new Set<number>();
            const shown = quotePath(candidates.files[i]!.shown);
            for (const [k, ref] of (r.references ?? []).entries()) {
                // One line per line, as a word search lists them: a second use on a line adds nothing to read.
                if (seen.has(ref.line)) continue;
                seen.add(ref.line);
                total++;
                if (lines.length >= max) continue;
                const d = enclosing(r.definitions, ref.line, r.within?.[k]);
                lines.push(`${shown}:${ref.line}: ${d ? `[${d.kind} ${dotted(d)}] ` : ''}${ref.text}`);
            }
        });
        let out = lines.length > 0 ? lines.join('\n') : `No references to ${JSON.stringify(args.name)} found in ${candidates.display}${candidates.display.endsWith('.') ? '' : '.'}`;
        if (total > lines.length) out += `\n[${total - lines.length} more references not shown: raise max_results, or narrow path or include.]`;
        if (skipped.length > 0) out += `\n[Not parsed within the time limit: ${skipped.slice(0, 10).join(', ')}${skipped.length > 10 ? ', …' : ''}]`;
        // A name path's containers cannot be checked without types: say that they were not, rather than drop them silently.
        if ((query.containers?.length ?? 0) > 0) out += `\n[References are syntactic: every identifier ${query.word} counts, whatever it belongs to; the container in ${JSON.stringify(args.name)} is not checked.]`;
        if (at?.local) out += `\n[${args.name} is file-local (static) at ${quotePath(at.shown)}:${at.definition.line}: only that file was searched.]`;
        return ok(out + cutNote(candidates, MAX_CANDIDATE_FILES) + lateNote(late, 'references'));
    }
}
