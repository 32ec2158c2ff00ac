/**
 * One Unicode normal form: names, globs and lines are matched in NFC on both sides
 * (src/search/shared/normal-form.ts), paths print as on disk, and a path given in the other form
 * opens the one entry stored in it (src/access/resolve.ts `matchNormalization`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, snapshot, tempDir, writeTree } from '../../support/helpers.js';
import { pair, same } from '../../support/index-pair.js';

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';

describe('searching across normal forms', () => {
    it('finds NFD names and lines with NFC patterns and globs (and the other way), printing paths as stored, in code-unit order', async () => {
        const root = tempDir();
        writeTree(root, { [`menu/${NFD}.txt`]: `le ${NFD} noir\n`, [`menu/${NFC}-bar.txt`]: `un ${NFC} cr\u00e8me\n`, 'menu/tea.txt': 'tea\n' });
        const fx = makePackage(root);
        const s = (args: Record<string, unknown>) => one(fx.tool('search_entries'), args).then((r) => r.result);
        expect(await s({ name_pattern: NFC })).toBe(`menu/${NFD}.txt\nmenu/${NFC}-bar.txt`);
        expect(await s({ name_pattern: NFD })).toBe(`menu/${NFD}.txt\nmenu/${NFC}-bar.txt`);
        expect(await s({ content_pattern: `${NFC} (noir|cr)` })).toBe(`menu/${NFD}.txt:1: le ${NFD} noir\nmenu/${NFC}-bar.txt:1: un ${NFC} cr\u00e8me`);
        expect(await s({ content_pattern: NFD, literal: true })).toBe(`menu/${NFD}.txt:1: le ${NFD} noir\nmenu/${NFC}-bar.txt:1: un ${NFC} cr\u00e8me`);
        expect(await s({ include: [`**/${NFC}*`] })).toBe(`menu/${NFD}.txt\nmenu/${NFC}-bar.txt`);
        expect(await s({ path: 'menu', exclude: [`${NFC}.txt`] })).toBe(`menu/${NFC}-bar.txt\nmenu/tea.txt`);
        // A pattern without an ASCII run (no byte prefilter): lines are tested one by one.
        expect(await s({ content_pattern: '\u00e9 ' })).toBe(`menu/${NFD}.txt:1: le ${NFD} noir\nmenu/${NFC}-bar.txt:1: un ${NFC} cr\u00e8me`);
        // ASCII patterns are unchanged.
        expect(await s({ name_pattern: '^tea' })).toBe('menu/tea.txt');
    });

    it('answers the same from the index as from the scan path', async () => {
        const p = await pair({ [`${NFD}.md`]: `${NFD} au lait\n`, [`${NFC}.txt`]: `${NFC} noir\n`, 'other.txt': 'nothing\n' });
        expect((await same(p, { content_pattern: NFC })).text).toBe(`success: ${NFD}.md:1: ${NFD} au lait\n${NFC}.txt:1: ${NFC} noir`);
        expect((await same(p, { name_pattern: `^${NFC}` })).text).toBe(`success: ${NFD}.md\n${NFC}.txt`);
    });
});

describe('a path given in the other normal form', () => {
    it('opens, edits, moves and deletes the one entry stored in the other form', async () => {
        const root = tempDir();
        writeTree(root, { [`${NFD}/menu.txt`]: 'one\n' });
        const fx = makePackage(root, { requireReadBeforeWrite: false });
        const read = await one(fx.tool('read_file'), { paths: [`${NFC}/menu.txt`] });
        expect(read.result).toBe(`--- ${root}/${NFD}/menu.txt (lines 1-1 of 1) ---\none\n`);
        expect((await one(fx.tool('write_file'), { path: `${NFC}/menu.txt`, content: 'two\n' })).result).toBe(`Written: ${root}/${NFD}/menu.txt`);
        expect((await one(fx.tool('list_directory'), { path: NFC })).result).toBe(`${NFD}/menu.txt`);
        expect((await one(fx.tool('move_file'), { source: `${NFC}/menu.txt`, destination: `${NFC}/carte.txt` })).result).toBe(`Moved: ${root}/${NFD}/menu.txt -> ${root}/${NFD}/carte.txt`);
        expect((await one(fx.tool('delete_file'), { path: NFC, recursive: true })).result).toBe(`Deleted directory: ${root}/${NFD}`);
        expect(fs.readdirSync(root)).toEqual([]);
    });

    it('is refused when two stored entries match it, naming both, and nothing changes; a new name keeps the form it was given in', async () => {
        const root = tempDir();
        // Three spellings of one letter (e with circumflex and dot below): composed, decomposed,
        // and decomposed with the marks in the other order. Two of them are stored.
        const composed = '\u1ec7.txt';
        const decomposed = 'e\u0323\u0302.txt';
        const other = 'e\u0302\u0323.txt';
        writeTree(root, { [composed]: 'c\n', [decomposed]: 'd\n' });
        const fx = makePackage(root, { requireReadBeforeWrite: false });
        // Both exist: each name is its own entry.
        expect((await one(fx.tool('read_file'), { paths: [composed] })).result).toContain('\nc\n');
        expect((await one(fx.tool('read_file'), { paths: [decomposed] })).result).toContain('\nd\n');
        const before = snapshot(root);
        for (const [tool, args] of [
            ['read_file', { paths: [other] }],
            ['write_file', { path: other, content: 'x' }],
            ['delete_file', { path: other }],
        ] as const) {
            const r = await one(fx.tool(tool), args);
            expect(r.status, tool).toBe('error');
            expect(r.result, tool).toContain(`matches 2 entries whose names differ only in Unicode normalization ("e\\u0323\\u0302.txt", "\\u1ec7.txt"); pass one of them exactly as written here, quotes included.`);
        }
        expect(snapshot(root)).toEqual(before);
        // A name no entry has, in any form, is created as given.
        expect((await one(fx.tool('write_file'), { path: `${NFD}.txt`, content: 'n' })).status).toBe('success');
        expect(fs.readdirSync(root)).toContain(`${NFD}.txt`);
        expect(fs.readdirSync(root)).not.toContain(`${NFC}.txt`);
        void path;
    });
});
