/**
 * find_references labels each line with the definition holding the name's first use on it: two
 * definitions on one line (`int one(void) {…} int two(void) {…}`) each hold a use, and the line
 * is listed once, with the index's symbol table and without it alike.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { symbolsOf as tableOf } from '../../../src/symbols/symbol-table.js';
import { withCheckpoints } from '../../../src/symbols/table-points.js';
import { referencesIn } from '../../../src/symbols/table-references.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { callTool, navigationPackages } from '../../support/navigation.js';

const pkgOf = navigationPackages();
const call = callTool;

/** Functions after the lines of interest, so that the table keeps checkpoints of the file (a few hundred characters apart) and may lex it. */
const PADDING = Array.from({ length: 6 }, (_, i) => `int pad${i}(void)\n{\n\treturn ${i}; /* ${'-'.repeat(200)} */\n}\n`).join('\n');

const FILES: Record<string, string> = {
    'same.c': ['int one(void) { return 1; } int two(void) { return one(); }', 'void a(void) { hit(); } void b(void) { hit(); y(); }', 'void c(void) { y(); }', PADDING].join('\n'),
    'other.c': ['void d(void)', '{', '\thit();', '}', PADDING].join('\n'),
    'same.ts': ['function one() { return 1; } function two() { return one(); }', 'function a() { hit(); } function b() { hit(); y(); }', ''].join('\n'),
};

describe('find_references labels on a line of two definitions', () => {
    it('labels each line once, with the definition holding its first use, with the symbol table and without', async () => {
        const root = tempDir('lcf-ref-labels-');
        writeTree(root, FILES);
        const pkg = pkgOf(root, { dir: tempDir('lcf-ref-labels-index-') });
        const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(tree.status().state).toBe('ready');
        expect(await tableOf(tree).ready(), tableOf(tree).error).not.toBeNull();
        const plain = pkgOf(root, false);
        const want: Record<string, string> = {
            // `one` is first its own name on the line, inside `one`; then a use inside `two`.
            one: ['same.c:1: [function one] int one(void) { return 1; } int two(void) { return one(); }', 'same.ts:1: [function one] function one() { return 1; } function two() { return one(); }'].join('\n'),
            hit: ['other.c:3: [function d] hit();', 'same.c:2: [function a] void a(void) { hit(); } void b(void) { hit(); y(); }', 'same.ts:2: [function a] function a() { hit(); } function b() { hit(); y(); }'].join('\n'),
            y: ['same.c:2: [function b] void a(void) { hit(); } void b(void) { hit(); y(); }', 'same.c:3: [function c] void c(void) { y(); }', 'same.ts:2: [function b] function a() { hit(); } function b() { hit(); y(); }'].join('\n'),
        };
        // With the table, a C file is lexed and its lines labelled from the table's rows; where two
        // definitions of as few lines hold a line, the table cannot tell which holds the use: parsed.
        const real = fs.realpathSync(root);
        const pointed = await withCheckpoints(pkg.workspace.view(), pkg.engine, undefined, ['other.c', 'same.c'].map((rel) => ({ shown: rel, real: path.join(real, rel) })), null);
        const told = await referencesIn(pkg.engine, pointed.files, pointed.store, { realRoots: null, maxBytes: 1 << 22, parseMs: 60_000, references: 'hit' });
        expect(told.map((r) => r.ok && r.lexed === true)).toEqual([true, false]);
        for (const [name, lines] of Object.entries(want)) {
            expect(await call(pkg, 'find_references', { name }), name).toBe(`success: ${lines}`);
            expect(await call(plain, 'find_references', { name }), name).toBe(`success: ${lines}`);
        }
    });
});
