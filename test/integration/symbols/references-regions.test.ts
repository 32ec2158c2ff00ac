/**
 * find_references parsing only the regions around a name's occurrences (between the checkpoints
 * the symbol table keeps) answers exactly as the whole-file parse: the same references, lines,
 * columns and enclosing definitions, over seeded random C, TypeScript and Python files with the
 * name in code, comments, strings, macros and nested functions; checkpoints that no longer fit
 * the file are not used; and through the tools, with the table on or off, the same answer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { symbolsOf } from '../../../src/symbols/symbol-table.js';
import { withCheckpoints } from '../../../src/symbols/table-points.js';
import type { FileSymbols } from '../../../src/symbols/shared/types.js';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { mulberry32 } from '../../../bench/tree.js';
import { SHARED_POOL, snapshot, tempDir, writeTree } from '../../support/helpers.js';
import { COMPARED_TIMEOUT_MS } from '../../support/scan-path.js';

const NAME = 'target';
type Lang = 'c' | 'ts' | 'py';
const EXT: Record<Lang, string> = { c: '.c', ts: '.ts', py: '.py' };

/** A filler body long enough that checkpoints fall between items. */
const filler = (lang: Lang, i: number): string => {
    const lines = Array.from({ length: 12 }, (_, k) => (lang === 'py' ? `    v${k} = ${i} + ${k}  # padding line ${k} of item ${i}` : `    int_v${k} = ${i} + ${k}; /* padding line ${k} of item ${i} */`));
    if (lang === 'c') return `static int pad${i}(void)\n{\n    int ${lines.map((_, k) => `int_v${k}`).join(', ')};\n${lines.join('\n')}\n    return 0;\n}\n`;
    if (lang === 'ts') return `export function pad${i}(): number {\n    let ${lines.map((_, k) => `int_v${k}`).join(', ')};\n${lines.map((l) => l.replace('int_v', 'int_v')).join('\n')}\n    return 0;\n}\n`;
    return `def pad${i}():\n${lines.join('\n')}\n    return 0\n`;
};

/** One top-level item of `lang` that may mention the name, in one of several places. */
function item(lang: Lang, i: number, rnd: () => number): string {
    const r = Math.floor(rnd() * 8);
    if (lang === 'c') {
        return [
            `int user${i}(int x)\n{\n    return ${NAME}(x) + ${i};\n}\n`,
            `/* ${NAME} is called elsewhere */\nint quiet${i}(void)\n{\n    return ${i};\n}\n`,
            `static const char *s${i} = "${NAME} in a string";\n`,
            `#define CALL${i}(x) ${NAME}(x)\n`,
            `struct holder${i} {\n    int (*${NAME})(int);\n    int n;\n};\n`,
            `void multi${i}(int y)\n{\n    // ${NAME}\n    if (y)\n        ${NAME}(y);\n    else\n        ${NAME}(-y);\n}\n`,
            `int ${NAME}(int x)\n{\n    return x * ${i};\n}\n`,
            `#ifdef CONFIG_${i}\nvoid cond${i}(void) { ${NAME}(${i}); }\n#endif\n`,
        ][r]!;
    }
    if (lang === 'ts') {
        return [
            `export function user${i}(x: number): number {\n    return ${NAME}(x) + ${i};\n}\n`,
            `// ${NAME} is called elsewhere\nexport const quiet${i} = (): number => ${i};\n`,
            `const s${i} = '${NAME} in a string' + \`and \${${NAME}(${i})} in a template\`;\n`,
            `export class Holder${i} {\n    ${NAME}(y: number): number {\n        return y;\n    }\n    run(): number {\n        return this.${NAME}(${i});\n    }\n}\n`,
            `function outer${i}(): number {\n    function inner(): number {\n        return ${NAME}(${i});\n    }\n    return inner();\n}\n`,
            `export function over${i}(a: string): string;\nexport function over${i}(a: number): number;\nexport function over${i}(a: any): any {\n    return ${NAME}(a);\n}\n`,
            `export function ${NAME}(x: number): number {\n    return x * ${i};\n}\n`,
            `/** ${NAME} */\ninterface Shape${i} {\n    ${NAME}: number;\n}\n`,
        ][r]!;
    }
    return [
        `def user${i}(x):\n    return ${NAME}(x) + ${i}\n`,
        `# ${NAME} is called elsewhere\ndef quiet${i}():\n    return ${i}\n`,
        `S${i} = "${NAME} in a string" + f"{${NAME}(${i})} in an f-string"\n`,
        `class Holder${i}:\n    def ${NAME}(self, y):\n        return y\n\n    def run(self):\n        return self.${NAME}(${i})\n`,
        `def outer${i}():\n    def inner():\n        return ${NAME}(${i})\n    return inner()\n`,
        `@decorate(${NAME})\ndef decorated${i}():\n    """${NAME} in a docstring"""\n    return ${i}\n`,
        `def ${NAME}(x):\n    return x * ${i}\n`,
        `if ${i} > 0:\n    ${NAME}(${i})\n`,
    ][r]!;
}

/** A file of many items, most of them filler, some mentioning the name. */
function sourceOf(lang: Lang, rnd: () => number): string {
    const n = 8 + Math.floor(rnd() * 30);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(rnd() < 0.25 ? item(lang, i, rnd) : filler(lang, i));
    return parts.join('\n');
}

/** A file's references as the tool prints them: line, column, enclosing definition, text. */
function shown(r: FileSymbols): string {
    if (!r.ok) return `error ${r.kind}: ${r.message}`;
    return (r.references ?? [])
        .map((x) => {
            let best: (typeof r.definitions)[number] | undefined;
            for (const d of r.definitions) if (d.line <= x.line && x.line <= d.endLine && (best === undefined || d.endLine - d.line <= best.endLine - best.line)) best = d;
            return `${x.line}:${x.column}: ${best ? `[${best.kind} ${[...best.container, best.name].join('.')}] ` : ''}${x.text}`;
        })
        .join('\n');
}

const task = (root: string, files: { shown: string; real: string; checkpoints?: number[]; chars?: number; crc?: number }[], extra: { checkpoints?: boolean } = {}) =>
    runSymbolsTask({ op: 'symbols', files, realRoots: [{ path: root, type: AccessType.Read }], maxBytes: 1 << 22, parseMs: 60_000, references: NAME, ...extra });

describe('references from regions', () => {
    it('equal the whole-file parse over random C, TypeScript and Python files (seeds 1-60)', async () => {
        const root = tempDir('lcf-regions-');
        let usedRegions = 0;
        let withHits = 0;
        for (let seed = 1; seed <= 60; seed++) {
            const rnd = mulberry32(seed);
            const lang = (['c', 'ts', 'py'] as const)[seed % 3]!;
            const file = path.join(root, `f${seed}${EXT[lang]}`);
            fs.writeFileSync(file, sourceOf(lang, rnd));
            const f = { shown: path.basename(file), real: file };
            const whole = (await task(root, [f], { checkpoints: true })).files[0]!;
            expect(whole.ok, `seed ${seed}`).toBe(true);
            if (!whole.ok) continue;
            const chars = fs.readFileSync(file, 'utf8').length;
            const regions = (await task(root, [{ ...f, checkpoints: whole.checkpoints!, chars, crc: whole.crc! }])).files[0]!;
            expect(shown(regions), `seed ${seed} (${lang})`).toBe(shown(whole));
            if ((whole.references ?? []).length > 0) withHits++;
            if (regions.ok && regions.regions) usedRegions++;
        }
        // The property is not vacuous: most files with the name were answered from their regions.
        expect(withHits).toBeGreaterThan(30);
        expect(usedRegions).toBeGreaterThan(withHits / 2);
    });

    it('with references asked, the definitions given are those on their lines: each reference encloses as with all the file\'s definitions', async () => {
        const root = tempDir('lcf-regions-around-');
        // A name on the line before its definition's node (`static int target` then `f(void)`:
        // the definition begins at that line, repairs.ts), and more reference lines than are
        // queried one by one.
        const extra: Record<Lang, string> = {
            c: `static int ${NAME}\nsplit_user(void)\n{\n    return 0;\n}\n` + Array.from({ length: 70 }, (_, i) => `int many${i}(void) { return ${NAME}(${i}); }\n`).join(''),
            ts: Array.from({ length: 70 }, (_, i) => `export const many${i} = (): number => ${NAME}(${i});\n`).join(''),
            py: Array.from({ length: 70 }, (_, i) => `def many${i}():\n    return ${NAME}(${i})\n`).join(''),
        };
        let compared = 0;
        for (let seed = 1; seed <= 60; seed++) {
            const rnd = mulberry32(seed);
            const lang = (['c', 'ts', 'py'] as const)[seed % 3]!;
            const file = path.join(root, `f${seed}${EXT[lang]}`);
            fs.writeFileSync(file, sourceOf(lang, rnd) + (seed <= 6 ? `\n${extra[lang]}` : ''));
            const f = { shown: path.basename(file), real: file };
            const refs = (await task(root, [f])).files[0]!;
            const all = (await runSymbolsTask({ op: 'symbols', files: [f], realRoots: [{ path: root, type: AccessType.Read }], maxBytes: 1 << 22, parseMs: 60_000 })).files[0]!;
            if (!refs.ok || !all.ok) throw new Error(`seed ${seed}: ${JSON.stringify([refs, all])}`);
            expect(shown(refs), `seed ${seed} (${lang})`).toBe(shown({ ...refs, definitions: all.definitions }));
            expect(refs.definitions.length, `seed ${seed}: no definition is lost from the file`).toBeLessThanOrEqual(all.definitions.length);
            if ((refs.references ?? []).length > 0) compared++;
        }
        expect(compared).toBeGreaterThan(30);
        const split = (await task(root, [{ shown: 'f3.c', real: path.join(root, 'f3.c') }])).files[0]!;
        expect(shown(split)).toMatch(/\n\d+:12: \[function split_user\] static int target\n/);
    });

    it('does not use checkpoints that no longer fit the file: another length or CRC, moved lines, a checkpoint mid-line', async () => {
        const root = tempDir('lcf-regions-stale-');
        for (const lang of ['c', 'ts', 'py'] as const) {
            const file = path.join(root, `g${EXT[lang]}`);
            const text = sourceOf(lang, mulberry32(lang.length * 7 + 3)) + '\n' + item(lang, 99, () => 0);
            fs.writeFileSync(file, text);
            const f = { shown: path.basename(file), real: file };
            const whole = (await task(root, [f], { checkpoints: true })).files[0]!;
            if (!whole.ok) throw new Error(whole.message);
            const points = whole.checkpoints!;
            expect(points.length).toBeGreaterThan(2);
            const shifted = points.map((v, i) => (i % 2 === 0 ? v + 3 : v));
            const rowsOff = points.map((v, i) => (i % 2 === 1 ? v + 1 : v));
            const crc = whole.crc!;
            const fine = (await task(root, [{ ...f, checkpoints: points, chars: text.length, crc }])).files[0]!;
            expect(fine.ok && fine.regions, `${lang}: the checkpoints as taken are used`).toBe(true);
            for (const [why, cp, chars, check] of [
                ['length', points, text.length + 1, crc],
                ['crc (rewritten in place)', points, text.length, (crc + 1) % 2 ** 32],
                ['mid-line', shifted, text.length, crc],
                ['rows', rowsOff, text.length, crc],
            ] as const) {
                const r = (await task(root, [{ ...f, checkpoints: [...cp], chars, crc: check }])).files[0]!;
                expect(shown(r), `${lang}: ${why}`).toBe(shown(whole));
                expect(r.ok && r.regions, `${lang}: ${why}`).toBeFalsy();
            }
        }
    });

    it('through the tools: find_references with the symbol table equals the answer without the index, before and after edits', async () => {
        const root = tempDir('lcf-regions-tool-');
        const rnd = mulberry32(27);
        const files: Record<string, string> = {};
        for (let i = 0; i < 12; i++) {
            const lang = (['c', 'ts', 'py'] as const)[i % 3]!;
            files[`${['src', 'lib'][i % 2]}/r${i}${EXT[lang]}`] = sourceOf(lang, rnd) + '\n' + item(lang, 100 + i, () => 0);
        }
        writeTree(root, files);
        const pkgOf = (index: false | { dir: string; symbols: boolean }): FileToolPackage => {
            const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
            const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS), fileConfig: new FileConfiguration(undefined, undefined, false), index, navigation: true, engine: SHARED_POOL });
            open.push(pkg);
            return pkg;
        };
        const call = async (pkg: FileToolPackage, args: Record<string, unknown>): Promise<string> => {
            const [r] = await pkg.tools().find((t) => t.name === 'find_references')!.execute(args);
            return `${r!.status}: ${r!.result}`;
        };
        const indexDir = tempDir('lcf-regions-index-');
        const withTable = pkgOf({ dir: indexDir, symbols: true });
        const plain = pkgOf(false);
        const tree = (await withTable.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        const store = await symbolsOf(tree).ready();
        expect(store).not.toBeNull();
        // The table holds checkpoints for the files, taken of their text as it is.
        const table = tree.served()!.table;
        const pointed = Object.entries(files).filter(([rel, text]) => store!.pointsOf(table.idOf(rel)!)?.chars === text.length);
        expect(pointed.length).toBe(Object.keys(files).length);
        // The tool's own path to them: each file is vouched for and gets its checkpoints.
        const given = await withCheckpoints(withTable.workspace.view(), withTable.engine, undefined, Object.keys(files).map((rel) => ({ shown: rel, real: path.join(fs.realpathSync(root), rel) })), null);
        expect(given.files.filter((f) => f.checkpoints !== undefined && f.crc !== undefined).length).toBe(Object.keys(files).length);
        const before = snapshot(root);
        const one = Object.keys(files).find((f) => f.endsWith('.py'))!;
        for (const args of [{ name: NAME }, { name: NAME, path: 'src' }, { name: NAME, max_results: 5 }, { name: 'pad3' }, { name: NAME, path: one }, { name: 'Holder1', include: '*.py' }]) {
            expect(await call(withTable, args), JSON.stringify(args)).toBe(await call(plain, args));
        }
        // An edit through the tools: that file is parsed whole, the rest from their regions.
        const [first] = Object.keys(files);
        const [w] = await withTable.tools().find((t) => t.name === 'insert_file_content')!.execute({ path: first!, line: 1, content: `${item('c', 7, () => 0)}\n` });
        expect(w!.status, String(w!.result)).toBe('success');
        expect(await call(withTable, { name: NAME })).toBe(await call(plain, { name: NAME }));
        // Bad input: the same error with the table, and nothing written.
        const after = snapshot(root);
        for (const args of [{ name: '' }, { name: NAME, path: '../outside' }, { name: NAME, line: 3 }]) {
            expect(await call(withTable, args)).toBe(await call(plain, args));
        }
        expect(snapshot(root)).toEqual(after);
        expect(Object.keys(after).length).toBe(Object.keys(before).length);
    });
});

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});
