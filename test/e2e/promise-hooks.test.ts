/**
 * A tool call leaves promise hooks off in the host process: no AsyncLocalStorage carries its
 * signal, progress listener or notes (src/tools/base.ts ToolCall). Checked in a fresh Node
 * process, where no other code has turned the hooks on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childModule, runChildScript } from '../support/child-source.js';
import { tempDir, writeTree } from '../support/helpers.js';

/** Runs `script` (an ES module importing the package, support/child-source.ts) in a fresh Node process; its stdout. */
async function runScript(script: string): Promise<string> {
    const { code, stdout, stderr } = await runChildScript(script);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    return stdout;
}

describe('a tool call', () => {
    it('leaves promise hooks off in the host process (no AsyncLocalStorage), with notes and signals still reaching the call', async () => {
        const dir = tempDir('lcf-call-hooks-');
        writeTree(dir, { 'f.txt': 'old\n', 'd/a.txt': 'needle\n' });
        fs.linkSync(path.join(dir, 'f.txt'), path.join(dir, 'g.txt'));
        const src = (p: string): string => JSON.stringify(childModule(`src/${p}`));
        // executionAsyncId() inside a promise continuation is 0 while no promise hook is on, and
        // the id of that promise once one is (an AsyncLocalStorage's first run turns them on).
        const out = await runScript(`
            import { executionAsyncId, AsyncLocalStorage } from 'node:async_hooks';
            import { Workspace, AccessType, FileToolPackage } from ${src('index.ts')};
            const probe = async () => { await null; return executionAsyncId(); };
            const seen = { before: await probe() };
            const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: ${JSON.stringify(dir)} }] });
            const pkg = new FileToolPackage(ws);
            const tool = (name) => pkg.tools().find((t) => t.name === name);
            const ac = new AbortController();
            const found = await tool('search_entries').executeWithSignal({ content_pattern: 'needle' }, ac.signal, () => {});
            await tool('read_file').execute({ paths: ['f.txt'] });
            const written = await tool('write_file').execute({ path: 'f.txt', content: 'new\\n' });
            seen.after = await probe();
            new AsyncLocalStorage().run(1, () => 0);
            seen.control = await probe();
            await pkg.close();
            console.log(JSON.stringify({ seen, found: found[0].result, written: written[0].result }));
        `);
        const { seen, found, written } = JSON.parse(out) as { seen: Record<string, number>; found: string; written: string };
        expect(found).toBe('d/a.txt:1: needle');
        expect(written).toMatch(/\nNote: .*f\.txt has 2 hard links; it was written in place, so all 2 names show the new content\.$/);
        expect(seen.before).toBe(0);
        expect(seen.after).toBe(0);
        // The probe does see hooks turned on.
        expect(seen.control).not.toBe(0);
    }, 120_000);
});
