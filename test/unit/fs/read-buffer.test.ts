/**
 * workers/fs/read-buffer.ts: read buffers start half a page into a memory page (where koffi can tell
 * an address), hold the size asked for, and files read into them give their bytes.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NATIVE_AT_VAR } from '../../../workers/fs/held-at.js';
import { READ_BUFFER_PAGE_OFFSET, readBuffer } from '../../../workers/fs/read-buffer.js';
import { tempDir } from '../../support/helpers.js';

/** The address of a buffer's first byte, read independently of the module (C's `memchr` on a byte it holds returns that byte's address). */
function addressOf(buf: Buffer): bigint {
    const koffi = createRequire(import.meta.url)('koffi') as { load(p: null): { func(s: string): (...a: unknown[]) => unknown } };
    const memchr = koffi.load(null).func('uintptr_t memchr(void *, int, size_t)') as (p: Buffer, c: number, n: number) => number | bigint;
    buf[0] = 0x5a;
    return BigInt(memchr(buf, 0x5a, 1));
}

/** Where held-at.ts's native layer is used (the held-path project forces it off: buffers then lie where they are allocated). */
const NATIVE = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64') && process.env[NATIVE_AT_VAR] !== '0';

describe('read buffers', () => {
    it.skipIf(!NATIVE)('start READ_BUFFER_PAGE_OFFSET bytes into a page, at every size', () => {
        for (const size of [1, 512, 4096, 65536, 1 << 20, (1 << 20) + 3]) {
            const buf = readBuffer(size);
            expect(buf.length).toBe(size);
            expect(Number(addressOf(buf) % 4096n)).toBe(READ_BUFFER_PAGE_OFFSET);
        }
    });

    it('are separate, and hold what is read into them', () => {
        const file = path.join(tempDir('lcf-read-buffer-'), 'f.bin');
        const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) & 0xff));
        fs.writeFileSync(file, bytes);
        const a = readBuffer(bytes.length);
        const b = readBuffer(bytes.length);
        a.fill(1);
        b.fill(2);
        const fd = fs.openSync(file, 'r');
        try {
            expect(fs.readSync(fd, a, 0, a.length, 0)).toBe(bytes.length);
        } finally {
            fs.closeSync(fd);
        }
        expect(a.equals(bytes)).toBe(true);
        expect(b.every((x) => x === 2)).toBe(true);
    });
});
