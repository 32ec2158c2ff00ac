/**
 * A navigation call ends at the search timeout, whatever path it takes: files not begun by then
 * come back `late` and are counted in a note, a file whose parse the time cut is named, and the
 * definitions or references found so far are printed. No assertion on time: a limit of 1 ms is
 * passed before any pool task of these calls can run, on any machine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { parseFiles } from '../../../src/symbols/parse.js';
import { symbolsOf } from '../../../src/symbols/symbol-table.js';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { tempDir, writeTree } from '../../support/helpers.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

function pkgOf(root: string, timeoutMs: number, index?: string): FileToolPackage {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, {
        searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, timeoutMs),
        fileConfig: new FileConfiguration(undefined, undefined, false),
        ...(index !== undefined && { index: { dir: index, symbols: true } }),
        navigation: true,
    });
    open.push(pkg);
    return pkg;
}

async function call(pkg: FileToolPackage, tool: string, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === tool)!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

/** `n` C files, each defining `f_<i>` and calling `shared_name`. */
function callers(n: number, dir = 'src'): Record<string, string> {
    const files: Record<string, string> = {};
    for (let i = 0; i < n; i++) files[`${dir}/c${String(i).padStart(3, '0')}.c`] = `int f_${i}(void)\n{\n\treturn shared_name(${i});\n}\n`;
    return files;
}

/** C source of about `bytes` bytes: many small functions. */
function bigSource(bytes: number, name: string): string {
    const parts: string[] = [];
    let n = 0;
    for (let i = 0; n < bytes; i++) {
        const f = `static int g_${i}(int x)\n{\n\tif (x > ${i})\n\t\treturn ${name}(x - 1) + ${i};\n\treturn x;\n}\n`;
        parts.push(f);
        n += f.length;
    }
    return parts.join('');
}

const LATE = /\n\[The search timed out before (\d+) source files? (were|was) parsed: these are the (definitions|references) found so far; narrow path or include\.\]/;

describe('a navigation call within the search timeout', () => {
    it('the symbols task: a file not begun by the deadline comes back late, unread; one begun is parsed within what is left', async () => {
        const root = tempDir('lcf-deadline-task-');
        writeTree(root, callers(3));
        const files = ['src/c000.c', 'src/c001.c', 'src/c002.c'].map((rel) => ({ shown: rel, real: path.join(root, rel) }));
        const past = await runSymbolsTask({ op: 'symbols', files, realRoots: null, maxBytes: 1 << 20, parseMs: 60_000, deadline: Date.now() - 1 });
        for (const f of past.files) expect(f).toEqual({ ok: false, kind: 'timeout', message: expect.stringMatching(/^The time limit was reached before src\/c00\d\.c was parsed\.$/), late: true });
        const ahead = await runSymbolsTask({ op: 'symbols', files, realRoots: null, maxBytes: 1 << 20, parseMs: 60_000, deadline: Date.now() + 3_600_000 });
        expect(ahead.files.map((f) => f.ok && f.definitions.map((d) => d.name))).toEqual([['f_0'], ['f_1'], ['f_2']]);
        // A missing file past the deadline is late, not an I/O error: nothing is read after the time.
        const gone = await runSymbolsTask({ op: 'symbols', files: [{ shown: 'gone.c', real: path.join(root, 'gone.c') }], realRoots: null, maxBytes: 1 << 20, parseMs: 60_000, deadline: Date.now() - 1 });
        expect(gone.files[0]).toMatchObject({ ok: false, late: true });
    });

    it('parseFiles on the pool: every file after the deadline is late, none cached; before it they parse', async () => {
        const root = tempDir('lcf-deadline-pool-');
        writeTree(root, callers(40));
        const pkg = pkgOf(root, 10_000);
        const files = Object.keys(callers(40)).map((rel) => ({ shown: rel, real: path.join(root, rel) }));
        const late = await parseFiles(pkg.engine, files, { realRoots: null, maxBytes: 1 << 20, parseMs: 60_000, deadline: Date.now() - 1 });
        expect(late.filter((r) => !r.ok && r.late === true)).toHaveLength(40);
        const parsed = await parseFiles(pkg.engine, files, { realRoots: null, maxBytes: 1 << 20, parseMs: 60_000, deadline: Date.now() + 3_600_000 });
        expect(parsed.filter((r) => r.ok)).toHaveLength(40);
    });

    it('find_symbol and find_references on the scan path stop at a 1 ms limit with a note, and the answer lists only what was found', async () => {
        const root = tempDir('lcf-deadline-scan-');
        writeTree(root, callers(300));
        const pkg = pkgOf(root, 1);
        const defs = await call(pkg, 'find_symbol', { name: '^f_', regex: true, max_results: 1000 });
        // Cut in the content search for the files (its note) or in their parse (the late note).
        expect(defs).toMatch(/^success: /);
        expect(defs).toMatch(/\n\[The search timed out/);
        for (const line of defs.slice('success: '.length).split('\n').filter((l) => !l.startsWith('[') && !l.startsWith('No definitions'))) expect(line).toMatch(/^src\/c(\d{3})\.c:1: function f_\d+ — int f_\d+\(void\)$/);
        const refs = await call(pkg, 'find_references', { name: 'shared_name', max_results: 1000 });
        expect(refs).toMatch(/^success: /);
        expect(refs).toMatch(/\n\[The search timed out/);
        const refLines = refs.slice('success: '.length).split('\n').filter((l) => l.startsWith('src/'));
        expect(refLines.length).toBeLessThan(300);
        for (const line of refLines) expect(line).toMatch(/^src\/c\d{3}\.c:3: \[function f_\d+\] return shared_name\(\d+\);$/);
        // No definition found: the count of files that mention the name is a total only when the search for them ended.
        const none = await call(pkg, 'find_symbol', { name: 'shared_name', kind: 'class' });
        expect(none).toMatch(/^success: No definitions of "shared_name" \(kind class\) found in \. \(/);
        if (none.includes('\n[The search timed out: these are the files searched so far')) {
            expect(none).toMatch(/\(\d+ source files? found mentioning it before the search stopped\)\./);
            expect(none).not.toMatch(/in any case/);
        } else expect(none).toMatch(/\(300 source files mention it, in any case\)\./);
        // With time enough, all of them and no note.
        const full = pkgOf(root, 600_000);
        const all = await call(full, 'find_references', { name: 'shared_name', max_results: 1000 });
        expect(all.split('\n')).toHaveLength(300);
        expect(all).not.toMatch(/\[The search timed out|\[Not parsed/);
    });

    it('repo_map stops at a 1 ms limit with a note; with time enough it maps every file', async () => {
        const root = tempDir('lcf-deadline-map-');
        writeTree(root, callers(300));
        const r = await call(pkgOf(root, 1), 'repo_map', {});
        expect(r).toMatch(/^success: /);
        expect(r).toMatch(/\n\[(The walk for source files timed out: the map covers the files found so far; map a subdirectory\.|The time limit was reached before \d+ source files were parsed: the map covers the files parsed so far; map a subdirectory\.)\]/);
        const full = await call(pkgOf(root, 600_000), 'repo_map', { max_chars: 100_000 });
        expect(full).toMatch(/^success: --- Map of \.: 300 of 300 definitions in 300 of 300 source files/);
        expect(full).not.toMatch(/timed out|time limit/);
    });

    it('repo_map\'s head over files left unparsed counts the source files found, not only those parsed', async () => {
        const root = tempDir('lcf-map-unparsed-');
        writeTree(root, { ...callers(3), 'src/blob.c': Buffer.from([0x69, 0x6e, 0x74, 0, 1, 2, 0, 0x0a]) });
        const r = await call(pkgOf(root, 600_000), 'repo_map', { max_chars: 100_000 });
        expect(r).toMatch(/^success: --- Map of \.: 3 of 3 definitions in 3 of 3 source files parsed \(of 4\), ranked by the other files that mention each name ---\n/);
        expect(r).toMatch(/\n\[1 source files could not be parsed \(binary, too large or over the time limit\) and are left out\.\]/);
    });

    it('find_references names a file whose parse outlasts the limit (it was skipped), where it said nothing', async () => {
        const root = tempDir('lcf-deadline-big-');
        // About 2 MB of C: its parse takes far longer than 1 ms on any machine.
        writeTree(root, { 'big.c': bigSource(2 << 20, 'shared_name') });
        const pkg = pkgOf(root, 1);
        const r = await call(pkg, 'find_references', { name: 'shared_name', path: 'big.c' });
        expect(r).toMatch(/^success: No references to "shared_name" found in big\.c\.\n\[(Not parsed within the time limit: big\.c\]|The search timed out before 1 source file was parsed: these are the references found so far; narrow path or include\.\])$/);
    });

    it('find_symbol from the symbol table: changed files not parsed by the limit are counted in a note, the stored definitions still printed', async () => {
        const root = tempDir('lcf-deadline-table-');
        writeTree(root, { ...callers(5), 'src/shared.c': 'int shared_name(int x)\n{\n\treturn x;\n}\n' });
        const pkg = pkgOf(root, 1, tempDir('lcf-deadline-table-index-'));
        const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        const symbols = symbolsOf(tree);
        expect(await symbols.ready(), symbols.error).not.toBeNull();
        // 100 new files through the tools (the index hears of them at once): each must be parsed anew.
        for (let i = 0; i < 100; i++) expect(await call(pkg, 'write_file', { path: `new/n${String(i).padStart(3, '0')}.c`, content: `int shared_name_${i};\nint shared_name(int x);\n` })).toMatch(/^success/);
        const answered = symbols.answered;
        const r = await call(pkg, 'find_symbol', { name: 'shared_name' });
        expect(symbols.answered - answered, 'the table answered').toBe(1);
        expect(r.split('\n')[0]).toBe('success: src/shared.c:1: function shared_name — int shared_name(int x)');
        const m = LATE.exec(r);
        expect(m, r).not.toBeNull();
        expect(Number(m![1])).toBeGreaterThan(0);
        expect(Number(m![1])).toBeLessThanOrEqual(100);
        expect(m![3]).toBe('definitions');
        expect(fs.readdirSync(path.join(root, 'new'))).toHaveLength(100);
    });
});
