/**
 * The index's symbol table: made on the index's pool for the served generation, equal to a fresh
 * parse of every file, fresh for the next call after changes through the tools and on disk (a
 * seeded property run against the package without the index), and a corrupt symbols file is
 * ignored with the answer still exact.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileToolPackage } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import type { TreeIndex } from '../../../src/search-index/tree-index.js';
import { buildSymbols, symbolsOf } from '../../../src/symbols/symbol-table.js';
import { SymbolStore } from '../../../src/symbols/symbol-store.js';
import { SYMBOLS_FILE } from '../../../src/symbols/shared/symbol-format.js';
import { parseFiles } from '../../../src/symbols/parse.js';
import { symbolCacheOf } from '../../../src/symbols/cache.js';
import { languageOf } from '../../../src/symbols/shared/languages.js';
import { mulberry32 } from '../../../bench/tree.js';
import { snapshot, tempDir, writeTree } from '../../support/helpers.js';
import { callTool, navigationPackages } from '../../support/navigation.js';

const pkgOf = navigationPackages();
const call = callTool;

/** Seeded generator: the same run for the same seed. */
const random = mulberry32;

const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'Widget', 'Engine'];

/** A source file of `lang` defining some of the names (and using others). */
function source(lang: 'c' | 'ts' | 'py', rnd: () => number): string {
    const pick = (): string => NAMES[Math.floor(rnd() * NAMES.length)]!;
    const n = 1 + Math.floor(rnd() * 3);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
        const name = pick();
        if (lang === 'c') parts.push(rnd() < 0.3 ? `#define ${name.toUpperCase()}_MAX ${i}\n` : `int ${name}(int x)\n{\n\treturn ${pick()}(x) + ${i};\n}\n`);
        else if (lang === 'ts') parts.push(rnd() < 0.4 ? `export class ${name} {\n    run(): number {\n        return ${i};\n    }\n}\n` : `export function ${name}(): number {\n    return ${i};\n}\n`);
        else parts.push(rnd() < 0.4 ? `class ${name}:\n    def run(self):\n        return ${i}\n` : `def ${name}(x):\n    return x + ${i}\n`);
    }
    return parts.join('\n');
}

const EXT = { c: '.c', ts: '.ts', py: '.py' } as const;

function initialTree(rnd: () => number): Record<string, string> {
    const files: Record<string, string> = {};
    for (let i = 0; i < 24; i++) {
        const lang = (['c', 'ts', 'py'] as const)[i % 3]!;
        files[`${['src', 'lib', 'src/deep'][i % 3]}/f${i}${EXT[lang]}`] = source(lang, rnd);
    }
    files['README.md'] = 'alpha beta gamma\n';
    return files;
}

async function indexed(root: string): Promise<{ pkg: FileToolPackage; tree: TreeIndex }> {
    const pkg = pkgOf(root, { dir: tempDir('lcf-symtab-index-') });
    const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(tree.status().state).toBe('ready');
    expect(await symbolsOf(tree).ready(), symbolsOf(tree).error).not.toBeNull();
    return { pkg, tree };
}

const QUERIES: Record<string, unknown>[] = [
    ...NAMES.map((name) => ({ name })),
    { name: 'Widget/run' },
    { name: 'ALPHA_MAX' },
    { name: '^(alpha|beta)$', regex: true },
    { name: 'a$', regex: true, kind: 'function' },
    { name: 'run', path: 'src' },
    { name: 'gamma', exclude: 'deep' },
    { name: 'delta', include: '*.py' },
    { name: '^[a-z]', regex: true, max_results: 3 },
    { name: 'run', kind: 'method', max_results: 1 },
];

describe('the symbol table', () => {
    it('holds what a fresh parse of every source file finds', async () => {
        const root = tempDir('lcf-symtab-');
        writeTree(root, initialTree(random(7)));
        // Signatures read back from the file: over two lines, after a BOM and wide characters; a
        // file not UTF-8 (Latin-1) has none in the table and is parsed again to print one.
        fs.writeFileSync(path.join(root, 'src/multi.c'), 'static int\nmulti_line(int x)\n{\n\treturn x;\n}\n\n/* ünï 𝒳 */ struct wide { int w; };\n');
        fs.writeFileSync(path.join(root, 'src/bom.ts'), '\ufeffexport function afterBom(a: string): string {\n    return a;\n}\n');
        fs.writeFileSync(path.join(root, 'src/latin.c'), Buffer.from('/* caf\xe9 */\nint latin_one(int x)\n{\n\treturn x;\n}\n', 'latin1'));
        const { pkg, tree } = await indexed(root);
        const store = (await symbolsOf(tree).ready())!;
        const served = tree.served()!;
        const realOf = (k: number): string => path.join(root, served.table.pathOf(store.fileOf(k)));
        const fromTable = new Map<string, string[]>();
        for (let n = 0; n < store.counts.names; n++) {
            const [from, to] = store.definitionsOf(n);
            const ks = Array.from({ length: to - from }, (_, i) => from + i);
            const sigs = await store.signatures(ks, realOf);
            ks.forEach((k, i) => {
                expect(sigs[i] === null, `${store.nameAt(n)}: only the Latin-1 file's signatures are not read back`).toBe(served.table.pathOf(store.fileOf(k)) === 'src/latin.c');
                if (sigs[i] === null) return;
                const d = { ...store.definition(k, store.nameAt(n)), signature: sigs[i]! };
                const rel = served.table.pathOf(store.fileOf(k));
                fromTable.set(rel, [...(fromTable.get(rel) ?? []), JSON.stringify(d)]);
            });
        }
        const rels = Object.keys(snapshot(root)).filter((r) => languageOf(r) !== undefined);
        const parsed = await parseFiles(pkg.engine, rels.map((r) => ({ shown: r, real: path.join(root, r) })), { realRoots: null, maxBytes: 1 << 20, parseMs: 10_000 });
        let defs = 0;
        parsed.forEach((r, i) => {
            if (!r.ok) throw new Error(r.message);
            defs += r.definitions.length;
            if (rels[i] === 'src/latin.c') return;
            expect((fromTable.get(rels[i]!) ?? []).sort(), rels[i]).toEqual(r.definitions.map((d) => JSON.stringify(d)).sort());
        });
        expect(defs).toBeGreaterThan(24);
        expect(store.counts.defs).toBe(defs);
        expect(fromTable.get('src/multi.c')!.map((d) => JSON.parse(d) as { signature: string })).toContainEqual(expect.objectContaining({ name: 'multi_line', signature: 'static int multi_line(int x)' }));
        const plain = pkgOf(root, false);
        for (const name of ['latin_one', 'multi_line', 'afterBom', 'wide']) expect(await call(pkg, 'find_symbol', { name }), name).toBe(await call(plain, 'find_symbol', { name }));
        // Merged from one part per file, the table is the same file byte for byte.
        const many = path.join(served.genDir, 'symbols-many.bin');
        const figures = await buildSymbols(served, many, undefined, 1);
        expect(figures.files).toBe(rels.length);
        expect(fs.readFileSync(many).equals(fs.readFileSync(path.join(served.genDir, SYMBOLS_FILE)))).toBe(true);
        await (await SymbolStore.load(many, served.table.size)).close();
        expect(fs.statSync(path.join(served.genDir, SYMBOLS_FILE)).mode & 0o777).toBe(0o600);
    });

    it('answers as a fresh parse after random edits, creates, deletes and renames through the tools and on disk (seed 27)', async () => {
        const rnd = random(27);
        const root = tempDir('lcf-symtab-prop-');
        writeTree(root, initialTree(rnd));
        // Links to a source file and to a directory inside the tree: listed by the scan as files.
        fs.symlinkSync('f0.c', path.join(root, 'src/linked.c'));
        fs.symlinkSync('../src', path.join(root, 'lib/src-link'));
        const { pkg, tree } = await indexed(root);
        const plain = pkgOf(root, false);
        const files = (): string[] => Object.keys(snapshot(root)).filter((r) => languageOf(r) !== undefined && !fs.lstatSync(path.join(root, r)).isSymbolicLink());
        const compare = async (step: string): Promise<void> => {
            for (const q of QUERIES) {
                expect(await call(pkg, 'find_symbol', q), `${step}: ${JSON.stringify(q)}`).toBe(await call(plain, 'find_symbol', q));
            }
        };
        const answered = symbolsOf(tree).answered;
        await compare('built');
        expect(symbolsOf(tree).answered, 'the table answered').toBeGreaterThan(answered);
        for (let step = 0; step < 30; step++) {
            const all = files();
            const some = all[Math.floor(rnd() * all.length)]!;
            const lang = (['c', 'ts', 'py'] as const)[Math.floor(rnd() * 3)]!;
            const fresh = `${['src', 'lib', 'new'][Math.floor(rnd() * 3)]}/g${step}${EXT[lang]}`;
            const op = Math.floor(rnd() * 8);
            const tools = op < 4;
            let what: string;
            if (op % 4 === 0) {
                what = `edit ${some}`;
                const text = source(languageOf(some)!.id === 'c' ? 'c' : languageOf(some)!.id === 'python' ? 'py' : 'ts', rnd);
                if (tools) expect(await call(pkg, 'write_file', { path: some, content: text })).toMatch(/^success/);
                else fs.writeFileSync(path.join(root, some), text);
            } else if (op % 4 === 1) {
                what = `create ${fresh}`;
                if (tools) expect(await call(pkg, 'write_file', { path: fresh, content: source(lang, rnd) })).toMatch(/^success/);
                else {
                    fs.mkdirSync(path.dirname(path.join(root, fresh)), { recursive: true });
                    fs.writeFileSync(path.join(root, fresh), source(lang, rnd));
                }
            } else if (op % 4 === 2) {
                what = `delete ${some}`;
                if (tools) expect(await call(pkg, 'delete_file', { path: some })).toMatch(/^success/);
                else fs.rmSync(path.join(root, some));
            } else {
                const to = `${path.dirname(some)}/r${step}${path.extname(some)}`;
                what = `rename ${some} ${to}`;
                if (tools) expect(await call(pkg, 'move_file', { source: some, destination: to })).toMatch(/^success/);
                else fs.renameSync(path.join(root, some), path.join(root, to));
            }
            if (step % 7 === 3) {
                // A new link on disk to a source file, and one to a directory inside the tree.
                const target = files()[0]!;
                fs.symlinkSync(path.relative(path.join(root, 'lib'), path.join(root, target)), path.join(root, `lib/l${step}${path.extname(target)}`));
                fs.symlinkSync('../src', path.join(root, `lib/d${step}`));
                what += ', links made';
            }
            await compare(`step ${step} (${tools ? 'tools' : 'disk'}): ${what}`);
        }
        expect(symbolsOf(tree).answered - answered, 'the table answered the calls').toBeGreaterThan(QUERIES.length * 10);
    });

    it('ignores a corrupt symbols file, answers exactly, and makes it again', async () => {
        const root = tempDir('lcf-symtab-corrupt-');
        writeTree(root, initialTree(random(3)));
        const dir = tempDir('lcf-symtab-corrupt-index-');
        const first = pkgOf(root, { dir });
        const tree = (await first.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        await symbolsOf(tree).ready();
        const file = path.join(tree.served()!.genDir, SYMBOLS_FILE);
        await first.close();
        const bytes = fs.readFileSync(file);
        bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0x5a;
        fs.writeFileSync(file, bytes);
        const again = pkgOf(root, { dir });
        const plain = pkgOf(root, false);
        const tree2 = (await again.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        const symbols = symbolsOf(tree2);
        // The first call finds the file corrupt: the scan answers while the table is made again.
        for (const q of QUERIES) expect(await call(again, 'find_symbol', q)).toBe(await call(plain, 'find_symbol', q));
        const store = await symbols.ready();
        expect(store, symbols.error).not.toBeNull();
        expect(symbols.figures?.definitions).toBe(store!.counts.defs);
        const before = symbols.answered;
        for (const q of QUERIES) expect(await call(again, 'find_symbol', q)).toBe(await call(plain, 'find_symbol', q));
        expect(symbols.answered).toBeGreaterThan(before);
    });

    it('answers exactly when its symbols file changes under a serving process, and makes it again', async () => {
        const root = tempDir('lcf-symtab-served-corrupt-');
        writeTree(root, initialTree(random(5)));
        const { pkg, tree } = await indexed(root);
        const plain = pkgOf(root, false);
        const symbols = symbolsOf(tree);
        // Loaded and checked; then bytes changed in place (same file, same size) past the header:
        // names, rows, signature places, none of them read since the load.
        const file = path.join(tree.served()!.genDir, SYMBOLS_FILE);
        const fd = fs.openSync(file, 'r+');
        try {
            const size = fs.fstatSync(fd).size;
            for (let at = 64; at < size; at += 7) {
                const b = Buffer.alloc(1);
                fs.readSync(fd, b, 0, 1, at);
                b[0] = b[0]! ^ 0x5a;
                fs.writeSync(fd, b, 0, 1, at);
            }
        } finally {
            fs.closeSync(fd);
        }
        for (const q of QUERIES) expect(await call(pkg, 'find_symbol', q), JSON.stringify(q)).toBe(await call(plain, 'find_symbol', q));
        for (const name of NAMES) expect(await call(pkg, 'find_references', { name })).toBe(await call(plain, 'find_references', { name }));
        // Made again from the tree: the table answers the next calls.
        const store = await symbols.ready();
        expect(store, symbols.error).not.toBeNull();
        expect(store!.broken).toBe(false);
        const before = symbols.answered;
        for (const q of QUERIES) expect(await call(pkg, 'find_symbol', q)).toBe(await call(plain, 'find_symbol', q));
        expect(symbols.answered).toBeGreaterThan(before);
    });

    it('answers a file rewritten in place while closed (same size and times) as a fresh parse, never with its old rows', async () => {
        const root = tempDir('lcf-symtab-inplace-');
        const old = 'int alpha(int x)\n{\n\treturn x;\n}\n\nint gamma(int y)\n{\n\treturn y;\n}\n';
        // Same length: alpha becomes a function of another name, gamma moves down a line.
        const now = 'int omega(int x)\n{\n\treturn x;\n}\nint gamma(int y)\n\n{\n\treturn y;\n}\n';
        expect(now.length).toBe(old.length);
        writeTree(root, { 'src/a.c': old, 'src/b.c': 'int alpha(void)\n{\n\treturn 0;\n}\n' });
        const dir = tempDir('lcf-symtab-inplace-index-');
        const first = pkgOf(root, { dir });
        const tree = (await first.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(await symbolsOf(tree).ready(), symbolsOf(tree).error).not.toBeNull();
        await first.close();
        const file = path.join(root, 'src/a.c');
        // touch -r keeps the times to the nanosecond (fs.utimesSync rounds them).
        const times = path.join(dir, 'times');
        fs.writeFileSync(times, '');
        execFileSync('touch', ['-r', file, times]);
        const fd = fs.openSync(file, 'r+');
        fs.writeSync(fd, now, 0);
        fs.closeSync(fd);
        execFileSync('touch', ['-r', times, file]);
        expect(fs.statSync(file, { bigint: true }).mtimeNs).toBe(fs.statSync(times, { bigint: true }).mtimeNs);
        const again = pkgOf(root, { dir });
        const tree2 = (await again.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        const symbols = symbolsOf(tree2);
        expect(await symbols.ready(), symbols.error).not.toBeNull();
        const plain = pkgOf(root, false);
        const before = symbols.answered;
        for (const q of [{ name: 'alpha' }, { name: 'gamma' }, { name: '^(alpha|gamma)$', regex: true }, { name: 'gamma', max_results: 1 }, { name: 'omega' }, { name: '^(omega|alpha)$', regex: true }]) {
            const answer = await call(again, 'find_symbol', q);
            expect(answer, JSON.stringify(q)).toBe(await call(plain, 'find_symbol', q));
            expect(answer).not.toMatch(/ — $|—\s*\n/m);
        }
        // The new name, which the table did not hold: the file counts as changed (its change time moved).
        expect(await call(again, 'find_symbol', { name: 'omega' })).toContain('src/a.c');
        expect(await call(again, 'find_symbol', { name: 'alpha' })).not.toContain('src/a.c');
        expect(symbols.answered, 'the table answered').toBeGreaterThan(before);
    });

    it('answers a name it holds no definition of without parsing the files that mention it, as the scan answers', async () => {
        const root = tempDir('lcf-symtab-none-');
        writeTree(root, { ...initialTree(random(11)), 'src/talk.c': '/* alpha_none is only mentioned */\nint talk(void) { return 0; }\n', 'lib/more.py': '# alpha_none\n' });
        const { pkg, tree } = await indexed(root);
        const plain = pkgOf(root, false);
        const cache = symbolCacheOf(pkg.engine);
        const [parsedBefore, answered] = [cache.size, symbolsOf(tree).answered];
        const q = { name: 'alpha_none' };
        const a = await call(pkg, 'find_symbol', q);
        expect(a).toBe('success: No definitions of "alpha_none" found in . (2 source files mention it, in any case).');
        expect(symbolsOf(tree).answered).toBe(answered + 1);
        expect(cache.size, 'no file parsed').toBe(parsedBefore);
        expect(a).toBe(await call(plain, 'find_symbol', q));
        expect(await call(pkg, 'find_symbol', { name: 'alpha', kind: 'class' })).toBe(await call(plain, 'find_symbol', { name: 'alpha', kind: 'class' }));
    });

    it('refuses bad input from the index as without it, and changes nothing', async () => {
        const root = tempDir('lcf-symtab-bad-');
        writeTree(root, initialTree(random(5)));
        const { pkg } = await indexed(root);
        const plain = pkgOf(root, false);
        const before = snapshot(root);
        for (const q of [{ name: '(a+)+$', regex: true }, { name: '[', regex: true }, { name: 'a b' }, { name: 'alpha', kind: 'lambda' }, { name: 'alpha', path: '../x' }, { name: 'alpha', path: 'missing' }, { name: '' }]) {
            const a = await call(pkg, 'find_symbol', q);
            expect(a, JSON.stringify(q)).toMatch(/^error/);
            expect(a).toBe(await call(plain, 'find_symbol', q));
        }
        expect(snapshot(root)).toEqual(before);
    });
});
