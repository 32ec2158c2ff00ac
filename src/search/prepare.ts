import { errors } from '../errors/shared/errors.js';
import { needsStat } from './shared/entry-policy.js';
import { ancestorIgnores, compileGlobs, globList } from './shared/filters.js';
import type { PreparedSearch } from './shared/protocol.js';
import { globHint } from './glob-hint.js';
import { compilePattern, escapeRegex, inlineFlagsHint, type PatternSpec } from './regex.js';
import type { SearchRequest, SearchRoot } from './shared/types.js';

/**
 * The one entry point of a search into the engine: checks a {@link SearchRequest}, compiles its
 * patterns and globs once, reads once what the walk needs from above its root (the `.gitignore`
 * files up to the repository top) and returns the {@link PreparedSearch} every worker task of
 * the call gets unchanged.
 */

/**
 * The longest pattern (`namePattern`, `contentPattern`, as the regex searched) and glob list
 * (`include`, `exclude`, all globs together) a search takes, in characters. A long line of code
 * or an alternation of a few hundred identifiers fits; anything longer is pasted content, whose
 * analysis, compilation in every worker and echo in the output cost time and memory that grow
 * with it (a 1 MB pattern: 12.6 s, 751 MB in the MCP server).
 */
export const MAX_PATTERN_LENGTH = 4096;

/** Serial of the last preparation (see {@link PreparedSearch.id}). */
let serial = 0;

/** The tool parameter an option of {@link SearchRequest} is (its snake_case form): `contentPattern` -> `content_pattern`. */
export function paramOf(option: keyof SearchRequest): string {
    return option.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * Checks and compiles `req` (see the file comment).
 * @param tool - the tool named in error messages.
 * @throws ToolError (invalid_argument) naming the tool parameter: an invalid pattern (with how to
 *   escape it), a pattern or glob list above {@link MAX_PATTERN_LENGTH}, an invalid glob, `contextLines` or output mode `count` without `contentPattern`.
 *   Errors of `req.root` when it is a function (the access check) pass through.
 */
export async function prepareSearch(req: SearchRequest, tool = 'search_entries'): Promise<PreparedSearch> {
    const namePattern = patternOf(req, 'namePattern', tool);
    const contentPattern = patternOf(req, 'contentPattern', tool);
    const include = globsOf(req, 'include', tool);
    const exclude = globsOf(req, 'exclude', tool);
    const outputMode = req.outputMode ?? 'content';
    if (req.contentPattern === undefined && (req.contextLines ?? 0) > 0) {
        throw errors.invalidArgument(tool, `${paramOf('contextLines')} shows lines around content matches: set ${paramOf('contentPattern')} too, or leave ${paramOf('contextLines')} out.`);
    }
    if (req.contentPattern === undefined && req.maxMatchesPerFile !== undefined) {
        throw errors.invalidArgument(tool, `${paramOf('maxMatchesPerFile')} caps the matching lines shown per file: set ${paramOf('contentPattern')} too, or leave ${paramOf('maxMatchesPerFile')} out.`);
    }
    if (req.contentPattern === undefined && outputMode === 'count') {
        throw errors.invalidArgument(tool, `${paramOf('outputMode')} "count" counts matching lines per file: set ${paramOf('contentPattern')} too, or use the default ${paramOf('outputMode')}.`);
    }
    const root = typeof req.root === 'function' ? await req.root() : req.root;
    const respectGitignore = req.respectGitignore === true;
    const display = root.display;
    // Options the workers take as they are pass through under their names; the rest is compiled, defaulted or resolved here.
    const { root: _root, namePattern: _name, contentPattern: _content, include: _include, exclude: _exclude, outputMode: _mode, contextLines, respectGitignore: _ignore, ...plain } = req;
    return {
        ...plain,
        id: ++serial,
        root,
        ...(namePattern !== undefined && { namePattern }),
        ...(contentPattern !== undefined && { contentPattern }),
        skipDirs: [...req.skipDirs],
        outputMode,
        contextLines: outputMode === 'content' ? (contextLines ?? 0) : 0,
        ...(include !== undefined && { include }),
        ...(exclude !== undefined && { exclude }),
        respectGitignore,
        gitignoreAbove: respectGitignore ? await ancestorIgnores(root.real, root.bounds.map((path) => ({ path }))) : [],
        needTimes: needsStat(req),
        relStart: display === '.' ? 0 : display.endsWith('/') ? display.length : display.length + 1,
    };
}

/** A pattern option compiled. @throws ToolError naming the parameter, saying how to escape it and that `literal: true` searches the text as written. */
function patternOf(req: SearchRequest, option: 'namePattern' | 'contentPattern', tool: string): PatternSpec | undefined {
    const pattern = req[option];
    if (pattern === undefined) return undefined;
    checkLength(option, pattern.length, tool);
    try {
        // One normal form (shared/normal-form.ts): names and lines are tested in NFC too.
        return compilePattern(pattern.normalize('NFC'));
    } catch (err) {
        throw errors.invalidArgument(
            tool,
            `${paramOf(option)} is not a valid JavaScript regular expression: ${err instanceof Error ? err.message : String(err)}. ` +
                withSpace(inlineFlagsHint(pattern, true, 'i')) +
                withSpace(globHint(option === 'namePattern' ? 'name_pattern' : 'content_pattern', pattern, false)) +
                `To search for the text as written, set literal: true, or escape the special characters with a backslash: ${JSON.stringify(escapeRegex(pattern))}.`,
        );
    }
}

const withSpace = (sentence: string): string => (sentence === '' ? '' : `${sentence} `);

/** A glob option as a checked list (`undefined`: no filter). @throws ToolError naming the parameter and the glob. */
function globsOf(req: SearchRequest, option: 'include' | 'exclude', tool: string): string[] | undefined {
    const list = globList(req[option]);
    if (list === undefined) return undefined;
    checkLength(option, list.reduce((n, glob) => n + glob.length, 0), tool);
    try {
        compileGlobs(list);
    } catch (err) {
        throw errors.invalidArgument(tool, `${paramOf(option)}: ${err instanceof Error ? err.message : String(err)}.`);
    }
    return list.map((glob) => glob.normalize('NFC'));
}

/** @throws ToolError naming the parameter when `length` is above {@link MAX_PATTERN_LENGTH} (the text itself is not echoed). */
function checkLength(option: 'namePattern' | 'contentPattern' | 'include' | 'exclude', length: number, tool: string): void {
    if (length <= MAX_PATTERN_LENGTH) return;
    const n = (v: number): string => v.toLocaleString('en-US');
    throw errors.invalidArgument(
        tool,
        `${paramOf(option)} is ${n(length)} characters long, above the limit of ${n(MAX_PATTERN_LENGTH)}` +
            `${option === 'include' || option === 'exclude' ? ' for all its globs together' : ''}. Search for a shorter, distinctive part (one line, an identifier).`,
    );
}

/** `req` prepared by {@link prepareSearch}, or as it is when it already is a prepared search. */
export function asPrepared(req: SearchRequest | PreparedSearch): Promise<PreparedSearch> {
    return 'id' in req ? Promise.resolve(req) : prepareSearch(req);
}

/**
 * A {@link SearchRoot} for a directory given by its real path (scripts, benchmarks, tests):
 * shown as `display`, symlinks followed only inside `realRoots` (`null`: freely), nothing read
 * outside `realRoots` (or, when `null`, outside the directory itself).
 */
export function searchRootAt(real: string, realRoots: readonly string[] | null = null, display = '.'): SearchRoot {
    return { real, display, realRoots, bounds: realRoots ?? [real] };
}
