import { describe, expect, it } from 'vitest';
import { EntryPolicy, needsStat } from '../../../src/search/shared/entry-policy.js';
import { prepareSearch, searchRootAt } from '../../../src/search/prepare.js';
import type { SearchRequest } from '../../../src/search/shared/types.js';
import { tempDir } from '../../support/helpers.js';

const policyOf = async (over: Partial<SearchRequest>): Promise<EntryPolicy> =>
    new EntryPolicy(await prepareSearch({ root: searchRootAt(tempDir()), type: 'both', maxResults: 10, maxFileSize: 1000, maxTotalEntries: 1000, skipDirs: ['node_modules'], ...over }));

describe('EntryPolicy (the entry decisions the walk and the index share)', () => {
    it('keeps entries by type, name pattern and include globs', async () => {
        const all = await policyOf({});
        expect(all.kept('a.ts', 'src/a.ts', false)).toBe(true);
        expect(all.kept('src', 'src', true)).toBe(true);
        const files = await policyOf({ type: 'file', namePattern: '\\.ts$', include: 'src/**' });
        expect(files.kept('a.ts', 'src/a.ts', false)).toBe(true);
        expect(files.kept('a.js', 'src/a.js', false)).toBe(false);
        expect(files.kept('a.ts', 'lib/a.ts', false)).toBe(false);
        expect(files.kept('x.ts', 'src/x.ts', true)).toBe(false);
        // A content search has no directory hits.
        expect((await policyOf({ contentPattern: 'x' })).kept('src', 'src', true)).toBe(false);
        expect(all.skip.has('node_modules')).toBe(true);
    });

    it('leaves out excluded entries as if absent', async () => {
        const p = await policyOf({ exclude: 'deep/' });
        expect(p.filtered).toBe(true);
        expect(p.leftOut(undefined, 'src/deep', 'deep', true)).toBe(true);
        expect(p.leftOut(undefined, 'src/deeper', 'deeper', true)).toBe(false);
        expect((await policyOf({})).filtered).toBe(false);
    });

    it('filters on the stat with exclusive time bounds; needsStat says when entries are stat’ed', async () => {
        expect(needsStat({})).toBe(false);
        expect(needsStat({ modifiedBefore: 5 })).toBe(true);
        expect(needsStat({ createdAfter: 5 })).toBe(true);
        const p = await policyOf({ createdAfter: 100, modifiedBefore: 200 });
        expect(p.search.needTimes).toBe(true);
        const st = (b: number, m: number) => ({ birthtimeMs: b, mtimeMs: m, size: 0 });
        expect(p.statOk(st(101, 199))).toBe(true);
        expect(p.statOk(st(100, 150))).toBe(false);
        expect(p.statOk(st(150, 200))).toBe(false);
        expect(p.timesOk(st(150, 150))).toEqual({ birthtimeMs: 150, mtimeMs: 150 });
        expect(p.timesOk(st(50, 150))).toBeNull();
        expect((await policyOf({})).statOk(st(0, 0))).toBe(true);
    });
});
