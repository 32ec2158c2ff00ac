/**
 * A reopen with the inotify watcher runs the tree check alongside the watcher's crawl
 * (reopen.ts `watchAndFind`, crawl-gate.ts): files changed while the reopen runs, at whatever
 * point of it, are in the first answers once it is ready.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { tempDir } from '../../support/helpers.js';
import { FILES, pair, pkgOf, same } from '../../support/index-pair.js';

describe('a reopen alongside the watcher crawl', () => {
    it('sees files changed while no process watched and while the reopen runs', async () => {
        const indexDir = tempDir('lcf-index-');
        const files: Record<string, string | Buffer> = { ...FILES };
        for (let d = 0; d < 6; d++) for (let f = 0; f < 40; f++) files[`d${d}/s${f % 4}/f${f}.txt`] = `plain ${d} ${f}\n`;
        const p = await pair(files, indexDir, undefined, 'inotify');
        await p.indexed.close();
        fs.writeFileSync(path.join(p.root, 'd0/s0/f0.txt'), 'changed while closed: sigmaTau\n');
        const again = pkgOf(p.root, { dir: indexDir, watcher: 'inotify' });
        const warming = again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]);
        // Changes at several points of the reopen: before its crawl starts, between turns of it.
        fs.writeFileSync(path.join(p.root, 'd5/s3/f3.txt'), 'changed as the reopen began: sigmaTau\n');
        const during: string[] = [];
        for (let d = 1; d < 5; d++) {
            await new Promise((r) => setImmediate(r));
            const rel = `d${d}/s1/f${d}.txt`;
            fs.writeFileSync(path.join(p.root, `${rel}.new`), `changed during the reopen: sigmaTau ${d}\n`);
            fs.renameSync(path.join(p.root, `${rel}.new`), path.join(p.root, rel));
            during.push(rel);
        }
        fs.mkdirSync(path.join(p.root, 'd6'));
        fs.writeFileSync(path.join(p.root, 'd6/new.txt'), 'a new directory during the reopen: sigmaTau\n');
        const tree = (await warming)!;
        expect(tree.status().state).toBe('ready');
        expect(tree.status().reopenedFrom).toBe('listing');
        const r = await same({ ...p, indexed: again, tree }, { content_pattern: 'sigmaTau' });
        expect(r.answered).toBe(true);
        for (const rel of ['d0/s0/f0.txt', 'd5/s3/f3.txt', 'd6/new.txt', ...during]) expect(r.text, rel).toContain(`${rel}:1:`);
        await again.close();
    }, 120_000);
});
