/**
 * find_references with the symbol table on C files: the uses told by the lexer (workers/symbols/
 * lexed.ts) and their enclosing definitions taken from the table's rows by file (src/symbols/file-rows.ts,
 * read from the table's file per call) give the answer the package without the index gives, on the hard cases: block comments opened
 * before a use's item, escaped quotes, `#if 0` blocks, macros, uses on a definition's first and
 * last lines, a file with no definitions, two definitions on one line; and which files the lexer
 * told, which it left to the parse; files whose rows fail their check on disk are parsed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { symbolsOf } from '../../../src/symbols/symbol-table.js';
import { enclosing } from '../../../src/symbols/file-rows.js';
import { HEADER_BYTES, layoutOf, readCounts, SYMBOLS_FILE } from '../../../src/symbols/shared/symbol-format.js';
import { withCheckpoints } from '../../../src/symbols/table-points.js';
import { referencesIn } from '../../../src/symbols/table-references.js';
import { dotted } from '../../../src/symbols/names.js';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { SHARED_POOL, tempDir, writeTree } from '../../support/helpers.js';
import { COMPARED_TIMEOUT_MS } from '../../support/scan-path.js';

const N = 'target';
/** Items long enough that checkpoints fall between them (512 characters apart at least). */
const pad = (i: number): string => `static int pad${i}(void)\n{\n${Array.from({ length: 12 }, (_, k) => `\tint v${k} = ${i} * ${k}; /* padding line ${k} */`).join('\n')}\n\treturn 0;\n}\n`;
const padded = (...items: string[]): string => items.map((it, i) => `${pad(i)}\n${it}`).join('\n') + `\n${pad(99)}`;

const FILES: Record<string, string> = {
    // A block comment that opens well before the use, across a checkpoint's item; a use on a definition's first and last lines.
    'src/comments.c': padded(
        `/*\n * A long comment: ${'words '.repeat(120)}\n * and then ${N} inside it, far from where it opened.\n */\nint first_line(void) { return ${N}; }\n`,
        `static int\n${N}(int x)\n{\n\tint y = x;\n\treturn y + ${N}(x - 1); }\n`,
    ),
    'src/quotes.c': padded(`static const char *say = "a \\"${N}\\" quoted: ${N}";\nstatic const char quote = '\\'';\nint after_quotes(void)\n{\n\treturn ${N}(say[0] + quote);\n}\n`),
    // The current answer, kept: a use in an `#if 0` block is code to the grammar, so it is listed.
    'src/if0.c': padded(`#if 0\nstatic void old_code(void)\n{\n\t${N}(1);\n}\n#endif\nint now_code(void) { return ${N}(2); }\n`),
    // A use in a macro's body is not an identifier to the grammar (one preproc_arg token): not listed, then or now; the file is parsed.
    'src/macro.c': padded(`#define CALL_IT(x) ${N}(x)\nint via_macro(void)\n{\n\treturn CALL_IT(3) + ${N}(4);\n}\n`),
    // No definitions at all: declarations and comments only.
    'include/decls.h': padded(`extern int ${N}(int);\n/* ${N} */\nextern int (*table_of[4])(int);\n`).replace(/static int pad(\d+)\(void\)\n\{[^}]*\}\n/g, (_, i: string) => `/* ${'no definitions here '.repeat(30)}${i} */\nextern int decl${i}(void);\n`),
    // Two definitions on one line with the same span: the table does not know their order, so the file is parsed.
    'src/tie.c': padded(`struct pair { int a; } one_pair = { 1 }, ${N}_pair = { ${N} };\nint after_tie(void) { return ${N}; }\n`),
};

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

function pkgOf(root: string, index: false | { dir: string; symbols: boolean }): FileToolPackage {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS), fileConfig: new FileConfiguration(undefined, undefined, false), index, navigation: true, engine: SHARED_POOL });
    open.push(pkg);
    return pkg;
}

async function call(pkg: FileToolPackage, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === 'find_references')!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

async function tableOn(root: string) {
    const pkg = pkgOf(root, { dir: tempDir('lcf-lexed-index-'), symbols: true });
    const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    const store = await symbolsOf(tree).ready();
    if (store === null) throw new Error(`no table: ${symbolsOf(tree).error}`);
    return { pkg, tree, store };
}

describe('find_references told by the lexer and the table', () => {
    it('answers as the package without the index, lexing the files it can tell and parsing the rest', async () => {
        const root = tempDir('lcf-lexed-');
        writeTree(root, FILES);
        const { pkg, store } = await tableOn(root);
        const plain = pkgOf(root, false);
        const real = fs.realpathSync(root);
        const files = Object.keys(FILES).map((rel) => ({ shown: rel, real: path.join(real, rel) }));
        const pointed = await withCheckpoints(pkg.workspace.view(), pkg.engine, undefined, files, null);
        const opts = { realRoots: null, maxBytes: 1 << 22, parseMs: 60_000, references: N };
        // The rows by file are in the table's file: the first call lexes already.
        expect((await referencesIn(pkg.engine, pointed.files, pointed.store, opts)).some((r) => r.ok && r.lexed)).toBe(true);
        const first = await call(pkg, { name: N });
        expect(await call(pkg, { name: N })).toBe(first);
        for (const args of [{ name: N }, { name: N, max_results: 4 }, { name: N, path: 'src' }, { name: N, path: 'src/quotes.c' }, { name: 'pad3' }, { name: 'after_tie' }]) {
            expect(await call(pkg, args), JSON.stringify(args)).toBe(await call(plain, args));
        }
        const out = await call(pkg, { name: N });
        // The answers the hard cases have, with and without the table.
        expect(out).toMatch(/src\/if0\.c:\d+: \[function old_code\] target\(1\);/);
        expect(out).not.toMatch(/CALL_IT\(x\) target/);
        expect(out).toMatch(/src\/macro\.c:\d+: \[function via_macro\] return CALL_IT\(3\) \+ target\(4\);/);
        expect(out).toMatch(/src\/comments\.c:\d+: \[function first_line\] int first_line\(void\) \{ return target; \}/);
        expect(out).toMatch(/src\/comments\.c:\d+: \[function target\] return y \+ target\(x - 1\); \}/);
        expect(out).toMatch(/include\/decls\.h:\d+: extern int target\(int\);/);
        expect(out).not.toMatch(/inside it|quoted: target|\/\* target \*\//);

        // Which files the lexer told: not the macro's (a use on a directive line), nor the tie's (told, then parsed).
        expect(pointed.store).toBe(store);
        expect(pointed.files.every((f) => f.id !== undefined)).toBe(true);
        const got = await referencesIn(pkg.engine, pointed.files, pointed.store, opts);
        const lexed = Object.keys(FILES).filter((_, i) => got[i]!.ok && (got[i] as { lexed?: true }).lexed);
        expect(lexed.sort()).toEqual(['include/decls.h', 'src/comments.c', 'src/if0.c', 'src/quotes.c']);
        // Without the table, nothing is lexed.
        const parsed = await referencesIn(pkg.engine, pointed.files, null, opts);
        expect(parsed.some((r) => r.ok && r.lexed)).toBe(false);
    });

    it('parses as without the table the files whose rows by file fail their check on disk, and lexes them once they match again', async () => {
        const root = tempDir('lcf-lexed-fail-');
        writeTree(root, FILES);
        const { pkg, tree } = await tableOn(root);
        const plain = pkgOf(root, false);
        const files = Object.keys(FILES).map((rel) => ({ shown: rel, real: path.join(fs.realpathSync(root), rel) }));
        const pointed = await withCheckpoints(pkg.workspace.view(), pkg.engine, undefined, files, null);
        const opts = { realRoots: null, maxBytes: 1 << 22, parseMs: 60_000, references: N };
        // The loaded table's file changed under it: every file's rows by file are other bytes now.
        const file = path.join(tree.served()!.genDir, SYMBOLS_FILE);
        const good = fs.readFileSync(file);
        const l = layoutOf(readCounts(good.subarray(0, HEADER_BYTES)));
        const bad = Buffer.from(good);
        for (let at = l.fileRows; at < l.sigs; at++) bad[at] = bad[at]! ^ 0x5a;
        const write = (bytes: Buffer): void => {
            const fd = fs.openSync(file, 'r+');
            fs.writeSync(fd, bytes, l.fileRows, l.sigs - l.fileRows, l.fileRows);
            fs.closeSync(fd);
        };
        write(bad);
        const lexedOf = (got: Awaited<ReturnType<typeof referencesIn>>): string[] => Object.keys(FILES).filter((_, i) => got[i]!.ok && (got[i] as { lexed?: true }).lexed);
        for (let i = 0; i < 2; i++) {
            // Only the file without definitions is still told by the lexer: it has no rows to read.
            expect(lexedOf(await referencesIn(pkg.engine, pointed.files, pointed.store, opts))).toEqual(['include/decls.h']);
            expect(await call(pkg, { name: N })).toBe(await call(plain, { name: N }));
        }
        write(good);
        expect(lexedOf(await referencesIn(pkg.engine, pointed.files, pointed.store, opts)).sort()).toEqual(['include/decls.h', 'src/comments.c', 'src/if0.c', 'src/quotes.c']);
        expect(await call(pkg, { name: N })).toBe(await call(plain, { name: N }));
    });

    it('lexes only from checkpoints that fit the file: another length or CRC, a checkpoint mid-line or on another row is parsed', async () => {
        const root = tempDir('lcf-lexed-stale-');
        writeTree(root, { 'a.c': FILES['src/quotes.c']! + FILES['src/comments.c']! });
        const real = path.join(root, 'a.c');
        const text = fs.readFileSync(real, 'utf8');
        const run = async (extra: object) => (await runSymbolsTask({ op: 'symbols', files: [{ shown: 'a.c', real, ...extra }], realRoots: null, maxBytes: 1 << 22, parseMs: 60_000, references: N, lexed: true })).files[0]!;
        const whole = await runSymbolsTask({ op: 'symbols', files: [{ shown: 'a.c', real }], realRoots: null, maxBytes: 1 << 22, parseMs: 60_000, references: N, checkpoints: true }).then((r) => r.files[0]!);
        if (!whole.ok) throw new Error(whole.message);
        const points = whole.checkpoints!;
        expect(points.length).toBeGreaterThan(4);
        const fine = await run({ checkpoints: points, chars: text.length, crc: whole.crc });
        expect(fine.ok && fine.lexed).toBe(true);
        expect(fine.ok && fine.references).toEqual(whole.references);
        for (const [why, cp, chars, crc] of [
            ['length', points, text.length + 1, whole.crc!],
            ['crc', points, text.length, (whole.crc! + 1) % 2 ** 32],
            ['mid-line', points.map((v, i) => (i % 2 === 0 ? v + 3 : v)), text.length, whole.crc!],
            ['rows', points.map((v, i) => (i % 2 === 1 ? v + 1 : v)), text.length, whole.crc!],
        ] as const) {
            const r = await run({ checkpoints: [...cp], chars, crc });
            expect(r.ok && r.lexed, why).toBeFalsy();
            expect(r.ok && r.references, why).toEqual(whole.references);
        }
    });

    it('the table\'s enclosing definition of every line of every file is the whole parse\'s, or none told where two on one line tie', async () => {
        const root = tempDir('lcf-lexed-lines-');
        writeTree(root, FILES);
        const { tree, store } = await tableOn(root);
        const table = tree.served()!.table;
        const shown = (k: number): string => {
            const d = store.definitionAt(k);
            return `${d.kind} ${dotted(d)}`;
        };
        let told = 0;
        let ties = 0;
        for (const rel of Object.keys(FILES)) {
            const real = path.join(root, rel);
            const r = (await runSymbolsTask({ op: 'symbols', files: [{ shown: rel, real }], realRoots: null, maxBytes: 1 << 22, parseMs: 60_000 })).files[0]!;
            if (!r.ok) throw new Error(r.message);
            const lines = Array.from({ length: r.lines }, (_, i) => i + 1);
            const [rows] = await store.byFile.read([table.idOf(rel)!]);
            const ks = enclosing(rows!, lines, shown);
            const expected = lines.map((l) => {
                let best: (typeof r.definitions)[number] | undefined;
                for (const d of r.definitions) if (d.line <= l && l <= d.endLine && (best === undefined || d.endLine - d.line <= best.endLine - best.line)) best = d;
                return best ? `${best.kind} ${dotted(best)}` : '';
            });
            if (ks === null) {
                ties++;
                expect(rel).toBe('src/tie.c');
                continue;
            }
            expect(ks.map((k) => (k < 0 ? '' : shown(k))), rel).toEqual(expected);
            told += lines.length;
        }
        expect(ties).toBe(1);
        expect(told).toBeGreaterThan(150);
    });
});
