/**
 * move_file happens completely or not at all: a source that cannot be removed rolls the move
 * back; across filesystems the copy goes under a temporary name, keeps modes, times and symlinks,
 * and is removed on failure (no space left), with the cause and the user's paths in the error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { AccessType } from '../../src/index.js';
import { makePackage, one, tempDir, writeTree } from '../support/helpers.js';
import { chattr, debris, SOURCE, itIf, noChattr, noMounts, noUsers, runNode, testUsers, tmpfs } from '../support/real-fs.js';

/** Type, mode, mtime (ms), link target or content of every entry under `root`. */
function tree(root: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const rel of fs.readdirSync(root, { recursive: true }).map(String).sort()) {
        const p = path.join(root, rel);
        const st = fs.lstatSync(p);
        const what = st.isSymbolicLink() ? `link->${fs.readlinkSync(p)}` : st.isDirectory() ? 'dir' : fs.readFileSync(p, 'utf8');
        out[rel] = `${what} mode=${(st.mode & 0o7777).toString(8)} mtime=${Math.round(st.mtimeMs)}`;
    }
    return out;
}

/** A small tree with a script (0755), a private file (0600), a symlink and old modification times. */
function makeTree(root: string): void {
    writeTree(root, { 'src/run.sh': '#!/bin/sh\n', 'src/secret.txt': 'k=v\n', 'src/sub/a.txt': 'a\n' });
    fs.chmodSync(path.join(root, 'src/run.sh'), 0o755);
    fs.chmodSync(path.join(root, 'src/secret.txt'), 0o600);
    fs.symlinkSync('sub/a.txt', path.join(root, 'src/link'));
    const old = new Date('2020-01-02T03:04:05Z');
    for (const rel of ['src/run.sh', 'src/secret.txt', 'src/sub/a.txt', 'src/sub', 'src']) fs.utimesSync(path.join(root, rel), old, old);
}

describe('moves that cannot remove the source roll back', () => {
    itIf(noChattr)('an append-only source directory (chattr +a): the error says why, both paths are as they were, the retry is not "already exists"', async () => {
        const root = tempDir('lcf-mv-');
        writeTree(root, { 'locked/f.txt': 'x\n', 'dst/.keep': '' });
        const fx = makePackage(root);
        chattr('+a', path.join(root, 'locked'));
        try {
            for (let attempt = 0; attempt < 2; attempt++) {
                const r = await one(fx.tool('move_file'), { source: 'locked/f.txt', destination: 'dst/f.txt' });
                expect(r.status).toBe('error');
                expect(r.result).toMatch(/^Could not move .*locked\/f\.txt to .*dst\/f\.txt \(its directory does not allow removing it\): Permission denied by the operating system on .*locked\/f\.txt: EPERM: operation not permitted/);
                expect(r.result).toMatch(/Nothing was moved\.$/);
                expect(r.result).not.toMatch(/\/proc\/(self|\d+)\/fd/);
                expect(fs.existsSync(path.join(root, 'dst/f.txt'))).toBe(false);
                expect(fs.statSync(path.join(root, 'locked/f.txt')).nlink).toBe(1);
            }
        } finally {
            chattr('-a', path.join(root, 'locked'));
        }
    });

    itIf(noUsers)('as an ordinary user, a source directory without write permission: permission denied, nothing moved', async () => {
        const { user } = testUsers();
        const root = tempDir('lcf-mv-user-');
        writeTree(root, { 'ro/f.txt': 'x\n', 'dst/.keep': '' });
        for (const p of [root, path.join(root, 'ro'), path.join(root, 'ro/f.txt'), path.join(root, 'dst')]) fs.chownSync(p, user.uid, user.gid);
        fs.chmodSync(path.join(root, 'ro'), 0o555);
        const script = `
            import { FileToolPackage, Workspace, AccessType } from ${JSON.stringify(SOURCE)};
            const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: ${JSON.stringify(root)} }], workspacePath: ${JSON.stringify(root)} }));
            const move = pkg.tools().find((t) => t.name === 'move_file');
            const out = [];
            for (let i = 0; i < 2; i++) out.push((await move.execute({ source: 'ro/f.txt', destination: 'dst/f.txt' }))[0]);
            await pkg.close();
            process.stdout.write(JSON.stringify(out));`;
        const r = await runNode(script, { user });
        expect(r.code, r.stderr).toBe(0);
        for (const res of JSON.parse(r.stdout) as { status: string; result: string }[]) {
            expect(res.status).toBe('error');
            expect(res.result).toMatch(/^Could not move .*ro\/f\.txt to .*dst\/f\.txt \(its directory does not allow removing it\): Permission denied by the operating system on .*ro\/f\.txt: EACCES: permission denied/);
        }
        expect(fs.existsSync(path.join(root, 'dst/f.txt'))).toBe(false);
        expect(fs.statSync(path.join(root, 'ro/f.txt')).nlink).toBe(1);
    });
});

describe('moves across filesystems', () => {
    itIf(noMounts)('a tree keeps modes, modification times and symlinks; no temporary copy remains', async () => {
        const root = tempDir('lcf-xdev-');
        makeTree(root);
        const before = tree(path.join(root, 'src'));
        const other = tmpfs('4m');
        const fx = makePackage(root, { accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Write, path: other }] });
        const r = await one(fx.tool('move_file'), { source: 'src', destination: path.join(other, 'moved') });
        expect(r).toMatchObject({ status: 'success', result: `Moved: ${path.join(root, 'src')} -> ${path.join(other, 'moved')}` });
        expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
        expect(tree(path.join(other, 'moved'))).toEqual(before);
        expect(debris(other)).toEqual([]);
        // A single file too, back to the first filesystem.
        const back = await one(fx.tool('move_file'), { source: path.join(other, 'moved/run.sh'), destination: 'run.sh' });
        expect(back.status, back.result).toBe('success');
        expect(tree(root)['run.sh']).toBe(before['run.sh']);
    });

    itIf(noMounts)('no space left: nothing at the destination, the source intact, the cause named', async () => {
        const root = tempDir('lcf-xdev-full-');
        writeTree(root, { 'big/a.bin': Buffer.alloc(600_000, 1), 'big/b.bin': Buffer.alloc(600_000, 2) });
        const before = tree(path.join(root, 'big'));
        const small = tmpfs('1m');
        const fx = makePackage(root, { accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Write, path: small }] });
        const r = await one(fx.tool('move_file'), { source: 'big', destination: path.join(small, 'big') });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/^Could not move .*\/big to .*\/big \(copying it to the other filesystem\): No space left: .* \(ENOSPC: no space left on device/);
        expect(r.result).toMatch(/Nothing was moved\.$/);
        expect(fs.readdirSync(small)).toEqual([]);
        expect(tree(path.join(root, 'big'))).toEqual(before);
    });

    itIf(noMounts !== null ? noMounts : noChattr)('a source that cannot be removed after the copy is restored whole, and the copy removed', async () => {
        const root = tempDir('lcf-xdev-stuck-');
        makeTree(root);
        writeTree(root, { 'src/zz/pinned.txt': 'cannot go\n' });
        const before = tree(path.join(root, 'src'));
        const other = tmpfs('4m');
        const fx = makePackage(root, { accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Write, path: other }] });
        chattr('+i', path.join(root, 'src/zz/pinned.txt'));
        try {
            const r = await one(fx.tool('move_file'), { source: 'src', destination: path.join(other, 'moved') });
            expect(r.status).toBe('error');
            expect(r.result).toMatch(/^Could not move .*\/src to .*\/moved \(the source could not be removed after copying\): .*EPERM: operation not permitted/);
            expect(fs.readdirSync(other)).toEqual([]);
            // Entries removed before the failure are back, with their modes, times and link.
            const after = tree(path.join(root, 'src'));
            for (const [rel, desc] of Object.entries(before)) {
                // Directories whose entries were removed and put back have a new modification time only.
                expect(after[rel]!.replace(/mtime=\d+/, ''), rel).toBe(desc.replace(/mtime=\d+/, ''));
                if (!desc.startsWith('dir')) expect(after[rel], rel).toBe(desc);
            }
        } finally {
            chattr('-i', path.join(root, 'src/zz/pinned.txt'));
        }
    });
});
