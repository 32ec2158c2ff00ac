import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { READ_NOFOLLOW_FLAGS } from '../../fs/shared/held.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { isInside } from '../../access/shared/contain.js';
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
 * `s` with each UTF-8 byte as one character (U+0000-U+00FF). git matches `.gitignore` patterns
 * against a name's bytes: `?` and a bracket expression take one byte, so `?.log` does not ignore
 * `ü.log` (two bytes) and `[ü]` matches neither byte pair. The `ignore` package matches
 * characters; given both the rules and the paths in this form, it matches bytes as git does.
 * Checked against git on random trees of multi-byte names in test/property/gitignore-bytes.test.ts.
 */
function asBytes(s: string): string {
    // Perf: ASCII text is its own byte form; most rules and paths are ASCII.
    for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.from(s, 'utf8').toString('latin1');
    return s;
}

/** The text whose UTF-8 bytes {@link asBytes} gave. */
function fromBytes(s: string): string {
    return /[^\x00-\x7f]/.test(s) ? Buffer.from(s, 'latin1').toString('utf8') : s;
}

/** The `.gitignore` files of one directory chain as one matcher (see {@link IgnoreCache}); rules and paths in byte form ({@link asBytes}). */
interface ChainMatcher {
    ig: Ignore;
    /** The searched directory relative to the outermost `.gitignore`'s directory (`''` or `src/`), in byte form. */
    outerUp: string;
    /** Each rewritten rule's frame index and original line, to name the rule that ignores something. */
    origin: Map<string, { frame: number; pattern: string }>;
}

/** `dir` (`a/b/`) escaped for the start of a `.gitignore` pattern: glob characters, and a leading `#` or `!`. */
function escapePrefix(dir: string): string {
    const escaped = dir.replace(/[\\*?[\]]/g, '\\$&');
    return /^[#!]/.test(escaped) ? `\\${escaped}` : escaped;
}

/**
 * One `.gitignore` line of the directory `prefix` (relative to the outermost `.gitignore`'s
 * directory) rewritten to apply from there, as git reads it (gitignore(5)): a pattern with a `/`
 * at its start or middle is relative to its own directory (`prefix` + pattern); one without
 * matches at any depth below it (`prefix**\/` + pattern). Negation stays in front; comments and
 * blank lines are dropped.
 */
function rebase(line: string, prefix: string): string | null {
    if (line.trim() === '' || line.startsWith('#')) return null;
    if (prefix === '') return line;
    const neg = line.startsWith('!') ? '!' : '';
    const body = neg ? line.slice(1) : line;
    // Trailing unescaped spaces are not part of the pattern, nor is a trailing "/" for this test.
    const core = body.replace(/(?<!\\)\s+$/, '').replace(/\/$/, '');
    const anchored = core.includes('/');
    return `${neg}${escapePrefix(prefix)}${anchored ? body.replace(/^\//, '') : `**/${body}`}`;
}

/**
 * `.gitignore` rules compiled once per worker and search: frames travel with each walk job as
 * text (functions do not cross threads), and the same chain compiles once.
 *
 * The frames of one directory chain are merged into one `ignore` matcher, each file's rules
 * rewritten relative to the outermost file's directory (see {@link rebase}), outermost first. Git's
 * precedence follows: the last matching rule wins, and a deeper file's rules come later; a path
 * whose parent directory is excluded stays excluded. Testing each file's rules on its own would
 * let an outer `vendor/` exclude `a/vendor/f.txt` through its parent even after `a/.gitignore`
 * re-included `vendor/` (git includes it). Checked against `git check-ignore` in
 * test/unit/search/gitignore-git.test.ts.
 */
export class IgnoreCache {
    readonly #byText = new Map<string, ChainMatcher>();
    readonly #byFrames = new WeakMap<readonly IgnoreFrame[], ChainMatcher>();

    /** The matcher for a chain of frames (outermost first). */
    matcher(frames: readonly IgnoreFrame[]): ChainMatcher {
        let m = this.#byFrames.get(frames);
        if (m !== undefined) return m;
        const outerUp = frames.length > 0 ? frames[0]!.up : '';
        const lines: string[] = [];
        const origin = new Map<string, { frame: number; pattern: string }>();
        frames.forEach((f, i) => {
            // A frame above the searched directory sits `up` below the outermost one's; a nested frame at `base` below the searched one.
            const prefix = f.up !== '' ? outerUp.slice(0, outerUp.length - f.up.length) : outerUp + f.base;
            for (const raw of f.rules.split(/\r?\n/)) {
                const rebased = rebase(raw, prefix);
                if (rebased === null) continue;
                const line = asBytes(rebased);
                lines.push(line);
                origin.set(line.replace(/^!/, ''), { frame: i, pattern: raw.replace(/^!/, '').trim() });
            }
        });
        const key = lines.join('\n');
        m = this.#byText.get(key);
        if (m === undefined || m.outerUp !== asBytes(outerUp)) {
            // Git's semantics on Linux: case-sensitive (core.ignorecase false).
            m = { ig: ignore({ ignorecase: false, allowRelativePaths: true }).add(key), outerUp: asBytes(outerUp), origin };
            this.#byText.set(key, m);
        }
        this.#byFrames.set(frames, m);
        return m;
    }

    /** Is the entry at `relPath` (relative to the searched directory) ignored by `frames` (outermost first), as git decides? */
    ignored(frames: readonly IgnoreFrame[], relPath: string, isDir: boolean): boolean {
        const m = this.matcher(frames);
        return m.ig.test(m.outerUp + asBytes(relPath) + (isDir ? '/' : '')).ignored;
    }
}

/**
 * The rule by which the searched directory itself is ignored by the `.gitignore` files above it
 * (`frames` from {@link ancestorIgnores}), and the index of the frame holding it; `null` when it is not.
 */
export function ignoredRoot(frames: readonly IgnoreFrame[], cache = new IgnoreCache()): { pattern: string; frame: number } | null {
    if (frames.length === 0) return null;
    const m = cache.matcher(frames);
    const r = m.ig.test(m.outerUp);
    if (!r.ignored) return null;
    const from = r.rule === undefined ? undefined : m.origin.get(r.rule.pattern.replace(/^!/, ''));
    return from ?? { pattern: fromBytes(r.rule?.pattern ?? ''), frame: frames.length - 1 };
}

/** Text of a `.gitignore` without a BOM; `null` when it is larger than {@link MAX_GITIGNORE_BYTES}. */
export function gitignoreText(bytes: Uint8Array): string | null {
    if (bytes.length > MAX_GITIGNORE_BYTES) return null;
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The text of the `.gitignore` file at `file` (a real path), as walks and the search index read it:
 * a regular file of at most {@link MAX_GITIGNORE_BYTES} bytes, else `null` (also when it cannot be
 * read). Synchronous, for worker threads and the index's short host steps.
 * Security: never through a link (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK).
 */
export function readGitignoreFile(file: string): string | null {
    let fd: number;
    try {
        fd = openSync(file, READ_NOFOLLOW_FLAGS);
    } catch {
        return null;
    }
    try {
        const st = fstatSync(fd);
        if (!st.isFile() || st.size > MAX_GITIGNORE_BYTES) return null;
        return gitignoreText(readFileSync(fd));
    } catch {
        return null;
    } finally {
        closeSync(fd);
    }
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
        handle = await fs.open(p, READ_NOFOLLOW_FLAGS);
        const st = await handle.stat();
        if (!st.isFile() || st.size > MAX_GITIGNORE_BYTES) return null;
        return gitignoreText(await handle.readFile());
    } catch {
        return null;
    } finally {
        await handle?.close();
    }
}
