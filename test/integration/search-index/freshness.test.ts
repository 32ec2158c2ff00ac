/**
 * The index never answers from a stale table (Linux, the index's own inotify watcher): a search
 * made right after an outside change sees it with no wait, whatever the change (files, whole
 * directories removed, copied, moved within the tree and edited after a rebuild), and a burst
 * that overflows the kernel's event queue makes searches take the scan path until the tree is
 * checked again (then the index answers with what the check found), with no rebuild limit to hide it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import type { Tool } from '@johannes.latzel/llm-chat';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS, type TreeIndex } from '../../../src/internals.js';
import { inotifyAvailable } from '../../../src/search-index/watch/inotify.js';
import { SHARED_POOL, tempDir, writeTree } from '../../support/helpers.js';
import { COMPARED_TIMEOUT_MS, scanPathSearch, statusAndResult, WIDE_OUTPUT } from '../../support/scan-path.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

const LIMITS = (): SearchConfiguration => new SearchConfiguration(1_000_000, 1_000_000, 1_000_000, COMPARED_TIMEOUT_MS);

function pkgOf(root: string, index: { dir: string; rebuildAfter?: number }): FileToolPackage {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, LIMITS(), WIDE_OUTPUT(), undefined, { index, engine: SHARED_POOL });
    open.push(pkg);
    return pkg;
}

interface Pair {
    root: string;
    indexed: FileToolPackage;
    /** The scan path's search_entries on the same tree (support/scan-path.ts). */
    plain: Tool;
    tree: TreeIndex;
    indexDir: string;
}

async function pair(files: Record<string, string>, rebuildAfter = 1_000_000): Promise<Pair> {
    const root = tempDir('lcf-fresh-');
    writeTree(root, files);
    const indexDir = tempDir('lcf-fresh-index-');
    const indexed = pkgOf(root, { dir: indexDir, rebuildAfter });
    const plain = scanPathSearch(root, LIMITS());
    const tree = (await indexed.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(tree.status().state).toBe('ready');
    return { root, indexed, plain, tree, indexDir };
}

async function search(pkg: FileToolPackage, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === 'search_entries')!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

/** The search through both packages, the indexed one first (right after the change): identical results, and whether the index answered. */
async function same(p: Pair, args: Record<string, unknown>): Promise<{ text: string; answered: boolean }> {
    const before = p.tree.counts.answered;
    const a = await search(p.indexed, args);
    const answered = p.tree.counts.answered > before;
    const b = await statusAndResult(p.plain, args);
    expect(a, JSON.stringify(args)).toBe(b);
    return { text: a, answered };
}

/** Resolves when the tree has been built again and is ready. */
function rebuilt(tree: TreeIndex): Promise<void> {
    return new Promise((resolve) => {
        let building = false;
        const on = (st: { state: string }): void => {
            if (st.state === 'building') building = true;
            if (building && st.state === 'ready') {
                tree.off('state', on);
                resolve();
            }
        };
        tree.on('state', on);
    });
}

function copyTree(n: number, token: string): Record<string, string> {
    const files: Record<string, string> = {};
    for (let d = 0; d < 10; d++) for (let f = 0; f < n / 10; f++) files[`d${d}/sub${f % 3}/f${f}.c`] = `int ${token}_${d}_${f} = ${f};\n`;
    return files;
}

describe.runIf(inotifyAvailable())('index freshness (inotify)', () => {
    it('a search right after an outside change sees it, with no wait for the watcher', async () => {
        const p = await pair({ 'src/a.c': 'int alpha;\n', 'src/b.c': 'int beta;\n', 'docs/readme.md': 'hello\n' });
        for (let i = 0; i < 25; i++) {
            const token = `fresh${i}Token`;
            // A new file, an edit, a new directory with a file, a removal: each searched at once.
            fs.writeFileSync(path.join(p.root, `src/new${i}.c`), `int ${token};\n`);
            const r1 = await same(p, { content_pattern: token });
            expect(r1.text).toContain(`src/new${i}.c:1:`);
            fs.writeFileSync(path.join(p.root, 'src/a.c'), `int alpha_${token}_edited;\n`);
            expect((await same(p, { content_pattern: `alpha_${token}_edited` })).text).toContain('src/a.c:1:');
            fs.mkdirSync(path.join(p.root, `made${i}/deep`), { recursive: true });
            fs.writeFileSync(path.join(p.root, `made${i}/deep/x.c`), `int made_${token};\n`);
            expect((await same(p, { content_pattern: `made_${token}` })).text).toContain(`made${i}/deep/x.c:1:`);
            fs.rmSync(path.join(p.root, `src/new${i}.c`));
            expect((await same(p, { content_pattern: token })).text).not.toContain(`new${i}.c`);
        }
        expect(p.tree.counts.answered).toBeGreaterThan(50);
    }, 120_000);

    it('whole directories removed and copied in are right in the very next search', async () => {
        const p = await pair({ ...copyTree(300, 'oldCopy'), 'keep.c': 'int kept;\n' });
        const spare = tempDir('lcf-fresh-spare-');
        writeTree(spare, copyTree(300, 'newCopy'));
        for (let d = 0; d < 10; d++) {
            // One shell command: the removal and the copy happen while this process is blocked.
            execFileSync('sh', ['-c', `rm -rf "${p.root}/d${d}" && cp -al "${spare}/d${d}" "${p.root}/d${d}"`]);
            const r = await same(p, { content_pattern: `(oldCopy|newCopy)_${d}_`, output_mode: 'count' });
            expect(r.text).toContain(`d${d}/`);
            expect((await same(p, { content_pattern: `oldCopy_${d}_` })).text).not.toContain(`d${d}/`);
            expect((await same(p, { name_pattern: `^f7\\.c$` })).text).toContain(`d${d}/sub1/f7.c`);
        }
    }, 120_000);

    it('a directory moved within the tree keeps its watches: edits inside it after a rebuild are seen', async () => {
        const p = await pair({ 'a/b/c/deep.c': 'int deepOne;\n', 'a/b/other.c': 'int other;\n', 'z/keep.c': 'int keep;\n' }, 3);
        fs.renameSync(path.join(p.root, 'a/b'), path.join(p.root, 'z/moved'));
        expect((await same(p, { content_pattern: 'deepOne' })).text).toContain('z/moved/c/deep.c:1:');
        // Past the rebuild limit: the tree is built again from disk, then served.
        const done = rebuilt(p.tree);
        for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(p.root, `z/extra${i}.c`), `int extra${i};\n`);
        expect((await same(p, { content_pattern: 'extra3' })).text).toContain('z/extra3.c');
        await done;
        fs.writeFileSync(path.join(p.root, 'z/moved/c/deep.c'), 'int deepTwo;\n');
        fs.mkdirSync(path.join(p.root, 'z/moved/c/newer'));
        fs.writeFileSync(path.join(p.root, 'z/moved/c/newer/n.c'), 'int deepThree;\n');
        const r = await same(p, { content_pattern: 'deep(Two|Three)' });
        expect(r.text).toContain('z/moved/c/deep.c:1:');
        expect(r.text).toContain('z/moved/c/newer/n.c:1:');
        expect(r.answered).toBe(true);
    }, 120_000);

    it('past the rebuild limit and while the rebuild runs, the index still answers: the old table and the changed subtrees walked from disk', async () => {
        const p = await pair({ ...copyTree(400, 'gone'), 'keep/k.c': 'int keepToken;\n' }, 50);
        const spare = tempDir('lcf-fresh-spare-');
        writeTree(spare, copyTree(400, 'arrived'));
        fs.rmSync(path.join(p.root, 'd0'), { recursive: true });
        execFileSync('cp', ['-al', path.join(spare, 'd0'), path.join(p.root, 'd0')]);
        fs.rmSync(path.join(p.root, 'd1'), { recursive: true });
        for (const q of ['arrived_0_\\d+', 'gone_0_1\\b', 'gone_1_\\d+', 'keepToken', 'gone_5_7\\b']) {
            const r = await same(p, { content_pattern: q });
            expect(r.answered, q).toBe(true);
        }
        expect((await same(p, { content_pattern: 'arrived_0_7\\b' })).text).toContain('d0/sub1/f7.c:1:');
    }, 120_000);

    it.each([
        ['a check of the tree, no rebuild', 1_000_000, false],
        ['a rebuild, the changed paths being over the rebuild limit', 1_000, false],
        ['a rebuild, the check having failed (its stored table gone)', 1_000_000, true],
    ])('a burst that overflows the kernel\'s event queue makes searches take the scan path until %s, never a stale answer', async (_, rebuildAfter, checkFails) => {
        const queue = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
        const p = await pair({ 'burst/seed.c': 'int seed;\n', 'other/o.c': 'int other;\n', 'gone/g.c': 'int goneToken;\n' }, rebuildAfter);
        const states: string[] = [];
        p.tree.on('state', (st: { state: string }) => states.push(st.state));
        // Each new file queues three events (create, modify, close-write: the watcher's mask), so
        // a third of the queue in files plus 2,000 overflows it by some 6,000 events; the first
        // case's answer from the scan path and the third's rebuild show that it did.
        const n = Math.ceil(queue / 3) + 2_000;
        const rebuilds = rebuildAfter < n || checkFails;
        // The served table stays open; the file the check reads is gone.
        if (checkFails) {
            for (const d of fs.readdirSync(p.indexDir)) {
                for (const g of fs.readdirSync(path.join(p.indexDir, d)).filter((g) => g.startsWith('gen-'))) fs.rmSync(path.join(p.indexDir, d, g, 'table.bin'));
            }
        }
        // Made by another process while this one's event loop is blocked: nothing reads the queue
        // meanwhile; the queue overflows before the last files and the removal are queued.
        const script = `const fs=require('fs');for(let i=0;i<${n};i++)fs.writeFileSync(${JSON.stringify(p.root)}+'/burst/b'+i+'.c','int burstToken'+i+';\\n');fs.rmSync(${JSON.stringify(p.root)}+'/gone',{recursive:true});fs.writeFileSync(${JSON.stringify(p.root)}+'/other/o.c','int otherChanged;\\n');`;
        const made = spawnSync(process.execPath, ['-e', script]);
        expect(made.status).toBe(0);
        const done = rebuilds ? rebuilt(p.tree) : null;
        const r = await same(p, { content_pattern: 'burstToken', output_mode: 'count' });
        expect(r.text.replace(/^success: /, '').split('\n').filter((l) => /^burst\/b\d+\.c: 1$/.test(l))).toHaveLength(n);
        expect(r.answered).toBe(false);
        // While the tree is checked: exact answers (the scan path).
        for (const q of ['goneToken', 'otherChanged', `burstToken${n - 1};`]) await same(p, { content_pattern: q });
        await p.tree.settled();
        await done;
        for (const [q, hit] of [[`burstToken${n - 1};`, `burst/b${n - 1}.c:1:`], ['otherChanged', 'other/o.c:1:'], ['goneToken', 'No entries found']] as const) {
            const again = await same(p, { content_pattern: q });
            expect(again.text).toContain(hit);
            expect(again.answered, q).toBe(true);
        }
        // Answered from the table and the changed paths the check found, or from a new generation.
        expect(states.includes('building')).toBe(rebuilds);
        expect(p.tree.status().dirty).toBe(rebuilds ? 0 : n + 3);
    }, 180_000);

    it('events lost during a rebuild, after its walk: the new table serves once a check of the tree has found them, with no second rebuild', async () => {
        const queue = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
        const p = await pair({ ...copyTree(300, 'old'), 'burst/x.c': 'int x;\n', 'burst/y.c': 'int y;\n' }, 100);
        const states: string[] = [];
        p.tree.on('state', (st: { state: string }) => states.push(st.state));
        // Once the rebuild's walk is over, another process writes two files by turns (events of two
        // paths, never merged by the kernel) while this event loop is blocked: the queue overflows,
        // and the last write is one the new table cannot hold.
        let burst = false;
        p.tree.on('progress', (st: { phase?: string }) => {
            if (burst || st.phase !== 'content') return;
            burst = true;
            const script = `const fs=require('fs');const r=${JSON.stringify(p.root)};for(let i=0;i<${queue};i++)fs.writeFileSync(r+'/burst/'+(i%2?'x':'y')+'.c','int w'+i+';\\n');fs.writeFileSync(r+'/burst/x.c','int lostDuringBuild;\\n');`;
            expect(spawnSync(process.execPath, ['-e', script]).status).toBe(0);
        });
        const done = rebuilt(p.tree);
        for (let i = 0; i < 150; i++) fs.writeFileSync(path.join(p.root, `burst/n${i}.c`), `int startRebuild${i};\n`);
        await done;
        expect(burst).toBe(true);
        // Until the check has run: the scan path, exact.
        await same(p, { content_pattern: 'lostDuringBuild' });
        await p.tree.settled();
        const r = await same(p, { content_pattern: 'lostDuringBuild' });
        expect(r.text).toContain('burst/x.c:1:');
        expect(r.answered).toBe(true);
        expect(states.filter((s) => s === 'building')).toHaveLength(1);
        expect(states).not.toContain('failed');
    }, 180_000);
});
