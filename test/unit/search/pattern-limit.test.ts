/**
 * The length cap on search patterns and globs: checked where a search's options are checked
 * (prepareSearch), so the tool in the library, the dispatcher, the CLI and the MCP server all
 * refuse an over-long pattern with the same invalid-argument error before any work starts.
 */
import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../../../src/hosts/adapters/dispatch.js';
import type { SearchRequest } from '../../../src/search/shared/types.js';
import { ToolError } from '../../../src/errors/shared/errors.js';
import { MAX_PATTERN_LENGTH, prepareSearch, searchRootAt } from '../../../src/search/prepare.js';
import { makePackage, search, searchProject, tempDir } from '../../support/helpers.js';

const base = (root: string, over: Partial<SearchRequest> = {}): SearchRequest => ({
    root: searchRootAt(root),
    type: 'both',
    maxResults: 10,
    maxFileSize: 1000,
    maxTotalEntries: 1000,
    skipDirs: [],
    ...over,
});

describe('search pattern length limit', () => {
    it('is 4,096 characters', () => {
        expect(MAX_PATTERN_LENGTH).toBe(4096);
    });

    it('refuses a longer pattern or glob list, naming the parameter, its length and the limit', async () => {
        const root = tempDir();
        const long = 'a'.repeat(MAX_PATTERN_LENGTH + 1);
        const cases: [Partial<SearchRequest>, string][] = [
            [{ contentPattern: long }, 'content_pattern'],
            [{ namePattern: long }, 'name_pattern'],
            [{ include: long }, 'include'],
            [{ exclude: ['*.ts', 'b'.repeat(MAX_PATTERN_LENGTH)] }, 'exclude'],
        ];
        for (const [over, param] of cases) {
            const err = await prepareSearch(base(root, over)).catch((e: unknown) => e);
            expect(err, param).toBeInstanceOf(ToolError);
            expect((err as ToolError).kind).toBe('invalid_argument');
            expect((err as ToolError).message).toMatch(new RegExp(`^Invalid arguments for search_entries: ${param} is [\\d,]+ characters long, above the limit of 4,096`));
        }
    });

    it('takes a pattern and a glob list of exactly the limit', async () => {
        const root = tempDir();
        const prepared = await prepareSearch(base(root, { contentPattern: 'a'.repeat(MAX_PATTERN_LENGTH), include: ['*.ts', `${'c'.repeat(MAX_PATTERN_LENGTH - 5)}`] }));
        expect(prepared.contentPattern).toBeDefined();
    });

    it('gives search_entries an invalid-argument error result for a 1 MB pattern, in the library and the dispatcher', async () => {
        const fx = makePackage(searchProject('lcf-plen-'));
        const pattern = 'x'.repeat(1024 * 1024);
        const r = await search(fx, { content_pattern: pattern });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/^Invalid arguments for search_entries: content_pattern is 1,048,576 characters long, above the limit of 4,096/);
        // The pattern is not echoed back: the error stays short.
        expect(r.result.length).toBeLessThan(1000);
        const [d] = await createDispatcher(fx.pkg)('search_entries', JSON.stringify({ name_pattern: pattern, literal: true }));
        expect(d).toMatchObject({ status: 'error', kind: 'invalid_argument' });
        expect(d!.result).toMatch(/name_pattern is 1,048,576 characters long/);
        // Valid input is unchanged.
        expect((await search(fx, { content_pattern: 'todo' })).result).toContain('src/main.ts:3:');
    });
});
