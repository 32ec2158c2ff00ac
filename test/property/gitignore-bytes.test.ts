/**
 * respect_gitignore against git on random trees whose names and rules hold multi-byte characters:
 * git matches `?` and bracket expressions against one byte of a name, and so must the search.
 * 300 trees (fast-check, seed 1), each a directory of one repository with its own `.gitignore`
 * files; git lists what it does not ignore in one `git ls-files` call, the search in one call.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SearchConfiguration } from '../../src/index.js';
import { makePackage, search, tempDir } from '../support/helpers.js';

const SEED = 1;
const TREES = 300;

/** Characters of names: ASCII, two-byte (ü é), three-byte (日) and four-byte (😀) UTF-8. */
const NAME_CHARS = ['a', 'b', 'x', 'ü', 'é', '日', '😀'];
const name = fc.array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 3 }).map((cs) => cs.join(''));
/** A file's path: one or two directories deep, with an extension of its own kind. */
const file = fc.tuple(fc.array(fc.constantFrom('d', 'ü', '日'), { maxLength: 2 }), name, fc.constantFrom('.log', '.txt', '')).map(([dirs, n, ext]) => [...dirs, n + ext].join('/'));

/** Pieces of patterns: one-character wildcards and classes, which git takes byte by byte. */
const PIECES = ['?', '??', '*', '[ü]', '[!a]', '[a-z]', '[üa]', '[!ü]', '[é-ü]', 'ü', 'é', '日', '😀', 'a', 'x', '[日]', '???'];
const rule = fc
    .tuple(fc.boolean(), fc.boolean(), fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 3 }), fc.constantFrom('', '.log', '.txt', '/'))
    .map(([neg, anchored, pieces, end]) => `${neg ? '!' : ''}${anchored ? '/' : ''}${pieces.join('')}${end}`);

interface Tree {
    files: string[];
    /** `.gitignore` text by directory (`''` for the tree's top). */
    ignores: Record<string, string>;
}

const tree: fc.Arbitrary<Tree> = fc
    .record({
        files: fc.uniqueArray(file, { minLength: 1, maxLength: 8 }),
        top: fc.array(rule, { minLength: 1, maxLength: 4 }),
        nested: fc.array(rule, { maxLength: 2 }),
        nestedIn: fc.constantFrom('d', 'ü', '日'),
    })
    .map(({ files, top, nested, nestedIn }) => {
        // A path that is also a directory of another path stays a directory.
        const dirs = new Set(files.flatMap((f) => f.split('/').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('/'))));
        const ignores: Record<string, string> = { '': `${top.join('\n')}\n` };
        if (nested.length > 0) {
            ignores[nestedIn] = `${nested.join('\n')}\n`;
            dirs.add(nestedIn);
        }
        return { files: files.filter((f) => !dirs.has(f)), ignores };
    });

describe('respect_gitignore agrees with git on multi-byte names', () => {
    it(`on ${TREES} random trees (seed ${SEED})`, async () => {
        const trees = fc.sample(tree, { seed: SEED, numRuns: TREES });
        const root = tempDir('lcf-gitbytes-');
        const all: string[] = [];
        trees.forEach((t, i) => {
            const top = `t${i}`;
            for (const f of t.files) {
                const p = path.join(root, top, f);
                fs.mkdirSync(path.dirname(p), { recursive: true });
                fs.writeFileSync(p, 'x\n');
                all.push(`${top}/${f}`);
            }
            for (const [dir, text] of Object.entries(t.ignores)) {
                const p = path.join(root, top, dir, '.gitignore');
                fs.mkdirSync(path.dirname(p), { recursive: true });
                fs.writeFileSync(p, text);
            }
        });
        execFileSync('git', ['init', '-q'], { cwd: root });
        const byGit = execFileSync('git', ['-c', 'core.ignorecase=false', '-c', 'core.quotePath=false', 'ls-files', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
            .split('\0')
            .filter((l) => l !== '' && !l.endsWith('.gitignore'));
        const fx = makePackage(root, { search: new SearchConfiguration(100_000, 100_000, 100_000, 120_000) });
        const r = await search(fx, { type: 'file', respect_gitignore: true, exclude: '.gitignore' });
        expect(r.status).toBe('success');
        const mine = new Set(r.result.split('\n'));
        const git = new Set(byGit);
        // Per tree, for a readable failure: the files git keeps and the search does not, and the reverse.
        const differing = trees
            .map((t, i) => {
                const files = all.filter((f) => f.startsWith(`t${i}/`));
                const diff = files.filter((f) => git.has(f) !== mine.has(f));
                return diff.length === 0 ? null : { tree: i, ignores: t.ignores, diff: diff.map((f) => `${f}: git ${git.has(f) ? 'keeps' : 'ignores'}`) };
            })
            .filter((d) => d !== null);
        expect(differing).toEqual([]);
        // The trees exercise both outcomes, multi-byte names among them.
        expect(byGit.length).toBeGreaterThan(all.length / 5);
        expect(byGit.length).toBeLessThan(all.length);
        expect(all.filter((f) => !git.has(f) && /[^\x00-\x7f]/.test(f)).length).toBeGreaterThan(20);
    }, 120_000);
});
