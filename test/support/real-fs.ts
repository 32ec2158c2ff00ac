/**
 * Real-filesystem fixtures: tmpfs and bind mounts, chattr flags, an ordinary test user, and
 * child processes under a descriptor limit. Each fixture says why it cannot run (not root, no
 * mount permission, tool missing) so that a test skips with that reason printed, never silently.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'vitest';
import { CHILD_NODE_ARGS, childModule } from './child-source.js';
import { afterEachTest } from './cleanup.js';

/** The package's main entry as the child processes import it: its up-to-date build or its source (support/child-source.ts). */
export const SOURCE = childModule('src/index.ts');
/** Node arguments a child process needs to import {@link SOURCE} (tsx's loader for the source). */
export const NODE_ARGS = CHILD_NODE_ARGS;

const isRoot = process.getuid?.() === 0;

/** Runs a command quietly: `null` when it succeeds, else why it failed. */
export function tryRun(cmd: string, args: string[]): string | null {
    try {
        execFileSync(cmd, args, { stdio: 'pipe' });
        return null;
    } catch (err) {
        return `${cmd} ${args.join(' ')}: ${(err as { stderr?: Buffer }).stderr?.toString().trim() || String(err)}`;
    }
}

const mounts: string[] = [];
const mountDirs: string[] = [];
// Before the temporary directories of helpers.ts go: a mount point may be inside one.
afterEachTest(() => {
    // Innermost first: a bind mount inside a tmpfs goes before the tmpfs.
    for (const m of mounts.splice(0).reverse()) tryRun('umount', ['-l', m]);
    for (const d of mountDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}, -1);

/** Why mounts cannot be made here, or `null` when they can (probed once with a tiny tmpfs). */
export const noMounts: string | null = (() => {
    if (!isRoot) return 'mounting needs root';
    const probe = fs.mkdtempSync('/tmp/lcf-probe-');
    try {
        const why = tryRun('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]);
        if (why === null) tryRun('umount', [probe]);
        return why;
    } finally {
        fs.rmdirSync(probe);
    }
})();

/** Mounts a fresh tmpfs of `size` (`1m`) on a new directory; unmounted and removed after the test. */
export function tmpfs(size = '4m', extra = ''): string {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'lcf-tmpfs-'));
    mountDirs.push(dir);
    const why = tryRun('mount', ['-t', 'tmpfs', '-o', `size=${size}${extra ? `,${extra}` : ''}`, 'tmpfs', dir]);
    if (why !== null) throw new Error(why);
    mounts.push(dir);
    return dir;
}

/** Bind-mounts `source` on `target` (a file on a file, or a directory on a directory); unmounted after the test. */
export function bindMount(source: string, target: string): void {
    const why = tryRun('mount', ['--bind', source, target]);
    if (why !== null) throw new Error(why);
    mounts.push(target);
}

/** Unmounts `target` now (before the end of the file's tests). */
export function unmount(target: string): void {
    const at = mounts.indexOf(target);
    if (at !== -1) mounts.splice(at, 1);
    tryRun('umount', [target]);
}

/** Why `chattr` flags cannot be set on files under /tmp, or `null`. */
export const noChattr: string | null = (() => {
    if (!isRoot) return 'chattr +i needs root (CAP_LINUX_IMMUTABLE)';
    const dir = fs.mkdtempSync('/tmp/lcf-chattr-');
    const f = path.join(dir, 'f');
    fs.writeFileSync(f, '');
    try {
        const why = tryRun('chattr', ['+i', f]);
        if (why === null) tryRun('chattr', ['-i', f]);
        return why;
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
})();

/** Sets or clears chattr flags (`+i`, `-a`) on `p`. */
export function chattr(flags: string, p: string): void {
    const why = tryRun('chattr', [flags, p]);
    if (why !== null) throw new Error(why);
}

/** An ordinary user and group made for these tests (idempotent). */
export interface TestUser {
    name: string;
    uid: number;
    gid: number;
}

function ensureGroup(name: string): number {
    tryRun('groupadd', ['--system', name]);
    return Number(execFileSync('getent', ['group', name], { encoding: 'utf8' }).split(':')[2]);
}

function ensureUser(name: string, groups: string[] = []): TestUser {
    tryRun('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', name]);
    if (groups.length > 0) tryRun('usermod', ['-a', '-G', groups.join(','), name]);
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { name, uid, gid };
}

/** Why test users cannot be made, or `null`. */
export const noUsers: string | null = isRoot ? tryRun('useradd', ['--help']) : 'creating a test user needs root';

/**
 * The test users: `user` (an ordinary user, member of the group `shared`) and `other` (another
 * ordinary user, owner of files `user` may only edit through the group).
 */
export function testUsers(): { user: TestUser; other: TestUser; shared: number } {
    const shared = ensureGroup('lcf-shared');
    return { user: ensureUser('lcf-user', ['lcf-shared']), other: ensureUser('lcf-other'), shared };
}

/** What a child script printed and how it ended. */
export interface ChildResult {
    code: number | null;
    stdout: string;
    stderr: string;
}

/**
 * Runs an ES module `script` in a new Node process, with `uid`/`gid` (and the user's groups) of
 * an ordinary user, and/or under a limit of open descriptors (`prlimit --nofile`). The script
 * may import the package from {@link SOURCE}.
 */
export function runNode(script: string, opts: { user?: TestUser; nofile?: number; cwd?: string } = {}): Promise<ChildResult> {
    const node = [process.execPath, ...NODE_ARGS, '--input-type=module', '-e', script];
    let argv = node;
    if (opts.user) argv = ['setpriv', `--reuid=${opts.user.uid}`, `--regid=${opts.user.gid}`, '--init-groups', ...argv];
    if (opts.nofile !== undefined) argv = ['prlimit', `--nofile=${opts.nofile}:${opts.nofile}`, ...argv];
    return new Promise((resolve) => {
        const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], cwd: opts.cwd ?? '/' });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
}

/** Entries of `dir` (recursively) that are temporary files of the library's writes. */
export function debris(dir: string): string[] {
    return fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.lcf-\d+-\d+-[0-9a-f]{12}\.(tmp|bak)$/.test(f));
}

/**
 * vitest's `it.skipIf`, with the reason in the test's name and printed, when the machine cannot
 * provide what the test needs (`why` is then not `null`).
 */
export function itIf(why: string | null): (name: string, fn: () => Promise<void> | void, timeout?: number) => void {
    return (name, fn, timeout) => {
        if (why !== null) console.warn(`skipped "${name}": ${why}`);
        it.skipIf(why !== null)(why === null ? name : `${name} [skipped: ${why}]`, fn, timeout);
    };
}
