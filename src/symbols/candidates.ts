import fs from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceView } from '../access/workspace.js';
import { AccessType } from '../config/shared/configuration.js';
import { errors } from '../errors/shared/errors.js';
import type { Engine } from '../engine/engine.js';
import { childPrefix } from '../print/shared/display.js';
import { prepareSearch } from '../search/prepare.js';
import type { SearchStop } from '../search/shared/types.js';
import { languageOf, SOURCE_GLOBS } from './shared/languages.js';
import { osPath } from '../print/shared/byte-names.js';

/** The files a navigation call parses: those of a supported language that mention the name. */
export interface Candidates {
    /** `shown` as search results show paths, `real` for the pool. */
    files: { shown: string; real: string }[];
    /** Why the search for them stopped early, if it did (`done` otherwise). */
    stop: SearchStop;
    /** The searched directory as results show it. */
    display: string;
}

export interface CandidateRequest {
    tool: string;
    path: string | undefined;
    /** Files must hold a line matching it; `undefined`: every source file. */
    contentPattern: string | undefined;
    include: string | string[] | undefined;
    exclude: string | string[] | undefined;
    maxFiles: number;
    maxFileSize: number;
    maxTotalEntries: number;
    timeoutMs: number;
    realRoots: readonly { path: string }[] | null;
    signal: AbortSignal | undefined;
}


/**
 * Candidate files by a content search on the engine (the index answers it when it is on): files
 * of a supported language under the directory that hold a line matching `contentPattern`.
 */
export async function candidateFiles(view: WorkspaceView, engine: Engine, req: CandidateRequest): Promise<Candidates> {
    const checked = await view.check(req.path ?? '.', AccessType.Read, req.tool);
    const st = await fs.stat(osPath(checked.real)).catch((err: unknown) => {
        throw errors.statFailed('Path', err, checked.real, checked.abs);
    });
    if (!st.isDirectory()) {
        // One file: it is its own candidate.
        return { files: languageOf(checked.real) ? [{ shown: checked.display, real: checked.real }] : [], stop: 'done', display: checked.display };
    }
    const roots = (req.realRoots ?? view.accesses).map((a) => a.path);
    const search = await prepareSearch(
        {
            root: { real: checked.real, display: checked.display, realRoots: req.realRoots === null ? null : roots, bounds: roots },
            type: 'file',
            ...(req.contentPattern !== undefined && { contentPattern: req.contentPattern, outputMode: 'files_with_matches' as const }),
            include: req.include ?? [...SOURCE_GLOBS],
            ...(req.exclude !== undefined && { exclude: req.exclude }),
            maxResults: req.maxFiles,
            maxFileSize: req.maxFileSize,
            maxTotalEntries: req.maxTotalEntries,
            skipDirs: view.skipDirs,
        },
        req.tool,
    );
    const outcome = await engine.search(search, { timeoutMs: req.timeoutMs, ...(req.signal && { signal: req.signal }) });
    const prefix = childPrefix(checked.display);
    const files = outcome.hits
        .filter((h) => h.kind === 'file' && languageOf(h.path) !== undefined)
        .map((h) => ({ shown: h.path, real: path.join(checked.real, h.path.startsWith(prefix) ? h.path.slice(prefix.length) : h.path) }));
    return { files, stop: outcome.stop, display: checked.display };
}

/** A line saying why the candidates are not all the files, or `''`. */
export function cutNote(c: Candidates, maxFiles: number): string {
    if (c.stop === 'done') return '';
    if (c.stop === 'max_results') return `\n[Only the first ${maxFiles} files that mention the name were parsed: narrow path or include.]`;
    if (c.stop === 'timeout') return '\n[The search timed out: these are the files searched so far; narrow path or include.]';
    if (c.stop === 'too_many_entries') return '\n[The search for files stopped at the walk limit (maxTotalEntries): narrow path or include, or raise LLM_CHAT_FS_MAX_TOTAL_ENTRIES.]';
    return `\n[The search stopped early (${c.stop}): narrow path or include.]`;
}

/** A line saying how many files the call's time ran out before, or `''`. */
export function lateNote(late: number, found: 'definitions' | 'references'): string {
    if (late === 0) return '';
    return `\n[The search timed out before ${late} source ${late === 1 ? 'file was' : 'files were'} parsed: these are the ${found} found so far; narrow path or include.]`;
}
