import fs from 'node:fs/promises';
import type { Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckedPath } from './shared/checked-path.js';
import { accessFor, allows, isInside } from './shared/contain.js';
import { foreignSpelling } from './shared/spelling.js';
import { entryExists, matchNormalization, realPathOf } from './resolve.js';
import { AccessType, DirectoryConfiguration, type Access } from '../config/shared/configuration.js';
import { errors, ToolError } from '../errors/shared/errors.js';
import { quotePath } from '../print/shared/display.js';
import { osPath } from '../print/shared/byte-names.js';

export type { CheckedPath } from './shared/checked-path.js';

/** Plain options accepted by `new Workspace({...})`, as an alternative to a DirectoryConfiguration. */
export interface WorkspaceOptions {
    accesses: Access[];
    skipDirs?: string[];
    resolveSymlinks?: boolean;
    workspacePath?: string;
}

/**
 * An immutable snapshot of a workspace: a tool call takes one at its start and resolves and
 * checks all its paths against it, so a concurrent `switch_workspace` never changes what an
 * in-flight call may touch.
 */
export class WorkspaceView {
    constructor(
        /** Current workspace directory, absolute. */
        readonly root: string,
        readonly accesses: readonly Access[],
        readonly skipDirs: readonly string[],
        readonly resolveSymlinks: boolean,
        /** Told of every path granted write access, before the call acts on it. */
        readonly onWrite?: (checked: CheckedPath) => void,
    ) {}

    /**
     * Absolute path for `input`: relative paths against the workspace root, absolute ones as is,
     * a leading `~/` (or `~` alone) against the home directory (`os.homedir()`).
     * @throws ToolError (invalid_argument) for empty strings and NUL bytes.
     */
    resolve(input: string, tool: string, param = 'path'): string {
        if (typeof input !== 'string' || input.length === 0) {
            throw errors.invalidArgument(tool, `${param} must be a non-empty path; use "." for the workspace root.`);
        }
        // Security: a NUL byte would truncate the path inside the operating system.
        if (input.includes('\0')) throw errors.invalidArgument(tool, `${param} contains a NUL byte; pass a path without NUL characters.`);
        // A leading "~/" (or "~" alone) is the home directory, as in a shell; access control then
        // applies as to any absolute path. A file or directory named "~" is "./~".
        if (input === '~' || input.startsWith('~/')) return path.join(os.homedir(), input.slice(1));
        return path.resolve(this.root, input);
    }

    /**
     * {@link resolve}, then: a foreign spelling (shared/spelling.ts: Windows separators, a
     * `file:` URI, a path in quotes) is translated or refused, unless an entry of that literal
     * name exists (so a write never makes one silently; `./name` is always literal); and a name
     * in another Unicode normalization than the one on disk finds that one entry.
     * @throws ToolError (invalid_argument) for a refused spelling or an ambiguous normalization.
     */
    async locate(input: string, tool: string, param = 'path'): Promise<string> {
        const literal = this.resolve(input, tool, param);
        const foreign = foreignSpelling(input);
        if (foreign === null || (await entryExists(literal))) return matchNormalization(literal, tool);
        if (foreign.path === undefined) {
            throw errors.invalidArgument(tool, `${param} ${quotePath(input)} is ${foreign.what}: ${foreign.fix}. A name that holds these characters is written "./${input}".`);
        }
        return matchNormalization(this.resolve(foreign.path, tool, param), tool);
    }

    /** Listing form of an absolute path: relative (with `/`) inside the workspace, else absolute. */
    display(abs: string): string {
        if (!isInside(abs, this.root)) return abs;
        const rel = path.relative(this.root, abs);
        return rel === '' ? '.' : rel.split(path.sep).join('/');
    }

    /**
     * Resolves `input` and checks it allows `needed` access.
     * `followFinal: false` checks the entry itself rather than what a final symlink points to
     * (delete, move, entry_info act on the link).
     * @throws ToolError (outside_access, not_writable, invalid_argument)
     */
    async check(input: string, needed: AccessType, tool: string, opts: { followFinal?: boolean; param?: string } = {}): Promise<CheckedPath> {
        return this.#checkAt(input, await this.locate(input, tool, opts.param), needed, tool, opts);
    }

    /**
     * {@link check}, with the stat of what the path leads to (links followed, as its real path
     * resolves them) taken while the check resolves that real path. Perf: one wait for the thread
     * pool before a search rather than two. The stat is looked at only once the check has passed:
     * a failed check throws as {@link check} does, a failed stat is returned as its error.
     * @throws ToolError as {@link check}
     */
    async checkStat(input: string, needed: AccessType, tool: string): Promise<{ checked: CheckedPath; stat: Stats | Error }> {
        const abs = await this.locate(input, tool);
        const stat = fs.stat(osPath(abs)).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
        const checked = await this.#checkAt(input, abs, needed, tool, {});
        return { checked, stat: await stat };
    }

    async #checkAt(input: string, abs: string, needed: AccessType, tool: string, opts: { followFinal?: boolean }): Promise<CheckedPath> {
        const lexical = accessFor(abs, this.accesses);
        let real = abs;
        let granted = lexical;
        if (this.resolveSymlinks) {
            // Security: decide on the real path, so a symlink inside an access pointing outside grants nothing.
            // Perf: the path and the roots are resolved at once (a call's first check waits for both).
            const [resolved, roots] = await Promise.all([realPathOf(abs, opts.followFinal ?? true), this.realAccesses()]);
            real = resolved;
            granted = accessFor(real, roots);
        }
        if (!allows(granted, needed)) {
            if (granted === AccessType.Read || (lexical === AccessType.Read && needed === AccessType.Write)) {
                throw errors.notWritable(abs);
            }
            throw errors.outsideAccess(abs, needed === AccessType.Write ? 'write' : 'read', await this.hint(input));
        }
        const checked = { abs, real, display: this.display(abs), access: granted! };
        if (needed === AccessType.Write) this.onWrite?.(checked);
        return checked;
    }

    #realAccesses: Promise<readonly Access[]> | undefined;

    /**
     * Access roots with their own symlinks resolved (a root may itself sit behind a link).
     * Resolved once per view: every check and re-check of one call uses the same roots.
     */
    realAccesses(): Promise<readonly Access[]> {
        // A call checks several paths and re-checks opened files against these roots: one realpath per
        // root per call rather than per use (a move checks them several times).
        return (this.#realAccesses ??= Promise.all(this.accesses.map(async (a) => ({ type: a.type, path: await realPathOf(a.path) }))));
    }

    /**
     * True when `entry` is a configured access root (as written or resolved), the current
     * workspace, or a directory holding one of them: what delete and move must never take away.
     */
    async holdsRoot(entry: CheckedPath): Promise<boolean> {
        const roots = [...(await this.realAccesses()).map((a) => a.path), ...this.accesses.map((a) => a.path), this.root];
        return roots.some((root) => isInside(root, entry.real) || isInside(root, entry.abs));
    }

    /**
     * The hint for an absolute path outside every access, given only when it can help: the same
     * path taken relative to the workspace exists, or its first directory does not exist at the
     * filesystem root (so it was likely meant relative). `~/` paths get none: they mean the home directory.
     */
    private async hint(input: string): Promise<string> {
        if (!path.isAbsolute(input) || input.startsWith(this.root)) return '';
        const asRelative = '.' + input;
        const first = input.split('/').find((part) => part !== '');
        const exists = (p: string): Promise<boolean> => fs.lstat(p).then(() => true, () => false);
        const helps = (await exists(path.join(this.root, input))) || (first !== undefined && !(await exists(path.join('/', first))));
        return helps ? ` Absolute paths start at the filesystem root, not the workspace: use "." for the workspace root or a relative path such as "${asRelative}".` : '';
    }
}

/**
 * The current workspace and the configured accesses. Reads are allowed inside read or write
 * accesses, writes only inside write accesses. See {@link WorkspaceView} for the checks.
 */
export class Workspace {
    #configuration: DirectoryConfiguration;
    #current: string;

    /**
     * @param config - A DirectoryConfiguration, or plain options `{ accesses, skipDirs?, resolveSymlinks?, workspacePath? }`.
     * @throws Error when the configuration is invalid or the workspace is outside every access.
     */
    constructor(config: DirectoryConfiguration | WorkspaceOptions = new DirectoryConfiguration()) {
        this.#configuration = Workspace.#checked(config);
        this.#current = this.#configuration.workspacePath;
    }

    static #checked(config: DirectoryConfiguration | WorkspaceOptions): DirectoryConfiguration {
        const c =
            config instanceof DirectoryConfiguration
                ? config
                : new DirectoryConfiguration(config.accesses, config.skipDirs, config.resolveSymlinks, config.workspacePath);
        if (accessFor(c.workspacePath, c.accesses) === undefined) {
            throw new Error(`Invalid workspacePath: ${c.workspacePath} is not inside any configured access.`);
        }
        return c;
    }

    /** The directory configuration in force (accesses, skipped directories, symlink policy). */
    get configuration(): DirectoryConfiguration {
        return this.#configuration;
    }

    /**
     * Replaces the accesses and the workspace with `config`'s (used by the MCP server when it
     * takes the client's roots as accesses). Calls already running keep the view they started
     * with; the next call sees the new accesses only.
     * @throws Error when the configuration is invalid or its workspace is outside every access.
     */
    reconfigure(config: DirectoryConfiguration | WorkspaceOptions): void {
        const c = Workspace.#checked(config);
        this.#configuration = c;
        this.#current = c.workspacePath;
    }

    /** The current workspace directory (absolute). */
    get path(): string {
        return this.#current;
    }

    /** Configured accesses, absolute paths. */
    get accesses(): readonly Access[] {
        return this.configuration.accesses;
    }

    /** A consistent snapshot for one tool call; `onWrite` is told of every path it grants write access. */
    view(onWrite?: (checked: CheckedPath) => void): WorkspaceView {
        const c = this.#configuration;
        return new WorkspaceView(this.#current, c.accesses, c.skipDirs, c.resolveSymlinks, onWrite);
    }

    /**
     * Makes `target` (relative to the current workspace, or absolute) the workspace.
     * @returns the new workspace path.
     * @throws ToolError when it is not an accessible directory.
     */
    async switchTo(target: string, tool = 'switch_workspace'): Promise<string> {
        const checked = await this.view().check(target, AccessType.Read, tool);
        let stat;
        try {
            stat = await fs.stat(checked.real);
        } catch (err) {
            throw errors.notFound('Directory', err instanceof Error ? err.message : String(err));
        }
        if (!stat.isDirectory()) throw errors.wrongType(checked.abs, 'directory', 'file');
        this.#current = checked.abs;
        return checked.abs;
    }
}

export { ToolError };
