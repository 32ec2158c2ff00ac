/**
 * The index at fault in its own folder and files: each case is a way the folder or a file in it can
 * differ from what the index left there, or a folder the index must not take for its own. Where a
 * case searches, the results are exactly the scan path's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileToolPackage, SearchConfiguration, Workspace } from '../../src/index.js';
import { DEFAULT_SKIP_DIRS, type TreeIndex } from '../../src/internals.js';
import { takeLock } from '../../src/search-index/store.js';
import { SHARED_POOL, tempDir, writeTree } from '../support/helpers.js';
import { COMPARED_TIMEOUT_MS, scanPathSearch, statusAndResult, WIDE_OUTPUT } from '../support/scan-path.js';
import type { WatcherKind } from '../../src/search-index/watch/watch.js';
import { itIf, noUsers, runNode, SOURCE, testUsers } from '../support/real-fs.js';
import { childModule } from '../support/child-source.js';

const open: FileToolPackage[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
    for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A tree where `alphaBeta` is rare enough for the index to answer its search (not left to the scan path as broad). */
const FILES: Record<string, string> = { 'a.txt': 'alphaBeta here\n', 'node_modules/d/i.js': 'alphaBeta skipped\n' };
for (let i = 0; i < 40; i++) FILES[`src/f${i}.ts`] = `export const value${i} = ${i}; // filler text\n`;

const LIMITS = (): SearchConfiguration => new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS);

function pkgOf(root: string, dir: string, watcher?: WatcherKind): FileToolPackage {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, LIMITS(), WIDE_OUTPUT(), undefined, { index: { dir, ...(watcher && { watcher }) }, engine: SHARED_POOL });
    open.push(pkg);
    return pkg;
}

async function warm(pkg: FileToolPackage, root: string): Promise<TreeIndex> {
    return (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
}

async function call(pkg: FileToolPackage, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === 'search_entries')!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

/** The search through the indexed package equals the scan path's (support/scan-path.ts); whether the index answered it. */
async function same(root: string, pkg: FileToolPackage, tree: TreeIndex, args: Record<string, unknown> = { content_pattern: 'alphaBeta' }): Promise<boolean> {
    const before = tree.counts.answered;
    expect(await call(pkg, args)).toBe(await statusAndResult(scanPathSearch(root, LIMITS()), args));
    return tree.counts.answered > before;
}

/** A tree indexed once and closed: its root, the index directory and the tree's folder in it. */
async function indexedOnce(watcher?: WatcherKind): Promise<{ root: string; indexDir: string; folder: string }> {
    const root = tempDir('lcf-tree-');
    writeTree(root, FILES);
    const indexDir = tempDir('lcf-index-');
    const pkg = pkgOf(root, indexDir, watcher);
    expect((await warm(pkg, root)).state).toBe('ready');
    await pkg.close();
    const [name] = fs.readdirSync(indexDir);
    return { root, indexDir, folder: path.join(indexDir, name!) };
}

type ManifestFields = Record<string, unknown>;

function readManifestFile(folder: string): ManifestFields {
    return JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8').split('\n')[0]!) as ManifestFields;
}

/** Writes `m` as the manifest, with a valid checksum. */
function writeManifestFile(folder: string, m: ManifestFields): void {
    const body = JSON.stringify(m);
    fs.writeFileSync(path.join(folder, 'manifest.json'), `${body}\n${crc32(Buffer.from(body)).toString(16)}\n`);
}

/** Sets the times of `p` (not following a link) to two hours ago: older than any clean-up waits for. */
function age(p: string): void {
    const t = new Date(Date.now() - 2 * 3600_000);
    fs.lutimesSync(p, t, t);
}

/** Start time of process `pid` in clock ticks since boot (/proc/<pid>/stat field 22). */
function startTicks(pid: number | 'self'): string {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

/** A live process that is not ours (killed after the test). */
function unrelatedProcess(): number {
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(child);
    return child.pid!;
}

/** Every entry under `dir` (relative paths) with its type and content, to compare before and after. */
function contents(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const rel of fs.readdirSync(dir, { recursive: true }).map(String)) {
        const p = path.join(dir, rel);
        const st = fs.lstatSync(p);
        out[rel] = st.isSymbolicLink() ? `link ${fs.readlinkSync(p)}` : st.isDirectory() ? 'dir' : `file ${fs.readFileSync(p, 'latin1')}`;
    }
    return out;
}

describe('index faults', () => {
    it('rebuilds an index whose manifest checks out but holds a field of the wrong type; no load rejects unhandled', async () => {
        const rejections: unknown[] = [];
        const onRejection = (reason: unknown): void => void rejections.push(reason);
        process.on('unhandledRejection', onRejection);
        try {
            const { root, indexDir, folder } = await indexedOnce();
            const damages: [string, (m: ManifestFields) => void][] = [
                ['gen a number', (m) => (m.gen = 5)],
                ['skipDirs null', (m) => (m.skipDirs = null)],
                ['gen naming a folder outside', (m) => (m.gen = '../elsewhere')],
                ['segments holding a number', (m) => (m.segments = [1])],
                ['textBytes a string', (m) => (m.textBytes = 'many')],
                ['buildMs missing', (m) => delete m.buildMs],
                ['skippedDirs an object', (m) => (m.skippedDirs = { length: 0 })],
            ];
            for (const [what, damage] of damages) {
                const m = readManifestFile(folder);
                damage(m);
                writeManifestFile(folder, m);
                const pkg = pkgOf(root, indexDir);
                const tree = await warm(pkg, root);
                expect(tree.status().state, what).toBe('ready');
                // Rebuilt (no reopen figure), with figures of the right type.
                expect(tree.status().openMs, what).toBeUndefined();
                expect(typeof tree.status().textBytes, what).toBe('number');
                expect(await same(root, pkg, tree), what).toBe(true);
                await pkg.close();
            }
            expect(rejections).toEqual([]);
        } finally {
            process.off('unhandledRejection', onRejection);
        }
    });

    it('close unsubscribes and closes the index files even when the folder cannot take what it saves', async () => {
        const root = tempDir('lcf-tree-');
        writeTree(root, FILES);
        const indexDir = tempDir('lcf-index-');
        const pkg = pkgOf(root, indexDir);
        const tree = await warm(pkg, root);
        const folder = path.join(indexDir, fs.readdirSync(indexDir)[0]!);
        const gen = readManifestFile(folder).gen as string;
        // A directory where this process writes its snapshot on close: neither written nor removed as a file.
        fs.mkdirSync(path.join(folder, `snap-${gen.slice(4)}-${process.pid}.bin`, 'in-the-way'), { recursive: true });
        await expect(tree.close()).resolves.toBeUndefined();
        // No descriptor of this process left open on the index's files.
        const held = fs.readdirSync('/proc/self/fd').flatMap((fd) => {
            try {
                return [fs.readlinkSync(`/proc/self/fd/${fd}`)];
            } catch {
                return [];
            }
        });
        expect(held.filter((p) => p.startsWith(`${folder}/`))).toEqual([]);
        // The watcher let go: the tree is indexed again in this process (else "another index of this process watches this tree").
        const again = pkgOf(root, tempDir('lcf-index-'));
        const t2 = await warm(again, root);
        expect(t2.status().error).toBeUndefined();
        expect(t2.state).toBe('ready');
        expect(await same(root, again, t2)).toBe(true);
    });

    itIf(noUsers)('as an ordinary user, a close with the index folder made unsearchable resolves and the process exits by itself', async () => {
        const { user } = testUsers();
        const root = tempDir('lcf-tree-');
        writeTree(root, FILES);
        const indexDir = tempDir('lcf-index-');
        for (const p of [root, path.join(root, 'a.txt'), indexDir]) fs.chownSync(p, user.uid, user.gid);
        const script = `
            import fs from 'node:fs';
            import path from 'node:path';
            // The run's worker bundle is in a folder this user cannot read: the pool runs the source.
            delete process.env.LLM_CHAT_FILE_TEST_WORKER;
            const { AccessType, FileToolPackage, Workspace } = await import(${JSON.stringify(SOURCE)});
            const { DEFAULT_SKIP_DIRS } = await import(${JSON.stringify(childModule('src/internals.ts'))});
            // Something kept the process alive well past its close: exit 3.
            setTimeout(() => process.exit(3), 60_000).unref();
            const root = ${JSON.stringify(root)};
            const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: root }], workspacePath: root }), undefined, undefined, undefined, { index: { dir: ${JSON.stringify(indexDir)} } });
            const tree = await pkg.searchIndex.warm(root, DEFAULT_SKIP_DIRS, [root]);
            const state = tree.state;
            fs.chmodSync(path.join(${JSON.stringify(indexDir)}, fs.readdirSync(${JSON.stringify(indexDir)})[0]), 0);
            let closed = 'resolved';
            try {
                await pkg.close();
            } catch (err) {
                closed = String(err);
            }
            process.stdout.write(JSON.stringify({ state, closed }));`;
        const r = await runNode(script, { user });
        expect(JSON.parse(r.stdout || '{}'), r.stderr).toEqual({ state: 'ready', closed: 'resolved' });
        expect(r.code, r.stderr).toBe(0);
    });

    it('never uses a tree folder that is a symbolic link (to a folder of user files): nothing there is deleted or written, searches take the scan path', async () => {
        const { root, indexDir, folder } = await indexedOnce();
        fs.rmSync(folder, { recursive: true });
        const user = tempDir('lcf-user-files-');
        writeTree(user, { 'manifest.json': 'my manifest\n', 'build.lock': 'my lock\n', 'gen-notes/a.txt': 'notes\n', 'snap-1.bin': 'photo\n', 'draft.tmp': 'draft\n', 'closed.json': '{}\n' });
        for (const name of fs.readdirSync(user)) age(path.join(user, name));
        const before = contents(user);
        fs.symlinkSync(user, folder);
        const pkg = pkgOf(root, indexDir);
        const tree = await warm(pkg, root);
        expect(tree.state).toBe('failed');
        expect(tree.status().error).toMatch(/symbolic link/);
        expect(await same(root, pkg, tree)).toBe(false);
        await pkg.close();
        expect(contents(user)).toEqual(before);
    });

    itIf(fs.existsSync('/proc/self') ? null : 'needs /proc')('fails an index directory that cannot be made (under /proc) with a message instead of hanging, and searches take the scan path', async () => {
        const root = tempDir('lcf-tree-');
        writeTree(root, FILES);
        const pkg = pkgOf(root, '/proc/lcf-no-such/index');
        const tree = await warm(pkg, root);
        expect(tree.state).toBe('failed');
        expect(tree.status().error).toMatch(/ENOENT/);
        expect(await same(root, pkg, tree)).toBe(false);
        await pkg.close();
    }, 60_000);

    it('never uses an index directory or tree folder others may write, or a folder holding entries the index did not make', async () => {
        const { root, indexDir, folder } = await indexedOnce();
        const refused = async (why: RegExp): Promise<void> => {
            const pkg = pkgOf(root, indexDir);
            const tree = await warm(pkg, root);
            expect(tree.state).toBe('failed');
            expect(tree.status().error).toMatch(why);
            expect(await same(root, pkg, tree)).toBe(false);
            await pkg.close();
        };
        fs.chmodSync(folder, 0o770);
        await refused(/writable by other users/);
        fs.chmodSync(folder, 0o700);
        fs.chmodSync(indexDir, 0o757);
        await refused(/writable by other users/);
        fs.chmodSync(indexDir, 0o700);
        // A real folder of the index's name holding user files (and nothing that says the index made it).
        fs.rmSync(folder, { recursive: true });
        writeTree(folder, { 'notes.txt': 'mine\n', 'gen-old/a.txt': 'kept\n', 'manifest.json': 'mine too\n' });
        for (const name of fs.readdirSync(folder)) age(path.join(folder, name));
        const before = contents(folder);
        await refused(/did not make/);
        expect(contents(folder)).toEqual(before);
    });

    it('uses a folder an earlier version made (no marker, nothing but its own entries) and marks it', async () => {
        const { root, indexDir, folder } = await indexedOnce();
        fs.rmSync(path.join(folder, '.llm-chat-file-index'), { force: true });
        fs.writeFileSync(path.join(folder, 'closed.4242.0123abcd.claim.tmp'), '');
        const pkg = pkgOf(root, indexDir);
        const tree = await warm(pkg, root);
        expect(tree.status().openMs).toBeDefined();
        expect(await same(root, pkg, tree)).toBe(true);
        expect(fs.lstatSync(path.join(folder, '.llm-chat-file-index')).isFile()).toBe(true);
    });

    itIf(process.getuid?.() === 0 ? noUsers : 'giving a folder to another user needs root')('never uses a tree folder another user owns', async () => {
        const { user } = testUsers();
        const { root, indexDir, folder } = await indexedOnce();
        fs.chownSync(folder, user.uid, user.gid);
        const pkg = pkgOf(root, indexDir);
        const tree = await warm(pkg, root);
        expect(tree.state).toBe('failed');
        expect(tree.status().error).toMatch(/owned by another user/);
        expect(await same(root, pkg, tree)).toBe(false);
    });

    it('removes from its folder only what it made: its own names of the right kind, old ones', async () => {
        const { root, indexDir, folder } = await indexedOnce();
        const gen = readManifestFile(folder).gen as string;
        const theirs = ['gen-notes.txt', 'snap-album', 'my.tmp', 'gen-0-00000000.tmp', 'gen-link'];
        fs.writeFileSync(path.join(folder, 'gen-notes.txt'), 'a file named like a generation\n');
        fs.mkdirSync(path.join(folder, 'snap-album'));
        fs.writeFileSync(path.join(folder, 'my.tmp'), 'a file named like a temporary one\n');
        fs.mkdirSync(path.join(folder, 'gen-0-00000000.tmp'));
        fs.symlinkSync(tempDir('lcf-user-files-'), path.join(folder, 'gen-link'));
        const ours = ['gen-zz0-0123abcd', `snap-zz0-0123abcd-${process.pid}.bin`, 'manifest.4242.0123abcd.tmp', 'closed.4242.89abcdef.claim.tmp'];
        fs.mkdirSync(path.join(folder, ours[0]!));
        for (const name of ours.slice(1)) fs.writeFileSync(path.join(folder, name), '');
        for (const name of [...theirs, ...ours]) age(path.join(folder, name));
        // Rebuilt (no manifest), then the clean-up.
        fs.rmSync(path.join(folder, 'manifest.json'));
        const pkg = pkgOf(root, indexDir);
        const tree = await warm(pkg, root);
        expect(tree.state).toBe('ready');
        expect(await same(root, pkg, tree)).toBe(true);
        const left = fs.readdirSync(folder);
        for (const name of theirs) expect(left, name).toContain(name);
        for (const name of ours) expect(left, name).not.toContain(name);
        expect(readManifestFile(folder).gen).not.toBe(gen);
    });

    it('takes over build locks whose holder is gone or is not the process that wrote them', async () => {
        const dir = tempDir('lcf-lock-');
        const file = path.join(dir, 'build.lock');
        const stale = async (content: string, mtime?: Date): Promise<void> => {
            fs.writeFileSync(file, content);
            if (mtime) fs.utimesSync(file, mtime, mtime);
            const lock = await takeLock(dir, 'build.lock');
            expect(lock, content).not.toBeNull();
            expect(fs.readFileSync(file, 'utf8')).not.toBe(content);
            await lock!.release();
            expect(fs.existsSync(file)).toBe(false);
        };
        const other = unrelatedProcess();
        // A bare pid (as earlier versions wrote it): this process's own (a restarted container), a
        // live process started after the lock was written (pid reuse), a dead process.
        await stale(String(process.pid));
        await stale(String(other), new Date(Date.now() - 3600_000));
        await stale(String(2 ** 22 + 12345));
        // With the writer's start time: a live process that started at another time; this process,
        // started at another time or not holding it (no lock of this process has that token).
        await stale(JSON.stringify({ pid: other, start: '1', token: '0123456789abcdef' }));
        await stale(JSON.stringify({ pid: process.pid, start: '1', token: '0123456789abcdef' }));
        await stale(JSON.stringify({ pid: process.pid, start: startTicks('self'), token: '0123456789abcdef' }));
        await stale('not a lock at all');
    });

    it('leaves build locks that a live process holds: its own start time, in this process, or a bare pid older than the lock', async () => {
        const dir = tempDir('lcf-lock-');
        const file = path.join(dir, 'build.lock');
        const other = unrelatedProcess();
        const held = async (content: string): Promise<void> => {
            fs.writeFileSync(file, content);
            expect(await takeLock(dir, 'build.lock'), content).toBeNull();
            expect(fs.readFileSync(file, 'utf8')).toBe(content);
        };
        await held(JSON.stringify({ pid: other, start: startTicks(other), token: '0123456789abcdef' }));
        // Written after the process started: as far as can be told, that process wrote it.
        await held(String(other));
        fs.rmSync(file);
        // Held by another object of this process: not taken, until released.
        const first = await takeLock(dir, 'build.lock');
        expect(first).not.toBeNull();
        expect(await takeLock(dir, 'build.lock')).toBeNull();
        await first!.release();
        const second = await takeLock(dir, 'build.lock');
        expect(second).not.toBeNull();
        // A lock taken over meanwhile (judged stale by another process) is not removed by the late release.
        const theirs = JSON.stringify({ pid: other, start: startTicks(other), token: 'fedcba9876543210' });
        fs.writeFileSync(file, theirs);
        await second!.release();
        expect(fs.readFileSync(file, 'utf8')).toBe(theirs);
    });

    it("builds a tree whose folder holds a lock naming this process's pid (a restarted container) instead of waiting forever", async () => {
        const { root, indexDir, folder } = await indexedOnce();
        fs.rmSync(path.join(folder, 'manifest.json'));
        fs.writeFileSync(path.join(folder, 'build.lock'), String(process.pid));
        const pkg = pkgOf(root, indexDir);
        const tree = await warm(pkg, root);
        expect(tree.state).toBe('ready');
        expect(await same(root, pkg, tree)).toBe(true);
        await pkg.close();
        expect(fs.existsSync(path.join(folder, 'build.lock'))).toBe(false);
    }, 60_000);

    it.each(['parcel', 'inotify'] as const)('writes every file of its folder with mode 0600 and every folder with 0700 (%s watcher; @parcel/watcher\'s snapshot and closed state included)', async (watcher) => {
        const { root, indexDir, folder } = await indexedOnce(watcher);
        // Reopened, searched, closed again: every kind of file the index writes.
        const pkg = pkgOf(root, indexDir, watcher);
        const tree = await warm(pkg, root);
        expect(tree.status().reopenedFrom).toBe(watcher === 'parcel' ? 'snapshot' : 'listing');
        expect(await same(root, pkg, tree)).toBe(true);
        await pkg.close();
        const names = fs.readdirSync(folder);
        expect(names.some((n) => /^snap-.*\.bin$/.test(n))).toBe(watcher === 'parcel');
        if (watcher === 'parcel') expect(names).toContain('closed.json');
        const modes: Record<string, string> = {};
        const want: Record<string, string> = {};
        for (const rel of ['', ...fs.readdirSync(folder, { recursive: true }).map(String)]) {
            const st = fs.lstatSync(path.join(folder, rel));
            modes[rel] = (st.mode & 0o7777).toString(8);
            want[rel] = st.isDirectory() ? '700' : '600';
        }
        expect(modes).toEqual(want);
        expect((fs.statSync(indexDir).mode & 0o777).toString(8)).toBe('700');
    });
});
