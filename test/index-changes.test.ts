/**
 * The index's changed paths (changes.ts): the watcher leaves out the directories a search skips
 * (by name, at any depth), with one regular expression instead of a glob per name (`ignoreOf`),
 * and a large batch of changes is noted whole, though in slices.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Changes, ignoreOf } from '../src/search-index/changes.js';
import { tempDir, writeTree } from './helpers.js';

const subscribed: Changes[] = [];
afterEach(async () => {
    await Promise.all(subscribed.splice(0).map((c) => c.unsubscribe()));
});

describe('index changes', () => {
    it('matches a path whose last component is a skipped name, literally, and nothing else', () => {
        // The watcher tests the expression anywhere in an absolute path (RegExp.test semantics).
        const [re] = ignoreOf(['.git', 'node_modules', 'a+b', 'c.d', '[x]']);
        for (const p of ['/r/.git', '/r/sub/.git', '/r/node_modules', '/r/x/node_modules', '/r/a+b', '/r/c.d', '/r/[x]']) expect(re!.test(p), p).toBe(true);
        for (const p of ['/r/.gitignore', '/r/x.git', '/r/node_modules_x', '/r/my-node_modules', '/r/.git/config', '/r/node_modules/dep', '/r/aab', '/r/cxd', '/r/x', '/r/src']) expect(re!.test(p), p).toBe(false);
        expect(ignoreOf([])).toEqual([]);
        expect(re!.flags).toBe('');
    });

    it('the watcher reports changes in the tree and none inside skipped directories', async () => {
        const root = fs.realpathSync(tempDir('lcf-watch-ignore-'));
        writeTree(root, { 'src/a.ts': 'a\n', 'node_modules/dep/index.js': 'x\n', 'pkg/.git/HEAD': 'ref\n' });
        let changed = 0;
        const c = new Changes(root, 100_000, { onChange: () => changed++, onRebuild: () => undefined });
        await c.subscribe(['.git', 'node_modules']);
        subscribed.push(c);
        expect(c.watching).toBe(true);
        fs.writeFileSync(path.join(root, 'node_modules/dep/index.js'), 'changed\n');
        fs.writeFileSync(path.join(root, 'node_modules/new.js'), 'new\n');
        fs.writeFileSync(path.join(root, 'pkg/.git/HEAD'), 'changed\n');
        fs.writeFileSync(path.join(root, 'src/a.ts'), 'changed\n');
        // Waits for the watcher's report of the last write (events come in batches, in order).
        for (let i = 0; i < 200 && !c.dirty.has('src/a.ts'); i++) await new Promise((r) => setTimeout(r, 50));
        expect(c.dirty.has('src/a.ts')).toBe(true);
        expect(changed).toBeGreaterThan(0);
        expect([...c.dirty.keys()].filter((p) => p.split('/').some((part) => part === '.git' || part === 'node_modules'))).toEqual([]);
    });

    it('notes a batch of 60,000 changed paths and directory times whole, and nothing is pending after', async () => {
        let rebuilds = 0;
        const c = new Changes(tempDir('lcf-changes-'), 100_000, { onChange: () => undefined, onRebuild: () => rebuilds++ });
        const changed = Array.from({ length: 60_000 }, (_, i) => `d${i % 97}/f${i}.c`);
        const dirTimes = Array.from({ length: 3_000 }, (_, i) => `d${i}`);
        const noting = c.noteAll({ changed, dirTimes });
        await noting;
        expect(c.pending).toBe(0);
        expect(c.dirty.size).toBe(changed.length);
        for (const p of changed) expect(c.dirty.has(p)).toBe(true);
        expect([...c.dirTimes]).toEqual(dirTimes);
        expect(c.seq).toBe(changed.length);
        expect(rebuilds).toBe(0);
        // Above the rebuild threshold the index asks for a rebuild.
        const small = new Changes(tempDir('lcf-changes-'), 10, { onChange: () => undefined, onRebuild: () => rebuilds++ });
        await small.noteAll({ changed: changed.slice(0, 11), dirTimes: [] });
        expect(rebuilds).toBeGreaterThan(0);
    });
});
