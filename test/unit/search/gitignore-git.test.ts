/**
 * respect_gitignore against git itself: a table of .gitignore cases (negation across levels,
 * anchored and directory patterns, `**`, character classes, escaped `#` and `!`, trailing
 * spaces) on one tree, and the files search_entries returns compared with the files
 * `git check-ignore` does not report (and with `git ls-files --others --exclude-standard`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SearchConfiguration } from '../../../src/index.js';
import { makePackage, search, tempDir, writeTree } from '../../support/helpers.js';

/** Each case: the .gitignore files it adds, and the files it puts in the tree. */
const CASES: { name: string; ignores: Record<string, string>; files: string[] }[] = [
    { name: 'negation across levels', ignores: { 'neg/.gitignore': 'vendor/\n', 'neg/a/.gitignore': '!vendor/\n' }, files: ['neg/a/vendor/f.txt', 'neg/b/vendor/f.txt', 'neg/vendor/f.txt'] },
    { name: 'anchored pattern', ignores: { 'anc/.gitignore': '/build\n' }, files: ['anc/build/x.txt', 'anc/sub/build/x.txt'] },
    { name: 'directory-only pattern', ignores: { 'dir/.gitignore': 'logs/\n' }, files: ['dir/c/logs', 'dir/d/logs/x.txt'] },
    { name: '** patterns', ignores: { 'star2/.gitignore': '**/gen/*.js\ndocs/**/*.tmp\n' }, files: ['star2/e/gen/a.js', 'star2/e/gen/a.ts', 'star2/gen/b.js', 'star2/docs/x/y/z.tmp', 'star2/docs/z.tmp', 'star2/other/docs/z.tmp'] },
    { name: 'character classes', ignores: { 'cls/.gitignore': '*.[oa]\n[!x]y.txt\n' }, files: ['cls/f.o', 'cls/f.a', 'cls/f.c', 'cls/ay.txt', 'cls/xy.txt'] },
    { name: 'escaped # and !', ignores: { 'esc/.gitignore': '\\#hash.txt\n\\!bang.txt\n#comment.txt\n' }, files: ['esc/#hash.txt', 'esc/!bang.txt', 'esc/#comment.txt'] },
    { name: 'trailing spaces', ignores: { 'sp/.gitignore': 'trail.txt   \nspace\\ \n' }, files: ['sp/trail.txt', 'sp/space ', 'sp/space'] },
    { name: 'nested anchored and middle slash', ignores: { 'nest/a/.gitignore': '/only-here.txt\nsub/mid.txt\n*.bak\n' }, files: ['nest/a/only-here.txt', 'nest/a/sub/only-here.txt', 'nest/a/sub/mid.txt', 'nest/a/x/sub/mid.txt', 'nest/a/x.bak', 'nest/a/sub/y.bak', 'nest/x.bak'] },
    { name: 'no re-include below an excluded directory', ignores: { 'reinc/.gitignore': 'ign/\n!ign/keep.txt\n' }, files: ['reinc/ign/keep.txt', 'reinc/ign/other.txt', 'reinc/kept.txt'] },
    { name: 'star then re-include a directory', ignores: { 'only/.gitignore': '/star/*\n!/star/keep/\n' }, files: ['only/star/keep/k.txt', 'only/star/other/o.txt', 'only/star/f.txt'] },
    { name: 'deeper file re-includes a file pattern', ignores: { 'deep/.gitignore': '*.log\n', 'deep/a/.gitignore': '!important.log\n' }, files: ['deep/important.log', 'deep/a/important.log', 'deep/a/sub/important.log', 'deep/a/other.log'] },
    { name: 'case-sensitive', ignores: { 'case/.gitignore': 'Upper.TXT\n' }, files: ['case/Upper.TXT', 'case/upper.txt'] },
    { name: 'glob characters in a directory name', ignores: { 'odd/[x]/.gitignore': '*.tmp\n', 'odd/#h/.gitignore': '!keep.tmp\n', 'odd/.gitignore': '*.tmp\n' }, files: ['odd/[x]/a.tmp', 'odd/x/a.tmp', 'odd/#h/keep.tmp', 'odd/#h/no.tmp'] },
];

/** Every file under `root` (not in .git), `/`-separated, relative. */
function filesOf(root: string, rel = ''): string[] {
    const out: string[] = [];
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
        const p = rel === '' ? e.name : `${rel}/${e.name}`;
        if (e.name === '.git') continue;
        if (e.isDirectory()) out.push(...filesOf(root, p));
        else out.push(p);
    }
    return out.sort();
}

function gitTree(): string {
    const root = tempDir('lcf-git-');
    const tree: Record<string, string> = {};
    for (const c of CASES) {
        Object.assign(tree, c.ignores);
        for (const f of c.files) tree[f] = 'x\n';
    }
    writeTree(root, tree);
    execFileSync('git', ['init', '-q'], { cwd: root });
    return root;
}

/** The files git does not ignore, by `git check-ignore --stdin` (exit 1 when none is ignored). */
function notIgnoredByGit(root: string, files: string[]): string[] {
    let out = '';
    try {
        out = execFileSync('git', ['-c', 'core.ignorecase=false', 'check-ignore', '--stdin'], { cwd: root, input: files.join('\n') + '\n', encoding: 'utf8' });
    } catch (err) {
        if ((err as { status?: number }).status !== 1) throw err;
    }
    const ignored = new Set(out.split('\n').filter((l) => l !== ''));
    return files.filter((f) => !ignored.has(f));
}

describe('respect_gitignore agrees with git check-ignore', () => {
    it('on a table of cases, searched from the top and from each case directory', async () => {
        const root = gitTree();
        const files = filesOf(root);
        const expected = notIgnoredByGit(root, files);
        // git's own walk agrees with check-ignore on this tree.
        const lsFiles = execFileSync('git', ['-c', 'core.ignorecase=false', 'ls-files', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
            .split('\0')
            .filter((l) => l !== '')
            .sort();
        expect(lsFiles).toEqual(expected);
        // The table exercises both outcomes in every case.
        for (const c of CASES) {
            const mine = c.files;
            expect(mine.some((f) => expected.includes(f)), `${c.name}: some kept`).toBe(true);
            expect(mine.some((f) => !expected.includes(f)), `${c.name}: some ignored`).toBe(true);
        }
        const fx = makePackage(root, { search: new SearchConfiguration(10_000, 10_000, 50_000, 60_000) });
        const all = await search(fx, { type: 'file', respect_gitignore: true });
        expect(all.result.split('\n').sort()).toEqual(expected);
        // From a case directory, the .gitignore files above it apply too.
        for (const top of [...new Set(CASES.map((c) => c.files[0]!.split('/')[0]!))]) {
            const r = await search(fx, { path: top, type: 'file', respect_gitignore: true });
            const want = expected.filter((f) => f.startsWith(`${top}/`));
            expect(r.result.split('\n').sort(), top).toEqual(want);
        }
        // And from a directory below a re-included one.
        const deep = await search(fx, { path: 'neg/a/vendor', type: 'file', respect_gitignore: true });
        expect(deep.result).toBe('neg/a/vendor/f.txt');
    });
});
