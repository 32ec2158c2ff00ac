/**
 * Provider variants checked by the providers' own packages, continued from providers.test.ts:
 * Gemini (`@google/genai`'s conversion and request), Anthropic and MCP (the SDK's schema).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicTools, geminiTools } from '../../../src/index.js';
import { createMcpServer } from '../../../src/hosts/mcp/server.js';
import { REFERENCE_TOOL_NAMES } from '../../../src/tools/catalog.js';
import { fixture, GENAI_SCHEMA_FIELDS, keywords, schemas } from '../../support/providers-fixture.js';

describe('Gemini', () => {
    let server: http.Server;
    let baseUrl = '';
    const bodies: Record<string, unknown>[] = [];
    beforeAll(async () => {
        server = http.createServer((req, res) => {
            let body = '';
            req.on('data', (c: Buffer) => (body += c.toString()));
            req.on('end', () => {
                bodies.push(JSON.parse(body) as Record<string, unknown>);
                res.writeHead(200, { 'content-type': 'application/json' });
                res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] } }] }));
            });
        });
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
        baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    /** The function declarations @google/genai sends for `declarations`. */
    async function sent(declarations: unknown[]): Promise<{ name: string; parameters: Record<string, unknown> }[]> {
        const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl } });
        bodies.length = 0;
        await ai.models.generateContent({
            model: 'gemini-2.5-flash',
            contents: 'hi',
            config: { tools: [{ functionDeclarations: structuredClone(declarations) as never }] },
        });
        const tools = bodies[0]!.tools as { functionDeclarations: { name: string; parameters: Record<string, unknown> }[] }[];
        return tools[0]!.functionDeclarations;
    }

    it("are what @google/genai makes of the tools' JSON schemas, and it sends them unchanged", async () => {
        const { pkg } = fixture();
        const ours = geminiTools(pkg).functionDeclarations;
        expect(ours).toHaveLength(REFERENCE_TOOL_NAMES.length);
        // The SDK's conversion of the plain JSON schemas is ours ...
        const converted = await sent(schemas(pkg).map(([name, s]) => ({ name, description: 'd', parameters: s })));
        expect(converted.map((d) => d.parameters)).toEqual(ours.map((d) => d.parameters));
        // ... and it finds nothing to change in ours.
        const again = await sent(ours);
        expect(again.map((d) => d.parameters)).toEqual(ours.map((d) => d.parameters));
    });

    it('use only fields of the Schema type: no additionalProperties', () => {
        const { pkg } = fixture();
        for (const d of geminiTools(pkg).functionDeclarations) {
            for (const k of keywords(d.parameters)) expect(Object.keys(GENAI_SCHEMA_FIELDS), `${d.name}: ${k}`).toContain(k);
            expect(d.parameters.type).toBe('OBJECT');
        }
    });

    it('turn a nullable JSON schema property into nullable, as the SDK does', async () => {
        const json = { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] }, b: { type: ['integer', 'null'] } } };
        const { geminiSchema } = await import('../../../src/hosts/adapters/schemas.js');
        const [converted] = await sent([{ name: 'x', description: 'd', parameters: json }]);
        expect(geminiSchema(json)).toEqual(converted!.parameters);
        expect(geminiSchema(json)).toEqual({
            type: 'OBJECT',
            properties: { a: { nullable: true, type: 'STRING' }, b: { nullable: true, type: 'INTEGER' } },
        });
    });
});

describe('Anthropic and MCP', () => {
    it('Anthropic tools carry the JSON schema as input_schema', () => {
        const { pkg } = fixture();
        const defs = anthropicTools(pkg);
        expect(defs.map((d) => d.name)).toEqual(pkg.tools().map((t) => t.name));
        for (const [i, [, s]] of schemas(pkg).entries()) {
            expect(defs[i]!.input_schema).toEqual(s);
            expect(defs[i]!.input_schema.type).toBe('object');
        }
    });

    it("MCP tools/list passes the MCP SDK's result schema", async () => {
        const { pkg } = fixture();
        const server = createMcpServer(pkg);
        const client = new Client({ name: 't', version: '1' });
        const [a, b] = InMemoryTransport.createLinkedPair();
        await Promise.all([server.connect(a), client.connect(b)]);
        const listed = await client.listTools();
        expect(ListToolsResultSchema.parse(listed).tools).toHaveLength(REFERENCE_TOOL_NAMES.length);
        expect(JSON.stringify(listed)).not.toContain(String(Number.MAX_SAFE_INTEGER));
        const call = await client.callTool({ name: 'list_directory', arguments: { path: '.', recursive: null } });
        expect(call.isError).toBe(false);
        await client.close();
    });
});
