/**
 * The search index against the scan path: every search is run twice, through a package with the
 * index and one without, and the two result strings must be identical; the index must also have
 * answered (its `counts`), so a test cannot pass by silently falling back to the scan path.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import type { Tool } from '@johannes.latzel/llm-chat';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS, type TreeIndex } from '../../../src/internals.js';
import type { WatcherKind } from '../../../src/search-index/watch/watch.js';
import { SegmentReader } from '../../../src/search-index/shared/segment.js';
import { distinctGrams, gramsOf } from '../../../src/search/shared/fold.js';
import { asciiGrams } from '../../../workers/search-index/index-chunk.js';
import { scanText } from '../../../src/text/shared/text.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { scanPathSearch, statusAndResult } from '../../support/scan-path.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

interface Pair {
    root: string;
    indexDir: string;
    indexed: FileToolPackage;
    /** The scan path's search_entries on the same tree. */
    plain: Tool;
    tree: TreeIndex;
}

const LIMITS = (): SearchConfiguration => new SearchConfiguration(100_000, 100_000, 100_000);

function pkgOf(root: string, index: { dir: string; rebuildAfter?: number; segmentBytes?: number; watcher?: WatcherKind }): FileToolPackage {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, LIMITS(), undefined, undefined, { index });
    open.push(pkg);
    return pkg;
}

/** The scan path on `root`: a package's search_entries without the index (support/scan-path.ts). */
function plainOf(root: string): Tool {
    return scanPathSearch(root, LIMITS());
}

async function pair(files: Record<string, string | Buffer>, indexDir = tempDir('lcf-index-'), prepare?: (root: string) => void, watcher?: WatcherKind): Promise<Pair> {
    const root = tempDir('lcf-tree-');
    writeTree(root, files);
    prepare?.(root);
    const indexed = pkgOf(root, { dir: indexDir, ...(watcher && { watcher }) });
    const plain = plainOf(root);
    const tree = (await indexed.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(tree.status().state).toBe('ready');
    return { root, indexDir, indexed, plain, tree };
}

async function call(pkg: FileToolPackage, tool: string, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === tool)!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

/** The search through both packages: identical results, and whether the index answered it. */
async function same(p: Pair, args: Record<string, unknown>): Promise<{ text: string; answered: boolean }> {
    const before = p.tree.counts.answered;
    const a = await call(p.indexed, 'search_entries', args);
    const b = await statusAndResult(p.plain, args);
    expect(a, JSON.stringify(args)).toBe(b);
    return { text: a, answered: p.tree.counts.answered > before };
}

const FILES: Record<string, string | Buffer> = {
    'README.md': 'Project readme\nmentions alphaBeta once\n',
    'src/main.ts': 'import { alphaBeta } from "../../lib";\nconsole.log(alphaBeta(1));\n',
    'src/lib.ts': 'export function alphaBeta(x: number) {\n  return x * 2; // ALPHABETA doubled\n}\n',
    'src/deep/a/b/c.ts': 'const gammaDelta = 3;\n',
    'src/deep/a/b.txt': 'gammaDelta in a text file\n',
    'docs/guide.md': 'Guide: use alphaBeta and gammaDelta.\nÜmlaut straße café\n',
    'docs/latin1.txt': Buffer.from('caf\xe9 gammaDelta latin-1\n', 'latin1'),
    'docs/utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('utf16 gammaDelta here\n', 'utf16le')]),
    'bin/blob.bin': Buffer.from([0, 1, 2, 3, 0x61, 0x6c, 0x70, 0x68, 0x61, 0, 0, 0]),
    'empty.txt': '',
    'node_modules/dep/index.js': 'alphaBeta in a skipped dir\n',
    'CRLF.txt': 'line one gammaDelta\r\nline two\r\n',
    '.gitignore': '*.txt\n!CRLF.txt\nbin/\n',
    'src/.gitignore': 'deep/a/b/\n',
    'src/deep/.gitignore': '!*.txt\n',
};

const QUERIES: Record<string, unknown>[] = [
    { content_pattern: 'alphaBeta' },
    { content_pattern: 'ALPHABETA', output_mode: 'count' },
    { content_pattern: 'gammaDelta', output_mode: 'files_with_matches' },
    { content_pattern: 'gamma(Delta|Ray)' },
    { content_pattern: 'caf[eé]' },
    { content_pattern: 'straße' },
    { content_pattern: 'STRASSE' },
    { content_pattern: '^const gamma' },
    { content_pattern: 'alpha.*doubled' },
    { content_pattern: 'nothing-like-this-anywhere' },
    { content_pattern: 'alphaBeta', context_lines: 1 },
    { content_pattern: 'gammaDelta', path: 'src' },
    { content_pattern: 'gammaDelta', path: 'src/deep/a' },
    { content_pattern: 'gammaDelta', include: '*.ts' },
    { content_pattern: 'gammaDelta', exclude: 'deep/' },
    { content_pattern: 'alphaBeta', name_pattern: '\\.ts$' },
    { content_pattern: 'gammaDelta', max_size: 10 },
    { content_pattern: 'alphaBeta', max_results: 2 },
    { name_pattern: 'guide' },
    { name_pattern: 'deep', type: 'directory' },
    { name_pattern: '\\.txt$', type: 'file' },
    { name_pattern: 'lib', modified_after: '2000-01-01T00:00:00Z' },
    { name_pattern: 'main|guide' },
    { content_pattern: 'gammaDelta', respect_gitignore: true },
    { content_pattern: 'alphaBeta', respect_gitignore: true, path: 'src' },
    { name_pattern: 'b', respect_gitignore: true },
];

describe('search index', () => {
    it('answers content and name searches with exactly the scan path results', async () => {
        const p = await pair(FILES);
        let answered = 0;
        for (const q of QUERIES) if ((await same(p, q)).answered) answered++;
        // Everything selective is answered from the index (a few broad ones may take the scan path).
        expect(answered).toBeGreaterThanOrEqual(QUERIES.length - 4);
        expect((await same(p, { content_pattern: 'alphaBeta' })).answered).toBe(true);
        expect((await same(p, { name_pattern: 'guide' })).answered).toBe(true);
        const ignored = await same(p, { content_pattern: 'gammaDelta', respect_gitignore: true });
        expect(ignored.answered).toBe(true);
        expect(ignored.text).toContain('CRLF.txt');
        expect(ignored.text).not.toContain('latin1.txt');
        const st = p.tree.status();
        expect(st.entries).toBeGreaterThan(10);
        expect(st.diskBytes).toBeGreaterThan(0);
    });

    it('gives the scan path results when each build thread indexes many chunks (the thread\'s tables reused)', async () => {
        // Small segments: every build thread runs many chunk tasks, so a table left dirty by one
        // chunk would show as wrong or missing candidates in the next.
        const root = tempDir('lcf-tree-');
        const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa', 'lambda', 'omicron'];
        const files: Record<string, string> = {};
        for (let i = 0; i < 240; i++) {
            const a = words[i % words.length]!;
            const b = words[(i * 7 + 3) % words.length]!;
            files[`d${i % 12}/f${i}.txt`] = `${a}_${b}_${i} line\n${'filler text '.repeat(i % 40)}\nend ${b}${i % 5}\n`;
        }
        writeTree(root, files);
        const dir = tempDir('lcf-index-');
        const indexed = pkgOf(root, { dir, segmentBytes: 2048 });
        const plain = plainOf(root);
        const tree = (await indexed.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(tree.status().state).toBe('ready');
        const segments = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => /seg-\d+\.bin$/.test(f));
        expect(segments.length).toBeGreaterThan(20);
        const p: Pair = { root, indexDir: dir, indexed, plain, tree };
        let answered = 0;
        const patterns = [...words.map((w) => `${w}_`), ...words.map((w) => `_${w}_1\\d`), 'end kappa3', 'LAMBDA_ALPHA', 'zeta_theta_2', 'filler text filler'];
        for (const q of patterns) {
            const r = await same(p, { content_pattern: q, output_mode: 'files_with_matches' });
            expect(r.text, q).toMatch(/^success: /);
            if (r.answered) answered++;
        }
        expect(answered).toBeGreaterThanOrEqual(patterns.length - 1);
    });

    it('indexes a UTF-8 file with a byte-order mark and invalid bytes as the scan reads it (leniently, not as Latin-1)', async () => {
        const p = await pair({
            'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('café au lait '), Buffer.from([0xff]), Buffer.from('\n')]),
            'plain.txt': 'nothing here\n',
        });
        const r = await same(p, { content_pattern: 'café au' });
        expect(r.text).toContain('bom.txt');
        expect(r.answered).toBe(true);
    });

    it('keeps the same entries as the scan path under time filters (one entry policy: files, directories, links)', async () => {
        // Whole seconds survive utimes; three ages: old (2020), middle (2022), new (now).
        const OLD = 1_600_000_000;
        const MID = 1_650_000_000;
        const p = await pair(FILES, undefined, (root) => {
            fs.symlinkSync('src', path.join(root, 'src-link'));
            fs.symlinkSync('docs/guide.md', path.join(root, 'guide-link.md'));
            for (const [rel, t] of [
                ['src/main.ts', OLD],
                ['src/deep/a/b.txt', OLD],
                ['docs/guide.md', MID],
                ['src/deep/a', MID],
                ['src/deep', OLD],
            ] as const) fs.utimesSync(path.join(root, rel), t, t);
        });
        const iso = (s: number): string => new Date(s * 1000).toISOString();
        const soon = new Date(Date.now() + 3_600_000).toISOString();
        const cases: Record<string, unknown>[] = [
            { name_pattern: '.', modified_before: iso(MID - 1) },
            { name_pattern: '.', modified_after: iso(OLD), modified_before: iso(MID + 1) },
            { name_pattern: '.', modified_after: iso(MID) },
            { name_pattern: '.', type: 'directory', modified_before: iso(MID + 1) },
            { name_pattern: '\\.(ts|txt|md)$', type: 'file', modified_after: iso(OLD - 1), modified_before: iso(MID) },
            { name_pattern: '.', created_before: soon, modified_before: iso(MID + 1) },
            { name_pattern: '.', created_after: soon },
            { name_pattern: 'guide', modified_after: iso(OLD + 1) },
        ];
        const texts: string[] = [];
        for (const q of cases) {
            const r = await same(p, q);
            expect(r.answered, JSON.stringify(q)).toBe(true);
            texts.push(r.text);
        }
        // The filters split the tree (not everything, not nothing), through the links too.
        expect(texts[0]).toContain('src/main.ts');
        expect(texts[0]).toContain('src-link/main.ts');
        expect(texts[0]).not.toContain('guide.md');
        expect(texts[1]).toContain('docs/guide.md');
        expect(texts[1]).toContain('guide-link.md');
        expect(texts[1]).not.toContain('src/main.ts');
        expect(texts[2]).not.toContain('src/main.ts');
        expect(texts[2]).toContain('README.md');
        expect(texts[3]).toContain('src/deep');
        expect(texts[6]).not.toContain('README.md');
    });

    it('follows symbolic links as the walk does (directories, files, broken, loops, outside the accesses)', async () => {
        const outside = tempDir('lcf-outside-');
        writeTree(outside, { 'o.txt': 'alphaBeta outside\n' });
        const root = tempDir('lcf-tree-');
        writeTree(root, FILES);
        fs.symlinkSync('../src', path.join(root, 'docs/src-link'));
        fs.symlinkSync('lib.ts', path.join(root, 'src/lib-link.ts'));
        fs.symlinkSync('nowhere', path.join(root, 'src/broken'));
        fs.symlinkSync('..', path.join(root, 'src/deep/up'));
        fs.symlinkSync(outside, path.join(root, 'out-link'));
        fs.symlinkSync('../docs', path.join(root, 'src/deep/a/docs-link'));
        const indexDir = tempDir('lcf-index-');
        const indexed = pkgOf(root, { dir: indexDir });
        const plain = plainOf(root);
        const tree = (await indexed.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        const p = { root, indexDir, indexed, plain, tree };
        for (const q of QUERIES) await same(p, q);
        await same(p, { content_pattern: 'gammaDelta', respect_gitignore: true });
        const r = await same(p, { content_pattern: 'alphaBeta' });
        expect(r.answered).toBe(true);
        expect(r.text).toContain('docs/src-link/lib.ts');
        expect(r.text).toContain('src/lib-link.ts');
        expect(r.text).not.toContain('outside');
        expect((await same(p, { name_pattern: 'link' })).answered).toBe(true);
        // Changed under a link's target: the walk follows the link again.
        fs.writeFileSync(path.join(root, 'src/new.ts'), 'alphaBeta fresh\n');
        await tree.sync();
        expect((await same(p, { content_pattern: 'alphaBeta fresh' })).text).toContain('docs/src-link/new.ts');
        // Links to files are decided from their targets' entries: one that is no candidate is not opened.
        fs.symlinkSync('../bin/blob.bin', path.join(root, 'src/blob-link'));
        fs.symlinkSync('empty.txt', path.join(root, 'empty-link'));
        fs.symlinkSync(path.join(outside, 'o.txt'), path.join(root, 'src/o-link.txt'));
        await tree.sync();
        for (const q of QUERIES) await same(p, q);
        // lib-link.ts leads to lib.ts, which holds no gammaDelta: it adds nothing to what the workers get.
        expect((await same(p, { content_pattern: 'gammaDelta', include: ['src/lib-link.ts'] })).answered).toBe(true);
        const withLink = tree.lastPlan.handedOut;
        expect((await same(p, { content_pattern: 'gammaDelta', include: ['src/no-such-file'] })).answered).toBe(true);
        expect(withLink).toBe(tree.lastPlan.handedOut);
        expect((await same(p, { name_pattern: 'o-link' })).text).not.toContain('o-link.txt');
        // The target changes: the link is a candidate again.
        fs.appendFileSync(path.join(root, 'src/lib.ts'), 'zetaOmega\n');
        await tree.sync();
        const z = await same(p, { content_pattern: 'zetaOmega' });
        expect(z.text).toContain('src/lib-link.ts');
    });

    it('resolves links again once a change is noted: a link retargeted on disk, to a file or a directory, is followed to its new target', async () => {
        const p = await pair({ 'a.txt': 'needleOne\n', 'b.txt': 'needleTwo\n', 'sub/x.txt': 'needleThree x\n', 'sub2/y.txt': 'needleThree y\n' }, tempDir('lcf-index-'), (root) => {
            fs.symlinkSync('a.txt', path.join(root, 'l.txt'));
            fs.symlinkSync('sub', path.join(root, 'dl'));
        });
        // Twice each: the second search takes the links resolved by the first.
        for (let i = 0; i < 2; i++) {
            const one = await same(p, { content_pattern: 'needleOne' });
            expect(one.answered).toBe(true);
            expect(one.text).toContain('l.txt');
            const three = await same(p, { content_pattern: 'needleThree' });
            expect(three.text).toContain('dl/x.txt');
            expect(three.text).not.toContain('dl/y.txt');
        }
        fs.rmSync(path.join(p.root, 'l.txt'));
        fs.symlinkSync('b.txt', path.join(p.root, 'l.txt'));
        fs.rmSync(path.join(p.root, 'dl'));
        fs.symlinkSync('sub2', path.join(p.root, 'dl'));
        await p.tree.sync();
        expect((await same(p, { content_pattern: 'needleOne' })).text).not.toContain('l.txt');
        expect((await same(p, { content_pattern: 'needleTwo' })).text).toContain('l.txt');
        const three = await same(p, { content_pattern: 'needleThree' });
        expect(three.text).toContain('dl/y.txt');
        expect(three.text).not.toContain('dl/x.txt');
        // The target's content changes: seen through the link.
        fs.writeFileSync(path.join(p.root, 'b.txt'), 'needleFour now\n');
        await p.tree.sync();
        expect((await same(p, { content_pattern: 'needleFour' })).text).toContain('l.txt');
        expect((await same(p, { content_pattern: 'needleTwo' })).text).not.toContain('l.txt');
    });

    it('stores the index outside the tree, in the given directory, private', async () => {
        const p = await pair(FILES);
        const found = fs.readdirSync(p.indexDir);
        expect(found.length).toBe(1);
        const dir = path.join(p.indexDir, found[0]!);
        expect(fs.existsSync(path.join(dir, 'manifest.json'))).toBe(true);
        expect(fs.statSync(p.indexDir).mode & 0o077).toBe(0);
        // Nothing was written into the searched tree.
        expect(fs.readdirSync(p.root).sort()).toEqual(['.gitignore', 'CRLF.txt', 'README.md', 'bin', 'docs', 'empty.txt', 'node_modules', 'src']);
    });

    it('never indexes a tree that holds the index directory', async () => {
        const root = tempDir('lcf-tree-');
        writeTree(root, { 'a.txt': 'alphaBeta\n' });
        const pkg = pkgOf(root, { dir: path.join(root, '.cache-index') });
        expect(await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root])).toBeNull();
        expect(await call(pkg, 'search_entries', { content_pattern: 'alphaBeta' })).toBe('success: a.txt:1: alphaBeta');
        expect(fs.existsSync(path.join(root, '.cache-index'))).toBe(false);
    });

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
            for (let i = 0; i < 200 && !(await call(indexed, 'search_entries', { content_pattern: pattern })).includes(text); i++) await new Promise((r) => setTimeout(r, 50));
        };
        const states: string[] = [];
        tree.on('state', (st: { state: string }) => states.push(st.state));
        fs.renameSync(path.join(outside, 'x'), path.join(root, 'moved'));
        await seen('beforeRebuild', 'moved/y/z/deep.ts');
        expect((await same(p, { content_pattern: 'beforeRebuild' })).text).toBe('success: moved/y/z/deep.ts:1: const beforeRebuild = 1;');
        // More changed paths than rebuildAfter: a rebuild in the background; wait until it is served.
        for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, `extra${i}.txt`), `extra ${i}\n`);
        for (let i = 0; i < 400 && !(states.includes('building') && states.at(-1) === 'ready'); i++) await new Promise((r) => setTimeout(r, 50));
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
        for (let i = 0; i < 400 && tree.status().dirty > 3; i++) await new Promise((res) => setTimeout(res, 50));
        for (let i = 0; i < 400 && tree.status().state !== 'ready'; i++) await new Promise((res) => setTimeout(res, 50));
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
        // Changed and restored (type, size and time as the table has them): not a change.
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
        expect(st.dirty).toBe(4); // guide.md, lib.ts, added.txt, README.md
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

    it('is not served while another index of the same process watches the tree (@parcel/watcher\'s crawl is shared)', async () => {
        const p = await pair(FILES, undefined, undefined, 'parcel');
        const second = pkgOf(p.root, { dir: tempDir('lcf-index-'), watcher: 'parcel' });
        const tree = (await second.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
        expect(tree.status().state).toBe('failed');
        expect(tree.status().error).toMatch(/another index of this process watches this tree/);
        const q = { ...p, indexed: second, tree };
        const r = await same(q, { content_pattern: 'alphaBeta' });
        expect(r.answered).toBe(false);
        expect((await same(p, { content_pattern: 'alphaBeta' })).answered).toBe(true);
    });

    it('detects a truncated or corrupted index and rebuilds it', async () => {
        const indexDir = tempDir('lcf-index-');
        const p = await pair(FILES, indexDir);
        await p.indexed.close();
        const dir = path.join(indexDir, fs.readdirSync(indexDir)[0]!);
        /** The current generation's directory, from the manifest. */
        const current = (): string => path.join(dir, (JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8').split('\n')[0]!) as { gen: string }).gen);
        const flip = (file: string, at: number): void => {
            const b = fs.readFileSync(file);
            const i = at < 0 ? b.length + at : at;
            b[i] = b[i]! ^ 0xff;
            fs.writeFileSync(file, b);
        };
        const damages: (() => void)[] = [
            () => fs.truncateSync(path.join(current(), 'seg-0000.bin'), fs.statSync(path.join(current(), 'seg-0000.bin')).size - 3),
            () => flip(path.join(current(), 'table.bin'), -5),
            () => flip(path.join(current(), 'seg-0000.bin'), 70),
            () => flip(path.join(dir, 'manifest.json'), 10),
            () => {
                // A foreign format version, with a valid checksum.
                const [body] = fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8').split('\n');
                const m = JSON.parse(body!) as { version: number };
                m.version = 999;
                const text = JSON.stringify(m);
                fs.writeFileSync(path.join(dir, 'manifest.json'), `${text}\n${crc32(Buffer.from(text)).toString(16)}\n`);
            },
        ];
        for (const damage of damages) {
            damage();
            const again = pkgOf(p.root, { dir: indexDir });
            const tree = (await again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
            expect(tree.status().state).toBe('ready');
            // Rebuilt: no reopen figure, a fresh generation.
            expect(tree.status().openMs).toBeUndefined();
            const q = { ...p, indexed: again, tree };
            expect((await same(q, { content_pattern: 'gammaDelta' })).answered).toBe(true);
            await again.close();
        }
    });

    it('detects a posting list corrupted while serving: that search takes the scan path, the index is rebuilt', async () => {
        const p = await pair(FILES);
        const dir = path.join(p.indexDir, fs.readdirSync(p.indexDir)[0]!);
        const gen = fs.readdirSync(dir).find((n) => n.startsWith('gen-'))!;
        const seg = path.join(dir, gen, 'seg-0000.bin');
        // Flip the bytes of the posting list of the gram "alp".
        const reader = new SegmentReader(seg);
        const ref = reader.lookup([...gramsOf('alp')][0]!)!;
        const at = reader.postingsAt + ref.off;
        reader.close();
        const fd = fs.openSync(seg, 'r+');
        const bytes = Buffer.alloc(ref.len);
        fs.readSync(fd, bytes, 0, ref.len, at);
        fs.writeSync(fd, bytes.map((x) => x ^ 0x5a), 0, ref.len, at);
        fs.closeSync(fd);
        const states: string[] = [];
        p.tree.on('state', (st: { state: string }) => states.push(st.state));
        const r = await same(p, { content_pattern: 'alphaBeta' });
        expect(r.text).toContain('src/lib.ts');
        expect(r.answered).toBe(false);
        expect(states[0]).toBe('failed');
        await new Promise<void>((resolve) => {
            const check = (): void => (p.tree.state === 'ready' ? resolve() : void setTimeout(check, 50));
            check();
        });
        expect((await same(p, { content_pattern: 'alphaBeta' })).answered).toBe(true);
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

    it("the builder's ASCII fast path gives exactly the planner's grams", () => {
        fc.assert(
            fc.property(fc.uint8Array({ maxLength: 400 }), (raw) => {
                const buf = Buffer.from(raw.map((b) => b & 0x7f));
                expect([...asciiGrams(buf)]).toEqual([...distinctGrams(scanText(buf))]);
            }),
            { numRuns: 300 },
        );
    });

    it('is off by default in the library and on with the package option', () => {
        const root = tempDir('lcf-tree-');
        const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Read }], workspacePath: root });
        const before = process.env.LLM_CHAT_FS_INDEX;
        delete process.env.LLM_CHAT_FS_INDEX;
        try {
            const off = new FileToolPackage(ws);
            open.push(off);
            expect(off.searchIndex).toBeUndefined();
            process.env.LLM_CHAT_FS_INDEX = 'true';
            const on = new FileToolPackage(ws);
            open.push(on);
            expect(on.searchIndex).toBeDefined();
        } finally {
            if (before === undefined) delete process.env.LLM_CHAT_FS_INDEX;
            else process.env.LLM_CHAT_FS_INDEX = before;
        }
    });
});
