/** The index's symbol table (symbols/symbol-table.ts) on a file whose name is not UTF-8: its answers name the file as the tools print it. */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { symbolsOf } from '../../../src/symbols/symbol-table.js';
import { makePackage, one, SHARED_POOL, tempDir } from '../../support/helpers.js';
import { COMPARED_TIMEOUT_MS } from '../../support/scan-path.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

const C = ['int cafe_fn(int a)', '{', '\treturn a + 1;', '}', '', 'int cafe_user(void)', '{', '\treturn cafe_fn(2);', '}', ''].join('\n');

describe('the symbol table and a name that is not UTF-8', () => {
    it('find_symbol and find_references answered by the table print the name quoted and follow such a link, as without the table', async () => {
        const root = tempDir('lcf-nav-bytes-');
        fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from('caf\xe9.c', 'latin1')]), C);
        fs.writeFileSync(`${root}/plain.c`, 'int other(void) { return 0; }\n');
        fs.symlinkSync('plain.c', Buffer.concat([Buffer.from(`${root}/`), Buffer.from('l\xe9.c', 'latin1')]));
        fs.symlinkSync('plain.c', `${root}/lnk.c`);
        const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
        const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS), fileConfig: new FileConfiguration(undefined, undefined, false), index: { dir: tempDir('lcf-index-'), symbols: true }, navigation: true, engine: SHARED_POOL });
        open.push(pkg);
        const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(await symbolsOf(tree).ready(), symbolsOf(tree).error).not.toBeNull();
        const call = async (tool: string, args: Record<string, unknown>): Promise<string> => {
            const [r] = await pkg.tools().find((t) => t.name === tool)!.execute(args);
            return `${r!.status}: ${r!.result}`;
        };
        const answered = symbolsOf(tree).answered;
        const found = await call('find_symbol', { name: 'cafe_fn' });
        expect(found).toMatch(/^success: "caf\\xe9\.c":1: function cafe_fn/);
        const refs = await call('find_references', { name: 'cafe_fn' });
        expect(refs).toMatch(/^"caf\\xe9\.c":8: /m);
        expect(symbolsOf(tree).answered, 'the table answered').toBeGreaterThan(answered);
        // A link whose name is not UTF-8, to a source file: parsed where it leads, as without the table.
        const before = symbolsOf(tree).answered;
        const viaTable = await call('find_symbol', { name: 'other' });
        expect(symbolsOf(tree).answered, 'the table answered').toBeGreaterThan(before);
        expect(viaTable).toBe(['success: lnk.c:1: function other — int other(void) { return 0; }', '"l\\xe9.c":1: function other — int other(void) { return 0; }', 'plain.c:1: function other — int other(void) { return 0; }'].join('\n'));
        const plain = makePackage(root, { packageOptions: { navigation: true } });
        const r = await one(plain.tool('find_symbol'), { name: 'other' });
        expect(`${r.status}: ${r.result}`).toBe(viaTable);
        const [a, b] = [await call('find_symbol', { name: 'cafe_fn' }), await one(plain.tool('find_symbol'), { name: 'cafe_fn' })];
        expect(a).toBe(`${b.status}: ${b.result}`);
    });
});
