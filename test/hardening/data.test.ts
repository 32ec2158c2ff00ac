/**
 * Data is never lost: atomic writes that keep the mode, content-based read-before-write, parallel
 * edits that never lose one, moves that never overwrite, deletes that never take an access root
 * or a link's target, and line edits that keep endings, BOM and the final newline.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ToolResult } from '@johannes.latzel/llm-chat';
import { describe, expect, it } from 'vitest';
import { AccessType } from '../../src/index.js';
import { makePackage, tempDir, type Fixture } from '../support/helpers.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function setup(files: Record<string, string | Buffer> = {}, opts: Parameters<typeof makePackage>[1] = {}): { dir: string; fx: Fixture; p: (rel: string) => string } {
    const dir = tempDir('lcf-data-');
    for (const [rel, content] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        fs.writeFileSync(path.join(dir, rel), content);
    }
    return { dir, fx: makePackage(dir, opts), p: (rel) => path.join(dir, rel) };
}

async function status(fx: Fixture, tool: string, args: Record<string, unknown>): Promise<{ status: string; result: string }> {
    const results = await fx.run(tool, args);
    expect(results).toHaveLength(1);
    return results[0]!;
}

const tmpLeftovers = (dir: string): string[] => fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.tmp$/.test(f));

describe('atomic writes', () => {
    it('writes through a new file renamed into place, leaving no temp file, for every write and edit tool', async () => {
        const { dir, fx, p } = setup({ 'f.txt': 'one\ntwo\n' });
        const inode = (): number => fs.statSync(p('f.txt')).ino;
        await status(fx, 'read_file', { paths: ['f.txt'] });
        const calls: [string, Record<string, unknown>][] = [
            ['write_file', { path: 'f.txt', content: 'one\ntwo\nthree\n' }],
            ['replace_file_lines', { path: 'f.txt', content: 'TWO', start_line: 2 }],
            ['insert_file_content', { path: 'f.txt', content: 'zero', line: 1 }],
            ['replace_file_content', { path: 'f.txt', old_content: 'three', new_content: '3' }],
        ];
        for (const [tool, args] of calls) {
            const before = inode();
            expect((await status(fx, tool, args)).status, tool).toBe('success');
            // A new inode: the content was written elsewhere and renamed over the name, not rewritten in place.
            expect(inode(), tool).not.toBe(before);
        }
        expect(fs.readFileSync(p('f.txt'), 'utf8')).toBe('zero\none\nTWO\n3\n');
        expect(tmpLeftovers(dir)).toEqual([]);
    });

    it('a concurrent reader sees the old or the new content, never a half-written file', async () => {
        const { p } = setup({ 'big.txt': 'o'.repeat(200_000) });
        const fx = makePackage(path.dirname(p('big.txt')), { maxCharsPerFile: 1_000_000 });
        await status(fx, 'read_file', { paths: ['big.txt'] });
        const reader = spawn(
            process.execPath,
            [
                '-e',
                `const fs = require('node:fs'); const bad = new Set(); const end = Date.now() + 3000;
                 while (Date.now() < end) { try { const s = fs.readFileSync(${JSON.stringify(p('big.txt'))}, 'utf8');
                 if (!/^(o{200000}|n{200000}|o{200000}x)$/.test(s)) bad.add(s.length); } catch {} }
                 process.stdout.write(JSON.stringify([...bad]));`,
            ],
            { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let out = '';
        reader.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        const done = new Promise<void>((r) => reader.on('exit', () => r()));
        const end = Date.now() + 2500;
        let i = 0;
        while (Date.now() < end) {
            const content = i++ % 2 === 0 ? 'n'.repeat(200_000) : 'o'.repeat(200_000);
            expect((await status(fx, 'write_file', { path: 'big.txt', content })).status).toBe('success');
        }
        await done;
        expect(JSON.parse(out)).toEqual([]);
    });

    it('keeps the mode of an existing file (0o755, 0o600) through writes and edits', async () => {
        const { fx, p } = setup({ 'run.sh': '#!/bin/sh\necho hi\n', 'secret.txt': 'k=v\n' });
        fs.chmodSync(p('run.sh'), 0o755);
        fs.chmodSync(p('secret.txt'), 0o600);
        await status(fx, 'read_file', { paths: ['run.sh'] });
        await status(fx, 'read_file', { paths: ['secret.txt'] });
        expect((await status(fx, 'replace_file_content', { path: 'run.sh', old_content: 'hi', new_content: 'hello' })).status).toBe('success');
        expect((await status(fx, 'insert_file_content', { path: 'run.sh', content: 'exit 0' })).status).toBe('success');
        expect((await status(fx, 'write_file', { path: 'secret.txt', content: 'k=w\n' })).status).toBe('success');
        expect((await status(fx, 'replace_file_lines', { path: 'secret.txt', content: 'k=x', start_line: 1 })).status).toBe('success');
        expect(fs.statSync(p('run.sh')).mode & 0o7777).toBe(0o755);
        expect(fs.statSync(p('secret.txt')).mode & 0o7777).toBe(0o600);
        expect(fs.readFileSync(p('run.sh'), 'utf8')).toBe('#!/bin/sh\necho hello\nexit 0\n');
    });

    it('creates new files with the usual permissions (0o666 less the umask), not world-writable', async () => {
        const { fx, p } = setup();
        expect((await status(fx, 'write_file', { path: 'new.txt', content: 'x' })).status).toBe('success');
        const umask = process.umask();
        expect(fs.statSync(p('new.txt')).mode & 0o7777).toBe(0o666 & ~umask);
    });
});

describe('read-before-write', () => {
    it('catches a change that keeps the size and restores the modification time', async () => {
        const { fx, p } = setup({ 'f.txt': 'alpha\n' });
        // Whole seconds, so that restoring the time is exact to the nanosecond.
        fs.utimesSync(p('f.txt'), 1_700_000_000, 1_700_000_000);
        await status(fx, 'read_file', { paths: ['f.txt'] });
        const st = fs.statSync(p('f.txt'), { bigint: true });
        fs.writeFileSync(p('f.txt'), 'ALPHA\n');
        fs.utimesSync(p('f.txt'), 1_700_000_000, 1_700_000_000);
        const after = fs.statSync(p('f.txt'), { bigint: true });
        expect(after.mtimeNs).toBe(st.mtimeNs);
        expect(after.size).toBe(st.size);
        for (const [tool, args] of [
            ['replace_file_content', { path: 'f.txt', old_content: 'ALPHA', new_content: 'beta' }],
            ['write_file', { path: 'f.txt', content: 'beta\n' }],
            ['replace_file_lines', { path: 'f.txt', content: 'beta', start_line: 1 }],
            ['insert_file_content', { path: 'f.txt', content: 'beta' }],
        ] as const) {
            const r = await status(fx, tool, args);
            expect(r.status, tool).toBe('error');
            expect(r.result).toMatch(/changed since it was last read.*read_file/);
        }
        expect(fs.readFileSync(p('f.txt'), 'utf8')).toBe('ALPHA\n');
        // A fresh read clears the refusal.
        await status(fx, 'read_file', { paths: ['f.txt'] });
        expect((await status(fx, 'replace_file_content', { path: 'f.txt', old_content: 'ALPHA', new_content: 'beta' })).status).toBe('success');
        expect(fs.readFileSync(p('f.txt'), 'utf8')).toBe('beta\n');
    });

    it('a fresh multi-path read clears a refusal too', async () => {
        const { fx, p } = setup({ 'f.txt': 'alpha\n', 'g.txt': 'g\n' });
        await status(fx, 'read_file', { paths: ['f.txt'] });
        fs.writeFileSync(p('f.txt'), 'other\n');
        expect((await status(fx, 'write_file', { path: 'f.txt', content: 'x' })).status).toBe('error');
        const results = await fx.run('read_file', { paths: ['f.txt', 'g.txt'] });
        expect(results.map((r) => r.status)).toEqual(['success', 'success']);
        expect((await status(fx, 'write_file', { path: 'f.txt', content: 'x' })).status).toBe('success');
    });

    it('does not block an edit when the file was only touched (new time, same content)', async () => {
        const { fx, p } = setup({ 'f.txt': 'alpha\n' });
        await status(fx, 'read_file', { paths: ['f.txt'] });
        const later = new Date(Date.now() + 60_000);
        fs.utimesSync(p('f.txt'), later, later);
        expect((await status(fx, 'replace_file_content', { path: 'f.txt', old_content: 'alpha', new_content: 'beta' })).status).toBe('success');
    });

    it("refuses an unread file, and the tool's own writes refresh the record", async () => {
        const { fx, p } = setup({ 'f.txt': 'one\n' });
        const unread = await status(fx, 'replace_file_content', { path: 'f.txt', old_content: 'one', new_content: '1' });
        expect(unread.status).toBe('error');
        expect(unread.result).toMatch(/call read_file on .*f\.txt/);
        expect((await status(fx, 'write_file', { path: 'f.txt', content: 'x' })).status).toBe('error');
        // A new file needs no read; every later edit builds on the tool's own writes.
        expect((await status(fx, 'write_file', { path: 'n.txt', content: 'a\n' })).status).toBe('success');
        expect((await status(fx, 'insert_file_content', { path: 'n.txt', content: 'b' })).status).toBe('success');
        expect((await status(fx, 'replace_file_lines', { path: 'n.txt', content: 'B', start_line: 2 })).status).toBe('success');
        expect((await status(fx, 'replace_file_content', { path: 'n.txt', old_content: 'a', new_content: 'A' })).status).toBe('success');
        expect((await status(fx, 'write_file', { path: 'n.txt', content: 'final\n' })).status).toBe('success');
        expect(fs.readFileSync(p('n.txt'), 'utf8')).toBe('final\n');
        expect(fs.readFileSync(p('f.txt'), 'utf8')).toBe('one\n');
    });
});

describe('parallel edits of one file', () => {
    type Outcome = { ok: number; lost: number; refused: number };

    /** Runs two replace_file_content calls on distinct substrings at once and classifies the outcome. */
    async function race(fa: Fixture, fb: Fixture, file: string, pathA: string, pathB: string, iterations: number): Promise<Outcome> {
        const out: Outcome = { ok: 0, lost: 0, refused: 0 };
        for (let i = 0; i < iterations; i++) {
            fs.writeFileSync(file, `head\nAAA-${i}\nmiddle\nBBB-${i}\ntail\n`);
            await fa.run('read_file', { paths: [pathA] });
            if (fb !== fa) await fb.run('read_file', { paths: [pathB] });
            const [[a], [b]] = await Promise.all([
                fa.run('replace_file_content', { path: pathA, old_content: `AAA-${i}`, new_content: `aaa-${i}` }),
                fb.run('replace_file_content', { path: pathB, old_content: `BBB-${i}`, new_content: `bbb-${i}` }),
            ]);
            const text = fs.readFileSync(file, 'utf8');
            const hasA = text.includes(`aaa-${i}`) && !text.includes(`AAA-${i}`);
            const hasB = text.includes(`bbb-${i}`) && !text.includes(`BBB-${i}`);
            // Every success must be on disk; every refusal must have changed nothing of its own.
            if ((a!.status === 'success' && !hasA) || (b!.status === 'success' && !hasB)) out.lost++;
            else if (a!.status === 'success' && b!.status === 'success') out.ok++;
            else {
                out.refused++;
                expect([a!.status, b!.status]).toContain('success');
                const refused = a!.status === 'error' ? a! : b!;
                expect(refused.result).toMatch(/changed since it was last read/);
                expect(a!.status === 'error' ? hasA : hasB).toBe(false);
            }
        }
        return out;
    }

    it('two parallel edits through one package: both land, never one lost', async () => {
        const { fx, p } = setup({ 'f.txt': '' });
        const r = await race(fx, fx, p('f.txt'), 'f.txt', 'f.txt', 150);
        expect(r.lost).toBe(0);
        expect(r.ok + r.refused).toBe(150);
    });

    it('two parallel edits through two spellings of one file (relative, absolute, a link inside): never one lost', async () => {
        const { dir, fx, p } = setup({ 'f.txt': '' });
        fs.symlinkSync('f.txt', p('alias.txt'));
        const r1 = await race(fx, fx, p('f.txt'), 'f.txt', 'alias.txt', 80);
        const r2 = await race(fx, fx, p('f.txt'), path.join(dir, 'f.txt'), './sub/../f.txt', 80);
        expect(r1.lost + r2.lost).toBe(0);
        expect(fs.lstatSync(p('alias.txt')).isSymbolicLink()).toBe(true);
    });

    it('two agents (two packages, two read records) editing at once: both land or the later one is refused as stale', async () => {
        const { dir, fx, p } = setup({ 'f.txt': '' });
        const other = makePackage(dir);
        const r = await race(fx, other, p('f.txt'), 'f.txt', 'f.txt', 150);
        expect(r.lost).toBe(0);
        // With separate records the second edit is based on a stale read: it must be refused.
        expect(r.refused).toBe(150);
    });

    it('parallel write_file and an edit of one file: never two successes with one lost', async () => {
        const { fx, p } = setup({ 'f.txt': 'x\n' });
        for (let i = 0; i < 60; i++) {
            fs.writeFileSync(p('f.txt'), `start ${i}\n`);
            await fx.run('read_file', { paths: ['f.txt'] });
            const write = (): Promise<ToolResult[]> => fx.run('write_file', { path: 'f.txt', content: `whole ${i}\n` });
            const insert = (): Promise<ToolResult[]> => fx.run('insert_file_content', { path: 'f.txt', content: `added ${i}` });
            // Alternate which call starts first.
            let w: ToolResult | undefined;
            let e: ToolResult | undefined;
            if (i % 2 === 0) [[w], [e]] = await Promise.all([write(), insert()]);
            else [[e], [w]] = await Promise.all([insert(), write()]);
            const text = fs.readFileSync(p('f.txt'), 'utf8');
            if (w!.status === 'success') expect(text).toContain(`whole ${i}`);
            if (e!.status === 'success') expect(text).toContain(`added ${i}`);
            expect([w!.status, e!.status]).toContain('success');
        }
    });

    it('parallel line edits based on one read: never applied to lines that moved', async () => {
        const { fx, p } = setup({ 'f.txt': '' });
        for (let i = 0; i < 60; i++) {
            fs.writeFileSync(p('f.txt'), 'one\ntwo\nthree\nfour\n');
            await fx.run('read_file', { paths: ['f.txt'] });
            // Both line numbers refer to the file as read: insert before "one", replace "three".
            const [[ins], [rep]] = await Promise.all([
                fx.run('insert_file_content', { path: 'f.txt', content: 'zero', line: 1 }),
                fx.run('replace_file_lines', { path: 'f.txt', content: 'THREE', start_line: 3 }),
            ]);
            const text = fs.readFileSync(p('f.txt'), 'utf8');
            const expected =
                ins!.status === 'success' && rep!.status === 'success'
                    ? 'zero\none\ntwo\nTHREE\nfour\n'
                    : ins!.status === 'success'
                      ? 'zero\none\ntwo\nthree\nfour\n'
                      : rep!.status === 'success'
                        ? 'one\ntwo\nTHREE\nfour\n'
                        : 'one\ntwo\nthree\nfour\n';
            expect(text).toBe(expected);
            expect([ins!.status, rep!.status]).toContain('success');
        }
    });
});

describe('move_file', () => {
    it('never overwrites an existing file, directory or link', async () => {
        const { fx, p } = setup({ 'a.txt': 'A', 'b.txt': 'B', 'd/keep.txt': 'K', 'empty/.keep': '' });
        fs.rmSync(p('empty/.keep'));
        fs.symlinkSync('b.txt', p('link-b'));
        for (const destination of ['b.txt', 'd', 'empty', 'link-b', './b.txt', 'd/../b.txt']) {
            const r = await status(fx, 'move_file', { source: 'a.txt', destination });
            expect(r.status, destination).toBe('error');
            expect(r.result).toMatch(/already exists|same path/);
        }
        const dirOnto = await status(fx, 'move_file', { source: 'd', destination: 'empty' });
        expect(dirOnto.status).toBe('error');
        expect(fs.readFileSync(p('a.txt'), 'utf8')).toBe('A');
        expect(fs.readFileSync(p('b.txt'), 'utf8')).toBe('B');
        expect(fs.readFileSync(p('d/keep.txt'), 'utf8')).toBe('K');
        expect(fs.lstatSync(p('link-b')).isSymbolicLink()).toBe(true);
    });

    it('two parallel moves to one destination: exactly one wins, nothing is lost', async () => {
        const { fx, p } = setup();
        for (let i = 0; i < 40; i++) {
            fs.writeFileSync(p(`x${i}`), 'X');
            fs.writeFileSync(p(`y${i}`), 'Y');
            const [[a], [b]] = await Promise.all([
                fx.run('move_file', { source: `x${i}`, destination: `dest${i}` }),
                fx.run('move_file', { source: `y${i}`, destination: `dest${i}` }),
            ]);
            expect([a!.status, b!.status].sort()).toEqual(['error', 'success']);
            const left = a!.status === 'success' ? `y${i}` : `x${i}`;
            expect(fs.existsSync(p(left))).toBe(true);
            expect(fs.readFileSync(p(`dest${i}`), 'utf8')).toBe(a!.status === 'success' ? 'X' : 'Y');
        }
    });

    it('two moves in opposite directions at once never wait for each other forever', async () => {
        const { fx, p } = setup();
        for (let i = 0; i < 30; i++) {
            fs.writeFileSync(p(`a${i}`), 'A');
            fs.writeFileSync(p(`b${i}`), 'B');
            const both = Promise.all([
                fx.run('move_file', { source: `a${i}`, destination: `b${i}` }),
                fx.run('move_file', { source: `b${i}`, destination: `a${i}` }),
            ]);
            let timer: NodeJS.Timeout | undefined;
            // A deadlock waits forever; a minute tells it from a slow, loaded machine.
            const stuck = new Promise<'stuck'>((r) => (timer = setTimeout(() => r('stuck'), 60_000)));
            const outcome = await Promise.race([both, stuck]);
            clearTimeout(timer);
            expect(outcome).not.toBe('stuck');
            const [[x], [y]] = outcome as Awaited<typeof both>;
            // Both destinations exist: both refused, nothing overwritten.
            expect([x!.status, y!.status]).toEqual(['error', 'error']);
            expect(fs.readFileSync(p(`a${i}`), 'utf8')).toBe('A');
            expect(fs.readFileSync(p(`b${i}`), 'utf8')).toBe('B');
        }
    });

    it('refuses moving a directory into itself, also through a link to it', async () => {
        const { fx, p } = setup({ 'd/f.txt': 'F' });
        fs.symlinkSync(p('d'), p('link-d'));
        for (const destination of ['d/sub', 'd/sub/deeper', 'link-d/sub', './d/./x']) {
            const r = await status(fx, 'move_file', { source: 'd', destination });
            expect(r.status, destination).toBe('error');
            expect(r.result).toMatch(/into itself/);
        }
        expect(fs.readFileSync(p('d/f.txt'), 'utf8')).toBe('F');
    });

    it('moves a link as a link, leaving its target in place', async () => {
        const { fx, p } = setup({ 't.txt': 'T' });
        fs.symlinkSync('t.txt', p('l'));
        expect((await status(fx, 'move_file', { source: 'l', destination: 'l2' })).status).toBe('success');
        expect(fs.lstatSync(p('l2')).isSymbolicLink()).toBe(true);
        expect(fs.readFileSync(p('t.txt'), 'utf8')).toBe('T');
    });

    it('refuses moving an access root, also one reached through a link', async () => {
        const base = tempDir('lcf-data-roots-');
        const work = path.join(base, 'work');
        const other = path.join(base, 'other');
        fs.mkdirSync(work);
        fs.mkdirSync(other);
        fs.symlinkSync(other, path.join(base, 'other-alias'));
        const fx = makePackage(work, {
            accesses: [
                { type: AccessType.Write, path: work },
                { type: AccessType.Write, path: path.join(base, 'other-alias') },
            ],
        });
        for (const source of ['.', work, path.join(base, 'other-alias'), other]) {
            const r = await status(fx, 'move_file', { source, destination: path.join(work, 'moved') });
            expect(r.status, source).toBe('error');
        }
        expect(fs.lstatSync(path.join(base, 'other-alias')).isSymbolicLink()).toBe(true);
        expect(fs.existsSync(other)).toBe(true);
        // With symlink resolution off the root is the link as written: still not movable.
        const relaxed = makePackage(work, {
            resolveSymlinks: false,
            accesses: [
                { type: AccessType.Write, path: work },
                { type: AccessType.Write, path: path.join(base, 'other-alias') },
            ],
        });
        const r = await status(relaxed, 'move_file', { source: path.join(base, 'other-alias'), destination: path.join(work, 'moved') });
        expect(r.status).toBe('error');
        expect(fs.lstatSync(path.join(base, 'other-alias')).isSymbolicLink()).toBe(true);
    });
});

describe('delete_file', () => {
    it('refuses deleting an access root, however it is written', async () => {
        const base = tempDir('lcf-data-del-');
        const work = path.join(base, 'work');
        const second = path.join(work, 'nested-root');
        fs.mkdirSync(second, { recursive: true });
        fs.writeFileSync(path.join(second, 'keep.txt'), 'K');
        const fx = makePackage(work, {
            accesses: [
                { type: AccessType.Write, path: work },
                { type: AccessType.Write, path: second },
            ],
        });
        for (const p of ['.', './', work, work + '/', `${work}/.`, 'nested-root/..', 'nested-root', 'nested-root/', second, `${second}/../nested-root`]) {
            const r = await status(fx, 'delete_file', { path: p, recursive: true });
            expect(r.status, p).toBe('error');
            expect(r.result).toMatch(/access root|workspace/);
        }
        expect(fs.readFileSync(path.join(second, 'keep.txt'), 'utf8')).toBe('K');
    });

    it('deleting a link removes only the link (file link, directory link, recursive or not)', async () => {
        const { fx, p } = setup({ 't.txt': 'T', 'd/f.txt': 'F' });
        fs.symlinkSync('t.txt', p('lf'));
        fs.symlinkSync('d', p('ld'));
        fs.symlinkSync('d', p('ld2'));
        expect((await status(fx, 'delete_file', { path: 'lf' })).result).toMatch(/Deleted symlink/);
        expect((await status(fx, 'delete_file', { path: 'ld', recursive: true })).status).toBe('success');
        expect((await status(fx, 'delete_file', { path: 'ld2/' })).status).toBe('success');
        expect(fs.readFileSync(p('t.txt'), 'utf8')).toBe('T');
        expect(fs.readFileSync(p('d/f.txt'), 'utf8')).toBe('F');
        expect(fs.existsSync(p('lf'))).toBe(false);
        expect(fs.existsSync(p('ld'))).toBe(false);
    });

    it('recursive delete removes links inside the tree without following them', async () => {
        const { fx, p } = setup({ 'keep/k.txt': 'K', 'gone/x.txt': 'x' });
        fs.symlinkSync(p('keep'), p('gone/to-keep'));
        fs.symlinkSync(p('keep/k.txt'), p('gone/to-k'));
        expect((await status(fx, 'delete_file', { path: 'gone', recursive: true })).status).toBe('success');
        expect(fs.existsSync(p('gone'))).toBe(false);
        expect(fs.readFileSync(p('keep/k.txt'), 'utf8')).toBe('K');
    });
});

describe('line endings, BOM and final newline', () => {
    it('keeps CRLF files CRLF and mixed files byte-identical outside the edit', async () => {
        const { fx, p } = setup({ 'crlf.txt': 'a\r\nb\r\nc\r\n', 'mixed.txt': 'one\r\ntwo\nthree\r\nfour\n' });
        await fx.run('read_file', { paths: ['crlf.txt', 'mixed.txt'] });
        await status(fx, 'replace_file_lines', { path: 'crlf.txt', content: 'B1\nB2\n', start_line: 2 });
        await status(fx, 'insert_file_content', { path: 'crlf.txt', content: 'end' });
        await status(fx, 'replace_file_content', { path: 'crlf.txt', old_content: 'a\nB1', new_content: 'A\nb1' });
        expect(fs.readFileSync(p('crlf.txt'), 'latin1')).toBe('A\r\nb1\r\nB2\r\nc\r\nend\r\n');
        await status(fx, 'replace_file_lines', { path: 'mixed.txt', content: 'TWO', start_line: 2 });
        await status(fx, 'insert_file_content', { path: 'mixed.txt', content: 'between', line: 4 });
        // Two CRLF and two LF lines: a tie, so new lines take LF.
        expect(fs.readFileSync(p('mixed.txt'), 'latin1')).toBe('one\r\nTWO\nthree\r\nbetween\nfour\n');
    });

    it('never doubles or drops a UTF-8 BOM', async () => {
        const { fx, p } = setup({ 'bom.txt': Buffer.concat([BOM, Buffer.from('first\nsecond\n')]) });
        await status(fx, 'read_file', { paths: ['bom.txt'] });
        const startsWithOneBom = (): void => {
            const b = fs.readFileSync(p('bom.txt'));
            expect(b.subarray(0, 3)).toEqual(BOM);
            expect(b.subarray(3, 6)).not.toEqual(BOM);
        };
        await status(fx, 'replace_file_lines', { path: 'bom.txt', content: 'FIRST', start_line: 1 });
        startsWithOneBom();
        await status(fx, 'insert_file_content', { path: 'bom.txt', content: 'zero', line: 1 });
        startsWithOneBom();
        await status(fx, 'replace_file_content', { path: 'bom.txt', old_content: 'zero', new_content: 'nil' });
        startsWithOneBom();
        // Text that itself starts with U+FEFF at the start of a BOM file is that BOM, not a second one.
        await status(fx, 'replace_file_lines', { path: 'bom.txt', content: '\uFEFFnil', start_line: 1 });
        startsWithOneBom();
        await status(fx, 'write_file', { path: 'bom.txt', content: '\uFEFFwhole\n' });
        startsWithOneBom();
        await status(fx, 'write_file', { path: 'bom.txt', content: 'no bom given\n' });
        startsWithOneBom();
        expect(fs.readFileSync(p('bom.txt')).subarray(3).toString()).toBe('no bom given\n');
        const [r] = await fx.run('read_file', { paths: ['bom.txt'] });
        expect(r!.result).not.toContain('\uFEFF');
    });

    it('keeps a missing final newline missing and a present one present', async () => {
        const { fx, p } = setup({ 'no-nl.txt': 'a\nb', 'nl.txt': 'a\nb\n', 'crlf-no-nl.txt': 'a\r\nb' });
        await fx.run('read_file', { paths: ['no-nl.txt', 'nl.txt', 'crlf-no-nl.txt'] });
        await status(fx, 'replace_file_lines', { path: 'no-nl.txt', content: 'B\n', start_line: 2 });
        expect(fs.readFileSync(p('no-nl.txt'), 'utf8')).toBe('a\nB');
        await status(fx, 'insert_file_content', { path: 'no-nl.txt', content: 'c\n' });
        expect(fs.readFileSync(p('no-nl.txt'), 'utf8')).toBe('a\nB\nc');
        await status(fx, 'replace_file_lines', { path: 'no-nl.txt', content: '', start_line: 3 });
        expect(fs.readFileSync(p('no-nl.txt'), 'utf8')).toBe('a\nB');
        await status(fx, 'replace_file_lines', { path: 'nl.txt', content: 'B', start_line: 2 });
        expect(fs.readFileSync(p('nl.txt'), 'utf8')).toBe('a\nB\n');
        await status(fx, 'insert_file_content', { path: 'nl.txt', content: 'c' });
        expect(fs.readFileSync(p('nl.txt'), 'utf8')).toBe('a\nB\nc\n');
        await status(fx, 'insert_file_content', { path: 'crlf-no-nl.txt', content: 'c' });
        expect(fs.readFileSync(p('crlf-no-nl.txt'), 'utf8')).toBe('a\r\nb\r\nc');
    });

    it('keeps UTF-16 files UTF-16 with their BOM through edits', async () => {
        const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\r\nwörld\r\n', 'utf16le')]);
        const beBody = Buffer.from('héllo\nwörld\n', 'utf16le');
        beBody.swap16();
        const be = Buffer.concat([Buffer.from([0xfe, 0xff]), beBody]);
        const { fx, p } = setup({ 'le.txt': le, 'be.txt': be });
        await fx.run('read_file', { paths: ['le.txt'] });
        await fx.run('read_file', { paths: ['be.txt'] });
        expect((await status(fx, 'replace_file_content', { path: 'le.txt', old_content: 'wörld', new_content: 'wörld €' })).status).toBe('success');
        expect((await status(fx, 'insert_file_content', { path: 'be.txt', content: 'ünd' })).status).toBe('success');
        expect(fs.readFileSync(p('le.txt'))).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\r\nwörld €\r\n', 'utf16le')]));
        const expectedBe = Buffer.from('héllo\nwörld\nünd\n', 'utf16le');
        expectedBe.swap16();
        expect(fs.readFileSync(p('be.txt'))).toEqual(Buffer.concat([Buffer.from([0xfe, 0xff]), expectedBe]));
        // A whole-file write keeps the encoding and BOM too, with or without a BOM in the content.
        expect((await status(fx, 'write_file', { path: 'le.txt', content: 'neu\r\n' })).status).toBe('success');
        expect(fs.readFileSync(p('le.txt'))).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('neu\r\n', 'utf16le')]));
        expect((await status(fx, 'write_file', { path: 'le.txt', content: '\uFEFFwieder\r\n' })).status).toBe('success');
        expect(fs.readFileSync(p('le.txt'))).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('wieder\r\n', 'utf16le')]));
    });

    it('never silently corrupts a Latin-1 file with characters Latin-1 cannot hold', async () => {
        const { fx, p } = setup({ 'latin1.txt': Buffer.from('caf\xe9\nna\xefve\n', 'latin1') });
        expect((await status(fx, 'read_file', { paths: ['latin1.txt'] })).status).toBe('success');
        // Characters Latin-1 can hold are written back as Latin-1, untouched bytes identical.
        expect((await status(fx, 'replace_file_content', { path: 'latin1.txt', old_content: 'café', new_content: 'crème' })).status).toBe('success');
        expect(fs.readFileSync(p('latin1.txt'))).toEqual(Buffer.from('cr\xe8me\nna\xefve\n', 'latin1'));
        // The euro sign has no Latin-1 byte: either refused with a clear message, or written so it reads back exactly.
        const r = await status(fx, 'replace_file_content', { path: 'latin1.txt', old_content: 'crème', new_content: '5 €' });
        const [back] = await fx.run('read_file', { paths: ['latin1.txt'] });
        if (r.status === 'success') expect(back!.result).toContain('5 €');
        else {
            expect(r.result).toMatch(/Latin-1|encoding/i);
            expect(fs.readFileSync(p('latin1.txt'))).toEqual(Buffer.from('cr\xe8me\nna\xefve\n', 'latin1'));
        }
    });
});
