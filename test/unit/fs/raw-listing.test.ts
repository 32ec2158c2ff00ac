/**
 * workers/fs/raw-listing.ts through held-at.ts's native layer (`listRaw`, `statAtAddress`): a
 * directory's getdents64 records kept in place give the entries and kinds `list` gives, over
 * more than one buffer's worth of records; each entry is found by its bytes and stat'ed by its
 * name's address as `statAt` stats it by name; a name that is not ASCII hands the directory back
 * to `list`; a directory removed while open lists as empty, as `list` lists it; a closed
 * descriptor fails as `list` fails.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nativeAt, type HeldAt } from '../../../workers/fs/held-at.js';
import type { RawListing } from '../../../workers/fs/raw-listing.js';
import { tempDir, writeTree } from '../../support/helpers.js';

const NATIVE_EXPECTED = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64');
const DIR = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY;

function native(): Required<HeldAt> {
    const n = nativeAt();
    if (n?.listRaw === undefined || n.statAtAddress === undefined || n.rawListing === undefined || n.statAt === undefined) throw new Error('the native layer has no raw listing here');
    return n as Required<HeldAt>;
}

/** The entries of `l` as [name, kind] pairs, sorted by name. */
function entriesOf(l: RawListing): [string, number][] {
    const out: [string, number][] = [];
    for (let k = 0; k < l.count; k++) out.push([l.name(k), l.kinds[k]!]);
    return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function withDir<T>(dir: string, f: (fd: number) => T): T {
    const fd = fs.openSync(dir, DIR);
    try {
        return f(fd);
    } finally {
        fs.closeSync(fd);
    }
}

describe.skipIf(!NATIVE_EXPECTED)('raw listings', () => {
    it('give the entries and kinds list gives, past the first buffer, and stat each entry by its address as statAt by its name', () => {
        const at = native();
        const root = tempDir('lcf-raw-');
        const files: Record<string, string> = {};
        // About 3,000 records of 48 to 80 bytes: several times the first 32 KiB buffer.
        for (let i = 0; i < 3000; i++) files[`entry-with-a-long-name-${String(i).padStart(5, '0')}${'x'.repeat(i % 40)}.c`] = `${i}\n`;
        writeTree(root, files);
        fs.mkdirSync(path.join(root, 'sub'));
        fs.symlinkSync('sub', path.join(root, 'link'));
        execFileSync('mkfifo', [path.join(root, 'fifo')]);
        const l = at.rawListing();
        withDir(root, (fd) => {
            expect(at.listRaw(fd, l)).toBe(true);
            const listed = at.list(fd);
            expect(entriesOf(l)).toEqual(listed.names.map((n, i) => [n, listed.kinds[i]!]));
            expect(l.count).toBe(3003);
            const byAddress = new Float64Array(5);
            const byName = new Float64Array(5);
            for (let k = 0; k < l.count; k++) {
                expect(at.statAtAddress(fd, l.address + l.starts[k]!, byAddress)).toBe(0);
                expect(at.statAt(fd, l.name(k), byName)).toBe(0);
                expect([...byAddress]).toEqual([...byName]);
            }
            // Found by its bytes; a name not there, or a prefix of one, is not found.
            const probe = (name: string): number => {
                const b = Buffer.from(name);
                return l.find(b, 0, b.length);
            };
            expect(l.name(probe('sub'))).toBe('sub');
            expect(l.name(probe('entry-with-a-long-name-01234xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.c'))).toBe('entry-with-a-long-name-01234xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.c');
            expect(probe('su')).toBe(-1);
            expect(probe('absent')).toBe(-1);
            // A missing entry's statx fails with its errno, as by name.
            const g = at.rawListing();
            g.buf.write('absent\0', 0, 'latin1');
            expect(at.statAtAddress(fd, g.address, byAddress)).toBe(at.statAt(fd, 'absent', byName));
            expect(at.statAt(fd, 'absent', byName)).toBe(os.constants.errno.ENOENT);
        });
    });

    it('hand a directory holding a name that is not ASCII back to list, and list it again from its start', () => {
        const at = native();
        const root = tempDir('lcf-raw-utf8-');
        writeTree(root, { 'a.txt': 'a\n', 'z.txt': 'z\n' });
        fs.writeFileSync(path.join(root, 'café.txt'), 'c\n');
        fs.writeFileSync(Buffer.from(`${root}/na\xefve.txt`, 'latin1'), 'n\n');
        const l = at.rawListing();
        withDir(root, (fd) => {
            expect(at.listRaw(fd, l)).toBe(false);
            expect(at.list(fd).names.length).toBe(4);
            // And again after the list: from the directory's start.
            expect(at.listRaw(fd, l)).toBe(false);
        });
        fs.rmSync(path.join(root, 'café.txt'));
        fs.rmSync(Buffer.from(`${root}/na\xefve.txt`, 'latin1'));
        withDir(root, (fd) => {
            expect(at.listRaw(fd, l)).toBe(true);
            expect(entriesOf(l).map(([n]) => n)).toEqual(['a.txt', 'z.txt']);
        });
    });

    it('list a directory removed while open as empty, as list does, and fail on a closed descriptor as list fails', () => {
        const at = native();
        const root = tempDir('lcf-raw-gone-');
        writeTree(root, { 'd/x.txt': 'x\n' });
        const l = at.rawListing();
        const fd = fs.openSync(path.join(root, 'd'), DIR);
        fs.rmSync(path.join(root, 'd'), { recursive: true });
        try {
            expect(at.listRaw(fd, l)).toBe(true);
            expect(l.count).toBe(0);
            expect(at.list(fd).names).toEqual([]);
        } finally {
            fs.closeSync(fd);
        }
        expect(() => at.listRaw(fd, l)).toThrow(expect.objectContaining({ code: 'EBADF' }) as unknown as Error);
        expect(() => at.list(fd)).toThrow(expect.objectContaining({ code: 'EBADF' }) as unknown as Error);
    });
});
