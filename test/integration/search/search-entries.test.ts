/**
 * search_entries through the tool interface: arguments, filters, output format, limits and
 * their messages, on real temporary directories. Engine internals are in engine-*.test.ts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccessType, SearchConfiguration } from '../../../src/index.js';
import { quotePath } from '../../../src/print/shared/display.js';
import { SearchEntriesTool } from '../../../src/tools/search-entries.js';
import { makePackage, one, search, searchProject, tempDir, writeTree } from '../../support/helpers.js';

function project(): string {
    return searchProject('lcf-search-', { 'node_modules/dep/index.ts': '// TODO in a dependency\n', '.git/HEAD': 'TODO\n' });
}

describe('search_entries', () => {
    it('lists every entry, sorted, directories with a slash, without a ./ prefix', async () => {
        const fx = makePackage(project());
        const r = await search(fx, {});
        expect(r.status).toBe('success');
        expect(r.result).toBe(['docs/', 'docs/guide.md', 'readme.txt', 'src/', 'src/lib/', 'src/lib/deep.ts', 'src/main.ts', 'src/utils.ts'].join('\n'));
    });

    it('matches names case-insensitively and filters by type', async () => {
        const fx = makePackage(project());
        expect((await search(fx, { name_pattern: '\\.TS$' })).result).toBe('src/lib/deep.ts\nsrc/main.ts\nsrc/utils.ts');
        expect((await search(fx, { type: 'directory' })).result).toBe('docs/\nsrc/\nsrc/lib/');
        expect((await search(fx, { type: 'file', name_pattern: '^[dr]' })).result).toBe('readme.txt\nsrc/lib/deep.ts');
        expect((await search(fx, { type: 'both', name_pattern: 'lib' })).result).toBe('src/lib/');
    });

    it('shows content hits as path:line: text, one per matching line, name and content combined with AND', async () => {
        const fx = makePackage(project());
        const content = await search(fx, { content_pattern: 'todo' });
        expect(content.result).toBe(['docs/guide.md:2: TODO: write more', 'src/main.ts:3:    // TODO: implement this', 'src/utils.ts:2: // todo: add error handling'].join('\n'));
        const both = await search(fx, { name_pattern: '\\.ts$', content_pattern: 'TODO' });
        expect(both.result).toBe('src/main.ts:3:    // TODO: implement this\nsrc/utils.ts:2: // todo: add error handling');
        // content_pattern implies files: type directory finds nothing.
        expect((await search(fx, { content_pattern: 'todo', type: 'directory' })).result).toMatch(/^No entries found/);
    });

    it('searches a subdirectory and shows workspace-relative paths; absolute paths outside the workspace', async () => {
        const dir = project();
        const other = tempDir('lcf-search-other-');
        writeTree(other, { 'notes/a.txt': 'needle\n' });
        const fx = makePackage(dir, {
            accesses: [
                { type: AccessType.Write, path: dir },
                { type: AccessType.Read, path: other },
            ],
        });
        expect((await search(fx, { path: 'src', content_pattern: 'todo' })).result).toBe('src/main.ts:3:    // TODO: implement this\nsrc/utils.ts:2: // todo: add error handling');
        expect((await search(fx, { path: './src/lib' })).result).toBe('src/lib/deep.ts');
        expect((await search(fx, { path: other, content_pattern: 'needle' })).result).toBe(`${other}/notes/a.txt:1: needle`);
    });

    it('filters by timestamps and appends created/modified times', async () => {
        const dir = tempDir('lcf-search-times-');
        writeTree(dir, { 'old.txt': 'x\n', 'new.txt': 'x\n' });
        const old = new Date('2020-06-01T12:00:00.000Z');
        fs.utimesSync(path.join(dir, 'old.txt'), old, old);
        const fx = makePackage(dir);
        const before = await search(fx, { modified_before: '2021-01-01T00:00:00Z' });
        expect(before.result).toMatch(/^old\.txt {2}\(created: \d{4}-\d\d-\d\dT[\d:.]+Z, modified: 2020-06-01T12:00:00\.000Z\)$/);
        const after = await search(fx, { modified_after: '2021-01-01T00:00:00Z', type: 'file' });
        expect(after.result).toMatch(/^new\.txt {2}\(created: .*, modified: .*\)$/);
        expect((await search(fx, { created_after: '2000-01-01T00:00:00Z', type: 'file' })).result.split('\n')).toHaveLength(2);
        expect((await search(fx, { created_before: '2000-01-01T00:00:00Z' })).result).toMatch(/^No entries found in \. matching created before 2000/);
    });

    it('says clearly when nothing matches', async () => {
        const fx = makePackage(project());
        const r = await search(fx, { name_pattern: 'zzz', content_pattern: 'qqq' });
        expect(r.status).toBe('success');
        expect(r.result).toBe('No entries found in . matching name_pattern /zzz/i, content_pattern /qqq/i.');
    });

    it('skips skipDirs, binary files and files above max_size', async () => {
        const dir = project();
        writeTree(dir, {
            'bin/blob.dat': Buffer.concat([Buffer.from('TODO\n'), Buffer.alloc(800, 0)]),
            'big.txt': `TODO big\n${'x'.repeat(4000)}\n`,
        });
        const fx = makePackage(dir);
        const r = await search(fx, { content_pattern: 'todo', max_size: 1000 });
        const lines = r.result.split('\n');
        expect(lines.slice(0, 3).join('\n')).not.toMatch(/node_modules|\.git|blob\.dat|big\.txt/);
        expect(lines).toHaveLength(4);
        // The binary is not searched at any size; the text file is, with max_size raised.
        expect(lines[3]).toBe('[Not searched: 1 file above max_size (1000 bytes): big.txt (4010 bytes); raise max_size (up to maxFileSize, 10485760 bytes) to search them.]');
        expect((await search(fx, { content_pattern: 'todo big' })).result).toBe('big.txt:1: TODO big');
    });

    it('notes when max_results stopped the search, keeping the first results in order', async () => {
        const dir = tempDir('lcf-search-max-');
        for (let i = 0; i < 30; i++) writeTree(dir, { [`d${String(i).padStart(2, '0')}/f.txt`]: 'needle\nneedle\n' });
        const fx = makePackage(dir);
        const r = await search(fx, { content_pattern: 'needle', max_results: 5 });
        expect(r.status).toBe('success');
        expect(r.result.split('\n')).toEqual([
            'd00/f.txt:1: needle',
            'd00/f.txt:2: needle',
            'd01/f.txt:1: needle',
            'd01/f.txt:2: needle',
            'd02/f.txt:1: needle',
            '[Showing the first 5 results (max_results = 5); there may be more. Raise max_results or narrow the search; for the next page, call again with offset=5.]',
        ]);
    });

    it('summarizes above maxDisplayEntries but shows a handful of matches in a big tree in full', async () => {
        const dir = tempDir('lcf-search-display-');
        for (let a = 0; a < 4; a++) for (let f = 0; f < 500; f++) writeTree(dir, { [`part${a}/f${f}.txt`]: f % 250 === 7 ? 'rare needle\n' : 'hay\n' });
        writeTree(dir, { 'top.txt': 'hay\n' });
        const fx = makePackage(dir, { search: new SearchConfiguration(5000, 100, 100_000, 120_000) });
        const few = await search(fx, { content_pattern: 'needle' });
        expect(few.result.split('\n')).toHaveLength(8);
        expect(few.result).toContain('part0/f257.txt:1: rare needle');
        const many = await search(fx, { name_pattern: '\\.txt$' });
        expect(many.status).toBe('success');
        expect(many.result).toContain('Found 2001 matching entries in .');
        expect(many.result).toContain('maxDisplayEntries = 100');
        expect(many.result).toContain('  part0/: 500');
        expect(many.result).toContain('  part3/: 500');
        expect(many.result).toContain('(directly in .): 1');
        expect(many.result).toMatch(/deeper path/);
        expect(many.result).not.toContain('f1.txt');
    });

    it('turns a walk above maxTotalEntries into an error that says what to raise or narrow, with the matches so far', async () => {
        const dir = tempDir('lcf-search-total-');
        for (let d = 0; d < 10; d++) for (let f = 0; f < 20; f++) writeTree(dir, { [`d${d}/f${f}.txt`]: f === 3 ? 'needle\n' : 'hay\n' });
        const fx = makePackage(dir, { search: new SearchConfiguration(50, 200, 50, 120_000) });
        const r = await search(fx, { content_pattern: 'needle' });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/^Search stopped: visited more than the limit of 50 entries under \. \(maxTotalEntries/);
        expect(r.result).toContain('LLM_CHAT_FS_MAX_TOTAL_ENTRIES=<n>');
        expect(r.result).toMatch(/deeper `path`, a `name_pattern` or `type`/);
        // Walk order: d0/ (1), d0/f0..f19 (20: f3 hits), d1/ ... the first 50 entries hold d0/f3 and d1/f3.
        expect(r.result).toContain('Matches found before stopping (2):\nd0/f3.txt:1: needle\nd1/f3.txt:1: needle');
    });

    it('returns partial results with a note on timeout', async () => {
        const dir = tempDir('lcf-search-timeout-');
        for (let d = 0; d < 20; d++) for (let f = 0; f < 100; f++) writeTree(dir, { [`d${d}/f${f}.txt`]: 'needle\n'.repeat(20) });
        const fx = makePackage(dir, { search: new SearchConfiguration(100_000, 100_000, 100_000, 1) });
        const r = await search(fx, { content_pattern: 'needle' });
        expect(r.status).toBe('success');
        expect(r.result).toMatch(/\[Search timed out after 1 ms, having visited \d+ entries and scanned \d+ files; the results are partial/);
    });

    it('gives the same maxTotalEntries error on every run', async () => {
        const dir = tempDir('lcf-search-total-det-');
        for (let d = 0; d < 20; d++) for (let f = 0; f < 100; f++) writeTree(dir, { [`d${String(d).padStart(2, '0')}/f${f}.txt`]: f % 9 === 0 ? 'needle\n' : 'hay\n' });
        const fx = makePackage(dir, { search: new SearchConfiguration(1000, 1000, 500, 120_000) });
        const results = new Set<string>();
        for (let run = 0; run < 5; run++) results.add((await search(fx, { content_pattern: 'needle' })).result);
        expect(results.size).toBe(1);
        const [text] = results;
        expect(text).toMatch(/^Search stopped: visited more than the limit of 500 entries under \./);
        // The first 500 entries in walk order: d00/ .. d04/ and their files, minus the last one.
        expect(text).toContain('Matches found before stopping (');
        expect(text).toContain('d00/f0.txt:1: needle');
        expect(text).not.toContain('d05/');
    });

    it('keeps the matches found before a catastrophic pattern got stuck, and says how far finished work got', async () => {
        const dir = tempDir('lcf-search-redos-keep-');
        for (let i = 1; i <= 100; i++) writeTree(dir, { [`f${String(i).padStart(3, '0')}.txt`]: `needle ${String(i).padStart(3, '0')}\n` });
        writeTree(dir, { 'zzz.txt': `${'a'.repeat(40_000)}!\n` });
        // The timeout must come after the walk reached zzz.txt; on a loaded machine it may come
        // sooner, so the search is repeated with a longer timeout until it did (all 100 scanned).
        // Short at first: until the timeout the stuck thread spins a core.
        let timeoutMs = 1000;
        let r = await search(makePackage(dir, { search: new SearchConfiguration(200, 200, 5000, timeoutMs) }), { content_pattern: 'needle 0[0-3]|(a+)+$' });
        while (!/scanned (\d{3,}) files/.test(r.result) && timeoutMs < 48_000) {
            timeoutMs *= 2;
            r = await search(makePackage(dir, { search: new SearchConfiguration(200, 200, 5000, timeoutMs) }), { content_pattern: 'needle 0[0-3]|(a+)+$' });
        }
        const lines = r.result.split('\n');
        expect(lines.slice(0, 39)).toEqual(Array.from({ length: 39 }, (_, i) => `f${String(i + 1).padStart(3, '0')}.txt:1: needle ${String(i + 1).padStart(3, '0')}`));
        expect(lines[39]).toMatch(new RegExp(`^\\[Search timed out after ${timeoutMs} ms, having visited (\\d+) entries and scanned (\\d+) files`));
        const [, visited, scanned] = /visited (\d+) entries and scanned (\d+) files/.exec(lines[39]!)!;
        expect(Number(visited)).toBeGreaterThanOrEqual(39);
        expect(Number(scanned)).toBeGreaterThanOrEqual(39);
    });

    it('shows the match of a long line in a window marked with …', async () => {
        const dir = tempDir('lcf-search-long-');
        writeTree(dir, { 'min.js': `${'x'.repeat(549)}needle${'y'.repeat(1000)}\n`, 'short.txt': 'a needle here\n' });
        const fx = makePackage(dir);
        const r = await search(fx, { content_pattern: 'needle' });
        const [long, short] = r.result.split('\n');
        expect(long).toMatch(/^min\.js:1: …x+needley+…$/);
        expect(long!.length).toBeLessThanOrEqual('min.js:1: '.length + 500);
        expect(short).toBe('short.txt:1: a needle here');
    });

    it('names the files it did not content-search for their size, and what to raise', async () => {
        const dir = tempDir('lcf-search-too-large-');
        writeTree(dir, { 'big.txt': 'needle\n'.repeat(300), 'small.txt': 'needle\n', 'sub/big2.log': 'hay\n'.repeat(500) });
        const fx = makePackage(dir, { maxFileSize: 1000 });
        const r = await search(fx, { content_pattern: 'needle' });
        expect(r.status).toBe('success');
        expect(r.result).toBe(
            'small.txt:1: needle\n' +
                '[Not searched: 2 files above maxFileSize (1000 bytes): big.txt (2100 bytes), sub/big2.log (2000 bytes); raise LLM_CHAT_FS_MAX_FILE_SIZE to search them.]',
        );
        const capped = await search(fx, { content_pattern: 'needle', max_size: 100 });
        expect(capped.result).toContain(
            '[Not searched: 2 files above max_size (100 bytes): big.txt (2100 bytes), sub/big2.log (2000 bytes); raise max_size (up to maxFileSize, 1000 bytes) to search them.]',
        );
        const none = await search(fx, { content_pattern: 'nothing-like-this' });
        expect(none.result).toMatch(/^No entries found in \. matching content_pattern \/nothing-like-this\/i\.\n\[Not searched: 2 files above maxFileSize/);
        fs.rmSync(path.join(dir, 'sub'), { recursive: true });
        expect((await search(fx, { content_pattern: 'needle' })).result).toContain('[Not searched: 1 file above maxFileSize (1000 bytes): big.txt (2100 bytes);');
        // Name searches read no content: nothing to say.
        expect((await search(fx, { name_pattern: 'big' })).result).toBe('big.txt');
    });

    it('shows paths holding control characters JSON-quoted, in every output mode', async () => {
        const dir = tempDir('lcf-search-ctrl-');
        writeTree(dir, { 'evil\nsecret.txt': 'hello\nworld\n', 'bad\tdir/in.txt': 'hello\n', 'plain.txt': 'hello\n' });
        const fx = makePackage(dir);
        const q = (p: string) => JSON.stringify(p);
        expect((await search(fx, { content_pattern: 'hello' })).result).toBe(
            [`${q('bad\tdir/in.txt')}:1: hello`, `${q('evil\nsecret.txt')}:1: hello`, 'plain.txt:1: hello'].join('\n'),
        );
        expect((await search(fx, {})).result).toBe([q('bad\tdir/'), q('bad\tdir/in.txt'), q('evil\nsecret.txt'), 'plain.txt'].join('\n'));
        expect((await search(fx, { content_pattern: 'hello', output_mode: 'files_with_matches' })).result).toBe(
            [q('bad\tdir/in.txt'), q('evil\nsecret.txt'), 'plain.txt'].join('\n'),
        );
        expect((await search(fx, { content_pattern: 'hello', output_mode: 'count' })).result).toBe(
            [`${q('bad\tdir/in.txt')}: 1`, `${q('evil\nsecret.txt')}: 1`, 'plain.txt: 1'].join('\n'),
        );
        expect((await search(fx, { content_pattern: 'hello', name_pattern: 'secret', context_lines: 1 })).result).toBe(
            [`${q('evil\nsecret.txt')}:1: hello`, `${q('evil\nsecret.txt')}-2- world`].join('\n'),
        );
        const summary = makePackage(dir, { search: new SearchConfiguration(50, 1, 5000, 120_000) });
        expect((await search(summary, {})).result).toContain(`  ${q('bad\tdir/')}: 2`);
        expect(quotePath('a\x7fb\rc')).toBe('"a\\u007fb\\rc"');
        expect(quotePath('naïve "name".txt')).toBe('naïve "name".txt');
        // The quoted form is what the model passes back: it decodes to the real name.
        const [read] = await fx.run('read_file', { paths: [JSON.parse(q('evil\nsecret.txt')) as string] });
        expect(read!.result).toContain('world');
    });

    it('cuts off a catastrophic regex and the next call works', async () => {
        const dir = tempDir('lcf-search-redos-');
        writeTree(dir, { 'evil.txt': `${'a'.repeat(50_000)}!\n`, 'ok.txt': 'fine\n' });
        const fx = makePackage(dir, { search: new SearchConfiguration(50, 200, 5000, 1000) });
        // Uncut, the pattern would run for ages: the result at all, timed out, shows the cut.
        const r = await search(fx, { content_pattern: '(a+)+$' });
        expect(r.result).toMatch(/timed out after 1000 ms/);
        // The next call on the same engine works (with a timeout a loaded machine never reaches).
        const next = new SearchEntriesTool(fx.ws, { searchConfig: new SearchConfiguration(50, 200, 5000, 120_000), engine: fx.pkg.engine, filePool: fx.pool });
        expect((await one(next, { content_pattern: 'fine' })).result).toBe('ok.txt:1: fine');
    });

    it("stops when the host's call signal aborts and reports progress meanwhile", async () => {
        const dir = tempDir('lcf-search-cancel-');
        for (let f = 0; f < 40; f++) writeTree(dir, { [`d/f${f}.txt`]: `${'x'.repeat(24)}\n`.repeat(20) });
        const fx = makePackage(dir, { search: new SearchConfiguration(50, 200, 5000, 60_000) });
        const tool = fx.tool('search_entries') as SearchEntriesTool;
        const ac = new AbortController();
        const progress: number[] = [];
        setTimeout(() => ac.abort(), 400);
        // ~20 ms per line to reject: minutes of work without the abort, which the note shows
        // (not a timeout's), whatever the machine's speed.
        const [r] = await tool.executeWithSignal({ content_pattern: '(x+x+)+[^x\\s]' }, ac.signal, (p) => progress.push(p.progress));
        expect(r!.result).toContain('[Search aborted; the results are partial.]');
        for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThanOrEqual(progress[i - 1]!);
        expect((await search(fx, { name_pattern: '^f1\\.txt$' })).result).toBe('d/f1.txt');
    });

    it('reports broken links as skipped and walks past FIFOs', async () => {
        const dir = project();
        fs.symlinkSync('missing', path.join(dir, 'dangling'));
        execFileSync('mkfifo', [path.join(dir, 'src', 'pipe')]);
        const fx = makePackage(dir);
        const r = await search(fx, { content_pattern: 'todo' });
        expect(r.status).toBe('success');
        expect(r.result).toContain('src/main.ts:3:');
        expect(r.result).toMatch(/\[Skipped 1 unreadable entry: dangling \(broken symbolic link/);
        fs.symlinkSync('missing-too', path.join(dir, 'dangling2'));
        expect((await search(fx, { content_pattern: 'todo' })).result).toMatch(/\[Skipped 2 unreadable entries: dangling \(broken symbolic link\), dangling2 /);
        expect((await search(fx, { name_pattern: 'pipe' })).result).toMatch(/^src\/pipe$/m);
    });

    it('does not follow a symlink out of the accessible directories, and survives link loops', async () => {
        const outside = tempDir('lcf-search-out-');
        writeTree(outside, { 'secret.txt': 'needle\n' });
        const dir = tempDir('lcf-search-links-');
        writeTree(dir, { 'a/in.txt': 'needle\n' });
        fs.symlinkSync(outside, path.join(dir, 'out'));
        fs.symlinkSync('..', path.join(dir, 'a', 'up'));
        const fx = makePackage(dir);
        const r = await search(fx, { content_pattern: 'needle' });
        expect(r.result).toBe('a/in.txt:1: needle');
    });

    it('rejects invalid regexes naming the parameter', async () => {
        const fx = makePackage(project());
        const r = await search(fx, { name_pattern: '(unclosed' });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/name_pattern is not a valid JavaScript regular expression: .*Unterminated group/);
        const c = await search(fx, { content_pattern: '[z-a]' });
        expect(c.status).toBe('error');
        expect(c.result).toMatch(/content_pattern is not a valid/);
    });

    it('rejects bad arguments with what is expected', async () => {
        const fx = makePackage(project());
        for (const args of [{ type: 'files' }, { max_results: 0 }, { max_results: 2.5 }, { max_size: -1 }, { created_after: 'yesterday' }, { bogus: 1 }, { path: 42 }]) {
            const r = await search(fx, args);
            expect(r.status, JSON.stringify(args)).toBe('error');
            expect(r.result).toMatch(/Invalid arguments for search_entries/);
        }
        expect((await search(fx, { created_after: 'yesterday' })).result).toMatch(/created_after: expected an ISO 8601/);
    });

    it('rejects a file path, a missing path and a path outside the accesses', async () => {
        const dir = project();
        const fx = makePackage(dir);
        const file = await search(fx, { path: 'readme.txt' });
        expect(file.status).toBe('error');
        expect(file.result).toMatch(/Not a directory: .*readme\.txt/);
        const missing = await search(fx, { path: 'nope' });
        expect(missing.status).toBe('error');
        expect(missing.result).toMatch(/not found/i);
        const outside = await search(fx, { path: '/etc' });
        expect(outside.status).toBe('error');
        expect(outside.result).toMatch(/Access denied: \/etc is outside/);
        const up = await search(fx, { path: '..' });
        expect(up.status).toBe('error');
    });
});
