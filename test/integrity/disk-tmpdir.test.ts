/**
 * The real-filesystem tests make their temporary directories on the system's directory, not on the
 * tmpfs the rest of the suite uses where the machine has one (test/support/disk-tmp.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/helpers.js';
import { DISK_TMPDIR_VAR } from '../support/disk-tmp.js';

describe('temporary directories of test/integrity/', () => {
    it('are on the file system of the system\'s temporary directory', () => {
        const disk = process.env[DISK_TMPDIR_VAR];
        expect(disk, 'vitest.config.ts names it').toBeDefined();
        expect(os.tmpdir()).toBe(disk);
        const dir = tempDir('lcf-disk-tmpdir-');
        expect(fs.statSync(dir).dev).toBe(fs.statSync(disk!).dev);
        expect(fs.statfsSync(dir).type).toBe(fs.statfsSync(disk!).type);
    });
});
