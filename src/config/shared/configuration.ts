import path from 'node:path';
import { checkPositiveInt, envBoolean, envList, envPositiveInt, envString } from './env.js';

/** The kind of access a configured directory grants. Write access includes read access. */
export enum AccessType {
    Read = 'read',
    Write = 'write',
}

/** One configured directory and the access it grants to everything inside it. */
export interface Access {
    type: AccessType;
    /** Directory path; relative paths are resolved against `process.cwd()` at construction. */
    path: string;
}

/** Directory names skipped by walks when neither an argument nor `LLM_CHAT_FS_SKIP_DIRS` says otherwise. */
export const DEFAULT_SKIP_DIRS: readonly string[] = ['.git', 'node_modules'];

function checkAccesses(accesses: readonly Access[]): Access[] {
    if (!Array.isArray(accesses)) throw new Error('Invalid accesses: expected an array of { type, path }.');
    return accesses.map((a, i) => {
        if (a === null || typeof a !== 'object') throw new Error(`Invalid accesses[${i}]: expected { type, path }.`);
        if (a.type !== AccessType.Read && a.type !== AccessType.Write) {
            throw new Error(`Invalid accesses[${i}].type: ${JSON.stringify(a.type)}; expected AccessType.Read or AccessType.Write.`);
        }
        if (typeof a.path !== 'string' || a.path.trim() === '' || a.path.includes('\0')) {
            throw new Error(`Invalid accesses[${i}].path: expected a non-empty directory path.`);
        }
        return { type: a.type, path: path.resolve(a.path) };
    });
}

/**
 * Which directories the tools may touch and how.
 *
 * `new DirectoryConfiguration()` reads `LLM_CHAT_FS_READ_DIRS`, `LLM_CHAT_FS_WRITE_DIRS` (comma
 * separated), `LLM_CHAT_FS_WORKSPACE` (added as writable), `LLM_CHAT_FS_SKIP_DIRS` and
 * `LLM_CHAT_FS_RESOLVE_SYMLINKS`. With no directory variable at all, the current directory is the
 * writable workspace (refused when it is the filesystem root); with only read/write directories,
 * the workspace is the first write directory, else the first read directory, and the current
 * directory gets no access. Explicit arguments beat the environment: when `accesses` is given,
 * no directory variable is read.
 *
 * @throws Error naming the option or variable when a value is invalid.
 */
export class DirectoryConfiguration {
    /** Configured directories, absolute, in the order given (workspace first for the environment form). */
    readonly accesses: readonly Access[];
    /** Directory names (not paths) that walks (search, recursive listing) skip. */
    readonly skipDirs: readonly string[];
    /**
     * `true` (default, secure): access is decided on real paths, so a symlink inside an access that
     * points outside grants nothing outside. `false`: decided on the paths as written, following
     * symlinks wherever they point (for users who link shared folders into a workspace knowingly).
     */
    readonly resolveSymlinks: boolean;
    /** The initial workspace (current directory for relative paths), absolute. */
    readonly workspacePath: string;

    /**
     * @param accesses - Directories and their access; default from the environment.
     * @param skipDirs - Directory names walks skip; default `LLM_CHAT_FS_SKIP_DIRS` or `.git,node_modules`.
     * @param resolveSymlinks - Decide access on real paths; default `LLM_CHAT_FS_RESOLVE_SYMLINKS` or `true`.
     * @param workspacePath - Initial workspace; default the first write access, else the first access.
     */
    constructor(accesses?: Access[], skipDirs?: string[], resolveSymlinks?: boolean, workspacePath?: string) {
        let list: Access[];
        let workspace: string | undefined = workspacePath === undefined ? undefined : path.resolve(workspacePath);
        if (accesses !== undefined) {
            list = checkAccesses(accesses);
        } else {
            const named = envString('LLM_CHAT_FS_WORKSPACE');
            const dirs = [
                ...(envList('LLM_CHAT_FS_WRITE_DIRS') ?? []).map((p) => ({ type: AccessType.Write, path: p })),
                ...(envList('LLM_CHAT_FS_READ_DIRS') ?? []).map((p) => ({ type: AccessType.Read, path: p })),
            ];
            // Security: the current directory becomes writable only when nothing else is configured,
            // so a server started in some directory with only read directories set gains no write access.
            const implicit = named === undefined && dirs.length === 0 ? process.cwd() : undefined;
            if (implicit !== undefined && path.parse(implicit).root === implicit) {
                throw new Error(
                    `Refusing to make the filesystem root (${implicit}) writable: no LLM_CHAT_FS_WORKSPACE, LLM_CHAT_FS_WRITE_DIRS or LLM_CHAT_FS_READ_DIRS is set and the current directory is the filesystem root. Set LLM_CHAT_FS_WORKSPACE (or the directory variables) to the directory the tools may use.`,
                );
            }
            const writable = named ?? implicit;
            list = checkAccesses(writable === undefined ? dirs : [{ type: AccessType.Write, path: writable }, ...dirs]);
            if (writable !== undefined) workspace ??= path.resolve(writable);
        }
        if (list.length === 0) throw new Error('Invalid accesses: at least one directory must be configured.');
        workspace ??= (list.find((a) => a.type === AccessType.Write) ?? list[0]!).path;
        if (skipDirs !== undefined && (!Array.isArray(skipDirs) || skipDirs.some((s) => typeof s !== 'string'))) {
            throw new Error('Invalid skipDirs: expected an array of directory names.');
        }
        this.accesses = dedupe(list);
        this.skipDirs = [...(skipDirs ?? envList('LLM_CHAT_FS_SKIP_DIRS') ?? DEFAULT_SKIP_DIRS)];
        this.resolveSymlinks = resolveSymlinks ?? envBoolean('LLM_CHAT_FS_RESOLVE_SYMLINKS', true);
        this.workspacePath = workspace;
    }
}

/** Keeps one entry per path, the strongest access winning, in first-seen order. */
function dedupe(list: Access[]): Access[] {
    const byPath = new Map<string, Access>();
    for (const a of list) {
        const seen = byPath.get(a.path);
        if (!seen) byPath.set(a.path, { ...a });
        else if (a.type === AccessType.Write) seen.type = AccessType.Write;
    }
    return [...byPath.values()];
}

/**
 * Search limits. Each argument beats its environment variable, which beats the default.
 *
 * @throws Error naming the option or variable when a value is not a positive whole number.
 */
export class SearchConfiguration {
    /** Max results a search returns when the call sets no `max_results` (`LLM_CHAT_FS_MAX_SEARCH_RESULTS`, 50). */
    readonly maxSearchResults: number;
    /** Above this many result lines, a count summary replaces the list (`LLM_CHAT_FS_MAX_DISPLAY_ENTRIES`, 200). */
    readonly maxDisplayEntries: number;
    /** Hard limit on entries a walk visits; above it the call errors (`LLM_CHAT_FS_MAX_TOTAL_ENTRIES`, 5000). */
    readonly maxTotalEntries: number;
    /** Total search time in milliseconds; partial results after it (`LLM_CHAT_FS_SEARCH_TIMEOUT`, 10000). */
    readonly timeoutMs: number;

    constructor(maxSearchResults?: number, maxDisplayEntries?: number, maxTotalEntries?: number, timeoutMs?: number) {
        this.maxSearchResults = pick('maxSearchResults', maxSearchResults, 'LLM_CHAT_FS_MAX_SEARCH_RESULTS', 50);
        this.maxDisplayEntries = pick('maxDisplayEntries', maxDisplayEntries, 'LLM_CHAT_FS_MAX_DISPLAY_ENTRIES', 200);
        this.maxTotalEntries = pick('maxTotalEntries', maxTotalEntries, 'LLM_CHAT_FS_MAX_TOTAL_ENTRIES', 5000);
        this.timeoutMs = pick('timeoutMs', timeoutMs, 'LLM_CHAT_FS_SEARCH_TIMEOUT', 10_000);
    }
}

/**
 * File read/write limits. Each argument beats its environment variable, which beats the default.
 *
 * @throws Error naming the option or variable when a value is invalid.
 */
export class FileConfiguration {
    /** Max characters passing between model and file per file: read output, written or inserted text (`LLM_CHAT_FS_MAX_CHARS_PER_FILE`, 10000). */
    readonly maxCharsPerFile: number;
    /** Max file size in bytes that reads, edits and content search open (`LLM_CHAT_FS_MAX_FILE_SIZE`, 10485760 = 10 MiB). */
    readonly maxFileSize: number;
    /** Edits need a prior read_file of the current content (`LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE`, true). */
    readonly requireReadBeforeWrite: boolean;
    /** How images are sent and which are refused (see {@link ImageLimits}). */
    readonly images: Readonly<ImageLimits>;
    /**
     * Max characters one tool call returns in all, notes and context lines included
     * (`LLM_CHAT_FS_MAX_CHARS_PER_CALL`, 100000): a bulk read, a search or a listing stops adding
     * files or hits before it and says what was left out and how to get it (src/print/budget.ts).
     */
    readonly maxCharsPerCall: number;

    /**
     * @param more - limits beyond the reference's: `maxCharsPerCall`, and `images` (each field
     *   beats its `LLM_CHAT_FS_IMAGE_*` variable, which beats the default).
     */
    constructor(maxCharsPerFile?: number, maxFileSize?: number, requireReadBeforeWrite?: boolean, more?: { maxCharsPerCall?: number; images?: Partial<ImageLimits> }) {
        this.maxCharsPerFile = pick('maxCharsPerFile', maxCharsPerFile, 'LLM_CHAT_FS_MAX_CHARS_PER_FILE', 10_000);
        this.maxFileSize = pick('maxFileSize', maxFileSize, 'LLM_CHAT_FS_MAX_FILE_SIZE', 10 * 1024 * 1024);
        if (requireReadBeforeWrite !== undefined && typeof requireReadBeforeWrite !== 'boolean') {
            throw new Error('Invalid requireReadBeforeWrite: expected true or false.');
        }
        this.requireReadBeforeWrite =
            requireReadBeforeWrite ?? envBoolean('LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE', true);
        // The default budget is the size Anthropic documents as sent without downscaling (long side
        // 1,568 px, about 1.15 MP); OpenAI's and Gemini's tiles fit it too.
        this.images = Object.freeze({
            maxSide: pick('images.maxSide', more?.images?.maxSide, 'LLM_CHAT_FS_IMAGE_MAX_SIDE', 1568),
            maxPixels: pick('images.maxPixels', more?.images?.maxPixels, 'LLM_CHAT_FS_IMAGE_MAX_PIXELS', 1_150_000),
            maxInputPixels: pick('images.maxInputPixels', more?.images?.maxInputPixels, 'LLM_CHAT_FS_IMAGE_MAX_INPUT_PIXELS', 50_000_000),
        });
        this.maxCharsPerCall = pick('maxCharsPerCall', more?.maxCharsPerCall, 'LLM_CHAT_FS_MAX_CHARS_PER_CALL', 100_000);
    }
}

/**
 * How `read_file` sends an image: downscaled (aspect kept) until its long side is at most
 * `maxSide` pixels and its area at most `maxPixels`; an image of more than `maxInputPixels`
 * (width × height as its header says) is refused before anything is decoded (decompression bombs).
 */
export interface ImageLimits {
    /** Longest side sent, in pixels (`LLM_CHAT_FS_IMAGE_MAX_SIDE`, 1568). */
    maxSide: number;
    /** Most pixels sent (`LLM_CHAT_FS_IMAGE_MAX_PIXELS`, 1150000). */
    maxPixels: number;
    /** Most pixels an image may have to be read at all (`LLM_CHAT_FS_IMAGE_MAX_INPUT_PIXELS`, 50000000). */
    maxInputPixels: number;
}

function pick(option: string, value: number | undefined, variable: string, fallback: number): number {
    return value === undefined ? envPositiveInt(variable, fallback) : checkPositiveInt(option, value);
}
