/**
 * What a `symbols-part` task tells of the thread it ran on, which the table's build reads to keep
 * a large file's thread for the next one (src/symbols/table-build.ts): whether the thread loaded
 * tree-sitter, and its heap's size. A file of directives alone is read without it; a C file with
 * a function is parsed, and from then on the thread holds the parser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSymbolsPart } from '../../../workers/symbols/symbols-table.js';
import { tempDir, writeTree } from '../../support/helpers.js';

describe('a symbols-part task on its thread', () => {
    it('tells whether the thread loaded the parser, and its heap', async () => {
        const root = tempDir('lcf-sympart-');
        writeTree(root, { 'regs.h': '#define REG_A 0x10\n#define REG_B(x) ((x) << 2)\n', 'f.c': 'int f(void)\n{\n\treturn 0;\n}\n' });
        const out = (k: number): string => path.join(root, `part-${k}.part`);
        const task = (k: number, file: string) => ({ op: 'symbols-part' as const, root, ids: [k], paths: [file], maxBytes: 1 << 20, parseMs: 60_000, out: out(k) });
        const header = await runSymbolsPart(task(0, 'regs.h'));
        expect(header).toMatchObject({ ok: true, definitions: 2, timedOut: [], parser: false });
        expect(header.ok && header.heapBytes).toBeGreaterThan(0);
        const parsed = await runSymbolsPart(task(1, 'f.c'));
        expect(parsed).toMatchObject({ ok: true, definitions: 1, parser: true });
        // The parser stays loaded for the thread's life: a header after it is read on a thread that holds one.
        expect(await runSymbolsPart(task(2, 'regs.h'))).toMatchObject({ ok: true, definitions: 2, parser: true });
        for (const k of [0, 1, 2]) expect(fs.existsSync(out(k))).toBe(true);
    });
});
