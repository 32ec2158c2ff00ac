/**
 * Code navigation with the search index on: the candidates come from the index, the answers are
 * those of the package without it, and a definition changed through the tools or on disk is found
 * by the very next call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { symbolsOf } from '../../../src/symbols/symbol-table.js';
import { SHARED_POOL, tempDir, writeTree } from '../../support/helpers.js';
import { COMPARED_TIMEOUT_MS } from '../../support/scan-path.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

function pkgOf(root: string, index: false | { dir: string }): FileToolPackage {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS), index, navigation: true, engine: SHARED_POOL });
    open.push(pkg);
    return pkg;
}

async function call(pkg: FileToolPackage, tool: string, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === tool)!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

const files: Record<string, string> = {};
for (let i = 0; i < 40; i++) {
    files[`lib/mod${i}.c`] = `#include "api.h"\nint helper_${i}(int x)\n{\n\treturn api_call(x) + ${i};\n}\n`;
    files[`app/page${i}.ts`] = `import { render } from './view';\nexport function page_${i}(): string {\n    return render(${i});\n}\n`;
}
files['lib/api.h'] = '#define API_VERSION 3\nint api_call(int x);\n';
files['lib/api.c'] = 'int api_call(int x)\n{\n\treturn x;\n}\n';
files['app/view.ts'] = 'export function render(n: number): string {\n    return String(n);\n}\n';

describe('code navigation on the index', () => {
    it('answers as without the index, from the index, and sees changes at the next call', async () => {
        const root = tempDir('lcf-nav-index-');
        writeTree(root, files);
        const indexed = pkgOf(root, { dir: tempDir('lcf-nav-index-dir-') });
        const plain = pkgOf(root, false);
        const tree = (await indexed.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(tree.status().state).toBe('ready');
        const same = async (tool: string, args: Record<string, unknown>): Promise<string> => {
            const answered = (): number => tree.counts.answered + symbolsOf(tree).answered;
            const before = answered();
            const a = await call(indexed, tool, args);
            expect(a, `${tool} ${JSON.stringify(args)}`).toBe(await call(plain, tool, args));
            expect(answered(), 'the index answered the candidate search, or its symbol table the call').toBeGreaterThan(before);
            return a;
        };
        expect(await same('find_symbol', { name: 'api_call' })).toBe('success: lib/api.c:1: function api_call — int api_call(int x)');
        expect(await same('find_symbol', { name: 'helper_17' })).toBe('success: lib/mod17.c:2: function helper_17 — int helper_17(int x)');
        const refs = await same('find_references', { name: 'render' });
        expect(refs.split('\n')).toHaveLength(1 + 40 * 2);
        expect(refs).toContain('app/page3.ts:3: [function page_3] return render(3);');

        // Through the tools: the definition renamed; the next call finds the new name and not the old.
        await call(indexed, 'read_file', { paths: ['lib/api.c'] });
        expect(await call(indexed, 'replace_file_lines', { path: 'lib/api.c', start_line: 1, end_line: 1, content: 'int api_call_v2(int x)' })).toMatch(/^success/);
        expect(await same('find_symbol', { name: 'api_call_v2' })).toBe('success: lib/api.c:1: function api_call_v2 — int api_call_v2(int x)');
        expect(await same('find_symbol', { name: 'api_call', kind: 'function' })).toBe('success: No definitions of "api_call" (kind function) found in . (41 source files mention it, in any case).');

        // On disk, by another process: a new file with a new definition.
        fs.writeFileSync(path.join(root, 'lib/extra.c'), 'static int brand_new_fn(void)\n{\n\treturn 0;\n}\n');
        expect(await same('find_symbol', { name: 'brand_new_fn' })).toBe('success: lib/extra.c:1: function brand_new_fn — static int brand_new_fn(void)');
    });
});
