/**
 * The symbol table's build with files over 1 MB (parse.ts's BIG_FILE): they are parsed one at a
 * time on a thread of their own, beside the other parts' lanes (one that read headers of
 * directives alone takes the next file; one that parsed a file is ended after it); the table
 * holds their definitions as it holds the others', and a build stopped while they are parsed
 * leaves no part file and no table behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { BIG_FILE } from '../../../src/symbols/parse.js';
import { buildSymbols } from '../../../src/symbols/symbol-table.js';
import { SymbolStore } from '../../../src/symbols/symbol-store.js';
import { SHARED_POOL, tempDir, until, writeTree } from '../../support/helpers.js';
import { COMPARED_TIMEOUT_MS } from '../../support/scan-path.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

/** A generated register header just over BIG_FILE: `#define`s only. */
function header(b: number): { text: string; defines: number } {
    const lines: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes <= BIG_FILE + 4096; i++) {
        const line = `#define BIG${b}_REG_${i}__FIELD_MASK 0x${(i * 2654435761 >>> 0).toString(16)}L\n`;
        lines.push(line);
        bytes += line.length;
    }
    return { text: lines.join(''), defines: lines.length };
}

/** A C file just over BIG_FILE of small functions, which is parsed (not a file of directives alone). */
function functions(): { text: string; count: number } {
    const lines: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes <= BIG_FILE + 4096; i++) {
        const line = `int big_function_${i}(int a)\n{\n\treturn a * ${i} + big_function_${Math.max(0, i - 1)}(a - 1);\n}\n\n`;
        lines.push(line);
        bytes += line.length;
    }
    return { text: lines.join(''), count: lines.length };
}

async function served() {
    const root = tempDir('lcf-symbig-');
    const headers = [0, 1, 2].map(header);
    const big = functions();
    writeTree(root, {
        ...Object.fromEntries(headers.map((h, b) => [`include/big${b}.h`, h.text])),
        // Between the headers in the table's order: the headers' thread before it is kept, the parse's is not.
        'include/big1.c': big.text,
        'src/small.c': 'int small_one(void)\n{\n\treturn 1;\n}\n',
        'src/other.c': '#define OTHER 1\nstruct other { int o; };\n',
    });
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS), fileConfig: new FileConfiguration(undefined, undefined, false), index: { dir: tempDir('lcf-symbig-index-'), symbols: true }, navigation: true, engine: SHARED_POOL });
    open.push(pkg);
    const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(tree.status().state).toBe('ready');
    return { served: tree.served()!, headers, big };
}

const parts = (dir: string): string[] => fs.readdirSync(dir).filter((n) => n.startsWith('symbols-part-'));

describe('the symbol table with files over 1 MB', () => {
    it('holds their definitions beside the small files\'', async () => {
        const { served: s, headers, big } = await served();
        const out = path.join(s.genDir, 'symbols-big.bin');
        const figures = await buildSymbols(s, out);
        expect(figures.files).toBe(6);
        const store = await SymbolStore.load(out, s.table.size);
        try {
            expect(store.counts.defs).toBe(headers.reduce((n, h) => n + h.defines, 0) + big.count + 3);
            for (const i of [0, Math.floor(big.count / 2), big.count - 1]) {
                const n = store.find(`big_function_${i}`);
                expect(n, `big_function_${i}`).toBeGreaterThanOrEqual(0);
                const from = store.definitionsOf(n)[0];
                expect(s.table.pathOf(store.fileOf(from))).toBe('include/big1.c');
                expect(store.definition(from, '').line).toBe(5 * i + 1);
            }
            for (const [b, h] of headers.entries()) {
                for (const i of [0, 1, Math.floor(h.defines / 2), h.defines - 1]) {
                    const n = store.find(`BIG${b}_REG_${i}__FIELD_MASK`);
                    expect(n, `BIG${b}_REG_${i}`).toBeGreaterThanOrEqual(0);
                    const [from, to] = store.definitionsOf(n);
                    expect(to - from).toBe(1);
                    expect(s.table.pathOf(store.fileOf(from))).toBe(`include/big${b}.h`);
                    expect(store.definition(from, '').line).toBe(i + 1);
                }
            }
            for (const name of ['small_one', 'OTHER', 'other']) expect(store.find(name), name).toBeGreaterThanOrEqual(0);
        } finally {
            await store.close();
        }
        expect(parts(s.genDir)).toEqual([]);
    });

    it('stops while they are parsed: the build fails, leaving no part file and no table', async () => {
        const { served: s } = await served();
        const out = path.join(s.genDir, 'symbols-stopped.bin');
        let stop: (() => Promise<void>) | undefined;
        const build = buildSymbols(s, out, (st) => (stop = st));
        const failed = build.then(
            () => false,
            () => true,
        );
        // Part 0 holds the two small files, the large files' parts come after it: stopped once one
        // of the large files' parts is written (the merge, which removes them, waits for all four).
        await until(() => stop !== undefined && parts(s.genDir).some((n) => !n.startsWith('symbols-part-0.')));
        await stop!();
        expect(await failed, 'the stopped build fails').toBe(true);
        expect(parts(s.genDir)).toEqual([]);
        expect(fs.existsSync(out)).toBe(false);
    });
});
