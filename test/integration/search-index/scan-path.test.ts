/**
 * The search index against the scan path (support/index-pair.ts): content and name searches of
 * every kind, builds in many chunks, encodings, time filters and symbolic links give exactly the
 * scan path's results, answered from the index.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { distinctGrams } from '../../../src/search/shared/fold.js';
import { scanText } from '../../../src/text/shared/text.js';
import { MaskedGrams } from '../../../src/search-index/shared/masks.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { FILES, pair, pkgOf, plainOf, QUERIES, same, type Pair } from '../../support/index-pair.js';

describe('search index against the scan path', () => {
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
            'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('smørrebrød au lait café '), Buffer.from([0xff]), Buffer.from('\n')]),
            'plain.txt': 'nothing here\n',
        });
        // ø has one normal form: the index answers (a pattern with é takes the scan path, below).
        const r = await same(p, { content_pattern: 'smørrebrød au' });
        expect(r.text).toContain('bom.txt');
        expect(r.answered).toBe(true);
        const both = await same(p, { content_pattern: 'lait café' });
        expect(both.text).toContain('bom.txt');
        expect(both.answered).toBe(false);
    });

    it('keeps the same entries as the scan path under time filters (one entry policy: files, directories, links)', async () => {
        // Whole seconds survive utimes; three ages: old (2020), middle (2022), new (now).
        const OLD = 1_600_000_000;
        const MID = 1_650_000_000;
        const p = await pair(FILES, undefined, (root) => {
            fs.symlinkSync('src', path.join(root, 'src-link'));
            fs.symlinkSync('../src', path.join(root, 'docs/src-link'));
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
            { path: 'docs', name_pattern: '.', modified_before: iso(MID - 1) },
        ];
        const texts: string[] = [];
        for (const q of cases) {
            const r = await same(p, q);
            expect(r.answered, JSON.stringify(q)).toBe(true);
            texts.push(r.text);
        }
        // The filters split the tree (not everything, not nothing), through the links too: a link
        // into the searched tree is not entered (one file, one name), one out of it is.
        expect(texts[0]).toContain('src/main.ts');
        expect(texts[0]).not.toContain('src-link/main.ts');
        expect(texts[8]).toContain('docs/src-link/main.ts');
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
        // docs/src-link leads into the searched tree: src/lib.ts is listed once, under its own name.
        expect(r.text).not.toContain('docs/src-link/lib.ts');
        const d = await same(p, { path: 'docs', content_pattern: 'alphaBeta' });
        expect(d.answered).toBe(true);
        expect(d.text).toContain('docs/src-link/lib.ts');
        expect(r.text).toContain('src/lib-link.ts');
        expect(r.text).not.toContain('outside');
        expect((await same(p, { name_pattern: 'link' })).answered).toBe(true);
        // Changed under a link's target: the walk follows the link again.
        fs.writeFileSync(path.join(root, 'src/new.ts'), 'alphaBeta fresh\n');
        await tree.sync();
        expect((await same(p, { path: 'docs', content_pattern: 'alphaBeta fresh' })).text).toContain('docs/src-link/new.ts');
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
        const p = await pair({ 'a.txt': 'needleOne\n', 'b.txt': 'needleTwo\n', 'view/v.txt': 'v\n', 'sub/x.txt': 'needleThree x\n', 'sub2/y.txt': 'needleThree y\n' }, tempDir('lcf-index-'), (root) => {
            fs.symlinkSync('a.txt', path.join(root, 'l.txt'));
            fs.symlinkSync('../sub', path.join(root, 'view/dl'));
        });
        // Twice each: the second search takes the links resolved by the first.
        for (let i = 0; i < 2; i++) {
            const one = await same(p, { content_pattern: 'needleOne' });
            expect(one.answered).toBe(true);
            expect(one.text).toContain('l.txt');
            // Searched from view/: the link leads out of the searched tree, so it is entered.
            const three = await same(p, { path: 'view', content_pattern: 'needleThree' });
            expect(three.text).toContain('dl/x.txt');
            expect(three.text).not.toContain('dl/y.txt');
        }
        fs.rmSync(path.join(p.root, 'l.txt'));
        fs.symlinkSync('b.txt', path.join(p.root, 'l.txt'));
        fs.rmSync(path.join(p.root, 'view/dl'));
        fs.symlinkSync('../sub2', path.join(p.root, 'view/dl'));
        await p.tree.sync();
        expect((await same(p, { content_pattern: 'needleOne' })).text).not.toContain('l.txt');
        expect((await same(p, { content_pattern: 'needleTwo' })).text).toContain('l.txt');
        const three = await same(p, { path: 'view', content_pattern: 'needleThree' });
        expect(three.text).toContain('dl/y.txt');
        expect(three.text).not.toContain('dl/x.txt');
        // The target's content changes: seen through the link.
        fs.writeFileSync(path.join(p.root, 'b.txt'), 'needleFour now\n');
        await p.tree.sync();
        expect((await same(p, { content_pattern: 'needleFour' })).text).toContain('l.txt');
        expect((await same(p, { content_pattern: 'needleTwo' })).text).not.toContain('l.txt');
    });

    it("the builder's ASCII fast path gives exactly the planner's grams, and the masks of its decoding path", () => {
        const fast = new MaskedGrams();
        const decoded = new MaskedGrams();
        fc.assert(
            fc.property(fc.uint8Array({ maxLength: 400 }), (raw) => {
                const buf = Buffer.from(raw.map((b) => b & 0x7f));
                fast.ascii(buf);
                decoded.text(scanText(buf));
                expect([...fast.grams.subarray(0, fast.count)]).toEqual([...distinctGrams(scanText(buf))]);
                expect([...fast.masks.subarray(0, fast.count)]).toEqual([...decoded.masks.subarray(0, decoded.count)]);
            }),
            { numRuns: 300 },
        );
    });

});
