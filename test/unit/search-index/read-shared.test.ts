import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readShared } from '../../../src/search-index/watch/changes-since.js';
import { tempDir } from '../../support/helpers.js';

describe('readShared', () => {
    it('reads a file of several slices whole, byte for byte, and marks the read as ended', async () => {
        const dir = tempDir('lcf-read-shared-');
        // Four slices of 4 MiB and a few bytes more: read side by side, the last one short.
        const bytes = crypto.randomBytes((17 << 20) + 3);
        const file = path.join(dir, 'table.bin');
        fs.writeFileSync(file, bytes);
        const read = await readShared(file);
        const got = Buffer.from(await read.done);
        expect(got.length).toBe(bytes.length);
        expect(got.equals(bytes)).toBe(true);
        expect(new Int32Array(read.state)[0]).not.toBe(0);
    });

    it('reads an empty file and a file of one byte', async () => {
        const dir = tempDir('lcf-read-shared-');
        for (const content of [Buffer.alloc(0), Buffer.from('x')]) {
            const file = path.join(dir, `f${content.length}`);
            fs.writeFileSync(file, content);
            const read = await readShared(file);
            expect(Buffer.from(await read.done).equals(content)).toBe(true);
        }
    });

    it('rejects a file that is not there', async () => {
        await expect(readShared(path.join(tempDir('lcf-read-shared-'), 'missing.bin'))).rejects.toThrow(/ENOENT/);
    });
});
