/**
 * Read-before-write as the reference describes it: write_file may create new files unread; an
 * existing file needs an explicit read_file first; a write counts as a read for the next write;
 * edit tools' own reads do not count; a file changed since it was read is refused; a disabled
 * pool lets everything through.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileConfiguration, FilePool } from '../../../src/index.js';
import { makePackage, one, readText, tempDir, writeTree } from '../../support/helpers.js';

const EDITS: { tool: string; args: (p: string) => Record<string, unknown> }[] = [
    { tool: 'write_file', args: (p) => ({ path: p, content: 'written\n' }) },
    { tool: 'replace_file_lines', args: (p) => ({ path: p, content: 'replaced', start_line: 1 }) },
    { tool: 'insert_file_content', args: (p) => ({ path: p, content: 'inserted', line: 1 }) },
    { tool: 'replace_file_content', args: (p) => ({ path: p, old_content: 'original', new_content: 'swapped' }) },
];

function setup(opts: Parameters<typeof makePackage>[1] = {}) {
    const root = tempDir();
    writeTree(root, { 'f.txt': 'original\n' });
    return { root, file: path.join(root, 'f.txt'), ...makePackage(root, opts) };
}

describe('FilePool through the tools', () => {
    it('write_file creates a brand-new file without a read', async () => {
        const { root, tool } = setup();
        expect((await one(tool('write_file'), { path: 'new.txt', content: 'n' })).status).toBe('success');
        expect(readText(path.join(root, 'new.txt'))).toBe('n');
    });

    for (const e of EDITS) {
        it(`${e.tool} refuses an existing file that was not read, telling to call read_file, and changes nothing`, async () => {
            const { tool, file } = setup();
            const r = await one(tool(e.tool), e.args('f.txt'));
            expect(r.status).toBe('error');
            expect(r.result).toContain('read_file');
            expect(r.result).toContain(file);
            expect(readText(file)).toBe('original\n');
        });

        it(`${e.tool} succeeds after read_file`, async () => {
            const { tool, file } = setup();
            await one(tool('read_file'), { paths: ['f.txt'] });
            expect((await one(tool(e.tool), e.args('f.txt'))).status).toBe('success');
            expect(readText(file)).not.toBe('original\n');
        });

        it(`${e.tool} refuses a file changed since it was read, telling to read it again`, async () => {
            const { tool, file } = setup();
            await one(tool('read_file'), { paths: ['f.txt'] });
            fs.writeFileSync(file, 'original\nchanged by someone else\n');
            const future = new Date(Date.now() + 5000);
            fs.utimesSync(file, future, future);
            const r = await one(tool(e.tool), e.args('f.txt'));
            expect(r.status).toBe('error');
            expect(r.result).toMatch(/changed/i);
            expect(r.result).toContain('read_file');
            expect(readText(file)).toBe('original\nchanged by someone else\n');
            // Reading again makes the edit possible.
            await one(tool('read_file'), { paths: ['f.txt'] });
            expect((await one(tool(e.tool), e.args('f.txt'))).status).toBe('success');
        });
    }

    it('a write counts as a read for the next write or edit by any tool', async () => {
        const { tool, file } = setup();
        await one(tool('read_file'), { paths: ['f.txt'] });
        expect((await one(tool('write_file'), { path: 'f.txt', content: 'a\nb\n' })).status).toBe('success');
        expect((await one(tool('write_file'), { path: 'f.txt', content: 'a\nb\nc\n' })).status).toBe('success');
        expect((await one(tool('replace_file_lines'), { path: 'f.txt', content: 'B', start_line: 2 })).status).toBe('success');
        expect((await one(tool('insert_file_content'), { path: 'f.txt', content: 'first', line: 1 })).status).toBe('success');
        expect((await one(tool('replace_file_content'), { path: 'f.txt', old_content: 'c', new_content: 'C' })).status).toBe('success');
        expect(readText(file)).toBe('first\na\nB\nC\n');
    });

    it('a new file created by write_file can be edited right away', async () => {
        const { root, tool } = setup();
        await one(tool('write_file'), { path: 'n.txt', content: 'one\n' });
        expect((await one(tool('insert_file_content'), { path: 'n.txt', content: 'two' })).status).toBe('success');
        expect(readText(path.join(root, 'n.txt'))).toBe('one\ntwo\n');
    });

    it("edit tools' own reads do not count as reads", async () => {
        const { tool, file } = setup();
        // Each edit tool reads the file internally, and fails: none of that counts.
        for (const e of EDITS.slice(1)) expect((await one(tool(e.tool), e.args('f.txt'))).status).toBe('error');
        for (const e of EDITS) expect((await one(tool(e.tool), e.args('f.txt'))).status, e.tool).toBe('error');
        // Listing, searching or inspecting the file do not count either.
        await one(tool('entry_info'), { path: 'f.txt' });
        await one(tool('list_directory'), { path: '.' });
        expect((await one(tool('write_file'), { path: 'f.txt', content: 'x' })).status).toBe('error');
        expect(readText(file)).toBe('original\n');
    });

    it('a batch read counts as a read for each file', async () => {
        const { root, tool } = setup();
        writeTree(root, { 'g.txt': 'g\n' });
        await tool('read_file').execute({ paths: ['f.txt', 'g.txt'] });
        expect((await one(tool('write_file'), { path: 'f.txt', content: 'F' })).status).toBe('success');
        expect((await one(tool('write_file'), { path: 'g.txt', content: 'G' })).status).toBe('success');
    });

    it('a read through a different spelling of the path counts', async () => {
        const { root, tool } = setup();
        await one(tool('read_file'), { paths: [`${root}/./f.txt`] });
        expect((await one(tool('write_file'), { path: 'f.txt', content: 'x' })).status).toBe('success');
    });

    it('a read in one package does not count for another package', async () => {
        const { root, tool } = setup();
        const other = makePackage(root);
        await one(other.tool('read_file'), { paths: ['f.txt'] });
        expect((await one(tool('write_file'), { path: 'f.txt', content: 'x' })).status).toBe('error');
    });

    it('a file deleted and recreated by someone else must be read again', async () => {
        const { tool, file } = setup();
        await one(tool('read_file'), { paths: ['f.txt'] });
        fs.rmSync(file);
        fs.writeFileSync(file, 'recreated\n');
        expect((await one(tool('write_file'), { path: 'f.txt', content: 'x' })).status).toBe('error');
        expect(readText(file)).toBe('recreated\n');
    });

    it('a disabled pool is a no-op: every edit goes through without reads', async () => {
        const { tool, file, pool } = setup({ requireReadBeforeWrite: false });
        expect(pool.enabled).toBe(false);
        expect((await one(tool('write_file'), { path: 'f.txt', content: 'original\n' })).status).toBe('success');
        for (const e of EDITS) {
            // Changed behind the tool's back before every edit: still no refusal.
            fs.writeFileSync(file, `original\nexternal ${e.tool}\n`);
            expect((await one(tool(e.tool), e.args('f.txt'))).status, e.tool).toBe('success');
        }
    });
});

describe('FilePool', () => {
    it('is enabled or disabled by FileConfiguration.requireReadBeforeWrite', () => {
        expect(new FilePool(new FileConfiguration(undefined, undefined, true)).enabled).toBe(true);
        expect(new FilePool(new FileConfiguration(undefined, undefined, false)).enabled).toBe(false);
    });

    it('verifyWrite refuses an unread file, passes after recordRead, refuses after a change', async () => {
        const root = tempDir();
        const file = path.join(root, 'x.txt');
        fs.writeFileSync(file, 'one');
        const pool = new FilePool(new FileConfiguration(undefined, undefined, true));
        expect(await pool.verifyWrite(file)).toMatch(/read_file/);
        await pool.recordRead(file);
        expect(await pool.verifyWrite(file)).toBeNull();
        fs.writeFileSync(file, 'two');
        expect(await pool.verifyWrite(file)).toMatch(/changed/i);
    });

    it('verifyWrite allows a missing file only with allowNew', async () => {
        const root = tempDir();
        const file = path.join(root, 'missing.txt');
        const pool = new FilePool(new FileConfiguration(undefined, undefined, true));
        expect(await pool.verifyWrite(file, { allowNew: true })).toBeNull();
        expect(await pool.verifyWrite(file)).not.toBeNull();
    });

    it('a disabled pool passes every check and records nothing', async () => {
        const root = tempDir();
        const file = path.join(root, 'x.txt');
        fs.writeFileSync(file, 'one');
        const pool = new FilePool(new FileConfiguration(undefined, undefined, false));
        expect(await pool.verifyWrite(file)).toBeNull();
        await pool.recordRead(file);
        expect(pool.has(file)).toBe(false);
    });
});
