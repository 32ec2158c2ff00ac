/**
 * Writes behave like a careful editor on real filesystems: read-only files are refused; owner,
 * group, mode, extended attributes, ACLs, hard links and bind mounts are kept; a failed write
 * (no space left, read-only filesystem, immutable file, permission denied) changes nothing and
 * says why, as root and as an ordinary user.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { getAttribute, listAttributes, setAttribute } from '@napi-rs/xattr';
import { describe, expect, it } from 'vitest';
import { makePackage, one, setupRead, tempDir } from '../support/helpers.js';
import { bindMount, chattr, debris, SOURCE, itIf, noChattr, noMounts, noUsers, runNode, testUsers, tmpfs, tryRun } from '../support/real-fs.js';

const EDITS: [string, Record<string, unknown>][] = [
    ['write_file', { path: 'f.txt', content: 'new\n' }],
    ['replace_file_lines', { path: 'f.txt', content: 'new', start_line: 1 }],
    ['insert_file_content', { path: 'f.txt', content: 'new', line: 1 }],
    ['replace_file_content', { path: 'f.txt', old_content: 'old', new_content: 'new' }],
];

/** Puts `old` back into `f` (same inode) and reads it, so that the next edit applies. */
async function reset(tool: (name: string) => import('@johannes.latzel/llm-chat').Tool, f: string): Promise<void> {
    fs.writeFileSync(f, 'old\n');
    expect((await one(tool('read_file'), { paths: [path.basename(f)] })).status).toBe('success');
}

const isRoot = process.getuid?.() === 0;
const noAcl = tryRun('setfacl', ['--version']) === null ? null : 'setfacl (Debian package acl) is not installed';

describe('read-only files', () => {
    it('refuses every write and edit of a file without a write bit (mode 0444), by root as by its owner, changing nothing', async () => {
        const { tool, file } = await setupRead({ 'f.txt': 'old\n' });
        fs.chmodSync(file('f.txt'), 0o444);
        const before = fs.statSync(file('f.txt'));
        for (const [name, args] of EDITS) {
            const r = await one(tool(name), args);
            expect(r.status, name).toBe('error');
            expect(r.result, name).toMatch(/^File is read-only: .*f\.txt has no write permission \(mode 444\); nothing was changed/);
        }
        const after = fs.statSync(file('f.txt'));
        expect(fs.readFileSync(file('f.txt'), 'utf8')).toBe('old\n');
        expect([after.ino, after.mode, after.mtimeMs]).toEqual([before.ino, before.mode, before.mtimeMs]);
        expect(debris(path.dirname(file('f.txt')))).toEqual([]);
    });
});

describe('metadata kept by writes (as root)', () => {
    itIf(isRoot ? noAcl : 'giving files to other owners needs root')(
        'keeps owner, group, mode, extended attributes and ACLs through every write and edit (written in place)',
        async () => {
            const { tool, file } = await setupRead({ 'f.txt': 'old\n' });
            const f = file('f.txt');
            fs.chownSync(f, 12345, 23456);
            fs.chmodSync(f, 0o640);
            await setAttribute(f, 'user.origin', Buffer.from('kept'));
            execFileSync('setfacl', ['-m', 'u:54321:rw', f]);
            const acl = execFileSync('getfacl', ['-cp', f], { encoding: 'utf8' });
            const { ino, mode } = fs.statSync(f);
            for (const [name, args] of EDITS) {
                await reset(tool, f);
                const r = await one(tool(name), args);
                expect(r.status, `${name}: ${r.result}`).toBe('success');
                const st = fs.statSync(f);
                expect([st.uid, st.gid, st.mode, st.ino], name).toEqual([12345, 23456, mode, ino]);
                expect((await getAttribute(f, 'user.origin'))?.toString(), name).toBe('kept');
                expect(execFileSync('getfacl', ['-cp', f], { encoding: 'utf8' }), name).toBe(acl);
            }
            expect(fs.readFileSync(f, 'utf8')).toContain('new');
            expect(debris(path.dirname(f))).toEqual([]);
        },
    );

    itIf(isRoot ? null : 'giving files to other owners needs root')(
        'keeps owner and group of a file without attributes, still replacing it atomically (new inode, no temporary file left)',
        async () => {
            const { tool, file } = await setupRead({ 'f.txt': 'old\n' });
            const f = file('f.txt');
            fs.chownSync(f, 12345, 23456);
            fs.chmodSync(f, 0o2664);
            expect(await listAttributes(f)).toEqual([]);
            const ino = fs.statSync(f).ino;
            const r = await one(tool('write_file'), { path: 'f.txt', content: 'new\n' });
            expect(r).toMatchObject({ status: 'success', result: `Written: ${f}` });
            const st = fs.statSync(f);
            expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([12345, 23456, 0o2664]);
            expect(st.ino).not.toBe(ino);
            expect(debris(path.dirname(f))).toEqual([]);
        },
    );
});

describe('hard links', () => {
    it('keeps the link: every name shows the new content, and the result says so', async () => {
        const { tool, file, root } = await setupRead({ 'f.txt': 'old\n' });
        fs.linkSync(file('f.txt'), path.join(root, 'other-name.txt'));
        for (const [name, args] of EDITS) {
            await reset(tool, file('f.txt'));
            const r = await one(tool(name), args);
            expect(r.status, name).toBe('success');
            expect(r.result, name).toMatch(/\nNote: .*f\.txt has 2 hard links; it was written in place, so all 2 names show the new content\.$/);
            expect(fs.statSync(file('f.txt')).nlink, name).toBe(2);
            expect(fs.readFileSync(path.join(root, 'other-name.txt'), 'utf8'), name).toBe(fs.readFileSync(file('f.txt'), 'utf8'));
        }
        expect(debris(root)).toEqual([]);
    });
});

describe('bind mounts', () => {
    itIf(noMounts)('writes a bind-mounted file (rename gives EBUSY) in place, so both views stay the same', async () => {
        const { tool, file, root } = await setupRead({ 'f.txt': 'old\n' });
        const outside = tempDir('lcf-bind-src-');
        fs.writeFileSync(path.join(outside, 'real.txt'), 'old\n');
        bindMount(path.join(outside, 'real.txt'), file('f.txt'));
        await one(tool('read_file'), { paths: ['f.txt'] });
        for (const [name, args] of EDITS.slice(0, 2)) {
            const r = await one(tool(name), args);
            expect(r.status, `${name}: ${r.result}`).toBe('success');
            expect(fs.readFileSync(path.join(outside, 'real.txt'), 'utf8'), name).toBe(fs.readFileSync(file('f.txt'), 'utf8'));
        }
        expect(fs.readFileSync(path.join(outside, 'real.txt'), 'utf8')).toBe('new\n');
        expect(debris(root)).toEqual([]);
    });
});

describe('failed writes change nothing and say why', () => {
    itIf(noMounts)('no space left on a 1 MiB filesystem: replaced or in place, the file keeps its old content and no temporary file remains', async () => {
        const disk = tmpfs('1m');
        const old = 'o'.repeat(300_000);
        fs.writeFileSync(path.join(disk, 'f.txt'), old);
        fs.writeFileSync(path.join(disk, 'linked.txt'), old);
        fs.linkSync(path.join(disk, 'linked.txt'), path.join(disk, 'second-name.txt'));
        const fx = makePackage(disk, { maxCharsPerFile: 2_000_000 });
        for (const name of ['f.txt', 'linked.txt']) {
            await one(fx.tool('read_file'), { paths: [name] });
            const r = await one(fx.tool('write_file'), { path: name, content: 'n'.repeat(900_000) });
            expect(r.status, name).toBe('error');
            expect(r.result, name).toMatch(/^No space left: .*(f|linked)\.txt could not be written \(ENOSPC: no space left on device/);
            expect(r.result, name).not.toMatch(/\/proc\/(self|\d+)\/fd/);
            expect(fs.readFileSync(path.join(disk, name), 'utf8') === old, name).toBe(true);
        }
        expect(fs.readFileSync(path.join(disk, 'second-name.txt'), 'utf8') === old).toBe(true);
        expect(debris(disk)).toEqual([]);
    });

    itIf(noMounts)('a read-only filesystem is named as the cause', async () => {
        const disk = tmpfs('64k');
        fs.writeFileSync(path.join(disk, 'f.txt'), 'old\n');
        const fx = makePackage(disk);
        await one(fx.tool('read_file'), { paths: ['f.txt'] });
        execFileSync('mount', ['-o', 'remount,ro', disk]);
        for (const [name, args] of EDITS.slice(0, 2)) {
            const r = await one(fx.tool(name), args);
            expect(r.status, name).toBe('error');
            expect(r.result, name).toMatch(/^Read-only filesystem: .*f\.txt is on a filesystem mounted read-only/);
        }
        const created = await one(fx.tool('write_file'), { path: 'new.txt', content: 'x' });
        expect(created.result).toMatch(/^Read-only filesystem: .*new\.txt/);
        expect(fs.readFileSync(path.join(disk, 'f.txt'), 'utf8')).toBe('old\n');
    });

    itIf(noChattr)('an immutable file (chattr +i) is refused with the cause, unchanged', async () => {
        const { tool, file } = await setupRead({ 'f.txt': 'old\n' });
        chattr('+i', file('f.txt'));
        try {
            for (const [name, args] of EDITS) {
                const r = await one(tool(name), args);
                expect(r.status, name).toBe('error');
                expect(r.result, name).toMatch(/^Permission denied by the operating system on .*f\.txt: EPERM: operation not permitted \(the file or its directory may be immutable or append-only/);
            }
        } finally {
            chattr('-i', file('f.txt'));
        }
        expect(fs.readFileSync(file('f.txt'), 'utf8')).toBe('old\n');
        expect(debris(path.dirname(file('f.txt')))).toEqual([]);
    });
});

describe('as an ordinary user', () => {
    itIf(noUsers)(
        'edits a group-writable file of another owner in place (owner kept), refuses one it may not write, and a 0444 file of its own',
        async () => {
            const { user, other, shared } = testUsers();
            const dir = tempDir('lcf-user-');
            fs.chmodSync(dir, 0o775);
            fs.chownSync(dir, user.uid, shared);
            const write = (name: string, owner: number, group: number, mode: number): void => {
                fs.writeFileSync(path.join(dir, name), 'old\n');
                fs.chownSync(path.join(dir, name), owner, group);
                fs.chmodSync(path.join(dir, name), mode);
            };
            write('shared.txt', other.uid, shared, 0o664);
            write('theirs.txt', other.uid, other.gid, 0o644);
            write('mine-ro.txt', user.uid, user.gid, 0o444);
            const script = `
                import { FileToolPackage, Workspace, AccessType } from ${JSON.stringify(SOURCE)};
                const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: ${JSON.stringify(dir)} }], workspacePath: ${JSON.stringify(dir)} }));
                const tool = (n) => pkg.tools().find((t) => t.name === n);
                const out = {};
                for (const f of ['shared.txt', 'theirs.txt', 'mine-ro.txt']) {
                    await tool('read_file').execute({ paths: [f] });
                    out[f] = (await tool('replace_file_lines').execute({ path: f, content: 'new', start_line: 1 }))[0];
                }
                await pkg.close();
                process.stdout.write(JSON.stringify(out));`;
            const r = await runNode(script, { user });
            expect(r.code, r.stderr).toBe(0);
            const out = JSON.parse(r.stdout) as Record<string, { status: string; result: string }>;
            expect(out['shared.txt']!.status, out['shared.txt']!.result).toBe('success');
            const st = fs.statSync(path.join(dir, 'shared.txt'));
            expect([st.uid, st.gid, st.mode & 0o777]).toEqual([other.uid, shared, 0o664]);
            expect(fs.readFileSync(path.join(dir, 'shared.txt'), 'utf8')).toBe('new\n');
            expect(out['theirs.txt']).toMatchObject({ status: 'error' });
            expect(out['theirs.txt']!.result).toMatch(/^Permission denied by the operating system on .*theirs\.txt: EACCES: permission denied/);
            expect(out['mine-ro.txt']!.result).toMatch(/^File is read-only: .*mine-ro\.txt/);
            expect(fs.readFileSync(path.join(dir, 'theirs.txt'), 'utf8')).toBe('old\n');
            expect(fs.readFileSync(path.join(dir, 'mine-ro.txt'), 'utf8')).toBe('old\n');
            expect(debris(dir)).toEqual([]);
        },
    );
});
