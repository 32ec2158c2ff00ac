/**
 * workers/fs/held-at.ts `statAt`: an entry of a held directory stat'ed by statx(2) gives what
 * `fs.lstatSync` gives (mode, size, modification, birth and change times, Node's arithmetic), for
 * every kind of entry and for a name that is not UTF-8; a failure gives the errno and nothing
 * else. The tree check compares the change time with the table's, so its offset in struct statx
 * matters as much as the others'.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nativeAt } from '../../../workers/fs/held-at.js';
import { tempDir, writeTree } from '../../support/helpers.js';

const NATIVE_EXPECTED = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64');

function statAtOf(dirFd: number, name: string): { rc: number; out: number[] } {
    const statAt = nativeAt()?.statAt;
    if (statAt === undefined) throw new Error('statx is not available');
    const out = new Float64Array(5).fill(-1);
    return { rc: statAt(dirFd, name, out), out: [...out] };
}

const lstatOf = (p: string | Buffer): number[] => {
    const st = fs.lstatSync(p);
    return [st.mode, st.size, st.mtimeMs, st.birthtimeMs, st.ctimeMs];
};

describe.skipIf(!NATIVE_EXPECTED)('statAt', () => {
    it('gives what lstat gives, the change time included, for files, directories, links and FIFOs', () => {
        const root = tempDir('lcf-stat-at-');
        writeTree(root, { 'a.txt': 'alpha\n', 'sub/b.txt': 'beta beta\n', 'empty.txt': '' });
        fs.symlinkSync('a.txt', path.join(root, 'link'));
        fs.symlinkSync('missing', path.join(root, 'dangling'));
        execFileSync('mkfifo', [path.join(root, 'fifo')]);
        // A change time apart from the modification time: a chmod after the write.
        fs.chmodSync(path.join(root, 'a.txt'), 0o600);
        const fd = fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
        try {
            for (const name of ['a.txt', 'sub', 'empty.txt', 'link', 'dangling', 'fifo']) {
                const { rc, out } = statAtOf(fd, name);
                expect(rc, name).toBe(0);
                expect(out, name).toEqual(lstatOf(path.join(root, name)));
            }
        } finally {
            fs.closeSync(fd);
        }
    });

    it('sees the change time move on a write in place with the modification time set back, and on a chmod', () => {
        const root = tempDir('lcf-stat-at-ctime-');
        writeTree(root, { 'f.txt': 'one\n' });
        const file = path.join(root, 'f.txt');
        const ref = path.join(root, 'ref');
        execFileSync('touch', ['-r', file, ref]);
        const fd = fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
        try {
            const before = statAtOf(fd, 'f.txt').out;
            fs.writeFileSync(file, 'two\n');
            execFileSync('touch', ['-r', ref, file]);
            const after = statAtOf(fd, 'f.txt').out;
            expect(after.slice(0, 4)).toEqual(before.slice(0, 4));
            expect(after[4]).not.toBe(before[4]);
            expect(after).toEqual(lstatOf(file));
            fs.chmodSync(file, 0o640);
            const chmodded = statAtOf(fd, 'f.txt').out;
            expect(chmodded[4]).toBe(fs.lstatSync(file).ctimeMs);
            expect(chmodded[0]! & 0o777).toBe(0o640);
        } finally {
            fs.closeSync(fd);
        }
    });

    it('stats a name that is not UTF-8 by its bytes', () => {
        const root = tempDir('lcf-stat-at-bytes-');
        const bytes = Buffer.from(`${root}/caf\xe9.txt`, 'latin1');
        fs.writeFileSync(bytes, 'latin1 name\n');
        const fd = fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
        try {
            const { rc, out } = statAtOf(fd, 'caf\udce9.txt');
            expect(rc).toBe(0);
            expect(out).toEqual(lstatOf(bytes));
        } finally {
            fs.closeSync(fd);
        }
    });

    it('gives the errno of a failure and leaves its output alone', () => {
        const root = tempDir('lcf-stat-at-missing-');
        const fd = fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
        try {
            const { rc, out } = statAtOf(fd, 'absent');
            expect(rc).toBe(os.constants.errno.ENOENT);
            expect(out).toEqual([-1, -1, -1, -1, -1]);
            expect(statAtOf(fd, 'x'.repeat(256)).rc).toBe(os.constants.errno.ENAMETOOLONG);
            expect(fs.readdirSync(root)).toEqual([]);
        } finally {
            fs.closeSync(fd);
        }
    });
});
