/**
 * What one tool call carries beyond its arguments (src/tools/base.ts ToolCall): the host's
 * signal and progress listener, and the notes after its result, passed down without an
 * AsyncLocalStorage, so that using the tools never turns on promise hooks for the host (checked in
 * a fresh process: test/e2e/promise-hooks.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { SearchConfiguration } from '../../../src/index.js';
import type { SearchEntriesTool } from '../../../src/tools/search-entries.js';
import { makePackage, tempDir, writeTree } from '../../support/helpers.js';

describe('a tool call', () => {
    it('gives concurrent calls on one tool each their own signal', async () => {
        const dir = tempDir('lcf-call-concurrent-');
        writeTree(dir, { 'evil.txt': `${'a'.repeat(50_000)}!\n`, 'ok.txt': 'fine\n' });
        const fx = makePackage(dir, { search: new SearchConfiguration(50, 200, 5000, 600_000) });
        const tool = fx.tool('search_entries') as SearchEntriesTool;
        const ac = new AbortController();
        // The first call is stuck in a runaway pattern until its own signal aborts it.
        const stuck = tool.executeWithSignal({ content_pattern: '(a+)+$' }, ac.signal);
        const [done] = await tool.executeWithSignal({ content_pattern: 'fine' });
        expect(done!.result).toBe('ok.txt:1: fine');
        ac.abort();
        const [aborted] = await stuck;
        expect(aborted!.result).toContain('[Search aborted; the results are partial.]');
    }, 120_000);
});
