/** bench/mcp-memory.ts `merging`: whether the index an MCP server builds still serves build segments its background merge has yet to join, read from the manifest the index writes. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { merging } from '../../../bench/mcp-memory.js';
import { FORMAT_VERSION } from '../../../src/search-index/shared/format.js';
import { writeManifest } from '../../../src/search-index/store.js';
import { tempDir } from '../../support/helpers.js';

describe('mcp-memory merging', () => {
    it('is null before a manifest, true while build segments are served, false once merged files (and at most one build segment) are', async () => {
        const index = tempDir('lcf-mcp-merging-');
        expect(merging(path.join(index, 'missing'))).toBeNull();
        const tree = path.join(index, 'tree-abc');
        fs.mkdirSync(path.join(tree, 'gen-1'), { recursive: true });
        expect(merging(index)).toBeNull();
        const m = { version: FORMAT_VERSION, root: '/t', skipDirs: [], maxFileSize: 1, gen: 'gen-1', skippedDirs: [], textBytes: 0, diskBytes: 0, buildMs: 0 };
        await writeManifest(tree, { ...m, segments: ['seg-0000.bin', 'seg-0001.bin', 'seg-0002.bin'] });
        expect(merging(index)).toBe(true);
        await writeManifest(tree, { ...m, segments: ['merged-0000.bin', 'seg-0002.bin'] });
        expect(merging(index)).toBe(false);
        await writeManifest(tree, { ...m, segments: ['merged-0000.bin', 'merged-0002.bin'] });
        expect(merging(index)).toBe(false);
        await writeManifest(tree, { ...m, segments: ['seg-0000.bin'] });
        expect(merging(index)).toBe(false);
    });
});
