/**
 * The tree check (workers/search-index/index-check.ts: the stored table's directories listed and
 * merged by name, entries stat'ed by descriptor, on threads sharing a queue) gives what the
 * walk-and-compare gives (index-walk.ts `runIndexCheckByWalk`), whatever changed: added, removed,
 * retyped, resized and touched entries, files rewritten in place with their times set back or chmod'ed, a renamed directory, one made unreadable, names that are
 * not UTF-8, links, skipped directories, the library's temporary files; and fails alike.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { changesSince, readShared } from '../../../src/search-index/watch/changes-since.js';
import { endRead, newCheckQueue, newReadState } from '../../../src/search-index/shared/check-queue.js';
import { CrawlGateWriter, newCrawlGate } from '../../../src/search-index/shared/crawl-gate.js';
import type { IndexCheckResult, IndexCheckTask } from '../../../src/search-index/shared/protocol.js';
import { runIndexCheck } from '../../../workers/search-index/index-check.js';
import { runIndexCheckByWalk, walkEncoded } from '../../../workers/search-index/index-walk.js';
import { childModule, runChildScript } from '../../support/child-source.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { ownThreadsEndWithCaller } from '../../support/own-threads.js';

const SKIP = ['node_modules'];
const asRoot = process.getuid?.() === 0;
/** Children load held-at.ts's native layer (raw listings, statx by address) here. */
const native = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64') && process.env.LLM_CHAT_FILE_NATIVE_AT !== '0';

/** A tree with a bit of everything, and its table stored as a table file. */
async function stored(): Promise<{ root: string; table: string }> {
    const root = fs.realpathSync(tempDir('lcf-check-'));
    const files: Record<string, string | Buffer> = { 'top.txt': 'top\n', 'gone.txt': 'x\n', 'same/a.c': 'a\n', 'same/b.c': 'b\n', 'node_modules/m.js': 'm\n' };
    // Big enough to be queued for any thread (more than 1,024 entries below one directory).
    for (let d = 0; d < 3; d++) for (let f = 0; f < 450; f++) files[`big${d}/sub${f % 5}/f${f}.c`] = `int f${f};\n`;
    for (const d of ['resize', 'touch', 'retype', 'oldname', 'locked', 'dirgone', 'bytes', 'inplace', 'mode']) files[`${d}/x.txt`] = `${d}\n`;
    files['oldname/deep/y.txt'] = 'y\n';
    files['dirgone/deep/z.txt'] = 'z\n';
    files['big1/sub2/tofile/inner.c'] = 'i\n';
    writeTree(root, files);
    fs.symlinkSync('top.txt', path.join(root, 'link'));
    fs.symlinkSync('same', path.join(root, 'dirlink'));
    fs.writeFileSync(Buffer.from(path.join(root, 'bytes') + '/caf\xe9.txt', 'latin1'), 'latin1 name\n');
    const fixed = new Date('2024-01-02T03:04:05.678Z');
    for (const f of ['resize/x.txt', 'touch/x.txt']) fs.utimesSync(path.join(root, f), fixed, fixed);
    const walked = (await walkEncoded({ op: 'index-walk', root, skipDirs: SKIP, maxEntries: 100_000 })) as Extract<Awaited<ReturnType<typeof walkEncoded>>, { ok: true }>;
    expect(walked.ok).toBe(true);
    const table = path.join(tempDir('lcf-check-table-'), 'table.bin');
    fs.writeFileSync(table, walked.table);
    return { root, table };
}

/** Every kind of change the check must see. */
function change(root: string): void {
    const at = (rel: string): string => path.join(root, rel);
    fs.writeFileSync(at('added.txt'), 'new\n');
    fs.mkdirSync(at('newdir/inner'), { recursive: true });
    fs.writeFileSync(at('newdir/inner/n.c'), 'n\n');
    fs.rmSync(at('gone.txt'));
    fs.rmSync(at('dirgone'), { recursive: true });
    fs.writeFileSync(at('resize/x.txt'), 'resized, same time\n');
    fs.utimesSync(at('resize/x.txt'), new Date('2024-01-02T03:04:05.678Z'), new Date('2024-01-02T03:04:05.678Z'));
    fs.utimesSync(at('touch/x.txt'), new Date('2024-01-02T03:04:06.678Z'), new Date('2024-01-02T03:04:06.678Z'));
    fs.rmSync(at('retype/x.txt'));
    fs.mkdirSync(at('retype/x.txt'));
    fs.writeFileSync(at('retype/x.txt/under.txt'), 'u\n');
    fs.rmSync(at('big1/sub2/tofile'), { recursive: true });
    fs.writeFileSync(at('big1/sub2/tofile'), 'a file now\n');
    fs.writeFileSync(at('big2/sub4/f4.c'), 'changed in a queued directory\n');
    // Rewritten in place with the same size and its modification time set back to the nanosecond
    // (same inode, same birth time): only its change time moved. Once in a queued directory too.
    for (const [rel, text] of [['inplace/x.txt', 'INPLACE\n'], ['big0/sub1/f1.c', 'int g1;\n']] as const) {
        execFileSync('touch', ['-r', at(rel), `${at(rel)}.ref`]);
        fs.writeFileSync(at(rel), text);
        execFileSync('touch', ['-r', `${at(rel)}.ref`, at(rel)]);
        fs.rmSync(`${at(rel)}.ref`);
    }
    fs.chmodSync(at('mode/x.txt'), 0o600);
    fs.renameSync(at('oldname'), at('newname'));
    fs.chmodSync(at('locked'), 0o000);
    fs.writeFileSync(Buffer.from(at('bytes') + '/na\xefve.txt', 'latin1'), 'another latin1 name\n');
    fs.rmSync(Buffer.from(at('bytes') + '/caf\xe9.txt', 'latin1'));
    fs.rmSync(at('link'));
    fs.symlinkSync('same/a.c', at('link'));
    fs.symlinkSync('nowhere', at('newlink'));
    fs.mkdirSync(at('same/node_modules'));
    fs.writeFileSync(at('same/node_modules/skipped.js'), 's\n');
    fs.writeFileSync(at('same/.a.c.lcf-1-2-0123456789ab.tmp'), 'debris\n');
}

function sorted(r: IndexCheckResult): { changed: string[]; dirTimes: string[] } {
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
    return { changed: (r.changed === '' ? [] : r.changed.split('\0')).sort(), dirTimes: [...r.dirTimes].sort() };
}

const task = (root: string, table: string, extra: Partial<IndexCheckTask> = {}): IndexCheckTask => ({ op: 'index-check', root, skipDirs: SKIP, maxEntries: 100_000, table, ...extra });

describe('the tree check', () => {
    it('finds nothing in a tree as stored', async () => {
        const { root, table } = await stored();
        expect(sorted(await runIndexCheck(task(root, table)))).toEqual({ changed: [], dirTimes: [] });
    });

    it('gives what the walk-and-compare gives, on one thread and on two sharing the queue', async () => {
        const { root, table } = await stored();
        change(root);
        try {
            const reference = sorted(await runIndexCheckByWalk(task(root, table)));
            // The reference itself: each kind of change is there.
            for (const p of ['added.txt', 'newdir', 'newdir/inner', 'newdir/inner/n.c', 'gone.txt', 'dirgone', 'dirgone/deep/z.txt', 'resize/x.txt', 'touch/x.txt', 'retype/x.txt', 'retype/x.txt/under.txt', 'big1/sub2/tofile', 'big1/sub2/tofile/inner.c', 'big2/sub4/f4.c', 'oldname/deep/y.txt', 'newname/x.txt', 'link', 'newlink', 'bytes/na\udcefve.txt', 'bytes/caf\udce9.txt', 'inplace/x.txt', 'big0/sub1/f1.c', 'mode/x.txt']) {
                expect(reference.changed, p).toContain(p);
            }
            if (!asRoot) expect(reference.changed).toContain('locked/x.txt');
            expect(reference.changed.some((p) => p.includes('node_modules') || p.includes('.lcf-'))).toBe(false);
            expect(reference.dirTimes).toContain('');
            expect(sorted(await runIndexCheck(task(root, table)))).toEqual(reference);
            // Two tasks on one queue, one after the other: the first takes every directory, the second none.
            const queue = newCheckQueue();
            const parts = [sorted(await runIndexCheck(task(root, table, { queue }))), sorted(await runIndexCheck(task(root, table, { queue })))];
            expect(parts[1]).toEqual({ changed: [], dirTimes: [] });
            expect(parts[0]).toEqual(reference);
            // On the background pool's threads, at once (changes-since.ts).
            const pooled = await changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table });
            expect({ changed: [...pooled.changed].sort(), dirTimes: [...pooled.dirTimes].sort() }).toEqual(reference);
            expect(new Set(pooled.changed).size).toBe(pooled.changed.length);
        } finally {
            fs.chmodSync(path.join(root, 'locked'), 0o755);
        }
    }, 60_000);

    it('compares a directory by its records as by its names: one past the first buffer, one made not ASCII since, names that share a hash slot or a prefix', async () => {
        const root = fs.realpathSync(tempDir('lcf-check-raw-'));
        const files: Record<string, string> = {};
        // 2,500 entries of 40 bytes and more: past the raw listing's first 32 KiB of records.
        for (let f = 0; f < 2500; f++) files[`wide/a-rather-long-file-name-${String(f).padStart(4, '0')}.c`] = `int f${f};\n`;
        for (const n of ['a', 'ab', 'abc', 'b', 'ba']) files[`prefix/${n}`] = `${n}\n`;
        files['ascii/x.c'] = 'x\n';
        writeTree(root, files);
        const walked = (await walkEncoded({ op: 'index-walk', root, skipDirs: SKIP, maxEntries: 100_000 })) as Extract<Awaited<ReturnType<typeof walkEncoded>>, { ok: true }>;
        const table = path.join(tempDir('lcf-check-raw-table-'), 'table.bin');
        fs.writeFileSync(table, walked.table);
        expect(sorted(await runIndexCheck(task(root, table)))).toEqual({ changed: [], dirTimes: [] });
        const at = (rel: string): string => path.join(root, rel);
        const inPlace = at('wide/a-rather-long-file-name-1234.c');
        execFileSync('touch', ['-r', inPlace, `${inPlace}.ref`]);
        fs.writeFileSync(inPlace, 'int g1234;\n');
        execFileSync('touch', ['-r', `${inPlace}.ref`, inPlace]);
        fs.rmSync(`${inPlace}.ref`);
        fs.rmSync(at('wide/a-rather-long-file-name-0000.c'));
        fs.writeFileSync(at('wide/a-rather-long-file-name-2500.c'), 'new\n');
        fs.rmSync(at('prefix/ab'));
        fs.writeFileSync(at('prefix/abcd'), 'abcd\n');
        fs.rmSync(at('prefix/b'));
        fs.mkdirSync(at('prefix/b'));
        fs.writeFileSync(at('ascii/é.c'), 'not ascii\n');
        fs.writeFileSync(at('ascii/x.c'), 'longer than before\n');
        const reference = sorted(await runIndexCheckByWalk(task(root, table)));
        for (const p of ['wide/a-rather-long-file-name-1234.c', 'wide/a-rather-long-file-name-0000.c', 'wide/a-rather-long-file-name-2500.c', 'prefix/ab', 'prefix/abcd', 'prefix/b', 'ascii/é.c', 'ascii/x.c']) expect(reference.changed, p).toContain(p);
        expect(sorted(await runIndexCheck(task(root, table)))).toEqual(reference);
    }, 60_000);

    it.skipIf(!native)('out of descriptors, reports the directories it cannot open as changed with all stored below them: a change deep down is not missed', async () => {
        const root = fs.realpathSync(tempDir('lcf-check-fds-'));
        const deep = Array.from({ length: 40 }, (_, i) => `d${i}`).join('/');
        writeTree(root, { [`${deep}/f.c`]: 'int a;\n', 'top.c': 'top\n', 'd0/side.c': 'side\n' });
        const walked = (await walkEncoded({ op: 'index-walk', root, skipDirs: SKIP, maxEntries: 100_000 })) as Extract<Awaited<ReturnType<typeof walkEncoded>>, { ok: true }>;
        const table = path.join(tempDir('lcf-check-fds-table-'), 'table.bin');
        fs.writeFileSync(table, walked.table);
        // Rewritten in place, its size and modification time as before: only its change time moved.
        const f = path.join(root, deep, 'f.c');
        execFileSync('touch', ['-r', f, `${f}.ref`]);
        fs.writeFileSync(f, 'int b;\n');
        execFileSync('touch', ['-r', `${f}.ref`, f]);
        fs.rmSync(`${f}.ref`);
        const free = sorted(await runIndexCheck(task(root, table)));
        expect(free.changed).toEqual([`${deep}/f.c`]);
        // In a child: the native layer loaded and the table read first, then every descriptor but
        // eight taken, so the check runs out of them some ten directories down.
        const script = `
            import fs from 'node:fs';
            const { heldAt } = await import(${JSON.stringify(childModule('workers/fs/held-at.ts'))});
            const { runIndexCheck } = await import(${JSON.stringify(childModule('workers/search-index/index-check.ts'))});
            const at = heldAt();
            const bytes = fs.readFileSync(${JSON.stringify(table)});
            const sab = new SharedArrayBuffer(bytes.length);
            new Uint8Array(sab).set(bytes);
            const held = [];
            try { for (;;) held.push(fs.openSync('/dev/null', 'r')); } catch (err) { if (err.code !== 'EMFILE') throw err; }
            for (let i = 0; i < 8; i++) fs.closeSync(held.pop());
            const r = await runIndexCheck({ op: 'index-check', root: ${JSON.stringify(root)}, skipDirs: [], maxEntries: 100000, table: 'unused', tableBytes: sab });
            for (const fd of held) fs.closeSync(fd);
            console.log(JSON.stringify({ kind: at.kind, raw: at.listRaw !== undefined, r }));
        `;
        const out = await runChildScript(script);
        expect(out.stderr).toBe('');
        const { kind, raw, r } = JSON.parse(out.stdout) as { kind: string; raw: boolean; r: IndexCheckResult };
        expect([kind, raw]).toEqual(['native', true]);
        const limited = sorted(r);
        expect(limited.changed).toContain(`${deep}/f.c`);
        expect(limited.changed.length).toBeGreaterThan(1);
        expect(limited.changed).not.toContain('top.c');
        expect(limited.changed).not.toContain('d0/side.c');
    }, 60_000);

    it.skipIf(!asRoot || !native)('as another user, gives what the walk-and-compare gives for directories it may not read, or may list but not search', async () => {
        const root = fs.realpathSync(tempDir('lcf-check-perm-'));
        writeTree(root, { 'open/a.c': 'a\n', 'locked/x.c': 'x\n', 'locked/deep/y.c': 'y\n', 'listonly/z.c': 'z\n', 'listonly/sub/w.c': 'w\n' });
        const walked = (await walkEncoded({ op: 'index-walk', root, skipDirs: SKIP, maxEntries: 100_000 })) as Extract<Awaited<ReturnType<typeof walkEncoded>>, { ok: true }>;
        const table = path.join(tempDir('lcf-check-perm-table-'), 'table.bin');
        fs.writeFileSync(table, walked.table);
        fs.chmodSync(root, 0o755);
        fs.chmodSync(path.join(root, 'locked'), 0o000);
        fs.chmodSync(path.join(root, 'listonly'), 0o444);
        fs.chmodSync(path.dirname(table), 0o755);
        fs.chmodSync(table, 0o644);
        // The modules loaded first, then the user changed (nobody): no file of the repository
        // need be readable by it.
        const script = `
            const { heldAt } = await import(${JSON.stringify(childModule('workers/fs/held-at.ts'))});
            const { runIndexCheck } = await import(${JSON.stringify(childModule('workers/search-index/index-check.ts'))});
            const { runIndexCheckByWalk } = await import(${JSON.stringify(childModule('workers/search-index/index-walk.ts'))});
            const at = heldAt();
            const task = { op: 'index-check', root: ${JSON.stringify(root)}, skipDirs: [], maxEntries: 100000, table: ${JSON.stringify(table)} };
            process.setgid(65534);
            process.setuid(65534);
            const check = await runIndexCheck(task);
            const walk = await runIndexCheckByWalk(task);
            console.log(JSON.stringify({ raw: at.listRaw !== undefined, check, walk }));
        `;
        try {
            const out = await runChildScript(script);
            expect(out.stderr).toBe('');
            const { raw, check, walk } = JSON.parse(out.stdout) as { raw: boolean; check: IndexCheckResult; walk: IndexCheckResult };
            expect(raw).toBe(true);
            const reference = sorted(walk);
            for (const p of ['locked', 'locked/x.c', 'locked/deep/y.c', 'listonly/z.c']) expect(reference.changed, p).toContain(p);
            expect(reference.changed).not.toContain('open/a.c');
            expect(sorted(check)).toEqual(reference);
        } finally {
            fs.chmodSync(path.join(root, 'locked'), 0o755);
            fs.chmodSync(path.join(root, 'listonly'), 0o755);
        }
    }, 60_000);

    it('fails as the walk-and-compare fails: too many entries, a root that is not a directory, a damaged table', async () => {
        const { root, table } = await stored();
        const before = fs.readdirSync(root).sort();
        for (const t of [task(root, table, { maxEntries: 100 }), task(path.join(root, 'top.txt'), table), task(path.join(root, 'missing'), table)]) {
            const [a, b] = [await runIndexCheck(t), await runIndexCheckByWalk(t)];
            expect(a.ok).toBe(false);
            expect(b.ok).toBe(false);
            if (!a.ok && !b.ok) expect(a.code).toBe(b.code);
        }
        const damaged = path.join(os.tmpdir(), `lcf-check-damaged-${process.pid}.bin`);
        const bytes = fs.readFileSync(table);
        bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
        fs.writeFileSync(damaged, bytes);
        const r = await runIndexCheck(task(root, damaged));
        fs.rmSync(damaged);
        expect(r).toMatchObject({ ok: false, code: 'check_failed' });
        if (!r.ok) expect(r.message).toMatch(/checksum/);
        await expect(changesSince({ root, skipDirs: SKIP, maxEntries: 100, table })).rejects.toThrow(/more than 100 entries/);
        // The table read once for the pool's threads: a table gone fails the check, and so does a damaged one.
        await expect(changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table: `${table}.gone` })).rejects.toThrow(/ENOENT/);
        const damagedAgain = path.join(os.tmpdir(), `lcf-check-damaged-pooled-${process.pid}.bin`);
        fs.writeFileSync(damagedAgain, bytes);
        await expect(changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table: damagedAgain })).rejects.toThrow(/checksum/);
        fs.rmSync(damagedAgain);
        // Nothing on disk changed.
        expect(fs.readdirSync(root).sort()).toEqual(before);
    }, 60_000);

    it("ends its threads before it resolves or rejects: their heaps and the table's shared bytes go with them", async () => {
        ownThreadsEndWithCaller();
        const { root, table } = await stored();
        change(root);
        const threads: Worker[] = [];
        const seen = (w: Worker): void => void threads.push(w);
        process.on('worker', seen);
        try {
            const expected = sorted(await runIndexCheckByWalk(task(root, table)));
            const found = await changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table });
            expect({ changed: [...found.changed].sort(), dirTimes: [...found.dirTimes].sort() }).toEqual(expected);
            expect(threads.length).toBeGreaterThan(0);
            // A worker that has exited has no thread id left.
            expect(threads.map((w) => w.threadId)).toEqual(threads.map(() => -1));
            threads.length = 0;
            await expect(changesSince({ root, skipDirs: SKIP, maxEntries: 100, table })).rejects.toThrow(/more than 100 entries/);
            expect(threads.length).toBeGreaterThan(0);
            expect(threads.map((w) => w.threadId)).toEqual(threads.map(() => -1));
        } finally {
            process.off('worker', seen);
            fs.chmodSync(path.join(root, 'locked'), 0o755);
        }
    }, 60_000);

    it('with bytes whose checksum the host checks, compares without it, and fails on a table out of tree order rather than walking it for ever', async () => {
        const { root, table } = await stored();
        change(root);
        const expected = sorted(await runIndexCheckByWalk(task(root, table)));
        const shared = (bytes: Buffer): SharedArrayBuffer => {
            const sab = new SharedArrayBuffer(bytes.length);
            Buffer.from(sab).set(bytes);
            return sab;
        };
        const bytes = fs.readFileSync(table);
        const checked = { tableBytes: shared(bytes), tableChecked: true };
        expect(sorted(await runIndexCheck(task(root, table, checked)))).toEqual(expected);
        // Through the pool, the table's read handed over as a reopen hands it (its load checks the
        // bytes), the threads started while it may still be under way.
        const read = readShared(table);
        const viaPool = await changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table }, undefined, read);
        expect({ changed: [...viaPool.changed].sort(), dirTimes: [...viaPool.dirTimes].sort() }).toEqual(expected);
        expect(Buffer.from(await (await read).done).equals(bytes)).toBe(true);
        // A thread goes on once the read has ended: with all the bytes, or failed without them.
        for (const whole of [true, false]) {
            const state = newReadState();
            endRead(state, whole);
            const r = await runIndexCheck(task(root, table, { ...checked, tableRead: state }));
            if (whole) expect(sorted(r)).toEqual(expected);
            else expect(r).toMatchObject({ ok: false, code: 'check_failed', message: expect.stringMatching(/could not be read/) });
        }
        // The last name's last byte flipped: a checksum mismatch left to the host, whose load fails.
        const renamed = Buffer.from(bytes);
        renamed[renamed.length - 1] = renamed[renamed.length - 1]! ^ 0x20;
        expect((await runIndexCheck(task(root, table, { tableBytes: shared(renamed) }))).ok).toBe(false);
        expect((await runIndexCheck(task(root, table, { tableBytes: shared(renamed), tableChecked: true }))).ok).toBe(true);
        // An entry whose subtree ends where it begins (its `end` column; header 48 bytes, then
        // size, mtime, birthtime as f64 and parent as i32 per entry) would hold the merge in place.
        const n = bytes.readUInt32LE(12);
        for (const [id, end] of [[1, 1], [2, n + 1], [1, 0]] as const) {
            const looped = Buffer.from(bytes);
            looped.writeInt32LE(end, 48 + n * 28 + id * 4);
            const r = await runIndexCheck(task(root, table, { tableBytes: shared(looped), tableChecked: true }));
            expect(r).toMatchObject({ ok: false, code: 'check_failed' });
            if (!r.ok) expect(r.message).toMatch(/out of tree order/);
        }
        const orphan = Buffer.from(bytes);
        orphan.writeInt32LE(5, 48 + n * 24 + 3 * 4);
        const r = await runIndexCheck(task(root, table, { tableBytes: shared(orphan), tableChecked: true }));
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.message).toMatch(/out of tree order/);
    }, 60_000);
});

describe('the tree check alongside the watcher crawl', () => {
    it('compares the root and each of its subdirectories only once the crawl has watched them', async () => {
        const { root, table } = await stored();
        const gate = newCrawlGate();
        const w = new CrawlGateWriter(gate);
        const pending = changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table, gate });
        let settled = false;
        void pending.finally(() => (settled = true)).catch(() => undefined);
        // Nothing watched yet: the threads have compared nothing, whatever they had time for.
        fs.writeFileSync(path.join(root, 'top.txt'), 'changed before the root was watched\n');
        w.watched(new Uint8Array(0));
        // The root watched, its subdirectories not yet: a change in a queued one and a new one are still seen.
        fs.writeFileSync(path.join(root, 'big2/sub4/f4.c'), 'changed before big2 was watched\n');
        fs.mkdirSync(path.join(root, 'newdir'));
        fs.writeFileSync(path.join(root, 'newdir/n.c'), 'n\n');
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
        expect(settled).toBe(false);
        const tops = fs.readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
        for (const name of tops.sort()) {
            if (name === 'same') fs.writeFileSync(path.join(root, 'same/a.c'), 'changed before same was watched\n');
            w.watched(Buffer.from(name));
        }
        const r = await pending;
        for (const p of ['top.txt', 'big2/sub4/f4.c', 'newdir', 'newdir/n.c', 'same/a.c']) expect(r.changed, p).toContain(p);
        expect(r.changed).toHaveLength(5);
        // Every name published, the end not yet told: the check ended all the same.
        w.end(true);
    }, 60_000);

    it('ends with the crawl when the watcher could not be started, and fails: nothing found can be trusted', async () => {
        const { root, table } = await stored();
        const gate = newCrawlGate();
        const pending = changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table, gate });
        new CrawlGateWriter(gate).watched(new Uint8Array(0));
        new CrawlGateWriter(gate).end(false);
        await expect(pending).rejects.toThrow(/could not be watched/);
        // A crawl that ended with the watcher on lets every subdirectory through, named or not.
        const done = newCrawlGate();
        new CrawlGateWriter(done).end(true);
        expect(await changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table, gate: done })).toEqual({ changed: [], dirTimes: [] });
    }, 60_000);
});
