/**
 * The tree check adding the inotify watcher's watches (workers/search-index/check-watches.ts,
 * reopen.ts `watchAndFind`): every directory it compares is watched, the watches handed back and
 * taken by the watcher (watched-dirs.ts `adopt`) instead of a crawl of its own; a failed check
 * leaves the crawl to watch the tree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { changesSince } from '../../../src/search-index/watch/changes-since.js';
import { checkCanWatch, IN, openInotify, readEvents } from '../../../src/search-index/watch/inotify.js';
import type { WatchSink } from '../../../src/search-index/watch/watch.js';
import { InotifyWatch } from '../../../src/search-index/watch/watch-inotify.js';
import { WatchedDirs } from '../../../src/search-index/watch/watched-dirs.js';
import { walkEncoded } from '../../../workers/search-index/index-walk.js';
import { tempDir, until, writeTree } from '../../support/helpers.js';

const SKIP = ['node_modules'];
const MASK = IN.CREATE | IN.MODIFY | IN.CLOSE_WRITE | IN.DELETE | IN.MOVED_FROM | IN.MOVED_TO | IN.ONLYDIR | IN.DONT_FOLLOW;
const linux = process.platform === 'linux';

/** A tree stored as a table, then changed: directories added, retyped, removed, skipped, linked; one queued for any thread. */
async function changedTree(): Promise<{ root: string; table: string }> {
    const root = fs.realpathSync(tempDir('lcf-check-watch-'));
    const files: Record<string, string> = { 'top.txt': 't\n', 'a/b/c/deep.txt': 'd\n', 'retype/x': 'x\n', 'gone/g/g.txt': 'g\n', 'node_modules/m.js': 'm\n' };
    for (let f = 0; f < 1100; f++) files[`big/s${f % 3}/f${f}.c`] = `int f${f};\n`;
    writeTree(root, files);
    const walked = (await walkEncoded({ op: 'index-walk', root, skipDirs: SKIP, maxEntries: 100_000 })) as Extract<Awaited<ReturnType<typeof walkEncoded>>, { ok: true }>;
    expect(walked.ok).toBe(true);
    const table = path.join(tempDir('lcf-check-watch-table-'), 'table.bin');
    fs.writeFileSync(table, walked.table);
    fs.mkdirSync(path.join(root, 'newdir/inner'), { recursive: true });
    fs.rmSync(path.join(root, 'retype/x'));
    fs.mkdirSync(path.join(root, 'retype/x/y'), { recursive: true });
    fs.rmSync(path.join(root, 'gone'), { recursive: true });
    fs.mkdirSync(path.join(root, 'a/node_modules/inside'), { recursive: true });
    fs.symlinkSync('a', path.join(root, 'dirlink'));
    fs.mkdirSync(Buffer.from(`${root}/caf\xe9`, 'latin1'));
    return { root, table };
}

/** The directories on disk a crawl watches (relative; `''`: the root): skipped names and links left out. */
function dirsOnDisk(root: string): string[] {
    const out = [''];
    const walk = (rel: string): void => {
        for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
            if (!e.isDirectory() || SKIP.includes(e.name)) continue;
            const p = rel === '' ? e.name : `${rel}/${e.name}`;
            out.push(p);
            // The name that is not UTF-8 is an empty directory (its path does not round-trip as a string).
            if (!e.name.includes('\ufffd')) walk(p);
        }
    };
    walk('');
    return out;
}

function sink(): WatchSink & { noted: string[] } {
    const noted: string[] = [];
    return { noted, note: (rel) => noted.push(rel), drop() {}, lost() {}, changed() {}, inSlices: async (items, each) => items.forEach(each), skip: new Set(SKIP) };
}

describe.runIf(linux)('the tree check adding the watcher\'s watches', () => {
    it('watches every directory it compares, before comparing it, and hands the watches back; its result is the check\'s', async () => {
        const { root, table } = await changedTree();
        const plain = await changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table });
        const ino = openInotify();
        try {
            const r = await changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table, watch: { fd: ino.fd, mask: MASK } });
            expect([...r.changed].sort()).toEqual([...plain.changed].sort());
            expect(r.changed).toEqual(expect.arrayContaining(['newdir', 'newdir/inner', 'retype/x', 'retype/x/y', 'gone', 'dirlink', 'caf\udce9']));
            // Every directory a crawl would watch, once; none of the skipped ones, no link.
            const w = r.watched!;
            expect([...w.paths].sort()).toEqual(dirsOnDisk(root).map((p) => (p === 'caf\ufffd' ? 'caf\udce9' : p)).sort());
            expect(new Set(w.wds).size).toBe(w.wds.length);
            // The watches are on: changes in a new directory and in a queued one come as events of their descriptors.
            fs.writeFileSync(path.join(root, 'newdir/inner/later.txt'), 'l\n');
            fs.writeFileSync(path.join(root, 'big/s2/later.c'), 'l\n');
            const seen = new Set<string>();
            const buf = Buffer.alloc(64 * 1024);
            for (let n = ino.read(buf); n > 0; n = ino.read(buf)) readEvents(buf, n, (wd, _mask, _cookie, raw) => seen.add(`${w.paths[w.wds.indexOf(wd)]}/${raw?.toString()}`).size > 0);
            expect(seen).toEqual(new Set(['newdir/inner/later.txt', 'big/s2/later.c']));
        } finally {
            ino.close();
        }
    }, 60_000);

    it('fails when a watch cannot be added for another reason than a directory gone or unreadable', async () => {
        const { root, table } = await changedTree();
        // Not an inotify instance: EINVAL, as the watch limit's ENOSPC would fail it.
        const fd = fs.openSync(table, 'r');
        try {
            await expect(changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table, watch: { fd, mask: MASK } })).rejects.toThrow(/inotify_add_watch failed/);
        } finally {
            fs.closeSync(fd);
        }
    }, 60_000);

    it('the watcher takes the check\'s watches instead of a crawl, and crawls when the check fails', async () => {
        for (const fails of [false, true]) {
            const { root, table } = await changedTree();
            const s = sink();
            const watch = new InotifyWatch(root, s);
            let called = 0;
            try {
                const on = await watch.subscribe(null, async (fd, mask) => {
                    called++;
                    if (fails) throw new Error('a damaged table');
                    return (await changesSince({ root, skipDirs: SKIP, maxEntries: 100_000, table, watch: { fd, mask } })).watched!;
                });
                expect(on).toBe(true);
                expect(called).toBe(1);
                for (const rel of ['a/b/c/late.txt', 'newdir/inner/late.txt', 'big/s1/late.c', 'retype/x/y/late.txt']) fs.writeFileSync(path.join(root, rel), 'l\n');
                await until(() => {
                    watch.drain();
                    return ['a/b/c/late.txt', 'newdir/inner/late.txt', 'big/s1/late.c', 'retype/x/y/late.txt'].every((p) => s.noted.includes(p));
                });
                // The skipped directory is not watched either way.
                fs.writeFileSync(path.join(root, 'a/node_modules/inside/x.js'), 'x\n');
                fs.writeFileSync(path.join(root, 'top.txt'), 'after\n');
                await until(() => {
                    watch.drain();
                    return s.noted.includes('top.txt');
                });
                expect(s.noted.filter((p) => p.includes('node_modules/'))).toEqual([]);
            } finally {
                await watch.unsubscribe();
            }
        }
    }, 60_000);
});

describe.runIf(linux)('whether a reopen lets the check add the watches', () => {
    it('does where the threads stat by descriptor, not when they are kept to held paths (the crawl and the gate then)', () => {
        const saved = process.env['LLM_CHAT_FILE_NATIVE_AT'];
        try {
            delete process.env['LLM_CHAT_FILE_NATIVE_AT'];
            expect(checkCanWatch()).toBe(process.arch === 'x64' || process.arch === 'arm64');
            process.env['LLM_CHAT_FILE_NATIVE_AT'] = '0';
            expect(checkCanWatch()).toBe(false);
        } finally {
            if (saved === undefined) delete process.env['LLM_CHAT_FILE_NATIVE_AT'];
            else process.env['LLM_CHAT_FILE_NATIVE_AT'] = saved;
        }
    });
});

describe.runIf(linux)('closing an inotify instance', () => {
    it('closes its descriptor off the host thread (the kernel drops every watch then): gone soon after close(), and a new instance works', async () => {
        const root = fs.realpathSync(tempDir('lcf-inotify-close-'));
        const dirs = Array.from({ length: 300 }, (_, i) => path.join(root, `d${i}`));
        for (const d of dirs) fs.mkdirSync(d);
        const ino = openInotify();
        for (const d of dirs) expect(ino.addWatch(Buffer.from(`${d}\0`), MASK)).toBeGreaterThan(0);
        const target = (): string | null => {
            try {
                return fs.readlinkSync(`/proc/self/fd/${ino.fd}`);
            } catch {
                return null;
            }
        };
        expect(target()).toBe('anon_inode:inotify');
        ino.close();
        ino.close();
        // Closed by a thread of libuv's pool: the number is free once it has run.
        await until(() => target() === null);
        const next = openInotify();
        expect(next.addWatch(Buffer.from(`${dirs[0]}\0`), MASK)).toBeGreaterThan(0);
        fs.writeFileSync(path.join(dirs[0]!, 'new.txt'), 'x');
        const buf = Buffer.alloc(4096);
        const names: string[] = [];
        await until(() => {
            const n = next.read(buf);
            if (n > 0) readEvents(buf, n, (_wd, _mask, _cookie, raw) => (names.push(raw?.toString() ?? ''), false));
            return names.includes('new.txt');
        });
        next.close();
    });
});

describe('the watched directories taken from a check', () => {
    it('takes them by depth, leaving out one whose parent is not among them and a descriptor taken twice, and hands back the orphans\' descriptors to remove', () => {
        const dirs = new WatchedDirs('/r');
        expect(dirs.adopt([5, 1, 3, 4, 6, 3], ['a/b', '', 'a', 'x/y', 'a/b/c', 'again'])).toEqual([4]);
        // A second root while one is watched: its descriptor is not kept; one a kept directory holds is not handed back.
        expect(dirs.adopt([9, 3], ['', 'a'])).toEqual([9]);
        expect(dirs.top?.wd).toBe(1);
        expect(dirs.relOf(dirs.get(6)!, Buffer.from('f'))).toBe('a/b/c/f');
        expect(dirs.get(4)).toBeUndefined();
        expect([...(dirs.top?.children?.keys() ?? [])]).toEqual(['a']);
    });

    it('keys each by its name\'s bytes, ASCII or not, as the events\' names are looked up', () => {
        const dirs = new WatchedDirs('/r');
        dirs.adopt([1, 2, 3, 4, 5], ['', 'caf\u00e9', 'caf\udce9', 'plain', 'caf\u00e9/sub']);
        const expected: [number, Buffer][] = [
            [2, Buffer.from('caf\u00e9')],
            [3, Buffer.from([0x63, 0x61, 0x66, 0xe9])],
            [4, Buffer.from('plain')],
        ];
        for (const [wd, raw] of expected) expect(dirs.top?.children?.get(raw.toString('latin1'))?.wd).toBe(wd);
        expect(dirs.get(2)?.children?.get('sub')?.wd).toBe(5);
        expect(dirs.relOf(dirs.get(5)!, Buffer.from('f'))).toBe('caf\u00e9/sub/f');
        // A name that is not UTF-8 ends the path at its parent, as for the crawl's watches.
        expect(dirs.relOf(dirs.get(3)!, Buffer.from('f'))).toBe('');
    });
});
