/**
 * A `symbols-part` task says whether its thread has loaded a grammar: the build keeps its
 * large-file thread for the next large file only while none was (a file of directives alone is
 * read without a parse, src/symbols/table-build.ts), since a parser's memory stays as large as
 * the largest file it parsed. This file's module state is its own (vitest isolates test files),
 * so no grammar is loaded before the first task.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSymbolsPart } from '../../../workers/symbols/symbols-table.js';
import { tempDir, writeTree } from '../../support/helpers.js';

describe('a symbols-part task', () => {
    it('tells whether its thread has loaded a grammar: not after directives alone, then after a parse, and from then on', async () => {
        const root = tempDir('lcf-part-parsed-');
        writeTree(root, {
            'regs.h': '/* registers */\n#define REG_A 0x10\n#define REG_B(x) ((x) << 2)\n',
            'code.c': 'static int twice(int x)\n{\n\treturn 2 * x;\n}\n',
        });
        const run = (k: number, file: string) => runSymbolsPart({ op: 'symbols-part', root, ids: [k], paths: [file], maxBytes: 1 << 20, parseMs: 60_000, out: path.join(root, `part-${k}`) });
        const plain = await run(1, 'regs.h');
        expect(plain).toMatchObject({ ok: true, definitions: 2, parsed: false });
        const parsed = await run(2, 'code.c');
        expect(parsed).toMatchObject({ ok: true, definitions: 1, parsed: true });
        const after = await run(3, 'regs.h');
        expect(after).toMatchObject({ ok: true, definitions: 2, parsed: true });
        expect(fs.existsSync(path.join(root, 'part-3'))).toBe(true);
    });
});
