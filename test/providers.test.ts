/**
 * Tool definitions per provider, each checked by the provider's own package: OpenAI strict schemas
 * by the `openai` package's `toStrictJsonSchema` (it throws on what strict mode refuses), Gemini
 * declarations by sending them through `@google/genai` to a local HTTP server and reading what
 * the SDK would send to the API, MCP tools by the MCP SDK's result schema. Plus strict-mode
 * calls with `null` for every optional argument, through the dispatcher.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI, type Schema } from '@google/genai';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { toStrictJsonSchema } from 'openai/lib/transform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../src/mcp/server.js';
import {
    AccessType,
    anthropicTools,
    createDispatcher,
    FileTool,
    FileToolPackage,
    Workspace,
    geminiTools,
    openAiResponsesTools,
    openAiStrictSchema,
    openAiTools,
} from '../src/index.js';
import { makePackage, readText, tempDir, writeTree } from './helpers.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { REFERENCE_TOOL_NAMES } from '../src/tools/catalog.js';

function fixture(): { root: string; pkg: ReturnType<typeof makePackage>['pkg'] } {
    const root = tempDir('lcf-providers-');
    writeTree(root, { 'notes.txt': 'alpha\nbeta\nalpha\n', 'src/main.ts': 'export const x = 1; // TODO\n' });
    return { root, pkg: makePackage(root).pkg };
}

const schemas = (pkg: ReturnType<typeof makePackage>['pkg']): [string, Record<string, unknown>][] =>
    pkg.tools().map((t) => [t.name, (t as FileTool<never>).jsonSchema()]);

/** Every key used anywhere in a schema tree, below `properties` names excluded. */
function keywords(schema: unknown, into = new Set<string>()): Set<string> {
    if (Array.isArray(schema)) for (const s of schema) keywords(s, into);
    else if (schema !== null && typeof schema === 'object') {
        for (const [k, v] of Object.entries(schema)) {
            if (k === 'enum') {
                into.add(k);
                continue;
            }
            if (k === 'properties') {
                into.add(k);
                for (const p of Object.values(v as object)) keywords(p, into);
                continue;
            }
            into.add(k);
            keywords(v, into);
        }
    }
    return into;
}

describe('tool schemas', () => {
    it('carry no safe-integer bounds', () => {
        const { pkg } = fixture();
        const text = JSON.stringify(schemas(pkg));
        expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
        expect(text).not.toContain(String(Number.MIN_SAFE_INTEGER));
        // Real bounds stay: context_lines is 0-10.
        const search = Object.fromEntries(schemas(pkg)).search_entries as { properties: Record<string, { minimum?: number; maximum?: number }> };
        expect(search.properties.context_lines).toMatchObject({ minimum: 0, maximum: 10 });
    });
});

describe('OpenAI strict', () => {
    it("fails the openai package's strict check without the strict form (the gap being fixed)", () => {
        const { pkg } = fixture();
        const refused = schemas(pkg).filter(([, s]) => {
            try {
                toStrictJsonSchema(s as never);
                return false;
            } catch {
                return true;
            }
        });
        expect(refused.length).toBeGreaterThan(0);
    });

    it("passes the openai package's toStrictJsonSchema unchanged for every tool", () => {
        const { pkg } = fixture();
        for (const def of openAiTools(pkg, { strict: true })) {
            const strict = def.function.parameters;
            expect(def.function.strict).toBe(true);
            // The helper throws on anything strict mode refuses, and would add what is missing.
            expect(toStrictJsonSchema(strict as never), def.function.name).toEqual(strict);
            const props = strict.properties as Record<string, unknown>;
            expect(strict.required).toEqual(Object.keys(props));
            expect(keywords(strict).has('minLength')).toBe(false);
            expect(keywords(strict).has('default')).toBe(false);
        }
    });

    it('covers optional tools too: edit_file (package option) passes both providers\' checks', async () => {
        const root = tempDir('lcf-providers-edit-');
        const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: root }] }), undefined, undefined, undefined, { editFile: true });
        try {
            const strict = openAiTools(pkg, { strict: true });
            expect(strict.map((d) => d.function.name)).toContain('edit_file');
            for (const d of strict) expect(toStrictJsonSchema(d.function.parameters as never), d.function.name).toEqual(d.function.parameters);
            const gemini = geminiTools(pkg).functionDeclarations.find((d) => d.name === 'edit_file')!;
            for (const k of keywords(gemini.parameters)) expect(Object.keys(GENAI_SCHEMA_FIELDS)).toContain(k);
        } finally {
            await pkg.close();
        }
    });

    it('makes optional properties nullable and keeps required ones as they are', () => {
        const { pkg } = fixture();
        const list = openAiTools(pkg, { strict: true }).find((d) => d.function.name === 'list_directory')!;
        const props = list.function.parameters.properties as Record<string, Record<string, unknown>>;
        expect(props.path!.type).toBe('string');
        expect(props.recursive!.type).toEqual(['boolean', 'null']);
        const search = openAiTools(pkg, { strict: true }).find((d) => d.function.name === 'search_entries')!;
        const sp = search.function.parameters.properties as Record<string, Record<string, unknown>>;
        expect(sp.type).toMatchObject({ type: ['string', 'null'], enum: ['file', 'directory', 'both', null] });
        expect((sp.include!.anyOf as unknown[]).at(-1)).toEqual({ type: 'null' });
    });

    it('gives the Responses API flat strict definitions by default', () => {
        const { pkg } = fixture();
        const defs = openAiResponsesTools(pkg);
        expect(defs).toHaveLength(REFERENCE_TOOL_NAMES.length);
        for (const d of defs) {
            expect(d).toMatchObject({ type: 'function', strict: true });
            expect(toStrictJsonSchema(d.parameters as never)).toEqual(d.parameters);
        }
        expect(openAiResponsesTools(pkg, { strict: false })[0]!.strict).toBe(false);
        // The non-strict form is the tool's own schema, as before.
        expect(openAiTools(pkg)[0]!.function).not.toHaveProperty('strict');
    });

    it('transforms generically: a nested object, a const and a new optional parameter', () => {
        const schema = {
            type: 'object',
            properties: {
                a: { type: 'string', minLength: 1 },
                b: { type: 'object', properties: { c: { type: 'integer', default: 3 } } },
                d: { const: 'x' },
                e: { type: 'array', items: { type: 'string' }, minItems: 1 },
            },
            required: ['a'],
        };
        const strict = openAiStrictSchema(schema);
        expect(toStrictJsonSchema(strict as never)).toEqual(strict);
        expect(strict).toEqual({
            type: 'object',
            properties: {
                a: { type: 'string' },
                b: {
                    type: ['object', 'null'],
                    properties: { c: { type: ['integer', 'null'] } },
                    required: ['c'],
                    additionalProperties: false,
                },
                d: { anyOf: [{ const: 'x' }, { type: 'null' }] },
                e: { type: ['array', 'null'], items: { type: 'string' }, minItems: 1 },
            },
            required: ['a', 'b', 'd', 'e'],
            additionalProperties: false,
        });
    });
});

describe('strict-mode dispatcher run with nulls', () => {
    it('treats null as "not given" for every optional argument of every tool it calls', async () => {
        const { root, pkg } = fixture();
        const dispatch = createDispatcher(pkg);
        const nulls = (name: string, given: Record<string, unknown>): string => {
            const def = openAiTools(pkg, { strict: true }).find((d) => d.function.name === name)!;
            const props = Object.keys(def.function.parameters.properties as object);
            return JSON.stringify(Object.fromEntries(props.map((p) => [p, p in given ? given[p] : null])));
        };
        const search = await dispatch('search_entries', nulls('search_entries', { content_pattern: 'TODO' }));
        expect(search).toEqual([{ status: 'success', result: expect.stringContaining('src/main.ts:1:') }]);
        const list = await dispatch('list_directory', nulls('list_directory', { path: '.' }));
        expect(list[0]!.status).toBe('success');
        expect(list[0]!.result).toContain('notes.txt');
        const read = await dispatch('read_file', nulls('read_file', { paths: ['notes.txt'] }));
        expect(read[0]!.status).toBe('success');
        expect(read[0]!.result).toContain('alpha');
        const insert = await dispatch('insert_file_content', nulls('insert_file_content', { path: 'notes.txt', content: 'gamma' }));
        expect(insert[0]!.status).toBe('success');
        // line: null appends, as an omitted line does.
        expect(readText(`${root}/notes.txt`)).toBe('alpha\nbeta\nalpha\ngamma\n');
        await dispatch('read_file', nulls('read_file', { paths: ['notes.txt'] }));
        const replace = await dispatch('replace_file_content', nulls('replace_file_content', { path: 'notes.txt', old_content: 'alpha', new_content: 'ALPHA' }));
        expect(replace[0]!.status).toBe('success');
        // replace_all: null is the default (first occurrence only).
        expect(readText(`${root}/notes.txt`)).toBe('ALPHA\nbeta\nalpha\ngamma\n');
        const del = await dispatch('delete_file', nulls('delete_file', { path: 'src/main.ts' }));
        expect(del[0]!.status).toBe('success');
    });

    it('still refuses null for a required argument, changing nothing', async () => {
        const { root, pkg } = fixture();
        const dispatch = createDispatcher(pkg);
        const res = await dispatch('write_file', JSON.stringify({ path: null, content: 'x' }));
        expect(res[0]!.status).toBe('error');
        expect(res[0]!.result).toMatch(/path/);
        expect(readText(`${root}/notes.txt`)).toBe('alpha\nbeta\nalpha\n');
    });

    it('lets tools called directly take null the same way', async () => {
        const { pkg } = fixture();
        const list = pkg.tools().find((t) => t.name === 'list_directory')!;
        const [res] = await list.execute({ path: '.', recursive: null });
        expect(res!.status).toBe('success');
    });
});

/** The fields of @google/genai's `Schema` type, checked exhaustively by the type checker. */
const GENAI_SCHEMA_FIELDS = {
    anyOf: true,
    default: true,
    description: true,
    enum: true,
    example: true,
    format: true,
    items: true,
    maxItems: true,
    maxLength: true,
    maxProperties: true,
    maximum: true,
    minItems: true,
    minLength: true,
    minProperties: true,
    minimum: true,
    nullable: true,
    pattern: true,
    properties: true,
    propertyOrdering: true,
    required: true,
    title: true,
    type: true,
} satisfies Record<keyof Schema, true>;

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
        const { geminiSchema } = await import('../src/adapters/schemas.js');
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
