/** Notebooks: read as numbered cells (outputs summarized, images only when asked), edited by cell number byte for byte, behind the read-before-write guard. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileToolResult } from '../../../src/tools/base.js';
import { notebook } from '../../support/media-files.js';
import { followCutNotes } from '../../support/section-notes.js';
import { makePackage, snapshot, tempDir, writeTree } from '../../support/helpers.js';

const NOTEBOOKS = { packageOptions: { notebooks: true } };

describe('read_file on notebooks', () => {
    it('shows cells with their outputs summarized, never the base64', async () => {
        const root = tempDir('lcf-nb-');
        writeTree(root, { 'nb.ipynb': notebook(4, 3000) });
        const [r] = (await makePackage(root).run('read_file', { paths: ['nb.ipynb'], cells: '1-2' })) as FileToolResult[];
        expect(r!.result).toBe(
            [
                `--- ${path.join(root, 'nb.ipynb')} (notebook (Python 3), cells 1-2 of 4) ---`,
                '[cell 1: markdown]',
                '# Section 1',
                'Some text.',
                '[cell 2: code, executed 2]',
                'x = 2',
                'print(x)',
                '[output 1: stream stdout, 9 characters]',
                'result 2',
                '[output 2: display_data: image/png 3,000 bytes, text/plain 21 characters (images not sent: read_file with cell_images=true sends them)]',
                '<Figure size 640x480>',
            ].join('\n'),
        );
        expect(r!.parts).toBeUndefined();
    });

    it('reads the rest of a cell longer than maxCharsPerFile by following its notes, start_char within the cell', async () => {
        const root = tempDir('lcf-nb-');
        const lines = Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of a long markdown cell, with words enough to make it wide.\n`);
        const nb = { cells: [{ cell_type: 'markdown', id: 'long', metadata: {}, source: lines }, { cell_type: 'code', execution_count: 1, id: 'c2', metadata: {}, outputs: [], source: ['x = 1'] }], metadata: {}, nbformat: 4, nbformat_minor: 5 };
        writeTree(root, { 'nb.ipynb': JSON.stringify(nb) });
        const head = `--- ${path.join(root, 'nb.ipynb')} (notebook, cell 1 of 2) ---\n`;
        // The cell as one read with room for it shows it.
        const [all] = (await makePackage(root, { maxCharsPerFile: 100_000 }).run('read_file', { paths: ['nb.ipynb'], cells: '1' })) as FileToolResult[];
        expect(all!.result.startsWith(`${head}[cell 1: markdown]\n`)).toBe(true);
        const whole = all!.result.slice(`${head}[cell 1: markdown]\n`.length);
        expect(whole.startsWith(lines[0]!)).toBe(true);
        expect(whole.length).toBeGreaterThan(4000);
        const fx = makePackage(root, { maxCharsPerFile: 1000 });
        const got = await followCutNotes(
            async (args) => ((await fx.run('read_file', args)) as FileToolResult[])[0]!,
            { paths: ['nb.ipynb'], cells: '1', max_chars: 5000 },
            { head, marker: '[cell 1: markdown', unit: 'cell 1', param: 'cells="1"', kind: 'notebook', length: whole.length, bound: 1000, calls: 20 },
        );
        expect(got).toBe(whole);
        const [beyond] = (await fx.run('read_file', { paths: ['nb.ipynb'], cells: '1', start_char: whole.length + 1 })) as FileToolResult[];
        expect(beyond).toMatchObject({ status: 'error', result: `Invalid arguments for read_file: start_char ${whole.length + 1} is beyond the end of cell 1 of ${path.join(root, 'nb.ipynb')}, which has ${whole.length} characters.` });
    });

    it('sends the outputs\' images as image parts when asked', async () => {
        const root = tempDir('lcf-nb-');
        writeTree(root, { 'nb.ipynb': notebook(4, 30) });
        const [r] = (await makePackage(root).run('read_file', { paths: ['nb.ipynb'], cells: 'all', cell_images: true })) as FileToolResult[];
        expect(r!.parts?.map((p) => p.type)).toEqual(['text', 'image', 'image']);
        expect(r!.parts![1]).toEqual({ type: 'image', mimeType: 'image/png', data: Buffer.alloc(30, 7).toString('base64') });
    });

    it('keeps the reference\'s text read without cells, and shows cells by default with the notebooks option', async () => {
        const root = tempDir('lcf-nb-');
        const text = notebook(2);
        writeTree(root, { 'nb.ipynb': text });
        const [raw] = await makePackage(root).run('read_file', { paths: ['nb.ipynb'] });
        expect(raw!.result).toBe(`--- ${path.join(root, 'nb.ipynb')} (lines 1-${text.split('\n').length - 1} of ${text.split('\n').length - 1}) ---\n${text}`);
        const [cells] = await makePackage(root, NOTEBOOKS).run('read_file', { paths: ['nb.ipynb'] });
        expect(cells!.result).toMatch(/^--- .*nb\.ipynb \(notebook \(Python 3\), cells 1-2 of 2\) ---\n\[cell 1: markdown\]/);
    });

    it('a notebook of 200 cells with image outputs: the cell view is under 10% of the file', async () => {
        const root = tempDir('lcf-nb-');
        const text = notebook(200, 20_000);
        writeTree(root, { 'nb.ipynb': text });
        const [r] = await makePackage(root, { maxCharsPerFile: 1_000_000 }).run('read_file', { paths: ['nb.ipynb'], cells: 'all' });
        expect(r!.result).toContain('cells 1-200 of 200');
        expect(r!.result.length / text.length).toBeLessThan(0.1);
    });

    it('refuses cells of a file that is no notebook, a notebook that is no JSON, and cells beyond the end', async () => {
        const root = tempDir('lcf-nb-');
        writeTree(root, { 'a.txt': 'x\n', 'bad.ipynb': '{"cells": [', 'list.ipynb': '[1, 2]', 'nb.ipynb': notebook(2) });
        const fx = makePackage(root);
        const [txt, bad, list, beyond] = await Promise.all([
            fx.run('read_file', { paths: ['a.txt'], cells: '1' }),
            fx.run('read_file', { paths: ['bad.ipynb'], cells: '1' }),
            fx.run('read_file', { paths: ['list.ipynb'], cells: '1' }),
            fx.run('read_file', { paths: ['nb.ipynb'], cells: '3' }),
        ]);
        expect(txt![0]!.result).toBe(`Invalid arguments for read_file: cells applies to Jupyter notebooks (.ipynb); ${path.join(root, 'a.txt')} is not one (leave out cells for it).`);
        expect(bad![0]!.result).toMatch(/^Cannot read notebook: .*bad\.ipynb is not valid JSON \(.+\); read it as text with read_file and without cells\.$/);
        expect(list![0]!.result).toMatch(/list\.ipynb has no "cells" list/);
        expect(beyond![0]!.result).toBe('Invalid arguments for read_file: cells: cell 3 is beyond the end: there are 2 cells.');
    });
});

describe('edit_notebook', () => {
    async function setup(text = notebook(3)) {
        const root = tempDir('lcf-nb-edit-');
        writeTree(root, { 'nb.ipynb': text });
        const fx = makePackage(root, NOTEBOOKS);
        const file = path.join(root, 'nb.ipynb');
        return { root, fx, file, text, edit: async (args: Record<string, unknown>) => (await fx.run('edit_notebook', { path: 'nb.ipynb', ...args }))[0]! };
    }

    it('is there only with the notebooks option', () => {
        const root = tempDir('lcf-nb-');
        expect(makePackage(root).pkg.tools().map((t) => t.name)).not.toContain('edit_notebook');
        expect(makePackage(root, NOTEBOOKS).pkg.tools().map((t) => t.name)).toContain('edit_notebook');
    });

    it('refuses an edit before a read, and changes nothing', async () => {
        const { root, edit } = await setup();
        const before = snapshot(root);
        expect(await edit({ action: 'delete', cell: 1 })).toMatchObject({ status: 'error', kind: 'not_read' });
        expect(snapshot(root)).toEqual(before);
    });

    it('replaces a cell\'s source, changing only its bytes', async () => {
        const { fx, file, text, edit } = await setup();
        await fx.run('read_file', { paths: ['nb.ipynb'] });
        expect((await edit({ action: 'replace', cell: 2, source: 'y = "two"\nprint(y)' })).result).toBe(`Replaced the source of cell 2 (code) in ${file}; it has 3 cells.`);
        const after = fs.readFileSync(file, 'utf8');
        expect(after).toBe(text.replace('"x = 2\\n"', '"y = \\"two\\"\\n"').replace('"print(x)"', '"print(y)"'));
        expect(JSON.parse(after).cells[1].source).toEqual(['y = "two"\n', 'print(y)']);
    });

    it('inserts and deletes cells, keeping every other byte', async () => {
        const { fx, file, text, edit } = await setup();
        await fx.run('read_file', { paths: ['nb.ipynb'] });
        expect((await edit({ action: 'insert', cell: 2, cell_type: 'markdown', source: '## New' })).result).toBe(`Inserted cell 2 (markdown) in ${file}; it has 4 cells.`);
        const inserted = JSON.parse(fs.readFileSync(file, 'utf8'));
        expect(inserted.cells.map((c: { cell_type: string }) => c.cell_type)).toEqual(['markdown', 'markdown', 'code', 'markdown']);
        expect(inserted.cells[1]).toMatchObject({ cell_type: 'markdown', metadata: {}, source: ['## New'], id: expect.any(String) });
        expect((await edit({ action: 'delete', cell: 2 })).result).toBe(`Deleted cell 2 (markdown) in ${file}; it has 3 cells.`);
        expect(fs.readFileSync(file, 'utf8')).toBe(text);
        await edit({ action: 'insert', cell: 4, source: 'z = 4' });
        const appended = JSON.parse(fs.readFileSync(file, 'utf8'));
        expect(appended.cells[3]).toMatchObject({ cell_type: 'code', execution_count: null, outputs: [], source: ['z = 4'] });
        await edit({ action: 'delete', cell: 4 });
        expect(fs.readFileSync(file, 'utf8')).toBe(text);
    });

    it('refuses bad cells and bad files with clear errors, changing nothing', async () => {
        const { root, fx, edit } = await setup();
        writeTree(root, { 'bad.ipynb': '{"cells": [', 'a.txt': 'x\n' });
        await fx.run('read_file', { paths: ['nb.ipynb', 'bad.ipynb', 'a.txt'] });
        const before = snapshot(root);
        expect((await edit({ action: 'delete', cell: 4 })).result).toBe('Invalid arguments for edit_notebook: cell 4 is beyond the end: the notebook has 3 cells.');
        expect((await edit({ action: 'insert', cell: 5, source: 'x' })).result).toBe('Invalid arguments for edit_notebook: cell 5 is beyond the end: the notebook has 3 cells; cell 4 appends.');
        expect((await edit({ action: 'replace', cell: 1 })).result).toMatch(/^Invalid arguments for edit_notebook: source: replace and insert need source/);
        // A notebook that is no JSON cannot be read as cells: edited without the guard, it is still refused.
        const unguarded = makePackage(root, { ...NOTEBOOKS, requireReadBeforeWrite: false });
        expect((await unguarded.run('edit_notebook', { path: 'bad.ipynb', action: 'delete', cell: 1 }))[0]!.result).toMatch(/^Cannot read notebook: bad\.ipynb is not valid JSON/);
        expect((await fx.run('edit_notebook', { path: 'a.txt', action: 'delete', cell: 1 }))[0]!.result).toBe('Invalid arguments for edit_notebook: a.txt is not a Jupyter notebook (.ipynb); use the text edit tools for it.');
        expect(snapshot(root)).toEqual(before);
    });
});
