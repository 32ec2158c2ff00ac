/**
 * The output budget of one call (FileConfiguration.maxCharsPerCall, LLM_CHAT_FS_MAX_CHARS_PER_CALL,
 * default 100000): a bulk read_file, a search with context lines, a long listing stop adding files
 * or hits before it, and end with a note naming what was left out and how to get it; the rest comes
 * with the paths or the offset the note names. Also search_entries' max_matches_per_file.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileConfiguration } from '../../../src/index.js';
import { capText, OutputBudget } from '../../../src/print/budget.js';
import { makePackage, one, search, tempDir, writeTree } from '../../support/helpers.js';

const total = (results: { result: string }[]): number => results.reduce((n, r) => n + r.result.length, 0);

/** `n` files of `lines` lines of `width` characters holding "needle". */
function manyFiles(n: number, lines: number, width: number): Record<string, string> {
    const line = `needle ${'x'.repeat(width - 7)}\n`;
    return Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${String(i).padStart(3, '0')}.txt`, line.repeat(lines)]));
}

describe('the output budget of a call', () => {
    it('defaults to 100000 characters', () => {
        expect(new FileConfiguration().maxCharsPerCall).toBe(100_000);
    });

    it('read_file: a bulk read stops adding files before it, lists the paths left out, and they read with those paths', async () => {
        const dir = tempDir('lcf-budget-read-');
        writeTree(dir, manyFiles(30, 100, 90)); // 9,000 characters each, 270,000 in all
        const fx = makePackage(dir);
        const paths = Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(3, '0')}.txt`);
        const results = await fx.run('read_file', { paths });
        expect(results).toHaveLength(30);
        expect(total(results)).toBeLessThanOrEqual(100_000);
        const read = results.filter((r) => r.result.startsWith('--- '));
        expect(read.length).toBeGreaterThanOrEqual(10);
        // The files read are a prefix of the paths, each whole.
        read.forEach((r, i) => expect(r.result.startsWith(`--- ${path.join(dir, paths[i]!)} (lines 1-100 of 100) ---`)).toBe(true));
        const left = paths.slice(read.length);
        const first = results[read.length]!;
        expect(first.status).toBe('success');
        expect(first.result).toBe(
            `Not read: this call's output reached its budget of 100000 characters (maxCharsPerCall, LLM_CHAT_FS_MAX_CHARS_PER_CALL) before this path. ` +
                `To read the ${left.length} paths left out (this one first), call read_file again with paths: ${JSON.stringify(left)}`,
        );
        for (const r of results.slice(read.length + 1)) expect(r.result).toBe(`Not read: the output budget is spent; see the result for ${JSON.stringify(left[0])}.`);
        // Not shown, so not read: an edit of a file left out needs a read first.
        const edit = await one(fx.tool('replace_file_content'), { path: left[0], old_content: 'needle', new_content: 'pin' });
        expect(edit.status).toBe('error');
        expect(edit.result).toMatch(/read_file/);
        // The paths named read in the next call.
        const next = await fx.run('read_file', { paths: left });
        expect(next.filter((r) => r.result.startsWith('--- ')).length).toBeGreaterThanOrEqual(10);
        expect(next[0]!.result.startsWith(`--- ${path.join(dir, left[0]!)} `)).toBe(true);
    });

    it('read_file: the short results of the paths left out count too, for the 100 paths a call takes', async () => {
        const dir = tempDir('lcf-budget-hundred-');
        writeTree(dir, manyFiles(100, 30, 100)); // 3,000 characters each
        const fx = makePackage(dir);
        const paths = Array.from({ length: 100 }, (_, i) => `f${String(i).padStart(3, '0')}.txt`);
        const results = await fx.run('read_file', { paths });
        expect(results).toHaveLength(100);
        expect(total(results)).toBeLessThanOrEqual(100_000);
        expect(total(results)).toBeGreaterThan(90_000);
        const read = results.filter((r) => r.result.startsWith('--- ')).length;
        expect(read).toBeGreaterThan(25);
        expect(results[read]!.result).toContain(`call read_file again with paths: ${JSON.stringify(paths.slice(read))}`);
    });

    it('read_file: a single file is capped within the budget when maxCharsPerFile is above it', async () => {
        const dir = tempDir('lcf-budget-one-');
        writeTree(dir, { 'big.txt': 'y'.repeat(99) + '\n'.repeat(1) + 'z\n'.repeat(20_000) });
        const fx = makePackage(dir, { maxCharsPerFile: 50_000, maxCharsPerCall: 5_000 });
        const r = await one(fx.tool('read_file'), { paths: ['big.txt'] });
        expect(r.status).toBe('success');
        expect(r.result.length).toBeLessThanOrEqual(5_000);
    });

    it('search_entries: context lines count; the note names the next offset, which continues where the page stopped', async () => {
        const dir = tempDir('lcf-budget-search-');
        // A match on every 21st line: each hit comes with 20 context lines of 400 characters.
        const text = Array.from({ length: 210 }, (_, i) => (i % 21 === 10 ? 'needle\n' : `${'c'.repeat(400)}\n`)).join('');
        writeTree(dir, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${String(i).padStart(3, '0')}.txt`, text])));
        const fx = makePackage(dir);
        const args = { content_pattern: 'needle', context_lines: 10, max_results: 200 };
        const r = await search(fx, args);
        expect(r.status).toBe('success');
        expect(r.result.length).toBeLessThanOrEqual(100_000);
        const lines = r.result.split('\n');
        const note = lines.at(-1)!;
        const m = /^\[Showing results 1-(\d+) of the 200 or more found: this call's output reached its budget of 100000 characters \(maxCharsPerCall, LLM_CHAT_FS_MAX_CHARS_PER_CALL\)\. For the rest, call again with offset=(\d+) \(fewer context_lines fit more results in a call\)\.\]$/.exec(note);
        expect(m, note).not.toBeNull();
        const shown = Number(m![1]);
        expect(Number(m![2])).toBe(shown);
        expect(lines.filter((l) => /^f\d+\.txt:\d+: /.test(l))).toHaveLength(shown);
        // The next page starts at the first hit left out, as a run with room for everything has it.
        const big = makePackage(dir, { maxCharsPerCall: 10_000_000 });
        const all = (await search(big, { ...args, context_lines: 0 })).result.split('\n');
        const next = await search(fx, { ...args, offset: shown });
        expect(next.result.split('\n').find((l) => /^f\d+\.txt:\d+: /.test(l))).toBe(all[shown]);
    });

    it('search_entries: plain hit lines and file lists stop at the budget too; a small result is unchanged', async () => {
        const dir = tempDir('lcf-budget-lines-');
        writeTree(dir, manyFiles(40, 10, 300));
        const fx = makePackage(dir, { maxCharsPerCall: 20_000 });
        const r = await search(fx, { content_pattern: 'needle', max_results: 150 });
        expect(r.result.length).toBeLessThanOrEqual(20_000);
        expect(r.result.split('\n').at(-1)).toMatch(/^\[Showing results 1-\d+ of the 150 or more found: this call's output reached its budget of 20000 characters .* call again with offset=\d+\.\]$/);
        const small = await search(fx, { content_pattern: 'needle', max_results: 2 });
        expect(small.result.split('\n')).toHaveLength(3);
        expect(small.result).not.toContain('budget');
        // A page past the start names its own range.
        const later = await search(fx, { content_pattern: 'needle', max_results: 100, offset: 30 });
        expect(later.result.split('\n').at(-1)).toMatch(/^\[Showing results 31-\d+ of the 130 or more found: .*offset=\d+\.\]$/);
    });

    it('list_directory: the page ends at the budget, and the note gives the next offset', async () => {
        const dir = tempDir('lcf-budget-list-');
        const names = Array.from({ length: 150 }, (_, i) => `${String(i).padStart(3, '0')}-${'n'.repeat(60)}.txt`);
        writeTree(dir, Object.fromEntries(names.map((n) => [n, ''])));
        const fx = makePackage(dir, { maxCharsPerCall: 3_000 });
        const r = await one(fx.tool('list_directory'), { path: '.' });
        expect(r.result.length).toBeLessThanOrEqual(3_000);
        const lines = r.result.split('\n');
        const shown = lines.length - 1;
        expect(lines.slice(0, shown)).toEqual(names.slice(0, shown));
        expect(lines.at(-1)).toBe(
            `[Showing ${shown} of 150 entries (this call's output reached its budget of 3000 characters (maxCharsPerCall, LLM_CHAT_FS_MAX_CHARS_PER_CALL)). ` +
                `List a subdirectory or use search_entries to narrow; for the next page, call again with offset=${shown}.]`,
        );
        const next = await one(fx.tool('list_directory'), { path: '.', offset: shown });
        expect(next.result.split('\n')[0]).toBe(names[shown]);
    });

    it('any other result is cut at a line with a note (the last guard)', () => {
        const text = Array.from({ length: 100 }, (_, i) => `line ${i} ${'w'.repeat(40)}`).join('\n');
        const cut = capText(text, 2_000);
        expect(cut.length).toBeLessThanOrEqual(2_000);
        expect(text.startsWith(cut.slice(0, cut.lastIndexOf('\n')))).toBe(true);
        expect(cut.split('\n').at(-1)).toMatch(/^\[\d+ characters left out at the end: this call's output reached its budget of 2000 characters/);
        expect(capText('short', 2_000)).toBe('short');
    });

    it('OutputBudget always takes the first item, and none after the first refused', () => {
        const b = new OutputBudget(10);
        expect(b.take(50)).toBe(true);
        expect(b.take(1)).toBe(false);
        expect(b.cut).toBe(true);
        const c = new OutputBudget(10);
        expect([c.take(4), c.take(7), c.take(1)]).toEqual([true, false, false]);
        expect(c.taken).toBe(1);
    });
});

describe('search_entries max_matches_per_file', () => {
    it('keeps at most that many matching lines per file and says which files may have more', async () => {
        const dir = tempDir('lcf-per-file-');
        writeTree(dir, { 'gen.txt': 'hit\n'.repeat(500), 'a.txt': 'hit\nhit\n', 'b.txt': 'hit\nhit\nhit\n' });
        const fx = makePackage(dir);
        const r = await search(fx, { content_pattern: 'hit', max_matches_per_file: 3 });
        expect(r.result.split('\n')).toEqual([
            'a.txt:1: hit',
            'a.txt:2: hit',
            'b.txt:1: hit',
            'b.txt:2: hit',
            'b.txt:3: hit',
            'gen.txt:1: hit',
            'gen.txt:2: hit',
            'gen.txt:3: hit',
            '[2 files show max_matches_per_file = 3 matching lines and may have more: search one alone (its path in include) to see them all, or use output_mode "count".]',
        ]);
        // Counting is not capped.
        const count = await search(fx, { content_pattern: 'hit', output_mode: 'count', max_matches_per_file: 3 });
        expect(count.result).toBe('a.txt: 2\nb.txt: 3\ngen.txt: 500');
    });

    it('is refused without content_pattern, and below 1, changing nothing', async () => {
        const dir = tempDir('lcf-per-file-bad-');
        writeTree(dir, { 'a.txt': 'x\n' });
        const fx = makePackage(dir);
        const r = await search(fx, { name_pattern: 'a', max_matches_per_file: 2 });
        expect(r.status).toBe('error');
        expect(r.result).toContain('max_matches_per_file caps the matching lines shown per file: set content_pattern too');
        for (const bad of [0, -1, 1.5, '2']) {
            const b = await search(fx, { content_pattern: 'x', max_matches_per_file: bad });
            expect(b.status).toBe('error');
            expect(b.result).toContain('max_matches_per_file');
        }
    });
});
