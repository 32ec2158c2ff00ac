/**
 * Engine.search and Engine.readMany on small trees of one kind of entry each: files above
 * maxFileSize reported, binary ones not; time filters; skipDirs; Latin-1; FIFOs walked past;
 * symbolic links followed only inside the real roots; unreadable directories skipped.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AccessType } from '../../../src/config/shared/configuration.js';
import { Engine } from '../../../src/engine/engine.js';
import type { ReadItem } from '../../../src/search/shared/types.js';
import { fileTempDir as tempDir, request, write } from '../../support/engine-fixture.js';

const engine = new Engine({ maxThreads: 2 });
afterAll(() => engine.close());

describe('Engine.search', () => {
    it('reports the files it did not content-search for being above maxFileSize, not the binary ones', async () => {
        const dir = tempDir('lcf-engine-too-large-');
        write(dir, 'a/big.txt', `needle\n${'y'.repeat(2000)}\n`);
        write(dir, 'b.bin', Buffer.concat([Buffer.alloc(600, 0), Buffer.alloc(3000, 0x41)]));
        write(dir, 'c.txt', 'needle\n');
        write(dir, 'd/huge.txt', 'needle\n'.repeat(1000));
        const res = await engine.search(request(dir, { contentPattern: 'needle', maxFileSize: 1000 }), { timeoutMs: 120_000 });
        expect(res.hits.map((h) => h.path)).toEqual(['c.txt']);
        expect(res.tooLarge).toEqual([
            { path: 'a/big.txt', size: 2008 },
            { path: 'd/huge.txt', size: 7000 },
        ]);
        expect(res.tooLargeCount).toBe(2);
        // With max_results, only those the sequential walk passed before stopping.
        const first = await engine.search(request(dir, { contentPattern: 'needle', maxFileSize: 1000, maxResults: 1 }), { timeoutMs: 120_000 });
        expect(first.tooLarge).toEqual([{ path: 'a/big.txt', size: 2008 }]);
        // A name search reads no content: nothing to report.
        const names = await engine.search(request(dir, { maxFileSize: 1000 }), { timeoutMs: 120_000 });
        expect(names.tooLarge).toEqual([]);
        expect(names.tooLargeCount).toBe(0);
    });

    it('filters by timestamps with exclusive bounds and reports the times', async () => {
        const dir = tempDir('lcf-engine-times-');
        write(dir, 'old.txt', 'x\n');
        write(dir, 'new.txt', 'x\n');
        const old = new Date('2020-01-01T00:00:00Z');
        fs.utimesSync(path.join(dir, 'old.txt'), old, old);
        const res = await engine.search(request(dir, { modifiedBefore: Date.parse('2021-01-01T00:00:00Z') }), { timeoutMs: 120_000 });
        expect(res.hits).toEqual([{ path: 'old.txt', kind: 'file', birthtimeMs: expect.any(Number), mtimeMs: old.getTime() }]);
        const exclusive = await engine.search(request(dir, { modifiedAfter: old.getTime(), type: 'file' }), { timeoutMs: 120_000 });
        expect(exclusive.hits.map((h) => h.path)).toEqual(['new.txt']);
    });

    it('skips skipDirs, binary files and files above maxFileSize; reads Latin-1', async () => {
        const dir = tempDir('lcf-engine-kinds-');
        write(dir, 'node_modules/dep/x.txt', 'needle\n');
        write(dir, 'bin.dat', Buffer.concat([Buffer.from('needle\n'), Buffer.alloc(600, 0)]));
        write(dir, 'large.txt', `needle\n${'y'.repeat(5000)}\n`);
        write(dir, 'latin1.txt', Buffer.from('na\xefve needle\n', 'latin1'));
        const res = await engine.search(request(dir, { contentPattern: 'needle', skipDirs: ['node_modules'], maxFileSize: 1000 }), { timeoutMs: 120_000 });
        expect(res.hits).toEqual([{ path: 'latin1.txt', kind: 'file', line: 1, text: 'naïve needle' }]);
        const names = await engine.search(request(dir, { skipDirs: ['node_modules'] }), { timeoutMs: 120_000 });
        expect(names.hits.map((h) => h.path)).toEqual(['bin.dat', 'large.txt', 'latin1.txt']);
        // A large binary is recognised from its header sample.
        write(dir, 'big.bin', Buffer.concat([Buffer.alloc(600, 0), Buffer.from('\nneedle\n'), Buffer.alloc(100_000, 0x41)]));
        const big = await engine.search(request(dir, { contentPattern: 'needle', namePattern: '^(big|large)' }), { timeoutMs: 120_000 });
        expect(big.hits).toEqual([{ path: 'large.txt', kind: 'file', line: 1, text: 'needle' }]);
    });

    it('walks past a FIFO without opening it', async () => {
        const dir = tempDir('lcf-engine-fifo-');
        write(dir, 'a.txt', 'needle\n');
        execFileSync('mkfifo', [path.join(dir, 'pipe')]);
        fs.symlinkSync('pipe', path.join(dir, 'pipe-link'));
        const res = await engine.search(request(dir, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('done');
        expect(res.hits.map((h) => h.path)).toEqual(['a.txt']);
        const names = await engine.search(request(dir, { namePattern: 'pipe' }), { timeoutMs: 120_000 });
        expect(names.hits.map((h) => h.path)).toEqual(['pipe', 'pipe-link']);
    });

    it('follows symlinks only inside the real roots, never in a loop; broken links are skipped; a link into the searched tree is not entered', async () => {
        const outside = tempDir('lcf-engine-outside-');
        write(outside, 'secret.txt', 'needle outside\n');
        const shared = tempDir('lcf-engine-shared-');
        write(shared, 'lib.txt', 'needle shared\n');
        const dir = tempDir('lcf-engine-links-');
        write(dir, 'real/inside.txt', 'needle inside\n');
        fs.symlinkSync(outside, path.join(dir, 'out-link'));
        fs.symlinkSync(shared, path.join(dir, 'shared-link'));
        fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'secret-link.txt'));
        fs.symlinkSync('..', path.join(dir, 'real', 'loop-up'));
        fs.symlinkSync('.', path.join(dir, 'real', 'loop-self'));
        fs.symlinkSync('real', path.join(dir, 'alias'));
        fs.symlinkSync('missing', path.join(dir, 'broken'));
        const res = await engine.search(request(dir, { contentPattern: 'needle', realRoots: [dir, shared] }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('done');
        // alias -> real: one file, one name (real/inside.txt); shared-link leads out of the searched tree, into an access root.
        expect(res.hits.map((h) => h.path)).toEqual(['real/inside.txt', 'shared-link/lib.txt']);
        expect(res.skipped).toEqual([{ path: 'broken', reason: expect.stringMatching(/broken symbolic link/) }]);
        const names = await engine.search(request(dir, { realRoots: [dir, shared] }), { timeoutMs: 120_000 });
        expect(names.hits.map((h) => h.path)).toContain('alias');
        expect(names.hits.map((h) => h.path).filter((p) => p.startsWith('alias/'))).toEqual([]);
        const free = await engine.search(request(dir, { contentPattern: 'needle', realRoots: null }), { timeoutMs: 120_000 });
        expect(free.hits.map((h) => h.path)).toEqual(['out-link/secret.txt', 'real/inside.txt', 'secret-link.txt', 'shared-link/lib.txt']);
    });

    it.skipIf(process.getuid?.() === 0)('skips unreadable directories into skipped', async () => {
        const dir = tempDir('lcf-engine-perm-');
        write(dir, 'locked/in.txt', 'needle\n');
        write(dir, 'open.txt', 'needle\n');
        fs.chmodSync(path.join(dir, 'locked'), 0o000);
        try {
            const res = await engine.search(request(dir, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
            expect(res.hits.map((h) => h.path)).toEqual(['open.txt']);
            expect(res.skipped).toEqual([{ path: 'locked', reason: 'permission denied' }]);
        } finally {
            fs.chmodSync(path.join(dir, 'locked'), 0o755);
        }
    });
});

describe('Engine.readMany', () => {
    it('reads in the order given with one outcome per item', async () => {
        const dir = tempDir('lcf-engine-read-');
        const items: ReadItem[] = [];
        for (let i = 0; i < 40; i++) {
            write(dir, `f${i}.txt`, `content ${i}\n`);
            items.push({ shown: path.join(dir, `f${i}.txt`), real: path.join(dir, `f${i}.txt`) });
        }
        write(dir, 'big.txt', 'x'.repeat(5000));
        execFileSync('mkfifo', [path.join(dir, 'pipe')]);
        items.splice(3, 0, { shown: path.join(dir, 'missing.txt'), real: path.join(dir, 'missing.txt') });
        items.splice(10, 0, { shown: path.join(dir, 'big.txt'), real: path.join(dir, 'big.txt') });
        items.splice(20, 0, { shown: path.join(dir, 'pipe'), real: path.join(dir, 'pipe') });
        const out = await engine.readMany(items, { maxBytes: 1000, realRoots: [{ type: AccessType.Read, path: dir }], timeoutMs: 120_000 });
        expect(out).toHaveLength(items.length);
        out.forEach((r, i) => {
            const name = path.basename(items[i]!.shown);
            if (name === 'missing.txt') expect(r).toMatchObject({ ok: false, kind: 'not_found' });
            else if (name === 'big.txt') expect(r).toMatchObject({ ok: false, kind: 'too_large' });
            else if (name === 'pipe') expect(r).toMatchObject({ ok: false, kind: 'wrong_type' });
            else {
                expect(r.ok).toBe(true);
                if (r.ok) expect(Buffer.from(r.bytes).toString()).toBe(`content ${name.slice(1, -4)}\n`);
            }
        });
    });
});
