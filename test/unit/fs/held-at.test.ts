/**
 * workers/fs/held-at.ts: entries of a held directory opened and listed by its descriptor, natively
 * (openat, getdents64 through koffi) and through held paths (`/proc/<pid>/fd/N/name`). On real
 * temporary trees both layers must give the same listings (names decoded alike, odd bytes, more
 * than one getdents buffer, records without a type), the same descriptors and the same errors
 * (links swapped in, entries raced away, FIFOs, names too long); and the walk through the engine
 * the same outcome with either layer in its workers.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { prepareSearch, searchRootAt } from '../../../src/search/prepare.js';
import { compilePattern } from '../../../src/search/regex.js';
import { DIR_FLAGS, DIR_NOFOLLOW_FLAGS, heldPath, READ_NOFOLLOW_FLAGS } from '../../../src/fs/shared/held.js';
import { EntryKind } from '../../../src/search/shared/protocol.js';
import type { SearchOutcome, SearchRequest } from '../../../src/search/shared/types.js';
import { bytesOf, decodeName } from '../../../src/print/shared/byte-names.js';
import { DirentRecords, type Listing } from '../../../workers/fs/dirent-records.js';
import { HELD_PATH_AT, heldAt, NATIVE_AT_VAR, nativeAt, type HeldAt } from '../../../workers/fs/held-at.js';
import { scanOpen, scanPath, type ScanSpec } from '../../../workers/search/scan-file.js';
import { makeMatcher } from '../../../workers/search/scan.js';
import { fileTempDir } from '../../support/engine-fixture.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { WORKER_BUNDLE_VAR } from '../../support/worker-bundle.setup.js';

/** The native layer loads here (Linux x86-64 or arm64, koffi installed as a dependency). */
const NATIVE_EXPECTED = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64');
const forced = process.env[NATIVE_AT_VAR] === '0';

/** The native layer; the tests that compare it with the held-path layer need it. */
function native(): HeldAt {
    const n = nativeAt();
    if (n === null) throw new Error('the native layer did not load');
    return n;
}

const itNative = it.skipIf(!NATIVE_EXPECTED);
/**
 * The tests that name both layers themselves, and whose fixtures cost the most (trees of hundreds
 * and thousands of entries, two pools): their outcome does not depend on the process's layer, so
 * the held-path project (vitest.config.ts) would repeat the unit project's run of them exactly.
 */
const itBothNamed = it.skipIf(!NATIVE_EXPECTED || forced);

function withDir<T>(dir: string, fn: (fd: number) => T): T {
    const fd = fs.openSync(dir, DIR_FLAGS);
    try {
        return fn(fd);
    } finally {
        fs.closeSync(fd);
    }
}

/** What an open gave, comparable across layers: the file's identity, or the whole error. */
function opened(layer: HeldAt, dirFd: number, name: string, flags: number): { dev: number; ino: number } | { errno: unknown; code: unknown; syscall: unknown; path: unknown; message: string; keys: string[] } {
    let fd: number;
    try {
        fd = layer.open(dirFd, name, flags);
    } catch (err) {
        const e = err as NodeJS.ErrnoException;
        return { errno: e.errno, code: e.code, syscall: e.syscall, path: e.path, message: e.message, keys: Object.keys(e) };
    }
    try {
        const st = fs.fstatSync(fd);
        // Security: the descriptor does not leak into child processes (O_CLOEXEC, as Node's own opens).
        const flagsLine = fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').match(/^flags:\s+(\d+)/m)![1]!;
        expect(parseInt(flagsLine, 8) & 0o2000000, `O_CLOEXEC on ${name}`).not.toBe(0);
        return { dev: st.dev, ino: st.ino };
    } finally {
        layer.close(fd);
    }
}

/** What a listing gave, comparable across layers. */
function listed(layer: HeldAt, dirFd: number): Listing | { code: unknown; message: string } {
    try {
        return layer.list(dirFd);
    } catch (err) {
        return { code: (err as NodeJS.ErrnoException).code, message: (err as Error).message };
    }
}

/** Both layers agree on the listing of `dir` and on opening each of its entries (and a few that are not there); returns the listing. */
function expectSameLayers(dir: string, extra: readonly string[] = []): Listing {
    return withDir(dir, (fd) => {
        const a = listed(HELD_PATH_AT, fd);
        const b = listed(native(), fd);
        expect(b, dir).toEqual(a);
        // Listed again by the same descriptor: the same (the native layer lists from the start).
        expect(listed(native(), fd)).toEqual(a);
        const names = 'names' in a ? a.names : [];
        for (const name of [...names, ...extra]) {
            for (const flags of [READ_NOFOLLOW_FLAGS, DIR_NOFOLLOW_FLAGS]) {
                expect(opened(native(), fd, name, flags), `${dir} ${JSON.stringify(name)} ${flags}`).toEqual(opened(HELD_PATH_AT, fd, name, flags));
            }
        }
        return a as Listing;
    });
}

/** A deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
    let a = seed;
    return () => {
        a = (a + 0x6d2b79f5) | 0;
        let t = Math.imul(a ^ (a >>> 15), 1 | a);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** Names whose bytes are not valid UTF-8, some decoding to the same string ('a\uFFFDb'), and other odd names, as byte buffers. */
const ODD_NAMES: Buffer[] = [
    Buffer.from([0x61, 0xff, 0x62]),
    Buffer.from([0x61, 0xfe, 0x62]),
    Buffer.from([0x61, 0xc3, 0x62]), // a truncated two-byte sequence
    Buffer.from('a\uFFFDb'), // valid UTF-8 of U+FFFD itself
    Buffer.from([0x61, 0xed, 0xa0, 0x80, 0x62]), // an encoded surrogate
    Buffer.from([0x61, 0xf0, 0x9f, 0x98]), // a truncated four-byte sequence at the end
    Buffer.from([0x80]),
    Buffer.from([0xc0, 0xaf]), // an overlong '/'
    Buffer.alloc(200, 0xff), // 200 bytes on disk, 600 when its decoded name is encoded again
    Buffer.from('line\nbreak'),
    Buffer.from('back\\slash'),
    Buffer.from(' lead space'),
    Buffer.from('-dash'),
    Buffer.from('\u{1F600}'), // sorts after U+E000..U+FFFF by UTF-16 code units, before them by bytes
    Buffer.from('\uE000'),
    Buffer.from('\uFFFF'),
    Buffer.from('x'.repeat(255)),
    Buffer.from('.hidden'),
    Buffer.from('..dots'),
];

/** Files in {@link largeTree}'s `sub` directory, beside one directory (`sub/inner`). */
const LARGE_FILES = 2999;
let large: string | undefined;

/**
 * `sub/` holding {@link LARGE_FILES} files of long names (a getdents record each, together
 * more than three 64 KiB buffers) and the directory `inner`, and `other/x`. Written once for
 * the file (the tests only list it): 3,000 files cost about a second of CPU each time.
 */
function largeTree(): string {
    if (large !== undefined && fs.existsSync(large)) return large;
    const dir = fileTempDir('lcf-held-at-large-');
    fs.mkdirSync(path.join(dir, 'sub'));
    for (let i = 0; i < LARGE_FILES; i++) fs.writeFileSync(path.join(dir, 'sub', `entry-${String(i).padStart(5, '0')}-${'n'.repeat(60)}`), '');
    fs.mkdirSync(path.join(dir, 'sub', 'inner'));
    writeTree(dir, { 'other/x': '' });
    large = dir;
    return dir;
}

function writeRaw(dir: string, name: Buffer, content: string): void {
    fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), name]), content);
}

describe('the layer a thread uses', () => {
    it(`is the native one on Linux x86-64 and arm64, the held-path one when ${NATIVE_AT_VAR}=0`, ({ task }) => {
        // vitest.config.ts's held-path project sets the variable for this process and its pools.
        expect(forced).toBe(task.file.projectName === 'held-path');
        expect(HELD_PATH_AT.kind).toBe('held-path');
        if (NATIVE_EXPECTED) expect(nativeAt()?.kind).toBe('native');
        expect(heldAt().kind).toBe(NATIVE_EXPECTED && !forced ? 'native' : 'held-path');
    });

    it("is chosen once per worker thread of the pool's bundle: koffi is loaded there exactly when the native layer is used", async () => {
        const bundle = process.env[WORKER_BUNDLE_VAR];
        expect(bundle, 'vitest run sets it up (test/support/worker-bundle.setup.ts)').toBeDefined();
        const dir = tempDir('lcf-held-at-worker-');
        writeTree(dir, { 'a/b.txt': 'needle\n', 'c.txt': 'no\n' });
        const search = await prepareSearch({ root: searchRootAt(dir, [dir]), type: 'both', contentPattern: 'needle', maxResults: 100, maxFileSize: 1 << 20, maxTotalEntries: 1000, skipDirs: [] });
        const task = { op: 'search', search, deadline: Number.MAX_SAFE_INTEGER, jobs: [{ real: dir, rel: '.', jumps: [] }], budget: 1e9, sliceMs: 1e9, capHits: 100, capEntries: 1000, cancel: new SharedArrayBuffer(4) };
        const code = `
            const { workerData, parentPort } = require('node:worker_threads');
            const m = require(workerData.bundle);
            Promise.resolve((m.default ?? m)(workerData.task)).then((r) => parentPort.postMessage({
                ok: r.ok,
                koffi: Object.keys(require.cache).some((k) => k.includes('/node_modules/koffi/')),
            }));`;
        const w = new Worker(code, { eval: true, workerData: { bundle, task } });
        try {
            const got = await new Promise<{ ok: boolean; koffi: boolean }>((resolve, reject) => {
                w.once('message', resolve);
                w.once('error', reject);
            });
            expect(got).toEqual({ ok: true, koffi: NATIVE_EXPECTED && !forced });
        } finally {
            await w.terminate();
        }
    });
});

describe('both layers on real directories', () => {
    itBothNamed('give the same listings, descriptors and errors over a generated tree', () => {
        const root = tempDir('lcf-held-at-tree-');
        const rnd = random(11);
        const dirs = [root];
        for (let i = 0; i < 40; i++) {
            const parent = dirs[Math.floor(rnd() * dirs.length)]!;
            const d = path.join(parent, `d${i}${rnd() < 0.3 ? '\u00e9' : ''}`);
            fs.mkdirSync(d);
            dirs.push(d);
        }
        for (let i = 0; i < 300; i++) {
            const d = dirs[Math.floor(rnd() * dirs.length)]!;
            const r = rnd();
            const name = `f${i}${['', '.txt', '.c', '\u65e5', ' x'][Math.floor(rnd() * 5)]}`;
            if (r < 0.8) fs.writeFileSync(path.join(d, name), `line ${i}\n`);
            else if (r < 0.88) fs.symlinkSync(path.join(dirs[Math.floor(rnd() * dirs.length)]!, 'missing-or-not'), path.join(d, name));
            else if (r < 0.94) fs.symlinkSync(dirs[Math.floor(rnd() * dirs.length)]!, path.join(d, name));
            else execFileSync('mkfifo', [path.join(d, name)]);
        }
        let entries = 0;
        for (const d of dirs) entries += expectSameLayers(d, ['absent', 'x'.repeat(256)]).names.length;
        expect(entries).toBeGreaterThanOrEqual(340);
    });

    itNative('decode odd names as the library holds them (invalid bytes escaped, byte-names.ts), alike, in code-unit order', () => {
        const dir = tempDir('lcf-held-at-odd-');
        // Created in reverse byte order, so that the directory's own order is unlikely to be byte order.
        for (const name of [...ODD_NAMES].sort(Buffer.compare).reverse()) writeRaw(dir, name, 'x\n');
        // Directories among the names decoded alike, so that their order shows in the kinds.
        for (const b of [0xfd, 0xf8, 0x90]) fs.mkdirSync(Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0x61, b, 0x62])]));
        const listing = expectSameLayers(dir);
        expect(listing.names).toEqual(fs.readdirSync(dir, { encoding: 'buffer' }).map(decodeName).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        expect(listing.names.indexOf('\u{1F600}')).toBeLessThan(listing.names.indexOf('\uE000'));
        // Names Node would show alike (a, U+FFFD, b) are each their own, and give their bytes back.
        const alike = listing.names.flatMap((n, i) => (n.length === 3 && n[0] === 'a' && n[2] === 'b' && n !== 'a\uFFFDb' ? [i] : []));
        expect(alike.map((i) => bytesOf(listing.names[i]!)[1])).toEqual([0x90, 0xc3, 0xf8, 0xfd, 0xfe, 0xff]);
        expect(alike.map((i) => listing.kinds[i])).toEqual([EntryKind.Dir, EntryKind.File, EntryKind.Dir, EntryKind.Dir, EntryKind.File, EntryKind.File]);
    });

    itBothNamed('list a directory larger than one getdents buffer (64 KiB) whole', () => {
        const dir = path.join(largeTree(), 'sub');
        const n = LARGE_FILES;
        const listing = withDir(dir, (fd) => native().list(fd));
        expect(listing.names).toHaveLength(n + 1);
        expect(listing.kinds.filter((k) => k === EntryKind.Dir)).toHaveLength(1);
        // About 88 bytes a record: more than three buffers.
        expect(withDir(dir, (fd) => HELD_PATH_AT.list(fd))).toEqual(listing);
    });

    itNative('refuse a symbolic link swapped in for a file (ELOOP) or a directory (ENOTDIR) after the listing, alike', () => {
        const dir = tempDir('lcf-held-at-swap-');
        const outside = tempDir('lcf-held-at-outside-');
        writeTree(dir, { 'f.txt': 'needle\n', 'd/inner.txt': 'needle\n' });
        writeTree(outside, { 'secret.txt': 'needle\n' });
        withDir(dir, (fd) => {
            const before = native().list(fd);
            expect(before.names).toEqual(['d', 'f.txt']);
            fs.rmSync(path.join(dir, 'f.txt'));
            fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'f.txt'));
            fs.rmSync(path.join(dir, 'd'), { recursive: true });
            fs.symlinkSync(outside, path.join(dir, 'd'));
            // O_NOFOLLOW refuses a final link with ELOOP; with O_DIRECTORY Linux says ENOTDIR first.
            for (const [name, flags, code] of [
                ['f.txt', READ_NOFOLLOW_FLAGS, 'ELOOP'],
                ['d', DIR_NOFOLLOW_FLAGS, 'ENOTDIR'],
            ] as const) {
                const a = opened(HELD_PATH_AT, fd, name, flags);
                expect(a).toMatchObject({ code, syscall: 'open', path: `${heldPath(fd)}/${name}` });
                expect(opened(native(), fd, name, flags)).toEqual(a);
            }
        });
    });

    itNative('fail alike for an entry raced away, a file opened as a directory and a name too long', () => {
        const dir = tempDir('lcf-held-at-race-');
        writeTree(dir, { 'gone.txt': 'x\n', 'file.txt': 'x\n' });
        withDir(dir, (fd) => {
            expect(native().list(fd).names).toEqual(['file.txt', 'gone.txt']);
            fs.rmSync(path.join(dir, 'gone.txt'));
            const cases: [string, number, string][] = [
                ['gone.txt', READ_NOFOLLOW_FLAGS, 'ENOENT'],
                ['file.txt', DIR_NOFOLLOW_FLAGS, 'ENOTDIR'],
                ['\uFFFD'.repeat(100), READ_NOFOLLOW_FLAGS, 'ENAMETOOLONG'],
            ];
            for (const [name, flags, code] of cases) {
                const a = opened(HELD_PATH_AT, fd, name, flags);
                expect(a).toMatchObject({ code, syscall: 'open' });
                expect(opened(native(), fd, name, flags)).toEqual(a);
            }
        });
    });

    itNative('hold subdirectories and files nested, closed in reverse order of their opens', () => {
        const dir = tempDir('lcf-held-at-nested-');
        writeTree(dir, { 'sub/f.txt': 'x\n' });
        withDir(dir, (fd) => {
            const layer = native();
            const sub = layer.open(fd, 'sub', DIR_NOFOLLOW_FLAGS);
            expect(layer.list(sub)).toEqual({ names: ['f.txt'], kinds: [EntryKind.File] });
            const f = layer.open(sub, 'f.txt', READ_NOFOLLOW_FLAGS);
            // The directory is not the last one opened: refused, and nothing is closed.
            expect(() => layer.close(sub)).toThrow(/closed out of order/);
            const ino = fs.fstatSync(sub).ino;
            expect(fs.fstatSync(sub).isDirectory()).toBe(true);
            expect(fs.fstatSync(f).isFile()).toBe(true);
            layer.close(f);
            layer.close(sub);
            // Closed: the number names no descriptor now, or (reused meanwhile) not that directory.
            const still = ((): boolean => {
                try {
                    return fs.fstatSync(sub).ino === ino;
                } catch {
                    return false;
                }
            })();
            expect(still).toBe(false);
        });
    });

    itBothNamed('list a directory they just opened from its start, and again from its start after reading it', () => {
        const dir = largeTree();
        withDir(dir, (fd) => {
            const layer = native();
            const sub = layer.open(fd, 'sub', DIR_NOFOLLOW_FLAGS);
            try {
                const first = layer.list(sub);
                expect(first.names.length).toBe(3000);
                // Listed again: from the start, not from where the first listing ended.
                expect(layer.list(sub)).toEqual(first);
                const other = layer.open(fd, 'other', DIR_NOFOLLOW_FLAGS);
                try {
                    expect(layer.list(other)).toEqual({ names: ['x'], kinds: [EntryKind.File] });
                } finally {
                    layer.close(other);
                }
                expect(layer.list(sub)).toEqual(first);
            } finally {
                layer.close(sub);
            }
        });
    });

    itNative('close what they opened, and fail alike closing it twice (EBADF)', () => {
        const dir = tempDir('lcf-held-at-close-');
        writeTree(dir, { 'f.txt': 'x\n' });
        withDir(dir, (fd) => {
            const errors = [HELD_PATH_AT, native()].map((layer) => {
                const f = layer.open(fd, 'f.txt', READ_NOFOLLOW_FLAGS);
                layer.close(f);
                try {
                    layer.close(f);
                } catch (err) {
                    const e = err as NodeJS.ErrnoException;
                    return { errno: e.errno, code: e.code, syscall: e.syscall, path: e.path, message: e.message };
                }
                return null;
            });
            expect(errors[0]).toMatchObject({ code: 'EBADF', syscall: 'close' });
            expect(errors[1]).toEqual(errors[0]);
        });
    });

    itNative('list a directory removed while held as readdir does, alike', () => {
        const dir = tempDir('lcf-held-at-removed-');
        writeTree(dir, { 'd/x.txt': 'x\n' });
        withDir(path.join(dir, 'd'), (fd) => {
            fs.rmSync(path.join(dir, 'd'), { recursive: true });
            const a = listed(HELD_PATH_AT, fd);
            expect(listed(native(), fd)).toEqual(a);
            // Linux answers ENOENT for a removed directory, which the C library's readdir takes for its end.
            expect(a).toEqual({ names: [], kinds: [] });
        });
    });

    itNative('open a FIFO without blocking and scan it as nothing, and a directory swapped in for a file too', () => {
        const dir = tempDir('lcf-held-at-fifo-');
        execFileSync('mkfifo', [path.join(dir, 'fifo')]);
        writeTree(dir, { 'f.txt': 'needle\n' });
        const spec: ScanSpec = { matcher: makeMatcher(compilePattern('needle')), mode: 'content', maxFileSize: 1 << 20, max: 10, context: 0 };
        withDir(dir, (fd) => {
            const listing = expectSameLayers(dir);
            expect(listing.kinds[listing.names.indexOf('fifo')]).toBe(EntryKind.Other);
            fs.rmSync(path.join(dir, 'f.txt'));
            fs.mkdirSync(path.join(dir, 'f.txt'));
            for (const layer of [native(), HELD_PATH_AT]) {
                for (const name of ['fifo', 'f.txt']) {
                    const f = layer.open(fd, name, READ_NOFOLLOW_FLAGS);
                    try {
                        const r = scanOpen(f, spec);
                        expect({ scanned: r.scanned, lines: r.lines.length, count: r.count }, `${layer.kind} ${name}`).toEqual({ scanned: false, lines: 0, count: 0 });
                    } finally {
                        layer.close(f);
                    }
                }
            }
        });
        // The scan by path agrees (scan-file.test.ts covers scanPath on such entries).
        expect(scanPath(path.join(dir, 'fifo'), null, spec)!.scanned).toBe(false);
    });
});

/** A getdents64 record: `type` as d_type, padding after the name's NUL left as 0xAA (the kernel does not clear it). */
function record(name: Buffer, type: number): Buffer {
    const reclen = Math.ceil((19 + name.length + 1) / 8) * 8;
    const r = Buffer.alloc(reclen, 0xaa);
    r.writeBigUInt64LE(1n, 0);
    r.writeBigInt64LE(1n, 8);
    r.writeUInt16LE(reclen, 16);
    r[18] = type;
    name.copy(r, 19);
    r[19 + name.length] = 0;
    return r;
}

describe('getdents64 records without a type (DT_UNKNOWN, as some file systems give)', () => {
    it('are lstat-ed through the held path as readdir does, whatever the padding holds', () => {
        const dir = tempDir('lcf-held-at-unknown-');
        writeTree(dir, { 'file.txt': 'x\n', 'sub/inner.txt': 'x\n' });
        fs.symlinkSync('file.txt', path.join(dir, 'link'));
        execFileSync('mkfifo', [path.join(dir, 'fifo')]);
        writeRaw(dir, Buffer.from([0x61, 0xff]), 'x\n');
        fs.mkdirSync(Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0x61, 0xfe])]));
        const DT_REG = 8;
        const DT_DIR = 4;
        // Without a type ('.' and '..' too), one with a type libuv does not map (DT_WHT, 14), and
        // the names decoded alike with theirs, in the order their bytes do not sort.
        const first = Buffer.concat([...['.', '..', 'file.txt', 'sub'].map((n) => record(Buffer.from(n), 0)), record(Buffer.from('link'), 14), record(Buffer.from([0x61, 0xff]), DT_REG)]);
        const second = Buffer.concat([record(Buffer.from('fifo'), 0), record(Buffer.from([0x61, 0xfe]), DT_DIR)]);
        withDir(dir, (fd) => {
            const records = new DirentRecords();
            // In two calls, as two getdents64 buffers, the second followed by stale bytes.
            records.add(first, first.length);
            records.add(Buffer.concat([second, Buffer.alloc(64, 0x55)]), second.length);
            const listing = records.listing(fd);
            expect(listing).toEqual(HELD_PATH_AT.list(fd));
            expect(listing.names).toEqual(['a\udcfe', 'a\udcff', 'fifo', 'file.txt', 'link', 'sub']);
            expect(listing.kinds).toEqual([EntryKind.Dir, EntryKind.File, EntryKind.Other, EntryKind.File, EntryKind.Link, EntryKind.Dir]);
        });
    });

    it('lstat a name without a type that is not UTF-8 by its bytes', () => {
        const dir = tempDir('lcf-held-at-unknown-odd-');
        writeRaw(dir, Buffer.from([0x61, 0xff]), 'x\n');
        withDir(dir, (fd) => {
            const records = new DirentRecords();
            const buf = record(Buffer.from([0x61, 0xff]), 0);
            records.add(buf, buf.length);
            expect(records.listing(fd)).toEqual({ names: ['a\udcff'], kinds: [EntryKind.File] });
        });
    });

    it('fail the listing with the error of the lstat of an entry raced away, as readdir fails', () => {
        const dir = tempDir('lcf-held-at-unknown-gone-');
        writeTree(dir, { 'here.txt': 'x\n' });
        withDir(dir, (fd) => {
            const records = new DirentRecords();
            const buf = Buffer.concat([record(Buffer.from('here.txt'), 0), record(Buffer.from('gone.txt'), 0)]);
            records.add(buf, buf.length);
            let expected: unknown;
            try {
                fs.lstatSync(path.join(heldPath(fd), 'gone.txt'));
            } catch (err) {
                expected = err;
            }
            expect(expected).toMatchObject({ code: 'ENOENT', syscall: 'lstat' });
            expect(() => records.listing(fd)).toThrow(expected as Error);
        });
    });
});

// Each engine's threads are given their layer (engineWith): the same run in either project.
describe.skipIf(forced)('the walk with either layer in the pool', () => {
    const engines: Engine[] = [];
    afterAll(async () => {
        await Promise.all(engines.map((e) => e.close()));
    });

    /** An engine whose pool threads start with `NATIVE_AT_VAR` set to `value` (the pool starts on the first search). */
    async function engineWith(value: '0' | '1', run: (e: Engine) => Promise<SearchOutcome[]>): Promise<SearchOutcome[]> {
        const saved = process.env[NATIVE_AT_VAR];
        process.env[NATIVE_AT_VAR] = value;
        try {
            const e = new Engine({ maxThreads: 2 });
            engines.push(e);
            return await run(e);
        } finally {
            if (saved === undefined) delete process.env[NATIVE_AT_VAR];
            else process.env[NATIVE_AT_VAR] = saved;
        }
    }

    it('gives the same hits, order, skipped and too-large entries', async () => {
        const root = tempDir('lcf-held-at-walk-');
        const outside = tempDir('lcf-held-at-walk-out-');
        const files: Record<string, string> = {};
        const rnd = random(7);
        for (let i = 0; i < 400; i++) {
            const depth = Math.floor(rnd() * 4);
            const parts = Array.from({ length: depth }, () => `d${Math.floor(rnd() * 5)}`);
            files[[...parts, `f${i}.txt`].join('/')] = rnd() < 0.4 ? `a\nneedle ${i}\n` : 'nothing\n';
        }
        files['big/large.txt'] = 'needle\n'.repeat(400);
        writeTree(root, files);
        writeTree(outside, { 'secret.txt': 'needle\n' });
        fs.symlinkSync(outside, path.join(root, 'link-out'));
        fs.symlinkSync(path.join(root, 'd1'), path.join(root, 'link-in'));
        fs.symlinkSync('nowhere', path.join(root, 'broken'));
        execFileSync('mkfifo', [path.join(root, 'fifo.txt')]);
        for (const name of ODD_NAMES) writeRaw(root, name, 'needle odd\n');
        fs.mkdirSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0x64, 0xff])]));
        const requests: Partial<SearchRequest>[] = [
            { contentPattern: 'needle' },
            { contentPattern: 'needle', outputMode: 'count' },
            { contentPattern: 'needle', outputMode: 'files_with_matches', maxFileSize: 1000 },
            { namePattern: '^f1' },
            {},
            { contentPattern: 'needle', maxResults: 37 },
        ];
        const runAll = async (e: Engine): Promise<SearchOutcome[]> => {
            const out: SearchOutcome[] = [];
            for (const r of requests) {
                out.push(await e.search({ root: searchRootAt(root, [root]), type: 'both', maxResults: 100_000, maxFileSize: 1 << 20, maxTotalEntries: 100_000, skipDirs: [], ...r }, { timeoutMs: 120_000 }));
            }
            return out;
        };
        // A search stopped at max_results has threads that were still scanning when the stop reached
        // them: how many files they scanned depends on the machine's load, not on the layer
        // (SearchOutcome.scanned). The hits, their order and `visited` (the sequential walk's) are compared.
        const strip = (o: SearchOutcome): unknown => ({
            ...o,
            hits: o.hits.map((h) => ({ ...h })),
            elapsedMs: 0,
            ...(o.stop === 'max_results' && { scanned: 'stopped early' }),
        });
        const viaNative = (await engineWith('1', runAll)).map(strip);
        const viaHeldPaths = (await engineWith('0', runAll)).map(strip);
        expect(viaNative).toEqual(viaHeldPaths);
        const first = viaHeldPaths[0] as SearchOutcome;
        expect(first.stop).toBe('done');
        expect(first.hits.length).toBeGreaterThan(100);
        // Odd names, UTF-8 or not, are opened by their bytes and searched (byte-names.ts).
        expect(first.skipped.map((s) => s.reason)).toEqual(['broken symbolic link']);
        expect(first.hits.filter((h) => h.text === 'needle odd')).toHaveLength(ODD_NAMES.length);
        expect(first.hits.some((h) => h.path.startsWith('link-out'))).toBe(false);
        // link-in leads into the searched tree: its files are found once, under d1/.
        expect(first.hits.some((h) => h.path.startsWith('link-in/'))).toBe(false);
        expect(first.hits.some((h) => h.path.startsWith('d1/'))).toBe(true);
        expect((viaHeldPaths[2] as SearchOutcome).tooLarge.map((t) => t.path)).toContain('big/large.txt');
    });
});
