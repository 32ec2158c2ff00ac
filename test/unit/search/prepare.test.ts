import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { paramOf, prepareSearch, searchRootAt } from '../../../src/search/prepare.js';
import type { SearchRequest } from '../../../src/search/shared/types.js';
import { ToolError } from '../../../src/errors/shared/errors.js';
import { CAN_HOLD, heldPath, heldRealPathSync, isHeldPath } from '../../../src/fs/shared/held.js';
import { tempDir } from '../../support/helpers.js';
const base = (root: string, over: Partial<SearchRequest> = {}): SearchRequest => ({
    root: searchRootAt(root),
    type: 'both',
    maxResults: 10,
    maxFileSize: 1000,
    maxTotalEntries: 1000,
    skipDirs: ['node_modules'],
    ...over,
});

describe('prepareSearch', () => {
    it('names the tool parameter of every invalid option', async () => {
        const root = tempDir();
        const cases: [Partial<SearchRequest>, RegExp][] = [
            [{ contentPattern: '(' }, /^Invalid arguments for search_entries: content_pattern is not a valid JavaScript regular expression: .*escape the special characters with a backslash: "\\\\\("\.$/],
            [{ namePattern: 'a[' }, /^Invalid arguments for search_entries: name_pattern is not a valid JavaScript regular expression/],
            [{ include: ['[x'] }, /^Invalid arguments for search_entries: include: .*not a valid glob/],
            [{ exclude: 'a/[' }, /^Invalid arguments for search_entries: exclude: .*not a valid glob/],
            [{ contextLines: 2 }, /^Invalid arguments for search_entries: context_lines shows lines around content matches: set content_pattern too/],
            [{ outputMode: 'count' }, /^Invalid arguments for search_entries: output_mode "count" counts matching lines per file: set content_pattern too/],
        ];
        for (const [over, message] of cases) {
            const err = await prepareSearch(base(root, over)).catch((e: unknown) => e);
            expect(err, JSON.stringify(over)).toBeInstanceOf(ToolError);
            expect((err as ToolError).kind).toBe('invalid_argument');
            expect((err as ToolError).message).toMatch(message);
        }
    });

    it('checks the options before it checks the root', async () => {
        let called = 0;
        const req = base('/nowhere', {
            contentPattern: '(',
            root: async () => {
                called++;
                throw new Error('root checked');
            },
        });
        await expect(prepareSearch(req)).rejects.toThrow(/content_pattern is not a valid/);
        expect(called).toBe(0);
        await expect(prepareSearch({ ...req, contentPattern: 'ok' })).rejects.toThrow('root checked');
        expect(called).toBe(1);
    });

    it('keeps every option under its name, compiles the patterns once and defaults the rest', async () => {
        const root = tempDir();
        const a = await prepareSearch(base(root, { contentPattern: '\\p{L}+', namePattern: 'x', include: '*.ts', modifiedAfter: 5, contextLines: 2 }));
        expect(a).toMatchObject({
            root: { real: root, display: '.', realRoots: null, bounds: [root] },
            type: 'both',
            maxResults: 10,
            maxFileSize: 1000,
            maxTotalEntries: 1000,
            skipDirs: ['node_modules'],
            modifiedAfter: 5,
            contentPattern: { source: '\\p{L}+', flags: 'iu', risky: false },
            namePattern: { source: 'x', flags: 'i', risky: false },
            include: ['*.ts'],
            outputMode: 'content',
            contextLines: 2,
            respectGitignore: false,
            gitignoreAbove: [],
            needTimes: true,
            relStart: 0,
        });
        expect(a.exclude).toBeUndefined();
        // Context lines only in content mode; each preparation its own id (the workers' cache key).
        const b = await prepareSearch(base(root, { contentPattern: 'x', outputMode: 'files_with_matches', contextLines: 3 }));
        expect(b.contextLines).toBe(0);
        expect(b.needTimes).toBe(false);
        expect(b.id).not.toBe(a.id);
        expect((await prepareSearch(base(root, {}))).root.display).toBe('.');
        const sub = await prepareSearch(base(root, { root: searchRootAt(root, null, 'src/lib') }));
        expect(sub.relStart).toBe('src/lib/'.length);
    });

    it('reads the .gitignore files above the root, up to the repository top and never outside the bounds', async () => {
        const top = tempDir();
        fs.mkdirSync(path.join(top, '.git'));
        fs.writeFileSync(path.join(top, '.gitignore'), '*.log\n');
        fs.mkdirSync(path.join(top, 'a', 'b'), { recursive: true });
        fs.writeFileSync(path.join(top, 'a', '.gitignore'), 'tmp/\n');
        const at = path.join(top, 'a', 'b');
        const inside = await prepareSearch(base(at, { root: { real: at, display: 'a/b', realRoots: [top], bounds: [top] }, respectGitignore: true }));
        expect(inside.gitignoreAbove).toEqual([
            { base: '', up: 'a/b/', rules: '*.log\n' },
            { base: '', up: 'b/', rules: 'tmp/\n' },
        ]);
        const bounded = await prepareSearch(base(at, { root: { real: at, display: 'a/b', realRoots: null, bounds: [path.join(top, 'a')] }, respectGitignore: true }));
        expect(bounded.gitignoreAbove).toEqual([{ base: '', up: 'b/', rules: 'tmp/\n' }]);
        const off = await prepareSearch(base(at, { root: { real: at, display: 'a/b', realRoots: [top], bounds: [top] } }));
        expect(off.gitignoreAbove).toEqual([]);
    });

    it('maps an option to its tool parameter', () => {
        expect(paramOf('contentPattern')).toBe('content_pattern');
        expect(paramOf('contextLines')).toBe('context_lines');
        expect(paramOf('respectGitignore')).toBe('respect_gitignore');
        expect(paramOf('include')).toBe('include');
    });
});

describe('held descriptors', () => {
    it('name an open directory by its held path, whose target is its real path', () => {
        const dir = tempDir();
        const fd = fs.openSync(dir, 'r');
        try {
            expect(isHeldPath(heldPath(fd))).toBe(true);
            expect(isHeldPath(dir)).toBe(false);
            if (CAN_HOLD) expect(heldRealPathSync(fd)).toBe(dir);
            else expect(heldRealPathSync(fd)).toBeUndefined();
        } finally {
            fs.closeSync(fd);
        }
        expect(heldRealPathSync(fd)).not.toBe(dir);
    });

    it.skipIf(!CAN_HOLD)('name the same descriptor in every thread (the process\'s one table), by this process\'s number', async () => {
        const dir = tempDir();
        const fd = fs.openSync(dir, 'r');
        try {
            expect(heldPath(fd)).toBe(`/proc/${process.pid}/fd/${fd}`);
            const seen = await new Promise<string>((resolve, reject) => {
                const w = new Worker(`require('node:worker_threads').parentPort.postMessage(require('node:fs').readlinkSync(${JSON.stringify(heldPath(fd))}))`, { eval: true });
                w.once('message', (m: string) => void w.terminate().then(() => resolve(m)));
                w.once('error', reject);
            });
            expect(seen).toBe(dir);
        } finally {
            fs.closeSync(fd);
        }
    });
});
