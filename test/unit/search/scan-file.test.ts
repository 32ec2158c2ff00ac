/**
 * The scan's file reading (workers/search/scan-file.ts) on real temporary files: the first read that
 * ends a file without a stat, the boundaries of that read and of the size limit, and entries that
 * are no longer regular files when they are read (a FIFO, a directory, a symlink swapped in), a
 * file that grows after it was opened, and a file whose stat says 0 bytes but which reads (/proc).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../../src/search/regex.js';
import { READ_FLAGS } from '../../../src/fs/shared/held.js';
import { scanOpen, scanPath, type FileScan, type ScanSpec } from '../../../workers/search/scan-file.js';
import { makeMatcher } from '../../../workers/search/scan.js';
import { tempDir } from '../../support/helpers.js';

/** Where the first read stops without a stat (scan-file.ts BIG_FILE). */
const FIRST_READ = 64 * 1024;

function spec(pattern: string, extra: Partial<ScanSpec> = {}): ScanSpec {
    return { matcher: makeMatcher(compilePattern(pattern)), mode: 'content', maxFileSize: 10 * 1024 * 1024, max: 1000, context: 0, ...extra };
}

/** A plain copy of the (reused) result. */
function copy(r: FileScan | null): { units: number; scanned: boolean; lines: { line: number; text: string }[]; count: number; tooLarge: number } | null {
    return r === null ? null : { units: r.units, scanned: r.scanned, lines: r.lines.map((h) => ({ line: h.line, text: h.text })), count: r.count, tooLarge: r.tooLarge };
}

/** `size` bytes of text lines, `needle` on the last line so that it ends exactly at the file's end. */
function textOfSize(size: number, needle: string): Buffer {
    const last = `${needle}\n`;
    const body = Buffer.alloc(size - last.length, 'abcdefghij\n');
    // Ends the filler with a newline so the needle starts its own line.
    if (body.length > 0) body[body.length - 1] = 10;
    return Buffer.concat([body, Buffer.from(last)]);
}

function withFd<T>(file: string, flags: number, fn: (fd: number) => T): T {
    const fd = fs.openSync(file, flags);
    try {
        return fn(fd);
    } finally {
        fs.closeSync(fd);
    }
}

describe('scan-file: the first read and its boundaries', () => {
    it('finds a match on the last line of files around page and first-read sizes, the same with and without a stat', () => {
        const dir = tempDir('scanfile-');
        for (const size of [1, 15, 4095, 4096, 4097, 8192, FIRST_READ - 1, FIRST_READ, FIRST_READ + 1, 3 * FIRST_READ]) {
            const file = path.join(dir, `f${size}`);
            const content = size < 'needle_x\n'.length ? Buffer.from('n'.repeat(size)) : textOfSize(size, 'needle_x');
            fs.writeFileSync(file, content);
            const lines = content.toString('latin1').split('\n');
            const expected = lines.flatMap((t, i) => (t.includes('needle_x') ? [{ line: i + 1, text: t }] : []));
            const r = copy(scanPath(file, null, spec('needle_x')))!;
            expect(r.lines, `size ${size}`).toEqual(expected);
            expect(r.scanned, `size ${size}`).toBe(true);
            expect(r.tooLarge).toBe(-1);
            expect(r.units).toBe(size >> 14);
        }
    });

    it('an empty file is not scanned and gives nothing', () => {
        const file = path.join(tempDir('scanfile-'), 'empty');
        fs.writeFileSync(file, '');
        expect(copy(scanPath(file, null, spec('x')))).toEqual({ units: 0, scanned: false, lines: [], count: 0, tooLarge: -1 });
    });

    it('a file exactly at maxFileSize is searched, one byte more is reported with its size', () => {
        const dir = tempDir('scanfile-');
        for (const limit of [100, 600, FIRST_READ - 1, FIRST_READ, FIRST_READ + 5]) {
            const at = path.join(dir, `at${limit}`);
            const above = path.join(dir, `above${limit}`);
            fs.writeFileSync(at, textOfSize(limit, 'needle_y'));
            fs.writeFileSync(above, textOfSize(limit + 1, 'needle_y'));
            const inside = copy(scanPath(at, null, spec('needle_y', { maxFileSize: limit })))!;
            expect(inside.tooLarge, `limit ${limit}`).toBe(-1);
            expect(inside.lines.map((h) => h.text), `limit ${limit}`).toEqual(['needle_y']);
            const outside = copy(scanPath(above, null, spec('needle_y', { maxFileSize: limit })))!;
            expect(outside, `limit ${limit}`).toEqual({ units: 0, scanned: false, lines: [], count: 0, tooLarge: limit + 1 });
        }
    });

    it('a binary above maxFileSize is not reported, also when the limit is below the binary sample', () => {
        const dir = tempDir('scanfile-');
        const file = path.join(dir, 'bin');
        const bytes = Buffer.alloc(4096, 0);
        bytes.write('needle_z', 0);
        fs.writeFileSync(file, bytes);
        for (const limit of [10, 1000]) {
            expect(copy(scanPath(file, null, spec('needle_z', { maxFileSize: limit }))), `limit ${limit}`).toEqual({ units: 0, scanned: false, lines: [], count: 0, tooLarge: -1 });
        }
    });

    it('counts and files_with_matches modes from the first read', () => {
        const file = path.join(tempDir('scanfile-'), 'f');
        fs.writeFileSync(file, 'a needle\nb\nneedle c\nNEEDLE\n');
        expect(copy(scanPath(file, null, spec('needle', { mode: 'count' })))!.count).toBe(3);
        expect(copy(scanPath(file, null, spec('needle', { mode: 'files_with_matches' })))!.lines).toEqual([{ line: 1, text: 'a needle' }]);
        expect(copy(scanPath(file, null, spec('needle', { max: 2 })))!.lines.map((h) => h.line)).toEqual([1, 3]);
    });
});

describe('scan-file: entries that changed since they were listed', () => {
    it('a symlink swapped in for the entry is refused at open (ELOOP), nothing read through it', () => {
        const dir = tempDir('scanfile-');
        const outside = path.join(tempDir('scanfile-out-'), 'secret');
        fs.writeFileSync(outside, 'needle secret\n');
        fs.symlinkSync(outside, path.join(dir, 'link'));
        expect(() => scanPath(path.join(dir, 'link'), null, spec('needle'))).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    });

    it('a failed descriptor check reads nothing', () => {
        const file = path.join(tempDir('scanfile-'), 'f');
        fs.writeFileSync(file, 'needle\n');
        let checked = -1;
        expect(scanPath(file, (fd) => ((checked = fd), false), spec('needle'))).toBeNull();
        expect(checked).toBeGreaterThanOrEqual(0);
    });

    it('a directory in place of the file gives nothing and does not throw', () => {
        const dir = tempDir('scanfile-');
        fs.mkdirSync(path.join(dir, 'd'));
        expect(copy(scanPath(path.join(dir, 'd'), null, spec('needle')))).toEqual({ units: 0, scanned: false, lines: [], count: 0, tooLarge: -1 });
    });

    it('a FIFO in place of the file gives nothing: positional reads fail on it (ESPIPE), with or without a writer and data', () => {
        const dir = tempDir('scanfile-');
        const fifo = path.join(dir, 'fifo');
        execFileSync('mkfifo', [fifo]);
        // Opened as the walk opens files (non-blocking): with no writer the read ends at once.
        expect(copy(scanPath(fifo, null, spec('needle')))).toEqual({ units: 0, scanned: false, lines: [], count: 0, tooLarge: -1 });
        withFd(fifo, READ_FLAGS, (fd) => {
            // A writer opens it (there is a reader), leaves a matching line and closes.
            withFd(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK, (w) => fs.writeSync(w, 'needle in a pipe\n'));
            const r = copy(scanOpen(fd, spec('needle')))!;
            expect(r.lines).toEqual([]);
            expect(r.count).toBe(0);
        });
        withFd(fifo, READ_FLAGS, (fd) => {
            // A writer still attached and nothing written.
            withFd(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK, () => {
                expect(copy(scanOpen(fd, spec('needle')))).toEqual({ units: 0, scanned: false, lines: [], count: 0, tooLarge: -1 });
            });
        });
    });

    it('a file that grows after it was opened is read as it is when read', () => {
        const file = path.join(tempDir('scanfile-'), 'grows');
        fs.writeFileSync(file, 'first line\n');
        withFd(file, READ_FLAGS, (fd) => {
            fs.appendFileSync(file, 'needle appended\n');
            expect(copy(scanOpen(fd, spec('needle')))!.lines).toEqual([{ line: 2, text: 'needle appended' }]);
        });
        // Grown past the first read and the size limit after opening: reported by its stat size.
        withFd(file, READ_FLAGS, (fd) => {
            fs.appendFileSync(file, Buffer.alloc(2 * FIRST_READ, 'x'));
            const size = fs.statSync(file).size;
            expect(copy(scanOpen(fd, spec('needle', { maxFileSize: FIRST_READ })))!.tooLarge).toBe(size);
        });
    });

    it('a file whose stat says 0 bytes and which reads (a /proc file) is searched to its end', () => {
        const status = '/proc/self/status';
        expect(fs.statSync(status).size).toBe(0);
        // pseudo-files.test.ts has one longer than the first read.
        const found = copy(scanPath(status, null, spec('^Name:')))!;
        expect(found.scanned).toBe(true);
        expect(found.lines).toEqual([{ line: 1, text: fs.readFileSync(status, 'utf8').split('\n')[0] }]);
    });
});
