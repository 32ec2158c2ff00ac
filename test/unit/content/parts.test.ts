/**
 * Results as content parts: a tool's image and resources reach every host in its own format
 * (this file: the tool itself, llm-chat's ToolSuite, runTool, the dispatcher and MCP;
 * content-parts-hosts.test.ts: the provider adapters), and text results stay plain strings.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runTool } from '../../../src/hosts/adapters/run.js';
import { base64Size, describePart, omittedLine, textOfParts } from '../../../src/content/parts.js';
import { createDispatcher, ToolSuite } from '../../../src/index.js';
import { createMcpServer } from '../../../src/hosts/mcp/server.js';
import { closePackages, imagePackage, PARTS, PARTS_TEXT, PDF, PDF_BYTES, PNG, PNG_BYTES } from '../../support/content-parts-fixture.js';

afterEach(closePackages);

describe('content parts', () => {
    it('keeps one text part as its text, byte for byte', () => {
        for (const text of ['', 'a', 'line 1\nline 2\n', '\u0000\r\n\u2028 x']) expect(textOfParts([{ type: 'text', text }])).toBe(text);
    });

    it('counts the bytes of base64 data without decoding it', () => {
        for (const n of [0, 1, 2, 3, 4, 100, 12_345]) expect(base64Size(Buffer.alloc(n, 7).toString('base64'))).toBe(n);
    });

    it('names a part left out by kind, MIME type and size, and says why', () => {
        const image = { type: 'image', data: Buffer.alloc(12_345).toString('base64'), mimeType: 'image/png' } as const;
        expect(describePart(image)).toBe('image image/png, 12,345 bytes');
        expect(omittedLine(image)).toBe('[image image/png, 12,345 bytes: not shown: this host takes text only]');
        expect(describePart({ type: 'resource', uri: 'file:///a.bin', blob: 'AAAA' })).toBe('resource file:///a.bin, application/octet-stream, 3 bytes');
    });
});

describe('a tool that returns content parts', () => {
    it('gives llm-chat the text parts and a line for each part left out, and the parts beside them', async () => {
        const tool = imagePackage().tools().find((t) => t.name === 'show_image')!;
        const [r] = await tool.execute({});
        expect(r).toEqual({ tool: 'show_image', status: 'success', result: PARTS_TEXT, parts: PARTS });
    });

    it('adds the lines a call notes after its parts, as after a text result', async () => {
        const tool = imagePackage().tools().find((t) => t.name === 'show_image')!;
        const [withParts] = await tool.execute({ note: 'Note: two names.' });
        expect(withParts).toMatchObject({ result: `${PARTS_TEXT}\nNote: two names.`, parts: [...PARTS, { type: 'text', text: 'Note: two names.' }] });
        const [text] = await tool.execute({ text_only: true, note: 'Note: two names.' });
        expect(text).toStrictEqual({ tool: 'show_image', status: 'success', result: 'A red dot.\nNote: two names.' });
    });

    it("reaches llm-chat's ToolSuite as a string: the host takes text only", async () => {
        const suite = new ToolSuite();
        suite.add(imagePackage());
        const [r] = await suite.executeTool('show_image', '{}');
        expect(r!.result).toBe(PARTS_TEXT);
        expect(r!.result).toContain(`[image image/png, ${PNG_BYTES} bytes: not shown: this host takes text only]`);
    });

    it('carries the parts unchanged through runTool and the dispatcher; a text result has no parts', async () => {
        const pkg = imagePackage();
        const tool = pkg.tools().find((t) => t.name === 'show_image')!;
        expect(await runTool(tool, {})).toEqual([{ status: 'success', result: PARTS_TEXT, parts: PARTS }]);
        const dispatch = createDispatcher(pkg);
        expect(await dispatch('show_image', '{}')).toEqual([{ status: 'success', result: PARTS_TEXT, parts: PARTS }]);
        const [text] = await dispatch('show_image', '{"text_only":true}');
        expect(text).toStrictEqual({ status: 'success', result: 'A red dot.' });
    });
});

describe('MCP', () => {
    async function connect(): Promise<Client> {
        const client = new Client({ name: 't', version: '1' });
        const [a, b] = InMemoryTransport.createLinkedPair();
        await Promise.all([createMcpServer(imagePackage()).connect(a), client.connect(b)]);
        return client;
    }

    it('sends an image part as an image content block and resources as embedded resources', async () => {
        const client = await connect();
        const r = (await client.callTool({ name: 'show_image', arguments: {} })) as CallToolResult;
        expect(CallToolResultSchema.parse(r)).toBeTruthy();
        expect(r.content).toEqual([
            { type: 'text', text: 'A red dot:' },
            { type: 'image', data: PNG, mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'file:///project/notes.md', mimeType: 'text/markdown', text: '# Notes\nnone' } },
            { type: 'resource', resource: { uri: 'file:///project/report.pdf', mimeType: 'application/pdf', blob: PDF } },
        ]);
        expect(Buffer.from((r.content[3] as { resource: { blob: string } }).resource.blob, 'base64')).toHaveLength(PDF_BYTES);
        expect(r.isError).toBe(false);
        expect(r.structuredContent).toEqual({ results: [{ status: 'success', blocks: 4 }] });
        await client.close();
    });

    it('keeps a text result one text block, with the same structured content as before', async () => {
        const client = await connect();
        const r = (await client.callTool({ name: 'show_image', arguments: { text_only: true } })) as CallToolResult;
        expect(r.content).toEqual([{ type: 'text', text: 'A red dot.' }]);
        expect(r.structuredContent).toEqual({ results: [{ status: 'success' }] });
        const failed = (await client.callTool({ name: 'read_file', arguments: { paths: ['missing.txt'] } })) as CallToolResult;
        expect(failed.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Error: File not found/) }]);
        expect(failed.structuredContent).toEqual({ results: [{ status: 'error', kind: 'not_found' }] });
        await client.close();
    });
});
