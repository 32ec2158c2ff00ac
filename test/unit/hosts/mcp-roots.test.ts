/**
 * MCP roots as accesses (`createMcpServer(pkg, { roots: true })`, the CLI's `mcp --roots`): the
 * official MCP client offers roots in memory; the server's accesses follow them, with the same
 * access rules, and only when asked to.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMcpServer } from '../../../src/hosts/mcp/server.js';
import { makePackage, tempDir, writeTree } from '../../support/helpers.js';

type Text = { content: { type: string; text: string }[]; isError?: boolean };

async function connect(configured: string, roots: string[] | undefined, serverRoots: boolean) {
    const { pkg } = makePackage(configured);
    const reports: string[] = [];
    const server = createMcpServer(pkg, { roots: serverRoots, onRootsError: (m) => reports.push(m) });
    let current = roots ?? [];
    const client = new Client({ name: 'roots-test', version: '1' }, roots ? { capabilities: { roots: { listChanged: true } } } : {});
    if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: current.map((uri) => ({ uri })) }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const call = async (name: string, args: Record<string, unknown>): Promise<Text> => (await client.callTool({ name, arguments: args })) as Text;
    const setRoots = async (next: string[]): Promise<void> => {
        current = next;
        await client.sendRootsListChanged();
    };
    return { pkg, client, call, setRoots, reports };
}

const url = (dir: string): string => pathToFileURL(dir).href;

describe('MCP roots as accesses', () => {
    it('are ignored unless the server is asked to use them', async () => {
        const configured = tempDir('lcf-roots-cfg-');
        const root = tempDir('lcf-roots-r-');
        const { call, client } = await connect(configured, [url(root)], false);
        const info = (await call('file_access_info', {})).content[0]!.text;
        expect(info).toContain(configured);
        expect(info).not.toContain(root);
        await client.close();
    });

    it("replace the configured accesses: the first root is the workspace, writable; the rest is out of reach", async () => {
        const configured = tempDir('lcf-roots-cfg-');
        const r1 = tempDir('lcf-roots-r1-');
        const r2 = tempDir('lcf-roots-r2-');
        writeTree(configured, { 'secret.txt': 's' });
        const { call, client } = await connect(configured, [url(r1), url(r2)], true);
        const info = (await call('file_access_info', {})).content[0]!.text;
        expect(info).toContain(r1);
        expect(info).toContain(r2);
        expect(info).not.toContain(configured);
        const w = await call('write_file', { path: 'made.txt', content: 'm' });
        expect(w.isError).toBe(false);
        expect(fs.readFileSync(path.join(r1, 'made.txt'), 'utf8')).toBe('m');
        const outside = await call('read_file', { paths: [path.join(configured, 'secret.txt')] });
        expect(outside.isError).toBe(true);
        await client.close();
    });

    it('follow notifications/roots/list_changed', async () => {
        const configured = tempDir('lcf-roots-cfg-');
        const r1 = tempDir('lcf-roots-r1-');
        const r2 = tempDir('lcf-roots-r2-');
        const { call, client, setRoots } = await connect(configured, [url(r1)], true);
        expect((await call('file_access_info', {})).content[0]!.text).toContain(r1);
        await setRoots([url(r2)]);
        const info = (await call('file_access_info', {})).content[0]!.text;
        expect(info).toContain(r2);
        expect(info).not.toContain(r1);
        await client.close();
    });

    it('skip roots that are not existing directories, and keep the configured accesses when none is left', async () => {
        const configured = tempDir('lcf-roots-cfg-');
        const base = tempDir('lcf-roots-base-');
        writeTree(base, { 'file.txt': 'f' });
        const { call, client, reports } = await connect(configured, [url(path.join(base, 'missing')), url(path.join(base, 'file.txt')), 'file://other-host/x'], true);
        const info = (await call('file_access_info', {})).content[0]!.text;
        expect(info).toContain(configured);
        expect(reports.join('\n')).toContain('no such directory');
        expect(reports.join('\n')).toContain('not a directory');
        expect(reports.join('\n')).toContain('not a local file:// URI');
        await client.close();
    });

    it('keep the access rules: a symlink in a root pointing outside grants nothing', async () => {
        const configured = tempDir('lcf-roots-cfg-');
        const root = tempDir('lcf-roots-r-');
        const outside = tempDir('lcf-roots-out-');
        writeTree(outside, { 'o.txt': 'outside' });
        fs.symlinkSync(outside, path.join(root, 'link'));
        const { call, client } = await connect(configured, [url(root)], true);
        const r = await call('read_file', { paths: ['link/o.txt'] });
        expect(r.isError).toBe(true);
        const w = await call('write_file', { path: 'link/new.txt', content: 'x' });
        expect(w.isError).toBe(true);
        expect(fs.existsSync(path.join(outside, 'new.txt'))).toBe(false);
        await client.close();
    });

    it('a client without the roots capability leaves the configured accesses', async () => {
        const configured = tempDir('lcf-roots-cfg-');
        const { call, client } = await connect(configured, undefined, true);
        expect((await call('file_access_info', {})).content[0]!.text).toContain(configured);
        await client.close();
    });

    it('apply to a package the server loads after initialize (the CLI start-up path)', async () => {
        const configured = tempDir('lcf-roots-cfg-');
        const root = tempDir('lcf-roots-r-');
        const { pkg } = makePackage(configured);
        let loads = 0;
        let open!: () => void;
        const gate = new Promise<void>((r) => (open = r));
        const server = createMcpServer(
            async () => {
                loads++;
                await gate;
                return pkg;
            },
            { roots: true },
        );
        const client = new Client({ name: 'roots-test', version: '1' }, { capabilities: { roots: { listChanged: true } } });
        client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: url(root) }] }));
        const [a, b] = InMemoryTransport.createLinkedPair();
        await server.connect(a);
        // initialize is answered while the package is still loading; the instructions are the package's tutorial.
        await client.connect(b);
        expect(client.getInstructions()).toBe(pkg.tutorial());
        open();
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(pkg.tools().map((t) => t.name));
        const info = ((await client.callTool({ name: 'file_access_info', arguments: {} })) as Text).content[0]!.text;
        expect(info).toContain(root);
        expect(info).not.toContain(configured);
        expect(loads).toBe(1);
        await client.close();
    });
});
