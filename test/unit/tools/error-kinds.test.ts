/**
 * Error kinds as values that reach the caller: on the tools' results, the dispatcher's results,
 * the MCP result's structured content and the CLI's exit code; worker failure codes map onto the
 * same kinds.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/hosts/cli/main.js';
import { EXIT_CODES, WORKER_FAILURE_KINDS, type ToolErrorKind } from '../../../src/errors/shared/errors.js';
import { createDispatcher, type FileToolResult } from '../../../src/index.js';
import { createMcpServer } from '../../../src/hosts/mcp/server.js';
import { makePackage, snapshot, tempDir, writeTree } from '../../support/helpers.js';

async function cli(cwd: string, argv: string[]): Promise<{ code: number; out: string }> {
    const out: string[] = [];
    const code = await main(['--workspace', cwd, ...argv], { out: (t) => out.push(t), err: (t) => out.push(t), stdin: () => '', cwd });
    return { code, out: out.join('\n') };
}

describe('error kinds', () => {
    it('write_file over an existing file never read is not_read (was mislabelled changed_since_read); changed after a read is changed_since_read', async () => {
        const root = tempDir('lcf-kinds-');
        writeTree(root, { 'a.txt': 'one\n' });
        const fx = makePackage(root);
        const before = snapshot(root);
        const [unread] = (await fx.run('write_file', { path: 'a.txt', content: 'two\n' })) as FileToolResult[];
        expect(unread).toMatchObject({ status: 'error', kind: 'not_read', result: expect.stringMatching(/^File has not been read/) });
        expect(snapshot(root)).toEqual(before);
        await fx.run('read_file', { paths: ['a.txt'] });
        fs.writeFileSync(path.join(root, 'a.txt'), 'changed elsewhere\n');
        const [changed] = (await fx.run('write_file', { path: 'a.txt', content: 'two\n' })) as FileToolResult[];
        expect(changed).toMatchObject({ status: 'error', kind: 'changed_since_read', result: expect.stringMatching(/^File changed since it was last read/) });
        expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('changed elsewhere\n');
        // A new file needs no read: success, no kind.
        const [created] = (await fx.run('write_file', { path: 'b.txt', content: 'b\n' })) as FileToolResult[];
        expect(created!.status).toBe('success');
        expect(created).not.toHaveProperty('kind');
    });

    it('carries each failure kind on the tool results, per item in a bulk read', async () => {
        const root = tempDir('lcf-kinds-');
        const outside = tempDir('lcf-kinds-out-');
        writeTree(root, { 'a.txt': 'a\n', 'bin.dat': Buffer.from([0, 1, 2, 0, 255, 0]), 'dir/x.txt': 'x\n' });
        const fx = makePackage(root);
        const read = (await fx.run('read_file', { paths: ['a.txt', 'missing.txt', path.join(outside, 'o.txt'), 'bin.dat', 'dir'] })) as FileToolResult[];
        expect(read.map((r) => r.kind)).toEqual([undefined, 'not_found', 'outside_access', 'binary', 'wrong_type']);
        const [bad] = (await fx.run('list_directory', { path: 5 })) as FileToolResult[];
        expect(bad!.kind).toBe('invalid_argument');
        const [exists] = (await fx.run('create_folder', { path: 'a.txt' })) as FileToolResult[];
        expect(exists!.status).toBe('error');
        expect(['exists', 'wrong_type']).toContain(exists!.kind);
    });

    it('the dispatcher returns the kind; its own refusals are invalid_argument', async () => {
        const root = tempDir('lcf-kinds-');
        const dispatch = createDispatcher(makePackage(root).pkg);
        expect(await dispatch('read_file', '{"paths":["missing.txt"]}')).toEqual([{ status: 'error', result: expect.stringMatching(/^File not found/), kind: 'not_found' }]);
        expect((await dispatch('no_such_tool', '{}'))[0]!.kind).toBe('invalid_argument');
        expect((await dispatch('read_file', '{not json'))[0]!.kind).toBe('invalid_argument');
        expect((await dispatch('read_file', '[]'))[0]!.kind).toBe('invalid_argument');
        const aborted = AbortSignal.abort();
        expect((await dispatch('read_file', '{"paths":["x"]}', { signal: aborted }))[0]).toMatchObject({ status: 'error', kind: 'cancelled' });
    });

    it("the MCP result's structured content gives each item's status and kind", async () => {
        const root = tempDir('lcf-kinds-');
        writeTree(root, { 'a.txt': 'a\n' });
        const client = new Client({ name: 't', version: '1' });
        const [a, b] = InMemoryTransport.createLinkedPair();
        await Promise.all([createMcpServer(makePackage(root).pkg).connect(a), client.connect(b)]);
        const mixed = await client.callTool({ name: 'read_file', arguments: { paths: ['a.txt', 'missing.txt'] } });
        expect(mixed.isError).toBe(false);
        expect(mixed.structuredContent).toEqual({ results: [{ status: 'success' }, { status: 'error', kind: 'not_found' }] });
        writeTree(root, { 'unread.txt': 'u\n' });
        const refused = await client.callTool({ name: 'write_file', arguments: { path: 'unread.txt', content: 'b' } });
        expect(refused.isError).toBe(true);
        expect(refused.structuredContent).toEqual({ results: [{ status: 'error', kind: 'not_read' }] });
        await client.close();
    });

    it('the CLI exits with the code of the first failed kind; the codes are distinct and documented in --help', async () => {
        const codes = Object.values(EXIT_CODES);
        expect(new Set(codes).size).toBe(codes.length);
        expect(codes).not.toContain(0);
        expect(codes).not.toContain(2);
        const root = tempDir('lcf-kinds-');
        writeTree(root, { 'a.txt': 'a\n' });
        expect((await cli(root, ['read_file', '{"paths":["missing.txt"]}'])).code).toBe(EXIT_CODES.not_found);
        expect((await cli(root, ['write_file', '{"path":"a.txt","content":"b"}'])).code).toBe(EXIT_CODES.not_read);
        expect((await cli(root, ['read_file', '{"paths":[5]}'])).code).toBe(EXIT_CODES.invalid_argument);
        expect((await cli(root, ['read_file', '{"paths":["a.txt"]}'])).code).toBe(0);
        const help = (await cli(root, ['--help'])).out;
        for (const [kind, code] of Object.entries(EXIT_CODES)) expect(help).toContain(`${code} ${kind}`);
    });

    it('every worker failure code maps onto a tool error kind', () => {
        const kinds = new Set<ToolErrorKind>(Object.keys(EXIT_CODES) as ToolErrorKind[]);
        for (const [code, kind] of Object.entries(WORKER_FAILURE_KINDS)) expect(kinds.has(kind), code).toBe(true);
    });
});
