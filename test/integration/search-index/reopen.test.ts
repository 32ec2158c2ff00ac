/**
 * The search index across processes: reopened after a restart with what changed meanwhile (from
 * the watcher's snapshot or a listing), skipped directories watched by path, a change made right
 * before close, and two processes sharing one index directory.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { call, FILES, pair, pkgOf, plainOf, same } from '../../support/index-pair.js';
import { statusAndResult } from '../../support/scan-path.js';

describe('search index across processes', () => {
    it.each([
        ['snapshot', 'parcel'],
        ['listing', 'parcel'],
        ['listing', 'inotify'],
    ] as const)('reopens after a restart and brings in what changed meanwhile (from the %s, %s watcher)', async (how, watcher) => {
        const indexDir = tempDir('lcf-index-');
        // A time that survives a round trip through utimes (whole seconds).
        const main = (root: string): string => path.join(root, 'src/main.ts');
        const p = await pair(FILES, indexDir, (root) => fs.utimesSync(main(root), 1_700_000_000, 1_700_000_000), watcher);
        const built = p.tree.status();
        fs.writeFileSync(path.join(p.root, 'docs/guide.md'), 'noted by the first process: muNu\n');
        await p.tree.sync();
        await p.indexed.close();
        // A process that ended without closing leaves no snapshot: the tree is listed again.
        // The inotify watcher keeps none: the next process always lists the tree.
        const dir = path.dirname(path.join(indexDir, fs.readdirSync(indexDir)[0]!, 'x'));
        expect(fs.existsSync(path.join(dir, 'closed.json'))).toBe(watcher === 'parcel');
        if (how === 'listing' && watcher === 'parcel') fs.rmSync(path.join(dir, 'closed.json'));
        fs.writeFileSync(path.join(p.root, 'src/lib.ts'), 'changed while closed: kappaLambda\n');
        fs.writeFileSync(path.join(p.root, 'added.txt'), 'kappaLambda added while closed\n');
        fs.rmSync(path.join(p.root, 'README.md'));
        // Its times changed and restored: its change time moved, so it counts as changed.
        fs.utimesSync(main(p.root), new Date(), new Date());
        fs.utimesSync(main(p.root), 1_700_000_000, 1_700_000_000);
        const again = pkgOf(p.root, { dir: indexDir, watcher });
        const tree = (await again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
        const st = tree.status();
        expect(st.state).toBe('ready');
        expect(st.reopenedFrom).toBe(how);
        // Opened, not rebuilt: the build figures are those stored.
        expect(st.openMs).toBeDefined();
        expect(st.buildMs).toBe(built.buildMs);
        // guide.md, lib.ts, added.txt, README.md, main.ts (re-read: more work, the same answer).
        expect(st.dirty).toBe(5);
        const q = { ...p, indexed: again, tree };
        const r = await same(q, { content_pattern: 'kappaLambda' });
        expect(r.text).toContain('added.txt:1:');
        expect(r.text).toContain('src/lib.ts:1:');
        expect(r.answered).toBe(true);
        expect((await same(q, { content_pattern: 'muNu' })).text).toContain('docs/guide.md:1:');
        expect((await same(q, { content_pattern: 'alphaBeta' })).text).not.toContain('README.md');
        await same(q, { name_pattern: '.', modified_after: new Date(Date.now() - 60_000).toISOString() });
        expect(fs.existsSync(path.join(dir, 'closed.json'))).toBe(false); // taken once
    });

    it.each(['inotify', 'parcel'] as const)('counts a file replaced while closed with its size and modification time set back as changed: its birth time is new (%s watcher, from the listing)', async (watcher) => {
        const indexDir = tempDir('lcf-index-');
        // A time that survives a round trip through utimes (whole seconds).
        const lib = (root: string): string => path.join(root, 'src/lib.ts');
        const p = await pair(FILES, indexDir, (root) => fs.utimesSync(lib(root), 1_700_000_000, 1_700_000_000), watcher);
        await p.indexed.close();
        const dir = path.join(indexDir, fs.readdirSync(indexDir)[0]!);
        fs.rmSync(path.join(dir, 'closed.json'), { force: true });
        // As `sed -i` then `touch -r` (or rsync -t) leave it: a new file, same size, same mtime.
        const file = lib(p.root);
        const was = fs.statSync(file);
        const text = fs.readFileSync(file, 'utf8').replace('alphaBeta', 'omegaPsi_');
        expect(Buffer.byteLength(text)).toBe(was.size);
        fs.writeFileSync(`${file}.new`, text);
        fs.renameSync(`${file}.new`, file);
        fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
        expect(fs.statSync(file).mtimeMs).toBe(was.mtimeMs);
        const again = pkgOf(p.root, { dir: indexDir, watcher });
        const tree = (await again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
        expect(tree.status().state).toBe('ready');
        expect(tree.status().reopenedFrom).toBe('listing');
        const q = { ...p, indexed: again, tree };
        const r = await same(q, { content_pattern: 'omegaPsi_' });
        expect(r.text).toContain('src/lib.ts:1:');
        expect(r.answered).toBe(true);
        expect((await same(q, { content_pattern: 'function alphaBeta' })).text).not.toContain('src/lib.ts');
        await again.close();
    });

    it.each([
        ['inotify', 'listing'],
        ['parcel', 'listing'],
        ['parcel', 'snapshot'],
    ] as const)('counts a file rewritten in place while closed, same size, modification time set back to the nanosecond, as changed: its change time moved (%s watcher, from the %s)', async (watcher, how) => {
        const indexDir = tempDir('lcf-index-');
        const p = await pair(FILES, indexDir, undefined, watcher);
        await p.indexed.close();
        const dir = path.join(indexDir, fs.readdirSync(indexDir)[0]!);
        if (how === 'listing') fs.rmSync(path.join(dir, 'closed.json'), { force: true });
        // As `cp -p` over an existing file or `rsync --inplace -t` leave it: same inode (so the
        // same birth time), same size, the modification time of a reference made before the write.
        const file = path.join(p.root, 'src/lib.ts');
        const ref = path.join(indexDir, 'ref');
        execFileSync('touch', ['-r', file, ref]);
        const was = fs.statSync(file, { bigint: true });
        const text = fs.readFileSync(file, 'utf8').replace('alphaBeta', 'omegaPsi_');
        expect(Buffer.byteLength(text)).toBe(Number(was.size));
        fs.writeFileSync(file, text); // truncates and writes the same inode
        execFileSync('touch', ['-r', ref, file]);
        const now = fs.statSync(file, { bigint: true });
        expect([now.ino, now.size, now.mtimeNs, now.birthtimeNs]).toEqual([was.ino, was.size, was.mtimeNs, was.birthtimeNs]);
        expect(now.ctimeNs).not.toBe(was.ctimeNs);
        const again = pkgOf(p.root, { dir: indexDir, watcher });
        const tree = (await again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
        expect(tree.status().state).toBe('ready');
        expect(tree.status().reopenedFrom).toBe(how === 'snapshot' && watcher === 'parcel' ? 'snapshot' : 'listing');
        expect(tree.status().dirty).toBe(1);
        const q = { ...p, indexed: again, tree };
        const r = await same(q, { content_pattern: 'omegaPsi_' });
        expect(r.text).toBe('success: src/lib.ts:1: export function omegaPsi_(x: number) {');
        expect(r.answered).toBe(true);
        expect((await same(q, { content_pattern: 'function alphaBeta' })).text).not.toContain('src/lib.ts');
        await again.close();
    });

    it.each(['inotify', 'parcel'] as const)('counts a file whose mode changed while closed as changed, and answers exactly (%s watcher, from the listing)', async (watcher) => {
        const indexDir = tempDir('lcf-index-');
        const p = await pair(FILES, indexDir, undefined, watcher);
        await p.indexed.close();
        const dir = path.join(indexDir, fs.readdirSync(indexDir)[0]!);
        fs.rmSync(path.join(dir, 'closed.json'), { force: true });
        const file = path.join(p.root, 'src/deep/a/b.txt');
        const was = fs.statSync(file, { bigint: true });
        fs.chmodSync(file, 0o600);
        const now = fs.statSync(file, { bigint: true });
        expect([now.size, now.mtimeNs, now.birthtimeNs]).toEqual([was.size, was.mtimeNs, was.birthtimeNs]);
        const again = pkgOf(p.root, { dir: indexDir, watcher });
        const tree = (await again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
        expect(tree.status().state).toBe('ready');
        expect(tree.status().reopenedFrom).toBe('listing');
        expect(tree.status().dirty).toBe(1); // re-read: more work, the same answer
        const q = { ...p, indexed: again, tree };
        const r = await same(q, { content_pattern: 'gammaDelta', output_mode: 'files_with_matches' });
        expect(r.text).toContain('src/deep/a/b.txt');
        expect(r.answered).toBe(true);
        await again.close();
    });

    it('reopens watching skipped directories by path: a .git file edited and a node_modules made while closed (@parcel/watcher)', async () => {
        const indexDir = tempDir('lcf-index-');
        const watcher = 'parcel';
        const p = await pair({ ...FILES, 'sub/.git': 'gitdir: ../.git/modules/sub\n' }, indexDir, undefined, watcher);
        await p.indexed.close();
        fs.writeFileSync(path.join(p.root, 'sub/.git'), 'gitdir: ../worktrees/omegaTree\n');
        fs.mkdirSync(path.join(p.root, 'pkg/node_modules/dep'), { recursive: true });
        fs.writeFileSync(path.join(p.root, 'pkg/node_modules/dep/index.js'), 'alphaBeta made while closed\n');
        const again = pkgOf(p.root, { dir: indexDir, watcher });
        const tree = (await again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
        const st = tree.status();
        expect(st.state).toBe('ready');
        expect(st.reopenedFrom).toBe('snapshot');
        expect(st.dirty).toBe(3); // sub/.git, pkg, pkg/node_modules; nothing inside it
        const q = { ...p, indexed: again, tree };
        const r = await same(q, { content_pattern: 'omegaTree' });
        expect(r.text).toBe('success: sub/.git:1: gitdir: ../worktrees/omegaTree');
        expect(r.answered).toBe(true);
        expect((await same(q, { content_pattern: 'alphaBeta' })).text).not.toContain('node_modules');
        // Edited again while this process watches: the watcher reports the file.
        const changed = new Promise<void>((resolve) => tree.on('change', () => resolve()));
        fs.writeFileSync(path.join(p.root, 'sub/.git'), 'gitdir: ../worktrees/sigmaTree\n');
        await changed;
        expect((await same(q, { content_pattern: 'sigmaTree' })).text).toBe('success: sub/.git:1: gitdir: ../worktrees/sigmaTree');
        // Closed at once after a reopen from a snapshot (directory times still being compared): it still leaves one.
        await again.close();
        const third = pkgOf(p.root, { dir: indexDir, watcher });
        const t3 = (await third.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
        expect(t3.status().reopenedFrom).toBe('snapshot');
        await third.close();
        const fourth = pkgOf(p.root, { dir: indexDir, watcher });
        expect((await fourth.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!.status().reopenedFrom).toBe('snapshot');
    });

    it('a change made just before close is seen by the next process (the watcher\'s tree had it before its report came)', async () => {
        const indexDir = tempDir('lcf-index-');
        const p = await pair(FILES, indexDir);
        // Edited right before close: the watcher's tree holds it, its report may not have come.
        fs.writeFileSync(path.join(p.root, 'src/lib.ts'), 'last edit: rhoSigmaTau\n');
        await new Promise((r) => setTimeout(r, 5));
        await p.indexed.close();
        const again = pkgOf(p.root, { dir: indexDir });
        const tree = (await again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
        expect(tree.status().state).toBe('ready');
        const q = { ...p, indexed: again, tree };
        const r = await same(q, { content_pattern: 'rhoSigmaTau' });
        expect(r.text).toBe('success: src/lib.ts:1: last edit: rhoSigmaTau');
        expect(r.answered).toBe(true);
    });


    it('two processes on one tree share the index directory without corrupting it', async () => {
        const root = tempDir('lcf-tree-');
        const files: Record<string, string> = {};
        for (let i = 0; i < 200; i++) files[`d${i % 7}/f${i}.txt`] = `file ${i} token${i % 13} common\n`;
        writeTree(root, files);
        const indexDir = tempDir('lcf-index-');
        const script = path.join(import.meta.dirname, '..', '..', 'support', 'search-index-child.mjs');
        const run = (): Promise<string> =>
            new Promise((resolve, reject) => {
                const child = spawn(process.execPath, [script, root, indexDir], { stdio: ['ignore', 'pipe', 'inherit'] });
                let out = '';
                child.stdout.on('data', (d: Buffer) => (out += d.toString()));
                child.on('error', reject);
                child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${out}`))));
            });
        const [a, b] = await Promise.all([run(), run()]);
        const plain = plainOf(root);
        const expected = await statusAndResult(plain, { content_pattern: 'token7' });
        for (const out of [a, b]) {
            const res = JSON.parse(out) as { state: string; result: string };
            expect(res.state).toBe('ready');
            expect(res.result).toBe(expected);
        }
        // And a third process opens what they left.
        const p = pkgOf(root, { dir: indexDir });
        const tree = (await p.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(tree.status().openMs).toBeDefined();
        expect(await call(p, 'search_entries', { content_pattern: 'token7' })).toBe(expected);
        expect(tree.counts.answered).toBe(1);
    }, 60_000);

});
