/**
 * Tool definitions per provider, each checked by the provider's own package: OpenAI strict schemas
 * by the `openai` package's `toStrictJsonSchema` (it throws on what strict mode refuses), Gemini
 * declarations by sending them through `@google/genai` to a local HTTP server and reading what
 * the SDK would send to the API (providers-gemini-mcp.test.ts), MCP tools by the MCP SDK's result
 * schema (there too). Plus strict-mode calls with `null` for every optional argument, through the dispatcher.
 */
import { toStrictJsonSchema } from 'openai/lib/transform';
import { describe, expect, it } from 'vitest';
import {
    AccessType,
    createDispatcher,
    FileToolPackage,
    Workspace,
    geminiTools,
    openAiResponsesTools,
    openAiTools,
} from '../../../src/index.js';
import { openAiStrictSchema } from '../../../src/internals.js';
import { readText, tempDir } from '../../support/helpers.js';
import { fixture, GENAI_SCHEMA_FIELDS, keywords, schemas } from '../../support/providers-fixture.js';
import { REFERENCE_TOOL_NAMES } from '../../../src/tools/catalog.js';

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
