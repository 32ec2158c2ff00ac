/**
 * The engine's time limits at their extremes: a limit beyond what a Node timer holds
 * (2^31 - 1 ms) is a long limit, not an immediate timeout; a signal aborted before a streamed
 * search starts stops it at once.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import type { SearchRequest } from '../../../src/search/shared/types.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { searchRootAt } from '../../../src/search/prepare.js';

const engine = new Engine({ maxThreads: 1 });
afterAll(() => engine.close());

const request = (root: string): SearchRequest => ({ root: searchRootAt(root), type: 'both', contentPattern: 'needle', maxResults: 10, maxFileSize: 1e6, maxTotalEntries: 1e6, skipDirs: [] });

describe('engine time limits', () => {
    it.each([2 ** 31, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER])('searches and reads to the end with a %d ms limit', async (timeoutMs) => {
        const dir = tempDir('lcf-timers-');
        writeTree(dir, { 'a.txt': 'needle\n', 'b.txt': 'b\n' });
        const res = await engine.search(request(dir), { timeoutMs });
        expect(res.stop).toBe('done');
        expect(res.hits).toEqual([{ path: 'a.txt', kind: 'file', line: 1, text: 'needle' }]);
        const reads = await engine.readMany(
            ['a.txt', 'b.txt'].map((f) => ({ shown: f, real: path.join(dir, f) })),
            { maxBytes: 1e6, realRoots: null, timeoutMs },
        );
        expect(reads.map((r) => r.ok)).toEqual([true, true]);
    });

    it('yields nothing from a stream whose signal was aborted before it started, and leaves the signal as it was', async () => {
        const dir = tempDir('lcf-timers-');
        writeTree(dir, { 'a.txt': 'needle\n' });
        const signal = AbortSignal.abort();
        const hits = [];
        for await (const h of engine.stream(request(dir), { signal })) hits.push(h);
        expect(hits).toEqual([]);
        const live = new AbortController();
        for await (const h of engine.stream(request(dir), { signal: live.signal })) hits.push(h);
        expect(hits.map((h) => h.path)).toEqual(['a.txt']);
        expect(live.signal.aborted).toBe(false);
    });
});
