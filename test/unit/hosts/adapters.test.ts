/**
 * The framework adapters: OpenAI function-calling definitions and dispatcher, and the Vercel AI
 * SDK tool set (called directly and through `generateText` with the SDK's mock model).
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdkTools } from '../../../src/hosts/adapters/ai-sdk.js';
import { createDispatcher, FileTool, openAiTools } from '../../../src/index.js';
import { makePackage, readText, tempDir, writeTree } from '../../support/helpers.js';
import { REFERENCE_TOOL_NAMES } from '../../../src/tools/catalog.js';

const EXEC = { toolCallId: 'call-1', messages: [] };

function fixture(): { root: string; pkg: ReturnType<typeof makePackage>['pkg'] } {
    const root = tempDir('lcf-adapters-');
    writeTree(root, { 'notes.txt': 'alpha\nbeta\n', 'src/main.ts': 'export const x = 1; // TODO\n' });
    return { root, pkg: makePackage(root).pkg };
}

describe('openAiTools', () => {
    it('keeps every tool as an OpenAI function definition with its JSON schema', () => {
        const { pkg } = fixture();
        const defs = openAiTools(pkg);
        expect(defs.map((d) => d.function.name)).toEqual(pkg.tools().map((t) => t.name));
        expect(defs.map((d) => d.function.name)).toEqual([...REFERENCE_TOOL_NAMES]);
        for (const d of defs) {
            const tool = pkg.tools().find((t) => t.name === d.function.name) as FileTool<never>;
            expect(d.type).toBe('function');
            expect(d.function.description).toBe(tool.description);
            expect(d.function.parameters).toEqual(tool.jsonSchema());
            expect(d.function.parameters.type).toBe('object');
        }
        // Plain JSON: what is sent over the wire is what is defined.
        expect(JSON.parse(JSON.stringify(defs))).toEqual(defs);
    });
});

describe('createDispatcher', () => {
    it('runs a tool from its JSON arguments, one result per item', async () => {
        const { root, pkg } = fixture();
        const dispatch = createDispatcher(pkg);
        const results = await dispatch('read_file', JSON.stringify({ paths: ['notes.txt', 'missing.txt'] }));
        expect(results).toEqual([
            { status: 'success', result: `--- ${path.join(root, 'notes.txt')} (lines 1-2 of 2) ---\nalpha\nbeta\n` },
            { status: 'error', result: expect.stringMatching(/^File not found/), kind: 'not_found' },
        ]);
    });

    it('keeps the read-before-write rule across dispatched calls', async () => {
        const { root, pkg } = fixture();
        const dispatch = createDispatcher(pkg);
        const edit = JSON.stringify({ path: 'notes.txt', content: 'BETA', start_line: 2 });
        const [refused] = await dispatch('replace_file_lines', edit);
        expect(refused).toMatchObject({ status: 'error', result: expect.stringMatching(/read_file/) });
        await dispatch('read_file', '{"paths":["notes.txt"]}');
        expect(await dispatch('replace_file_lines', edit)).toEqual([{ status: 'success', result: `Replaced lines 2-2 in ${path.join(root, 'notes.txt')}` }]);
        expect(readText(path.join(root, 'notes.txt'))).toBe('alpha\nBETA\n');
    });

    it('rejects bad JSON, non-object arguments and unknown tools as error results, never throwing', async () => {
        const { pkg } = fixture();
        const dispatch = createDispatcher(pkg);
        const [badJson] = await dispatch('read_file', '{"paths": [');
        expect(badJson).toMatchObject({ status: 'error', result: expect.stringMatching(/not valid JSON/) });
        // No example parameter that read_file does not have.
        expect(badJson!.result).toMatch(/Send a JSON object of the tool's arguments by name, as its schema describes them\.$/);
        const [array] = await dispatch('read_file', '["notes.txt"]');
        expect(array).toMatchObject({ status: 'error', result: expect.stringMatching(/expected a JSON object/) });
        const [unknown] = await dispatch('rm_rf', '{}');
        expect(unknown).toMatchObject({ status: 'error', result: expect.stringMatching(/Unknown tool.*read_file/) });
        const [invalid] = await dispatch('read_file', '{"paths": 42}');
        expect(invalid).toMatchObject({ status: 'error', result: expect.stringMatching(/paths/) });
    });

    it('passes the caller\'s signal down: an aborted call does not run', async () => {
        const { root, pkg } = fixture();
        const dispatch = createDispatcher(pkg);
        const [r] = await dispatch('write_file', '{"path":"new.txt","content":"x"}', { signal: AbortSignal.abort() });
        expect(r).toMatchObject({ status: 'error', result: expect.stringMatching(/^Cancelled/) });
        expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
    });

    it('treats empty or missing arguments as {}', async () => {
        const { root, pkg } = fixture();
        const dispatch = createDispatcher(pkg);
        for (const args of ['', undefined, null]) {
            const [r] = await dispatch('file_access_info', args);
            expect(r).toMatchObject({ status: 'success', result: expect.stringContaining(root) });
        }
    });
});

describe('aiSdkTools (Vercel AI SDK 6)', () => {
    it('builds one SDK tool per file tool, with our JSON schema as input schema', async () => {
        const { pkg } = fixture();
        const tools = aiSdkTools(pkg);
        expect(Object.keys(tools)).toEqual(pkg.tools().map((t) => t.name));
        const read = tools.read_file!;
        expect(read.description).toBe(pkg.tools().find((t) => t.name === 'read_file')!.description);
        const schema = await (read.inputSchema as { jsonSchema: unknown }).jsonSchema;
        expect(schema).toEqual((pkg.tools().find((t) => t.name === 'read_file') as FileTool<never>).jsonSchema());
    });

    it('execute returns the tool text; several results are joined, failed ones marked', async () => {
        const { root, pkg } = fixture();
        const tools = aiSdkTools(pkg);
        expect(await tools.read_file!.execute!({ paths: ['notes.txt'] }, EXEC)).toBe(`--- ${path.join(root, 'notes.txt')} (lines 1-2 of 2) ---\nalpha\nbeta\n`);
        const mixed = (await tools.read_file!.execute!({ paths: ['notes.txt', 'nope.txt'] }, EXEC)) as string;
        expect(mixed).toMatch(/^--- .*notes\.txt[\s\S]*\n\nError: File not found/);
    });

    it('execute throws when the call failed, with the text starting with Error:', async () => {
        const { pkg } = fixture();
        const tools = aiSdkTools(pkg);
        await expect(Promise.resolve(tools.write_file!.execute!({ path: 'notes.txt', content: 'x' }, EXEC))).rejects.toThrow(/^Error: .*read_file/);
    });

    it('runs a model tool call through generateText and sends the text back to the model', async () => {
        const { pkg } = fixture();
        const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
        const model = new MockLanguageModelV3({
            doGenerate: [
                {
                    content: [
                        { type: 'tool-call', toolCallId: 'c1', toolName: 'search_entries', input: JSON.stringify({ content_pattern: 'todo' }) },
                        { type: 'tool-call', toolCallId: 'c2', toolName: 'delete_file', input: JSON.stringify({ path: 'nowhere.txt' }) },
                    ],
                    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
                    usage,
                    warnings: [],
                },
                { content: [{ type: 'text', text: 'Found it.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
            ],
        });
        const result = await generateText({ model, tools: aiSdkTools(pkg), prompt: 'Where is the TODO?', stopWhen: stepCountIs(3) });
        expect(result.text).toBe('Found it.');
        const first = result.steps[0]!;
        expect(first.toolResults).toEqual([expect.objectContaining({ toolName: 'search_entries', output: expect.stringContaining('src/main.ts:1:') })]);
        const errors = first.content.filter((c) => c.type === 'tool-error');
        expect(errors).toHaveLength(1);
        expect(String((errors[0] as { error: unknown }).error)).toMatch(/not found/i);

        // The second model call saw both outcomes: the search text, and the failure as an error.
        const toolMessage = model.doGenerateCalls[1]!.prompt.find((m) => m.role === 'tool')!;
        const outputs = (toolMessage.content as { toolName: string; output: { type: string; value: unknown } }[]).map((p) => [p.toolName, p.output.type]);
        expect(outputs).toEqual([['search_entries', 'text'], ['delete_file', 'error-text']]);
    });
});
