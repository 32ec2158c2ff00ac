/**
 * The search index after changes: made through the tools (seen by the very next search), made
 * outside and reported by the watcher, in directories moved in, in bursts past the rebuild limit,
 * flushed by sync(), and random sequences of both (a property): never an answer that differs from
 * the scan path's (support/index-pair.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { tempDir, until, writeTree } from '../../support/helpers.js';
import { call, FILES, pair, pkgOf, plainOf, same, type Pair } from '../../support/index-pair.js';

describe('search index after changes', () => {
    it('sees changes made through the tools in the very next search', async () => {
        const p = await pair(FILES);
        expect(await call(p.indexed, 'write_file', { path: 'src/new/fresh.ts', content: 'const zetaEta = 1;\n' })).toMatch(/^success/);
        const r1 = await same(p, { content_pattern: 'zetaEta' });
        expect(r1.text).toContain('src/new/fresh.ts:1: const zetaEta = 1;');
        expect(r1.answered).toBe(true);
        expect((await same(p, { name_pattern: 'new', type: 'directory' })).text).toContain('src/new/');
        await call(p.indexed, 'read_file', { paths: ['src/lib.ts'] });
        expect(await call(p.indexed, 'replace_file_content', { path: 'src/lib.ts', old_content: 'ALPHABETA doubled', new_content: 'zetaEta doubled' })).toMatch(/^success/);
        expect((await same(p, { content_pattern: 'zetaEta' })).text).toContain('src/lib.ts:2:');
        expect((await same(p, { content_pattern: 'ALPHABETA doubled' })).text).toMatch(/^success: No entries/);
        expect(await call(p.indexed, 'move_file', { source: 'src/deep', destination: 'moved/deeper' })).toMatch(/^success/);
        const moved = await same(p, { content_pattern: 'gammaDelta' });
        expect(moved.text).toContain('moved/deeper/a/b/c.ts');
        expect(moved.text).not.toContain('src/deep');
        expect(await call(p.indexed, 'delete_file', { path: 'docs/guide.md' })).toMatch(/^success/);
        expect((await same(p, { content_pattern: 'gammaDelta' })).text).not.toContain('guide.md');
        expect((await same(p, { name_pattern: 'guide' })).text).toMatch(/^success: No entries/);
        expect(p.tree.status().dirty).toBeGreaterThan(0);
    });

    it('sees outside changes once the watcher reported them', async () => {
        const p = await pair(FILES);
        const changed = new Promise<void>((resolve) => p.tree.once('change', () => resolve()));
        fs.writeFileSync(path.join(p.root, 'src/outside.ts'), 'const outsideEdit = 1;\n');
        await changed;
        const r = await same(p, { content_pattern: 'outsideEdit' });
        expect(r.text).toBe('success: src/outside.ts:1: const outsideEdit = 1;');
        expect(r.answered).toBe(true);
    });

    it('sees outside edits of a file named like a skipped directory (a submodule\'s or worktree\'s .git file)', async () => {
        // The walk skips directories named .git or node_modules, not files: a `.git` file is
        // searched, so its changes must reach the index although the watcher leaves such names out.
        const p = await pair({ ...FILES, 'sub/.git': 'gitdir: ../.git/modules/sub\n', 'sub/x.ts': 'const inSub = 1;\n' });
        const before = await same(p, { content_pattern: 'gitdir' });
        expect(before.text).toBe('success: sub/.git:1: gitdir: ../.git/modules/sub');
        const changed = new Promise<void>((resolve) => p.tree.on('change', () => resolve()));
        fs.writeFileSync(path.join(p.root, 'sub/.git'), 'gitdir: ../worktrees/omegaTree\n');
        fs.writeFileSync(path.join(p.root, 'sub/x.ts'), 'const inSub = 2;\n');
        await changed;
        const r = await same(p, { content_pattern: 'omegaTree' });
        expect(r.text).toBe('success: sub/.git:1: gitdir: ../worktrees/omegaTree');
        expect(r.answered).toBe(true);
        expect((await same(p, { content_pattern: 'modules/sub' })).text).toMatch(/^success: No entries/);
    });

    it('sees outside edits in subdirectories of a directory moved in, after a rebuild (the watcher does not watch those on its own)', async () => {
        // @parcel/watcher (inotify) watches a directory created or moved in, not its
        // subdirectories (parcel-bundler/watcher#97). Until a rebuild the moved directory is a
        // changed path, walked from disk; a rebuild must not leave its insides unwatched.
        const root = tempDir('lcf-tree-');
        writeTree(root, FILES);
        const outside = tempDir('lcf-outside-');
        writeTree(outside, { 'x/y/z/deep.ts': 'const beforeRebuild = 1;\n', 'x/top.ts': 'top\n' });
        const indexed = pkgOf(root, { dir: tempDir('lcf-index-'), rebuildAfter: 3 });
        const plain = plainOf(root);
        const tree = (await indexed.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(tree.status().state).toBe('ready');
        const p: Pair = { root, indexDir: '', indexed, plain, tree };
        /** Polls the indexed search until its result contains `text` (the watcher has reported the change). */
        const seen = async (pattern: string, text: string): Promise<void> => {
            await until(async () => (await call(indexed, 'search_entries', { content_pattern: pattern })).includes(text));
        };
        const states: string[] = [];
        tree.on('state', (st: { state: string }) => states.push(st.state));
        fs.renameSync(path.join(outside, 'x'), path.join(root, 'moved'));
        await seen('beforeRebuild', 'moved/y/z/deep.ts');
        expect((await same(p, { content_pattern: 'beforeRebuild' })).text).toBe('success: moved/y/z/deep.ts:1: const beforeRebuild = 1;');
        // More changed paths than rebuildAfter: a rebuild in the background; wait until it is served.
        for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, `extra${i}.txt`), `extra ${i}\n`);
        await until(() => states.includes('building') && states.at(-1) === 'ready');
        expect(states).toContain('building');
        expect(states.at(-1)).toBe('ready');
        // An edit deep in the moved directory, then a new file at the top: once the watcher has
        // reported the new file, it has reported the edit before it (inotify keeps their order).
        fs.writeFileSync(path.join(root, 'moved/y/z/deep.ts'), 'const afterRebuild = 2;\n');
        fs.writeFileSync(path.join(root, 'sentinel.txt'), 'sentinelToken\n');
        await seen('sentinelToken', 'sentinel.txt');
        const r = await same(p, { content_pattern: 'afterRebuild' });
        expect(r.text).toBe('success: moved/y/z/deep.ts:1: const afterRebuild = 2;');
        expect(r.answered).toBe(true);
    });

    it('takes the scan path once more paths changed than a rebuild waits for, until the rebuild (@parcel/watcher)', async () => {
        // @parcel/watcher may have dropped events in such a burst (an inotify overflow it does not report).
        const root = tempDir('lcf-tree-');
        writeTree(root, FILES);
        const indexed = pkgOf(root, { dir: tempDir('lcf-index-'), rebuildAfter: 3, watcher: 'parcel' });
        const plain = plainOf(root);
        const tree = (await indexed.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        const p: Pair = { root, indexDir: '', indexed, plain, tree };
        expect(await call(indexed, 'write_file', { path: 'one.txt', content: 'burstToken one\n' })).toMatch(/^success/);
        expect((await same(p, { content_pattern: 'burstToken' })).answered).toBe(true);
        for (let i = 0; i < 4; i++) expect(await call(indexed, 'write_file', { path: `burst${i}.txt`, content: `burstToken ${i}\n` })).toMatch(/^success/);
        const r = await same(p, { content_pattern: 'burstToken' });
        expect(r.answered).toBe(false);
        expect(r.text).toContain('burst3.txt:1: burstToken 3');
        // Rebuilt: answered from the index again.
        await until(() => tree.status().dirty <= 3 && tree.status().state === 'ready');
        expect(tree.status().dirty).toBeLessThanOrEqual(3);
        expect((await same(p, { content_pattern: 'burstToken' })).answered).toBe(true);
    });

    it('sync() picks up outside changes without waiting for events', async () => {
        const p = await pair(FILES);
        fs.writeFileSync(path.join(p.root, 'src/lib.ts'), 'now thetaIota only\n');
        fs.rmSync(path.join(p.root, 'docs'), { recursive: true });
        await p.tree.sync();
        expect((await same(p, { content_pattern: 'thetaIota' })).text).toBe('success: src/lib.ts:1: now thetaIota only');
        expect((await same(p, { content_pattern: 'gammaDelta' })).text).not.toContain('docs/');
    });

    it('property: random changes through the tools and on disk never make the index differ from the scan path', async () => {
        const p = await pair({ 'a/one.txt': 'wordA wordB\n', 'b/two.txt': 'wordB wordC\n', 'c/d/three.txt': 'wordC wordD\n', '.gitignore': 'x.txt\ne/\n', 'c/.gitignore': '!x.txt\n' });
        const words = ['wordA', 'wordB', 'wordC', 'wordD', 'wordE'];
        const dirs = ['a', 'b', 'c', 'c/d', 'e', 'e/f'];
        const names = ['x.txt', 'y.txt', 'one.txt', 'z.md'];
        const op = fc.record({
            kind: fc.constantFrom('write', 'edit', 'delete', 'rename', 'dirmove'),
            via: fc.constantFrom('tool', 'disk'),
            dir: fc.constantFrom(...dirs),
            dir2: fc.constantFrom(...dirs),
            name: fc.constantFrom(...names),
            name2: fc.constantFrom(...names),
            w: fc.constantFrom(...words),
        });
        const existing = (): string[] => {
            const out: string[] = [];
            const walk = (rel: string): void => {
                for (const e of fs.readdirSync(path.join(p.root, rel), { withFileTypes: true })) {
                    const r = rel ? `${rel}/${e.name}` : e.name;
                    if (e.isDirectory()) walk(r);
                    else out.push(r);
                }
            };
            walk('');
            return out.sort();
        };
        await fc.assert(
            fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 10 }), async (ops) => {
                for (const o of ops) {
                    const files = existing();
                    const target = files.length > 0 ? files[(o.name.length + o.w.length + o.dir.length) % files.length]! : `${o.dir}/${o.name}`;
                    const fresh = `${o.dir}/${o.name}`;
                    const abs = (r: string): string => path.join(p.root, r);
                    if (o.via === 'tool') {
                        switch (o.kind) {
                            case 'write':
                                await call(p.indexed, 'write_file', { path: fresh, content: `${o.w} new\n` });
                                break;
                            case 'edit':
                                await call(p.indexed, 'read_file', { paths: [target] });
                                await call(p.indexed, 'insert_file_content', { path: target, content: `${o.w} inserted\n` });
                                break;
                            case 'delete':
                                await call(p.indexed, 'delete_file', { path: target });
                                break;
                            case 'rename':
                                await call(p.indexed, 'move_file', { source: target, destination: `${o.dir2}/${o.name2}` });
                                break;
                            case 'dirmove':
                                await call(p.indexed, 'move_file', { source: o.dir, destination: `moved-${o.w}` });
                                break;
                        }
                    } else {
                        try {
                            switch (o.kind) {
                                case 'write':
                                    fs.mkdirSync(path.dirname(abs(fresh)), { recursive: true });
                                    fs.writeFileSync(abs(fresh), `${o.w} disk\n`);
                                    break;
                                case 'edit':
                                    fs.appendFileSync(abs(target), `${o.w} appended\n`);
                                    break;
                                case 'delete':
                                    fs.rmSync(abs(target), { force: true });
                                    break;
                                case 'rename':
                                    fs.mkdirSync(path.dirname(abs(`${o.dir2}/${o.name2}`)), { recursive: true });
                                    fs.renameSync(abs(target), abs(`${o.dir2}/${o.name2}`));
                                    break;
                                case 'dirmove':
                                    if (fs.existsSync(abs(o.dir)) && !fs.existsSync(abs(`moved-${o.w}`))) fs.renameSync(abs(o.dir), abs(`moved-${o.w}`));
                                    break;
                            }
                        } catch {
                            // an impossible step (missing source) changes nothing
                        }
                        // The explicit flush: outside changes are known once sync() resolves.
                        await p.tree.sync();
                    }
                    for (const w of words) await same(p, { content_pattern: w });
                    await same(p, { content_pattern: 'word', respect_gitignore: true });
                    await same(p, { name_pattern: 'txt' });
                    await same(p, { name_pattern: 'moved|d', type: 'directory' });
                }
            }),
            { numRuns: 8 },
        );
        expect(p.tree.counts.answered).toBeGreaterThan(0);
    }, 120_000);

});
