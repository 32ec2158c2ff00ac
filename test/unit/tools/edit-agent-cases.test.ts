import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { one, readText, setupRead as setup, snapshot } from '../../support/helpers.js';
import { REFERENCE_TOOL_NAMES } from '../../../src/tools/catalog.js';

describe('replace_file_content: text that occurs more than once', () => {
    it('replaces the first and says how many there were, where the others are and how to target them', async () => {
        const { root, tool, file } = await setup({ 'f.txt': 'foo\nbar\nfoo\n' });
        const r = await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'foo', new_content: 'FOO' });
        expect(r.status).toBe('success');
        expect(r.result).toBe(
            `Replaced content in ${root}/f.txt\n` +
                '[old_content occurs 2 times: replaced the first, at line 1; left unchanged at line 3. To change every occurrence set replace_all: true; ' +
                'to change another one, include more of its surrounding text in old_content so that it matches only there.]',
        );
        expect(readText(file('f.txt'))).toBe('FOO\nbar\nfoo\n');
    });

    it('lists every unchanged line, and says nothing more for a unique match or replace_all', async () => {
        const { root, tool } = await setup({ 'f.txt': 'x a\nb\nx\nx x\n', 'g.txt': 'one\n' });
        const r = await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'x', new_content: 'y' });
        expect(r.result.split('\n')[1]).toContain('occurs 4 times: replaced the first, at line 1; left unchanged at lines 3, 4, 4.');
        const all = await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'x', new_content: 'y', replace_all: true });
        expect(all.result).toBe(`Replaced content in ${root}/f.txt`);
        const unique = await one(tool('replace_file_content'), { path: 'g.txt', old_content: 'one', new_content: 'two' });
        expect(unique.result).toBe(`Replaced content in ${root}/g.txt`);
    });
});

describe('replace_file_content: old_content not found', () => {
    it('shows the same text with tabs where old_content has spaces, with its lines, and changes nothing', async () => {
        const { root, tool } = await setup({ 'f.ts': 'function f() {\n\tif (x) {\n\t\treturn 1;\n\t}\n}\n' });
        const before = snapshot(root);
        const r = await one(tool('replace_file_content'), { path: 'f.ts', old_content: '    if (x) {\n        return 1;', new_content: 'return 2;' });
        expect(r.status).toBe('error');
        expect(r.result).toBe(
            'old_content not found in f.ts: it must match the file exactly, including whitespace and indentation. Call read_file and copy the text to replace.\n' +
                'Nearest candidates (nothing was changed; copy the exact text from the file and call again):\n' +
                '- lines 2-3: the same text with other indentation (the file has tabs where old_content has spaces): "\\tif (x) {\\n\\t\\treturn 1;"',
        );
        expect(snapshot(root)).toEqual(before);
    });

    it('shows a candidate with other line endings (CRLF old_content in an LF file)', async () => {
        const { root, tool } = await setup({ 'f.txt': 'a\nb\nc\n' });
        const before = snapshot(root);
        const r = await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'b\r\nc', new_content: 'X' });
        expect(r.status).toBe('error');
        expect(r.result).toContain('- lines 2-3: the same text with other line endings (the file has LF, old_content CRLF): "b\\nc"');
        expect(snapshot(root)).toEqual(before);
    });

    it('shows a block that differs in one line, naming the line and both texts', async () => {
        const { root, tool } = await setup({ 'f.py': 'def f():\n    a = 1\n    b = 2\n    return a + b\n' });
        const before = snapshot(root);
        const r = await one(tool('replace_file_content'), { path: 'f.py', old_content: '    a = 1\n    b = 3\n    return a + b\n', new_content: '' });
        expect(r.status).toBe('error');
        expect(r.result).toContain('- lines 2-4: differs in line 3 only: the file has "    b = 2" where old_content has "    b = 3"');
        expect(snapshot(root)).toEqual(before);
    });

    it('says when old_content carries the line numbers read_file shows, and changes nothing', async () => {
        const { root, tool, file } = await setup({ 'f.c': 'int a;\nint b;\nint c;\n' });
        const before = snapshot(root);
        const r = await one(tool('replace_file_content'), { path: 'f.c', old_content: '     2\tint b;\n     3\tint c;', new_content: '     2\tint B;' });
        expect(r.status).toBe('error');
        expect(r.result.split('\n')).toEqual([
            'old_content not found in f.c: it must match the file exactly, including whitespace and indentation. Call read_file and copy the text to replace.',
            'old_content begins its lines with line numbers as read_file shows them ("     2\\t"); the file has the text without them at lines 2-3. Leave them out of old_content and new_content.',
        ]);
        expect(snapshot(root)).toEqual(before);
        // Without them it applies.
        expect((await one(tool('replace_file_content'), { path: 'f.c', old_content: 'int b;\nint c;', new_content: 'int B;' })).status).toBe('success');
        expect(readText(file('f.c'))).toBe('int a;\nint B;\n');
        // A CRLF file, the model's text with LF line ends.
        const crlf = await setup({ 'w.txt': 'l1\r\nl2\r\nl3\r\n' });
        const c = await one(crlf.tool('replace_file_content'), { path: 'w.txt', old_content: '     2\tl2\n     3\tl3', new_content: 'x' });
        expect(c.result.split('\n').at(-1)).toBe('old_content begins its lines with line numbers as read_file shows them ("     2\\t"); the file has the text without them at lines 2-3. Leave them out of old_content and new_content.');
        expect(readText(crlf.file('w.txt'))).toBe('l1\r\nl2\r\nl3\r\n');
        // Numbers that are the file's own text are not taken for line numbers.
        const own = await one(tool('replace_file_content'), { path: 'f.c', old_content: '9\tint z;', new_content: 'x' });
        expect(own.result).not.toContain('line numbers');
    });

    it('writes content that carries line numbers as asked, with a note saying so', async () => {
        const { root, tool, file } = await setup({ 'f.c': 'int a;\nint b;\nint c;\n' });
        const note = (param: string, prefix: string): string => `[${param} begins its lines with line numbers as read_file shows them (${JSON.stringify(prefix)}); they were written as text. If they are not the file's text, write those lines again without them.]`;
        const lines = await one(tool('replace_file_lines'), { path: 'f.c', start_line: 2, end_line: 3, content: '     2\tint B;\n     3\tint C;' });
        expect(lines.result.split('\n')).toEqual([`Replaced lines 2-3 in ${root}/f.c`, note('content', '     2\t')]);
        expect(readText(file('f.c'))).toBe('int a;\n     2\tint B;\n     3\tint C;\n');
        const insert = await one(tool('insert_file_content'), { path: 'f.c', line: 1, content: '     1\t// head\n' });
        expect(insert.result.split('\n').at(-1)).toBe(note('content', '     1\t'));
        const replaced = await one(tool('replace_file_content'), { path: 'f.c', old_content: 'int a;', new_content: '     2\tint A;' });
        expect(replaced.result.split('\n').at(-1)).toBe(note('new_content', '     2\t'));
        const { tool: withEdit } = await setup({ 'e.c': 'int e;\n' }, { packageOptions: { editFile: true } });
        const edited = await one(withEdit('edit_file'), { path: 'e.c', edits: [{ old_content: 'int e;', new_content: '     1\tint E;' }] });
        expect(edited.result.split('\n').at(-1)).toBe(note('edits[0].new_content', '     1\t'));
        const written = await one(tool('write_file'), { path: 'g.c', content: '     7\tx\n     8\ty\n' });
        expect(written.result.split('\n')).toEqual([`Written: ${root}/g.c`, note('content', '     7\t')]);
        // Numbers that do not run on, another width or a line without one: no note.
        for (const content of ['     1\tx\n     3\ty\n', '1\tx\n2\ty\n', '     1\tx\nplain\n', 'id\tname\n']) {
            expect((await one(tool('write_file'), { path: 'h.tsv', content })).result, content).toBe(`Written: ${root}/h.tsv`);
        }
    });

    it('adds no candidates when nothing is near', async () => {
        const { tool } = await setup({ 'f.txt': 'abc\n' });
        const r = await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'zzz', new_content: 'y' });
        expect(r.result).toBe(
            'old_content not found in f.txt: it must match the file exactly, including whitespace and indentation. Call read_file and copy the text to replace.',
        );
    });
});

describe('edit_file (package option editFile)', () => {
    it('is not in the default package', async () => {
        const { pkg } = await setup({ 'f.txt': 'a\n' });
        expect(pkg.tools().map((t) => t.name)).not.toContain('edit_file');
        expect(pkg.tools().map((t) => t.name)).toEqual([...REFERENCE_TOOL_NAMES]);
    });

    it('applies several edits in order in one write', async () => {
        const { root, tool, file } = await setup({ 'f.txt': 'alpha\nbeta\ngamma\n' }, { packageOptions: { editFile: true } });
        const r = await one(tool('edit_file'), {
            path: 'f.txt',
            edits: [
                { old_content: 'alpha', new_content: 'ALPHA' },
                { old_content: 'ALPHA\nbeta', new_content: 'AB' },
            ],
        });
        expect(r).toMatchObject({ status: 'success', result: `Applied 2 edits to ${root}/f.txt` });
        expect(readText(file('f.txt'))).toBe('AB\ngamma\n');
    });

    it('writes nothing when one edit does not match, and names that edit', async () => {
        const { root, tool } = await setup({ 'f.txt': 'alpha\nbeta\n' }, { packageOptions: { editFile: true } });
        const before = snapshot(root);
        const r = await one(tool('edit_file'), {
            path: 'f.txt',
            edits: [
                { old_content: 'alpha', new_content: 'A' },
                { old_content: 'delta', new_content: 'D' },
            ],
        });
        expect(r.status).toBe('error');
        expect(r.result.startsWith('edits[1].old_content not found in f.txt')).toBe(true);
        expect(snapshot(root)).toEqual(before);
    });

    it('dry_run reports the diff and writes nothing', async () => {
        const { root, tool } = await setup({ 'f.txt': 'a\nb\nc\n' }, { packageOptions: { editFile: true } });
        const before = snapshot(root);
        const r = await one(tool('edit_file'), { path: 'f.txt', edits: [{ old_content: 'b', new_content: 'B' }], dry_run: true });
        expect(r.result).toBe(`Dry run: 1 edit would change ${root}/f.txt (nothing written)\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c`);
        expect(snapshot(root)).toEqual(before);
    });

    it('notes an ambiguous edit like replace_file_content', async () => {
        const { tool } = await setup({ 'f.txt': 'x\nx\n' }, { packageOptions: { editFile: true } });
        const r = await one(tool('edit_file'), { path: 'f.txt', edits: [{ old_content: 'x', new_content: 'y' }] });
        expect(r.result.split('\n')[1]).toContain('[edits[0].old_content occurs 2 times: replaced the first, at line 1; left unchanged at line 2.');
    });

    it('refuses a file not read first', async () => {
        const { root, tool } = await setup({}, { packageOptions: { editFile: true } });
        fs.writeFileSync(path.join(root, 'n.txt'), 'a\n');
        const r = await one(tool('edit_file'), { path: 'n.txt', edits: [{ old_content: 'a', new_content: 'b' }] });
        expect(r.status).toBe('error');
        expect(readText(path.join(root, 'n.txt'))).toBe('a\n');
    });
});

describe('diff after an edit (package option showDiff)', () => {
    it('is off by default', async () => {
        const { root, tool } = await setup({ 'f.txt': 'a\nb\n' });
        const r = await one(tool('replace_file_lines'), { path: 'f.txt', content: 'B', start_line: 2 });
        expect(r.result).toBe(`Replaced lines 2-2 in ${root}/f.txt`);
    });

    it('follows the confirmation with line-numbered hunks for each edit tool', async () => {
        const { root, tool } = await setup({ 'f.txt': 'a\nb\nc\nd\n' }, { packageOptions: { showDiff: true } });
        expect((await one(tool('replace_file_lines'), { path: 'f.txt', content: 'B', start_line: 2 })).result).toBe(
            `Replaced lines 2-2 in ${root}/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c`,
        );
        expect((await one(tool('insert_file_content'), { path: 'f.txt', content: 'new', line: 4 })).result).toBe(
            `Inserted content at line 4 in ${root}/f.txt\n@@ -3,2 +3,3 @@\n c\n+new\n d`,
        );
        expect((await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'd', new_content: 'D' })).result).toBe(
            `Replaced content in ${root}/f.txt\n@@ -4,2 +4,2 @@\n new\n-d\n+D`,
        );
    });

    it('is bounded in lines', async () => {
        const text = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n') + '\n';
        const { tool } = await setup({ 'f.txt': text }, { packageOptions: { showDiff: true } });
        const r = await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'line', new_content: 'LINE', replace_all: true });
        const lines = r.result.split('\n');
        expect(lines).toHaveLength(1 + 40 + 1);
        expect(lines.at(-1)).toMatch(/^\[\.\.\. \d+ more diff lines\]$/);
    });
});

describe('LLM_CHAT_FS_EDIT_DIFF', () => {
    it('turns the diff on for tools built without the package option, and the option beats it', async () => {
        const { ReplaceFileContentTool, ReadFileTool, Workspace, AccessType } = await import('../../../src/index.js');
        const { tempDir, writeTree } = await import('../../support/helpers.js');
        const root = tempDir();
        writeTree(root, { 'f.txt': 'a\nb\n' });
        const saved = process.env.LLM_CHAT_FS_EDIT_DIFF;
        process.env.LLM_CHAT_FS_EDIT_DIFF = 'true';
        try {
            const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: root }] });
            await new ReadFileTool(ws).execute({ paths: ['f.txt'] });
            const [r] = await new ReplaceFileContentTool(ws).execute({ path: 'f.txt', old_content: 'b', new_content: 'B' });
            expect(r!.result).toBe(`Replaced content in ${root}/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B`);
            const off = await setup({ 'g.txt': 'x\n' }, { packageOptions: { showDiff: false } });
            const [g] = await off.tool('replace_file_content').execute({ path: 'g.txt', old_content: 'x', new_content: 'y' });
            expect(g!.result).toBe(`Replaced content in ${off.root}/g.txt`);
        } finally {
            if (saved === undefined) delete process.env.LLM_CHAT_FS_EDIT_DIFF;
            else process.env.LLM_CHAT_FS_EDIT_DIFF = saved;
        }
    });
});
