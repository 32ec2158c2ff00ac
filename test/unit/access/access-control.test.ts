/**
 * Access control on every tool: reads inside read or write accesses, writes only inside write
 * accesses; `..` and a sibling sharing a name prefix (`proj2` beside `proj`) are outside; an
 * absolute path like `/src` gets the hint to use "." or a relative path. Refusals change nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { AccessType } from '../../../src/index.js';
import { makePackage, one, snapshot, tempDir, writeTree, type Fixture } from '../../support/helpers.js';

let base: string;
let proj: string;
let proj2: string;
let ro: string;
let fx: Fixture;

beforeEach(async () => {
    base = tempDir('lcf-access-');
    proj = path.join(base, 'proj');
    proj2 = path.join(base, 'proj2');
    ro = path.join(base, 'ro');
    writeTree(base, {
        'proj/in.txt': 'in\n',
        'proj/dir/f.txt': 'f\n',
        'proj2/secret.txt': 'secret\n',
        'proj2/dir/s.txt': 's\n',
        'ro/data.txt': 'data\n',
        'ro/dir/d.txt': 'd\n',
        'outside.txt': 'outside\n',
    });
    fx = makePackage(proj, {
        accesses: [
            { type: AccessType.Write, path: proj },
            { type: AccessType.Read, path: ro },
        ],
    });
    // Everything readable has been read, so the pool never is the reason for a refusal.
    for (const p of ['in.txt', 'dir/f.txt', `${ro}/data.txt`]) await one(fx.tool('read_file'), { paths: [p] });
});

/** Calls for a tool that target `p` (a file path) or `d` (a directory path). */
type Case = { tool: string; args: (file: string, dir: string) => Record<string, unknown> };

const READ_TOOLS: Case[] = [
    { tool: 'read_file', args: (f) => ({ paths: [f] }) },
    { tool: 'list_directory', args: (_f, d) => ({ path: d }) },
    { tool: 'entry_info', args: (f) => ({ path: f }) },
    { tool: 'search_entries', args: (_f, d) => ({ path: d }) },
    { tool: 'switch_workspace', args: (_f, d) => ({ path: d }) },
];

const WRITE_TOOLS: Case[] = [
    { tool: 'write_file', args: (f) => ({ path: f, content: 'changed' }) },
    { tool: 'replace_file_lines', args: (f) => ({ path: f, content: 'changed', start_line: 1 }) },
    { tool: 'insert_file_content', args: (f) => ({ path: f, content: 'changed', line: 1 }) },
    { tool: 'replace_file_content', args: (f) => ({ path: f, old_content: f.includes('secret') ? 'secret' : f.includes('outside') ? 'outside' : 'data', new_content: 'changed' }) },
    { tool: 'create_folder', args: (_f, d) => ({ path: `${d}/newdir` }) },
    { tool: 'delete_file', args: (f) => ({ path: f }) },
    { tool: 'move_file (source)', args: (f) => ({ source: f, destination: 'moved.txt' }) },
    { tool: 'move_file (destination)', args: (_f, d) => ({ source: 'in.txt', destination: `${d}/moved.txt` }) },
];

const toolName = (c: Case): string => c.tool.split(' ')[0]!;

/** Outside paths as a file and a directory, in the spellings the model might use (built per test: `proj2` is set in beforeEach). */
const OUTSIDE: { name: string; file: () => string; dir: () => string }[] = [
    { name: 'sibling sharing a name prefix (absolute)', file: () => `${proj2}/secret.txt`, dir: () => `${proj2}/dir` },
    { name: 'sibling via ..', file: () => '../proj2/secret.txt', dir: () => '../proj2/dir' },
    { name: 'parent via ..', file: () => '../outside.txt', dir: () => '..' },
    { name: '.. hidden inside a path', file: () => 'dir/../../outside.txt', dir: () => 'dir/../..' },
];

describe('access control on every tool', () => {
    for (const c of [...READ_TOOLS, ...WRITE_TOOLS]) {
        for (const o of OUTSIDE) {
            it(`${c.tool} refuses a path outside the accesses: ${o.name}`, async () => {
                expect(o.file().startsWith('undefined')).toBe(false);
                const before = snapshot(base);
                const r = await one(fx.tool(toolName(c)), c.args(o.file(), o.dir()));
                expect(r.status).toBe('error');
                expect(r.result).toMatch(/Access denied|outside|Refused/);
                expect(r.result).not.toContain('secret\n');
                expect(snapshot(base)).toEqual(before);
                expect(fx.ws.path).toBe(proj);
            });
        }

        it(`${c.tool} answers an absolute /src with the hint to use "." or a relative path`, async () => {
            const r = await one(fx.tool(toolName(c)), c.args('/src/index.ts', '/src'));
            expect(r.status).toBe('error');
            expect(r.result).toContain('"."');
            expect(r.result).toMatch(/relative path/);
            expect(r.result).toMatch(/"\.\/src/);
        });
    }

    for (const c of READ_TOOLS) {
        it(`${c.tool} reads inside the write access and inside the read access`, async () => {
            expect((await one(fx.tool(c.tool), c.args('in.txt', 'dir'))).status).toBe('success');
            if (c.tool === 'switch_workspace') await one(fx.tool('switch_workspace'), { path: proj });
            expect((await one(fx.tool(c.tool), c.args(`${ro}/data.txt`, `${ro}/dir`))).status).toBe('success');
        });
    }

    for (const c of WRITE_TOOLS) {
        it(`${c.tool} refuses to write inside a read-only access, naming it read-only`, async () => {
            const before = snapshot(base);
            const r = await one(fx.tool(toolName(c)), c.args(`${ro}/data.txt`, `${ro}/dir`));
            expect(r.status).toBe('error');
            expect(r.result).toMatch(/read-only|writable/);
            expect(snapshot(base)).toEqual(before);
        });
    }

    it('write tools succeed inside the write access', async () => {
        const run = async (tool: string, args: Record<string, unknown>) => (await one(fx.tool(tool), args)).status;
        expect(await run('write_file', { path: 'new.txt', content: 'n\n' })).toBe('success');
        expect(await run('replace_file_lines', { path: 'in.txt', content: 'x', start_line: 1 })).toBe('success');
        expect(await run('insert_file_content', { path: 'in.txt', content: 'y', line: 1 })).toBe('success');
        expect(await run('replace_file_content', { path: 'in.txt', old_content: 'x', new_content: 'z' })).toBe('success');
        expect(await run('create_folder', { path: 'made' })).toBe('success');
        expect(await run('move_file', { source: 'new.txt', destination: 'made/new.txt' })).toBe('success');
        expect(await run('delete_file', { path: 'made', recursive: true })).toBe('success');
        expect(fs.readFileSync(path.join(proj, 'in.txt'), 'utf8')).toBe('y\nz\n');
    });

    it('refuses a move out of a read-only access (the source would be deleted)', async () => {
        const before = snapshot(base);
        const r = await one(fx.tool('move_file'), { source: `${ro}/data.txt`, destination: 'stolen.txt' });
        expect(r.status).toBe('error');
        expect(snapshot(base)).toEqual(before);
    });

    it('refuses to read through a symlink inside the workspace that points outside', async () => {
        fs.symlinkSync(path.join(proj2, 'secret.txt'), path.join(proj, 'link.txt'));
        fs.symlinkSync(path.join(proj2, 'dir'), path.join(proj, 'linkdir'));
        const r = await one(fx.tool('read_file'), { paths: ['link.txt'] });
        expect(r.status).toBe('error');
        expect(r.result).not.toContain('secret');
        expect((await one(fx.tool('list_directory'), { path: 'linkdir' })).status).toBe('error');
        const before = snapshot(base);
        expect((await one(fx.tool('write_file'), { path: 'linkdir/x.txt', content: 'x' })).status).toBe('error');
        expect(snapshot(base)).toEqual(before);
    });

    it('file_access_info lists only the configured accesses', async () => {
        const r = await one(fx.tool('file_access_info'), {});
        expect(r.result).toContain(proj);
        expect(r.result).toContain(ro);
        expect(r.result).not.toContain(proj2);
    });
});
