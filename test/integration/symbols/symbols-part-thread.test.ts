/**
 * What a `symbols-part` task tells of the thread it ran on, which the table's build reads to keep
 * a large file's thread for the next one (src/symbols/table-build.ts): whether the thread loaded
 * tree-sitter, and its heap's size. A file of directives alone is read without it; a C file with
 * a function is parsed, and from then on the thread holds the parser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackgroundTasks } from '../../../src/engine/background-pool.js';
import type { SymbolsPartResult } from '../../../src/symbols/shared/table-tasks.js';
import { tempDir, writeTree } from '../../support/helpers.js';

describe('a symbols-part task on its thread', () => {
    it('tells whether the thread loaded the parser, and its heap', async () => {
        const root = tempDir('lcf-sympart-');
        writeTree(root, { 'regs.h': '#define REG_A 0x10\n#define REG_B(x) ((x) << 2)\n', 'f.c': 'int f(void)\n{\n\treturn 0;\n}\n' });
        const out = (k: number): string => path.join(root, `part-${k}.part`);
        const task = (k: number, file: string) => ({ op: 'symbols-part' as const, root, ids: [k], paths: [file], maxBytes: 1 << 20, parseMs: 60_000, out: out(k) });
        // A thread of its own, as the build's large files get: new, so no parse ran on it before.
        const own = new BackgroundTasks(1, true);
        try {
            const run = async (k: number, file: string): Promise<SymbolsPartResult> => (await own.run(task(k, file))) as SymbolsPartResult;
            const header = await run(0, 'regs.h');
            expect(header).toMatchObject({ ok: true, definitions: 2, timedOut: [], parser: false });
            expect(header.ok && header.heapBytes).toBeGreaterThan(0);
            expect(await run(1, 'f.c')).toMatchObject({ ok: true, definitions: 1, parser: true });
            // The parser stays loaded for the thread's life: a header after it is read on a thread that holds one.
            expect(await run(2, 'regs.h')).toMatchObject({ ok: true, definitions: 2, parser: true });
        } finally {
            await own.close();
        }
        for (const k of [0, 1, 2]) expect(fs.existsSync(out(k))).toBe(true);
    });
});
