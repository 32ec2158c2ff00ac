import fs from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { isInside } from '../access/contain.js';
import type { IgnoreFrame } from './types.js';

/**
 * Path filters of `search_entries`: include/exclude globs (picomatch) and `.gitignore` rules
 * (the `ignore` package, which implements git's matching). Shared by the tool, which validates
 * the globs and reads the `.gitignore` files above the searched directory, and the workers,
 * which compile the filters once per task and apply them to each entry.
 */

/** A compiled glob list: does the entry (path relative to the searched directory, its name, is it a directory) match one? */
export type PathTest = (relPath: string, name: string, isDir: boolean) => boolean;

/** Largest `.gitignore` read, in bytes; a larger one is not applied. */
export const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * Glob matching, fixed for every search: case-insensitive like the search's regexes, `*` and
 * `**` match dot files, and unbalanced brackets, braces or parentheses are errors rather than
 * silently literal.
 */
const GLOB_OPTIONS: picomatch.PicomatchOptions = { dot: true, nocase: true, strictBrackets: true };

/**
 * Compiles globs with ripgrep/gitignore conventions: a glob without a `/` matches the entry's
 * name at any depth (`*.ts`); one with a `/` matches the whole path relative to the searched
 * directory (`src/**\/*.ts`); a leading `/` or `./` only anchors it there; a trailing `/`
 * makes it match directories only (`dist/`).
 * @throws Error naming the glob when one is empty or malformed.
 */
export function compileGlobs(globs: readonly string[]): PathTest {
    const byName: picomatch.Matcher[] = [];
    const byPath: picomatch.Matcher[] = [];
    const dirByName: picomatch.Matcher[] = [];
    const dirByPath: picomatch.Matcher[] = [];
    for (const glob of globs) {
        let g = glob;
        const dirOnly = g.endsWith('/');
        while (g.endsWith('/')) g = g.slice(0, -1);
        let anchored = false;
        if (g.startsWith('./')) {
            g = g.slice(2);
            anchored = true;
        } else if (g.startsWith('/')) {
            g = g.replace(/^\/+/, '');
            anchored = true;
        }
        if (g.length === 0) throw new Error(`"${glob}" matches no path; write a glob such as "*.ts", "src/**" or "dist/"`);
        let matcher: picomatch.Matcher;
        try {
            matcher = picomatch(g, GLOB_OPTIONS);
        } catch (err) {
            throw new Error(`"${glob}" is not a valid glob: ${err instanceof Error ? err.message : String(err)}`);
        }
        const onPath = anchored || g.includes('/');
        (dirOnly ? (onPath ? dirByPath : dirByName) : onPath ? byPath : byName).push(matcher);
    }
    const any = (list: picomatch.Matcher[], s: string): boolean => {
        for (const m of list) if (m(s)) return true;
        return false;
    };
    return (relPath, name, isDir) =>
        any(byName, name) || any(byPath, relPath) || (isDir && (any(dirByName, name) || any(dirByPath, relPath)));
}

/** `include`/`exclude` as given (one glob or a list) as a list; `undefined` and `[]` mean no filter. */
export function globList(value: string | readonly string[] | undefined): string[] | undefined {
    if (value === undefined) return undefined;
    const list = typeof value === 'string' ? [value] : [...value];
    return list.length > 0 ? list : undefined;
}

/**
 * `.gitignore` rules compiled once per worker and search: frames travel with each walk job as
 * text (functions do not cross threads), and the same text compiles once.
 */
export class IgnoreCache {
    readonly #compiled = new Map<string, Ignore>();

    /** The matcher for one `.gitignore` text. */
    get(rules: string): Ignore {
        let ig = this.#compiled.get(rules);
        if (ig === undefined) {
            // Git's semantics on Linux: case-sensitive (core.ignorecase false).
            ig = ignore({ ignorecase: false, allowRelativePaths: true }).add(rules);
            this.#compiled.set(rules, ig);
        }
        return ig;
    }

    /**
     * Is the entry at `relPath` (relative to the searched directory) ignored by `frames` (outermost
     * first)? Like git, the deepest `.gitignore` with a rule for the path decides, and within a
     * file the last matching rule does (`!` re-includes).
     */
    ignored(frames: readonly IgnoreFrame[], relPath: string, isDir: boolean): boolean {
        for (let i = frames.length - 1; i >= 0; i--) {
            const f = frames[i]!;
            const p = f.up + relPath.slice(f.base.length) + (isDir ? '/' : '');
            const r = this.get(f.rules).test(p);
            if (r.ignored) return true;
            if (r.unignored) return false;
        }
        return false;
    }
}

/**
 * The rule by which the searched directory itself is ignored by the `.gitignore` files above it
 * (`frames` from {@link ancestorIgnores}), and the index of the frame holding it; `null` when it is not.
 */
export function ignoredRoot(frames: readonly IgnoreFrame[], cache = new IgnoreCache()): { pattern: string; frame: number } | null {
    for (let i = frames.length - 1; i >= 0; i--) {
        const r = cache.get(frames[i]!.rules).test(frames[i]!.up);
        if (r.ignored) return { pattern: r.rule?.pattern ?? '', frame: i };
        if (r.unignored) return null;
    }
    return null;
}

/** Text of a `.gitignore` without a BOM; `null` when it is larger than {@link MAX_GITIGNORE_BYTES}. */
export function gitignoreText(bytes: Uint8Array): string | null {
    if (bytes.length > MAX_GITIGNORE_BYTES) return null;
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The `.gitignore` files of the directories above `root` that apply to it, outermost first:
 * those of its parents up to the repository top (the first parent holding `.git`), never above
 * the accessible directories.
 * @param root - real path of the searched directory.
 * @param roots - the access roots (real paths when symlinks are resolved).
 */
export async function ancestorIgnores(root: string, roots: readonly { path: string }[]): Promise<IgnoreFrame[]> {
    const frames: IgnoreFrame[] = [];
    if (await exists(path.join(root, '.git'))) return frames;
    let dir = root;
    let up = '';
    for (;;) {
        const parent = path.dirname(dir);
        // Security: no file outside the accessible directories is read, not even a .gitignore.
        if (parent === dir || !roots.some((r) => isInside(parent, r.path))) break;
        up = `${path.basename(dir)}/${up}`;
        const rules = await readGitignore(path.join(parent, '.gitignore'));
        if (rules !== null) frames.unshift({ base: '', up, rules });
        if (await exists(path.join(parent, '.git'))) break;
        dir = parent;
    }
    return frames;
}

async function exists(p: string): Promise<boolean> {
    return fs.lstat(p).then(
        () => true,
        () => false,
    );
}

/** A regular file's `.gitignore` text; `null` when missing, unreadable, too large or not a regular file. */
async function readGitignore(p: string): Promise<string | null> {
    let handle: fs.FileHandle | undefined;
    try {
        // Security: a .gitignore that is a link (possibly out of the accesses) or a FIFO is not opened.
        handle = await fs.open(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
        const st = await handle.stat();
        if (!st.isFile() || st.size > MAX_GITIGNORE_BYTES) return null;
        return gitignoreText(await handle.readFile());
    } catch {
        return null;
    } finally {
        await handle?.close();
    }
}
