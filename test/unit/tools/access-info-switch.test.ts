import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccessType } from '../../../src/index.js';
import { makePackage, one, readText, tempDir, writeTree } from '../../support/helpers.js';

/** The layout of the reference: two spaces, the path padded to 56, a space, the type right-aligned in 5. */
const line = (p: string, type: 'read' | 'write', current = false): string =>
    `  ${p.padEnd(56)} ${type.padStart(5)}${current ? '  (current workspace)' : ''}`;

describe('file_access_info', () => {
    it('the layout helper reproduces the reference example exactly', () => {
        expect(line('/home/user/project', 'write', true)).toBe(
            '  /home/user/project                                       write  (current workspace)',
        );
        expect(line('/var/log', 'read')).toBe('  /var/log                                                  read');
    });

    it('lists every configured directory with its access, marking the current workspace', async () => {
        const project = tempDir();
        const logs = tempDir();
        const { tool } = makePackage(project, {
            accesses: [{ type: AccessType.Write, path: project }, { type: AccessType.Read, path: logs }],
        });
        const r = await one(tool('file_access_info'), {});
        expect(r).toMatchObject({
            status: 'success',
            result: ['Configured file system access:', line(project, 'write', true), line(logs, 'read')].join('\n'),
        });
    });

    it('moves the mark after switch_workspace', async () => {
        const project = tempDir();
        const other = tempDir();
        const { tool, run } = makePackage(project, {
            accesses: [{ type: AccessType.Write, path: project }, { type: AccessType.Read, path: other }],
        });
        await run('switch_workspace', { path: other });
        const r = await one(tool('file_access_info'), {});
        expect(r.result).toBe(['Configured file system access:', line(project, 'write'), line(other, 'read', true)].join('\n'));
    });

    it('marks the workspace when it is a subdirectory of an access', async () => {
        const project = tempDir();
        fs.mkdirSync(path.join(project, 'sub'));
        const { tool, run } = makePackage(project);
        await run('switch_workspace', { path: 'sub' });
        const r = await one(tool('file_access_info'), {});
        expect(r.status).toBe('success');
        const lines = r.result.split('\n');
        expect(lines[0]).toBe('Configured file system access:');
        expect(lines[1]).toBe(line(project, 'write'));
        const marked = lines.filter((l) => l.includes('(current workspace)'));
        expect(marked).toEqual([line(`${project}/sub`, 'write', true)]);
    });
});

describe('switch_workspace', () => {
    it('switches to a directory and confirms with the absolute path', async () => {
        const root = tempDir();
        fs.mkdirSync(path.join(root, 'pkg'));
        const { tool, ws } = makePackage(root);
        const r = await one(tool('switch_workspace'), { path: 'pkg' });
        expect(r).toMatchObject({ status: 'success', result: `Switched workspace to: ${root}/pkg` });
        expect(ws.path).toBe(`${root}/pkg`);
    });

    it('switches to another configured directory by absolute path, and relative paths follow it', async () => {
        const root = tempDir();
        const another = tempDir();
        writeTree(another, { 'here.txt': 'another\n' });
        const { tool, run } = makePackage(root, {
            accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Write, path: another }],
        });
        expect((await one(tool('switch_workspace'), { path: another })).result).toBe(`Switched workspace to: ${another}`);
        const read = await run('read_file', { paths: ['here.txt'] });
        expect(read[0]!.result).toBe(`--- ${another}/here.txt (lines 1-1 of 1) ---\nanother\n`);
        expect((await run('write_file', { path: 'new.txt', content: 'n' }))[0]!.result).toBe(`Written: ${another}/new.txt`);
        expect(readText(path.join(another, 'new.txt'))).toBe('n');
        expect((await run('list_directory', { path: '.' }))[0]!.result).toBe('here.txt\nnew.txt');
    });

    it('switches into a read-only access, where reads work and writes are refused', async () => {
        const root = tempDir();
        const ro = tempDir();
        writeTree(ro, { 'r.txt': 'r\n' });
        const { run } = makePackage(root, { accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Read, path: ro }] });
        expect((await run('switch_workspace', { path: ro }))[0]!.status).toBe('success');
        expect((await run('read_file', { paths: ['r.txt'] }))[0]!.status).toBe('success');
        const w = await run('write_file', { path: 'w.txt', content: 'x' });
        expect(w[0]!.status).toBe('error');
        expect(fs.existsSync(path.join(ro, 'w.txt'))).toBe(false);
    });

    it('rejects a directory outside the accesses, a file and a missing path, keeping the workspace', async () => {
        const root = tempDir();
        const outside = tempDir();
        writeTree(root, { 'f.txt': '' });
        const { tool, ws } = makePackage(root);
        for (const p of [outside, '..', 'f.txt', 'missing']) {
            const r = await one(tool('switch_workspace'), { path: p });
            expect(r.status, p).toBe('error');
            expect(ws.path).toBe(root);
        }
    });
});
