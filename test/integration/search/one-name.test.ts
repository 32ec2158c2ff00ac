/**
 * One file, one name: a link to a directory inside the searched tree (`lib64 -> lib`) is listed
 * but not entered (src/search/shared/entry-policy.ts `entersLinkedDir`), on the scan path and the
 * index alike; a link out of the searched tree is entered as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

describe('a directory reached through a link inside the searched tree', () => {
    it('lists the link once and each file below it once, under its real name', async () => {
        const root = tempDir();
        writeTree(root, { 'venv/lib/python/site.py': 'import os\n', 'venv/lib/python/util.py': 'import sys\n', 'venv/bin/run': 'import os\n' });
        fs.symlinkSync('lib', path.join(root, 'venv/lib64'));
        const fx = makePackage(root);
        const names = await one(fx.tool('search_entries'), { path: 'venv' });
        expect(names.result).toBe(['venv/bin/', 'venv/bin/run', 'venv/lib/', 'venv/lib/python/', 'venv/lib/python/site.py', 'venv/lib/python/util.py', 'venv/lib64/'].join('\n'));
        const content = await one(fx.tool('search_entries'), { content_pattern: 'import os' });
        expect(content.result).toBe('venv/bin/run:1: import os\nvenv/lib/python/site.py:1: import os');
        const byName = await one(fx.tool('search_entries'), { name_pattern: '\\.py$' });
        expect(byName.result).toBe('venv/lib/python/site.py\nvenv/lib/python/util.py');
    });

    it('is entered when the search starts beside it, so the link is the only way in', async () => {
        const root = tempDir();
        writeTree(root, { 'lib/a.py': 'needle\n', 'app/main.py': 'x\n' });
        fs.symlinkSync('../lib', path.join(root, 'app/lib'));
        const fx = makePackage(root);
        expect((await one(fx.tool('search_entries'), { path: 'app', content_pattern: 'needle' })).result).toBe('app/lib/a.py:1: needle');
        expect((await one(fx.tool('search_entries'), { content_pattern: 'needle' })).result).toBe('lib/a.py:1: needle');
    });
});
