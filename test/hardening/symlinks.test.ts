/**
 * Symlinks inside an access that point outside: no tool reads, writes, lists, searches, deletes,
 * moves, describes or creates anything outside through them. Paths that do not exist yet are
 * decided by their nearest existing ancestor's real path; walks neither follow links out nor
 * loop. `resolveSymlinks: false` (LLM_CHAT_FS_RESOLVE_SYMLINKS=false) is the documented way out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AccessType, DirectoryConfiguration, Workspace } from '../../src/index.js';
import { makePackage, snapshot, tempDir, type Fixture } from '../support/helpers.js';

const SECRET = 'CANARY-7f3a9c-do-not-leak';

interface Tree {
    base: string;
    work: string;
    ro: string;
    outside: string;
    canary: string;
}

/**
 * base/work       write access (the workspace)
 * base/ro         read access
 * base/outside    no access: canary.txt holds SECRET, inner/ a directory
 * work/link-file -> outside/canary.txt     work/link-dir -> outside
 * work/dangling-out -> outside/missing/new.txt   work/loop -> .   work/self-a <-> work/self-b
 */
function makeTree(): Tree {
    const base = tempDir('lcf-symlinks-');
    const work = path.join(base, 'work');
    const ro = path.join(base, 'ro');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(work, 'sub'), { recursive: true });
    fs.mkdirSync(ro);
    fs.mkdirSync(path.join(outside, 'inner'), { recursive: true });
    const canary = path.join(outside, 'canary.txt');
    fs.writeFileSync(canary, `${SECRET}\n`);
    fs.writeFileSync(path.join(outside, 'inner', 'deep.txt'), `${SECRET} deep\n`);
    fs.writeFileSync(path.join(work, 'real.txt'), 'inside\n');
    fs.writeFileSync(path.join(work, 'sub', 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(ro, 'r.txt'), 'read only\n');
    fs.symlinkSync(canary, path.join(work, 'link-file'));
    fs.symlinkSync(outside, path.join(work, 'link-dir'));
    fs.symlinkSync('../../outside', path.join(work, 'sub', 'rel-link-dir'));
    fs.symlinkSync(path.join(outside, 'missing', 'new.txt'), path.join(work, 'dangling-out'));
    fs.symlinkSync('.', path.join(work, 'loop'));
    fs.symlinkSync('self-b', path.join(work, 'self-a'));
    fs.symlinkSync('self-a', path.join(work, 'self-b'));
    fs.symlinkSync(ro, path.join(work, 'link-ro'));
    return { base, work, ro, outside, canary };
}

function expectNoLeak(results: { result: string }[]): void {
    for (const r of results) expect(r.result).not.toContain(SECRET);
}

describe('symlinks pointing outside (secure default)', () => {
    let t: Tree;
    let fx: Fixture;
    let outsideBefore: Record<string, string>;

    beforeEach(() => {
        t = makeTree();
        fx = makePackage(t.work, {
            accesses: [
                { type: AccessType.Write, path: t.work },
                { type: AccessType.Read, path: t.ro },
            ],
        });
        outsideBefore = snapshot(t.outside);
    });

    const outsideUnchanged = (): void => expect(snapshot(t.outside)).toEqual(outsideBefore);

    describe('read_file', () => {
        it('rejects reading through a file link, a directory link and a relative directory link', async () => {
            for (const p of ['link-file', 'link-dir/canary.txt', 'sub/rel-link-dir/canary.txt', 'link-dir/inner/deep.txt', 'loop/link-file']) {
                const [r] = await fx.run('read_file', { paths: [p] });
                expect(r!.status, p).toBe('error');
                expect(r!.result).toMatch(/Access denied: .* outside the configured readable directories/);
                expectNoLeak([r!]);
            }
        });

        it('rejects links out in a multi-path read while reading the inside files', async () => {
            const results = await fx.run('read_file', { paths: ['real.txt', 'link-file', 'link-dir/canary.txt', 'sub/a.txt'] });
            expect(results.map((r) => r.status)).toEqual(['success', 'error', 'error', 'success']);
            expectNoLeak(results);
        });
    });

    describe('write and edit tools', () => {
        it('rejects write_file through a file link, a directory link and a dangling link, writing nothing outside', async () => {
            for (const p of ['link-file', 'link-dir/new.txt', 'link-dir/inner/new/deeper.txt', 'dangling-out', 'dangling-out/x.txt', 'sub/rel-link-dir/n.txt']) {
                const [r] = await fx.run('write_file', { path: p, content: 'pwned' });
                expect(r!.status, p).toBe('error');
                expect(r!.result).toMatch(/outside/);
            }
            outsideUnchanged();
            expect(fs.existsSync(path.join(t.outside, 'missing'))).toBe(false);
        });

        it('rejects the partial edit tools on a link out, even with read-before-write off', async () => {
            const loose = makePackage(t.work, { requireReadBeforeWrite: false });
            const calls: [string, Record<string, unknown>][] = [
                ['replace_file_content', { path: 'link-file', old_content: 'CANARY', new_content: 'X' }],
                ['replace_file_lines', { path: 'link-file', content: 'X', start_line: 1 }],
                ['insert_file_content', { path: 'link-dir/canary.txt', content: 'X' }],
            ];
            for (const [tool, args] of calls) {
                const [r] = await loose.run(tool, args);
                expect(r!.status, tool).toBe('error');
                expect(r!.result).toMatch(/outside/);
                expectNoLeak([r!]);
            }
            outsideUnchanged();
        });

        it('refuses writing through a link into a read-only access, while reading through it works', async () => {
            const [w] = await fx.run('write_file', { path: 'link-ro/r.txt', content: 'x' });
            expect(w!.status).toBe('error');
            expect(w!.result).toMatch(/read-only/);
            const [r] = await fx.run('read_file', { paths: ['link-ro/r.txt'] });
            expect(r!.status).toBe('success');
            expect(fs.readFileSync(path.join(t.ro, 'r.txt'), 'utf8')).toBe('read only\n');
        });

        it('create_folder through a link or a dangling link creates nothing outside', async () => {
            for (const p of ['link-dir/newdir', 'link-dir/a/b/c', 'dangling-out', 'dangling-out/sub', 'sub/rel-link-dir/x']) {
                const [r] = await fx.run('create_folder', { path: p });
                expect(r!.status, p).toBe('error');
                expect(r!.result).toMatch(/outside/);
            }
            outsideUnchanged();
        });

        it('decides a path that does not exist yet by its nearest existing ancestor', async () => {
            const [out] = await fx.run('write_file', { path: 'link-dir/a/b/c/new.txt', content: 'x' });
            expect(out!.status).toBe('error');
            const [inside] = await fx.run('write_file', { path: 'fresh/a/b/new.txt', content: 'x' });
            expect(inside!.status).toBe('success');
            expect(fs.readFileSync(path.join(t.work, 'fresh/a/b/new.txt'), 'utf8')).toBe('x');
            outsideUnchanged();
        });

        it('resolves a dangling relative link from the real directory it sits in, not from the path used to reach it', async () => {
            // work/x/y/z/hop -> work/d (an inside directory link); work/d/esc -> ../../outside/created.txt
            // Really: work/d/../../outside = base/outside (outside). Resolved from the lexical
            // path work/x/y/z/hop it would look like work/x/y/outside (inside).
            fs.mkdirSync(path.join(t.work, 'x/y/z'), { recursive: true });
            fs.mkdirSync(path.join(t.work, 'd'));
            fs.symlinkSync(path.join(t.work, 'd'), path.join(t.work, 'x/y/z/hop'));
            fs.symlinkSync('../../outside/created.txt', path.join(t.work, 'd', 'esc'));
            const [r] = await fx.run('write_file', { path: 'x/y/z/hop/esc', content: 'x' });
            expect(r!.status).toBe('error');
            expect(r!.result).toMatch(/outside/);
            expect(fs.existsSync(path.join(t.work, 'x/y/outside'))).toBe(false);
            const [c] = await fx.run('create_folder', { path: 'x/y/z/hop/esc' });
            expect(c!.status).toBe('error');
            outsideUnchanged();
        });
    });

    describe('list_directory and search_entries', () => {
        it('refuses to list or search a directory link out', async () => {
            for (const p of ['link-dir', 'link-dir/', 'link-dir/inner', 'sub/rel-link-dir']) {
                const [l] = await fx.run('list_directory', { path: p });
                expect(l!.status, p).toBe('error');
                expect(l!.result).toMatch(/outside/);
                const [s] = await fx.run('search_entries', { path: p });
                expect(s!.status, p).toBe('error');
                expect(s!.result).toMatch(/outside/);
            }
        });

        // A loop would make the listing hang (the test's timeout) or fill the search with loop/loop.
        it('walks do not follow links out and do not loop', async () => {
            const [l] = await fx.run('list_directory', { path: '.', recursive: true });
            expect(l!.status).toBe('success');
            expect(l!.result).not.toMatch(/canary|inner|deep\.txt/);
            expect(l!.result).toContain('link-dir');
            expect(l!.result).not.toMatch(/loop\/loop/);
            const [byName] = await fx.run('search_entries', { name_pattern: 'canary|deep' });
            expect(byName!.result).not.toMatch(/canary\.txt|deep\.txt/);
            const [byContent] = await fx.run('search_entries', { content_pattern: 'CANARY' });
            expectNoLeak([byContent!]);
            expect(byContent!.result).not.toMatch(/canary|deep/);
            const [all] = await fx.run('search_entries', {});
            expect(all!.status).toBe('success');
            expect(all!.result).not.toMatch(/loop\/loop|canary\.txt|deep\.txt/);
        });
    });

    describe('delete_file and move_file', () => {
        it('deleting a link removes the link, never what it points to', async () => {
            const [f] = await fx.run('delete_file', { path: 'link-file' });
            expect(f!.status).toBe('success');
            expect(f!.result).toMatch(/Deleted symlink/);
            const [d] = await fx.run('delete_file', { path: 'link-dir', recursive: true });
            expect(d!.status).toBe('success');
            const [trailing] = await fx.run('delete_file', { path: 'sub/rel-link-dir/', recursive: true });
            expect(trailing!.status).toBe('success');
            expect(fs.existsSync(path.join(t.work, 'link-file'))).toBe(false);
            expect(fs.existsSync(path.join(t.work, 'link-dir'))).toBe(false);
            outsideUnchanged();
        });

        it('refuses deleting anything through a link out', async () => {
            for (const p of ['link-dir/canary.txt', 'link-dir/inner', 'sub/rel-link-dir/canary.txt']) {
                const [r] = await fx.run('delete_file', { path: p, recursive: true });
                expect(r!.status, p).toBe('error');
                expect(r!.result).toMatch(/outside/);
            }
            outsideUnchanged();
        });

        it('refuses moving anything out of or into a link out', async () => {
            const calls = [
                { source: 'link-dir/canary.txt', destination: 'stolen.txt' },
                { source: 'link-dir/inner', destination: 'stolen-dir' },
                { source: 'real.txt', destination: 'link-dir/planted.txt' },
                { source: 'real.txt', destination: 'dangling-out' },
                { source: 'sub', destination: 'link-dir/sub' },
                { source: 'real.txt', destination: 'sub/rel-link-dir/p.txt' },
            ];
            for (const args of calls) {
                const [r] = await fx.run('move_file', args);
                expect(r!.status, JSON.stringify(args)).toBe('error');
            }
            expect(fs.readFileSync(path.join(t.work, 'real.txt'), 'utf8')).toBe('inside\n');
            expect(fs.existsSync(path.join(t.work, 'stolen.txt'))).toBe(false);
            outsideUnchanged();
        });
    });

    describe('entry_info and switch_workspace', () => {
        it('describes a link itself but nothing behind it', async () => {
            const [self] = await fx.run('entry_info', { path: 'link-file' });
            expect(self!.status).toBe('success');
            expect(self!.result).toMatch(/Type: symlink/);
            expect(self!.result).toMatch(/outside the configured accesses/);
            expectNoLeak([self!]);
            for (const p of ['link-dir/canary.txt', 'link-dir/inner', 'sub/rel-link-dir/inner/deep.txt']) {
                const [r] = await fx.run('entry_info', { path: p });
                expect(r!.status, p).toBe('error');
                expect(r!.result).toMatch(/outside/);
            }
        });

        it('refuses switching the workspace through a link out', async () => {
            const [r] = await fx.run('switch_workspace', { path: 'link-dir' });
            expect(r!.status).toBe('error');
            expect(fx.ws.path).toBe(t.work);
        });
    });

    describe('links that loop or point nowhere', () => {
        it('reports a link loop as an error result', async () => {
            for (const tool of ['read_file', 'write_file', 'list_directory', 'entry_info', 'create_folder']) {
                const args = tool === 'read_file' ? { paths: ['self-a'] } : tool === 'write_file' ? { path: 'self-a', content: 'x' } : { path: 'self-a/x' };
                const results = await fx.run(tool, args);
                for (const r of results) {
                    expect(r.result.length).toBeGreaterThan(0);
                    expect(r.error).toBeUndefined();
                }
            }
            expect(fs.lstatSync(path.join(t.work, 'self-a')).isSymbolicLink()).toBe(true);
        });
    });

    describe('access roots behind a symlink', () => {
        it('uses the real path of a configured root', async () => {
            const alias = path.join(t.base, 'alias');
            fs.symlinkSync(t.work, alias);
            const viaAlias = makePackage(alias, { accesses: [{ type: AccessType.Write, path: alias }] });
            const [r] = await viaAlias.run('read_file', { paths: ['real.txt'] });
            expect(r!.status).toBe('success');
            const [out] = await viaAlias.run('read_file', { paths: ['link-file'] });
            expect(out!.status).toBe('error');
            const [w] = await viaAlias.run('write_file', { path: 'made.txt', content: 'x' });
            expect(w!.status).toBe('success');
            expect(fs.readFileSync(path.join(t.work, 'made.txt'), 'utf8')).toBe('x');
        });
    });
});

describe('resolveSymlinks: false (documented relaxation)', () => {
    it('follows links as written when resolveSymlinks is false', async () => {
        const t = makeTree();
        const fx = makePackage(t.work, { resolveSymlinks: false });
        const [r] = await fx.run('read_file', { paths: ['link-dir/canary.txt'] });
        expect(r!.status).toBe('success');
        expect(r!.result).toContain(SECRET);
        // Paths written outside every access are still refused.
        const [out] = await fx.run('read_file', { paths: [t.canary] });
        expect(out!.status).toBe('error');
        const [dotdot] = await fx.run('read_file', { paths: ['../outside/canary.txt'] });
        expect(dotdot!.status).toBe('error');
    });

    it('reads LLM_CHAT_FS_RESOLVE_SYMLINKS from the environment, secure when unset', () => {
        const t = makeTree();
        vi.stubEnv('LLM_CHAT_FS_WORKSPACE', t.work);
        try {
            vi.stubEnv('LLM_CHAT_FS_RESOLVE_SYMLINKS', '');
            expect(new DirectoryConfiguration().resolveSymlinks).toBe(true);
            vi.stubEnv('LLM_CHAT_FS_RESOLVE_SYMLINKS', 'false');
            const relaxed = new DirectoryConfiguration();
            expect(relaxed.resolveSymlinks).toBe(false);
            expect(new Workspace(relaxed).view().resolveSymlinks).toBe(false);
            vi.stubEnv('LLM_CHAT_FS_RESOLVE_SYMLINKS', 'maybe');
            expect(() => new DirectoryConfiguration()).toThrow(/LLM_CHAT_FS_RESOLVE_SYMLINKS/);
        } finally {
            vi.unstubAllEnvs();
        }
    });
});
