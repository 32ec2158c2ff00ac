/**
 * Content parts in each provider's format: Anthropic's tool_result blocks, OpenAI's tool message
 * (text only) and Responses output list, Gemini's functionResponse parts and the AI SDK's content
 * output. The OpenAI and Gemini items go through the providers' own SDKs to a local server, which
 * shows the SDKs take them and send them as they are.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI, type Part } from '@google/genai';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { aiSdkTools } from '../../../src/hosts/adapters/ai-sdk.js';
import { anthropicToolResult, createDispatcher, geminiFunctionResponse, openAiFunctionCallOutput, openAiToolMessage, type CallResult } from '../../../src/index.js';
import { closePackages, imagePackage, PARTS_TEXT, PDF, PNG } from '../../support/content-parts-fixture.js';

afterEach(closePackages);

/** The results of one `show_image` call (and, with `text_only`, of a text result). */
async function results(args: Record<string, unknown> = {}): Promise<CallResult[]> {
    return createDispatcher(imagePackage())('show_image', JSON.stringify(args));
}

const NOTES = '--- file:///project/notes.md (text/markdown) ---\n# Notes\nnone';

/** Request bodies sent to a local server that answers as OpenAI and Gemini would, minimally. */
let server: http.Server;
let baseUrl = '';
const bodies: Record<string, unknown>[] = [];
beforeAll(async () => {
    server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
            bodies.push(JSON.parse(body) as Record<string, unknown>);
            const answer = req.url!.includes('/responses')
                ? { id: 'r1', object: 'response', output: [], status: 'completed' }
                : req.url!.includes('/chat/completions')
                  ? { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }
                  : { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] } }] };
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(answer));
        });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('Anthropic', () => {
    it('gives a tool_result with text, a base64 image block and a PDF document block', async () => {
        expect(anthropicToolResult('toolu_1', await results())).toEqual({
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [
                { type: 'text', text: 'A red dot:' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
                { type: 'text', text: NOTES },
                { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'file:///project/report.pdf' },
            ],
        });
    });

    it('marks a call whose every result failed, and names an image type the API does not take', async () => {
        const failed = await createDispatcher(imagePackage())('read_file', '{"paths":["missing.txt"]}');
        expect(anthropicToolResult('t', failed)).toEqual({ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: expect.stringMatching(/^Error: File not found/) }], is_error: true });
        const tiff: CallResult = { status: 'success', result: '', parts: [{ type: 'image', data: 'AAAA', mimeType: 'image/tiff' }] };
        expect(anthropicToolResult('t', [tiff]).content).toEqual([{ type: 'text', text: '[image image/tiff, 3 bytes: not shown: Anthropic tool results take no image/tiff]' }]);
    });
});

describe('OpenAI', () => {
    const client = (): OpenAI => new OpenAI({ apiKey: 'test-key', baseURL: `${baseUrl}/v1` });

    it('Chat Completions: a text-only tool message, with a line for each part left out', async () => {
        const message: OpenAI.Chat.ChatCompletionToolMessageParam = openAiToolMessage('call_1', await results());
        expect(message).toEqual({ role: 'tool', tool_call_id: 'call_1', content: PARTS_TEXT });
        expect(openAiToolMessage('call_2', await results({ text_only: true }))).toEqual({ role: 'tool', tool_call_id: 'call_2', content: 'A red dot.' });
        bodies.length = 0;
        await client().chat.completions.create({ model: 'm', messages: [message] });
        expect((bodies[0]!.messages as unknown[])[0]).toEqual(message);
    });

    it('Responses: a function_call_output list with input_text, input_image and input_file', async () => {
        const item: OpenAI.Responses.ResponseInputItem = openAiFunctionCallOutput('call_1', await results());
        expect(item).toEqual({
            type: 'function_call_output',
            call_id: 'call_1',
            output: [
                { type: 'input_text', text: 'A red dot:' },
                { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
                { type: 'input_text', text: NOTES },
                { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF}` },
            ],
        });
        expect(openAiFunctionCallOutput('call_2', await results({ text_only: true }))).toEqual({ type: 'function_call_output', call_id: 'call_2', output: 'A red dot.' });
        bodies.length = 0;
        await client().responses.create({ model: 'm', input: [item] });
        expect((bodies[0]!.input as unknown[])[0]).toEqual(item);
    });
});

describe('Gemini', () => {
    it('gives a functionResponse with the text as output and the image and PDF as inline parts', async () => {
        const part: Part = geminiFunctionResponse({ id: 'fc1', name: 'show_image' }, await results());
        const text = PARTS_TEXT.replace(/: not shown: this host takes text only\]/g, ': attached]');
        expect(part).toEqual({
            functionResponse: {
                id: 'fc1',
                name: 'show_image',
                response: { output: text },
                parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }, { inlineData: { mimeType: 'application/pdf', data: PDF } }],
            },
        });
        expect(geminiFunctionResponse({ name: 'show_image' }, await results({ text_only: true }))).toEqual({ functionResponse: { name: 'show_image', response: { output: 'A red dot.' } } });
        const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl } });
        bodies.length = 0;
        await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: [{ role: 'user', parts: [part] }] });
        expect((bodies[0]!.contents as { parts: unknown[] }[])[0]!.parts[0]).toEqual(part);
    });

    it('puts the text of a call whose every result failed under error', async () => {
        const failed = await createDispatcher(imagePackage())('read_file', '{"paths":["missing.txt"]}');
        expect(geminiFunctionResponse({ name: 'read_file' }, failed).functionResponse.response).toEqual({ error: expect.stringMatching(/^Error: File not found/) });
    });
});

describe('Vercel AI SDK', () => {
    it('sends the parts to the model as content output: text, image-data and file-data', async () => {
        const pkg = imagePackage();
        const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
        const model = new MockLanguageModelV3({
            doGenerate: [
                {
                    content: [
                        { type: 'tool-call', toolCallId: 'c1', toolName: 'show_image', input: '{}' },
                        { type: 'tool-call', toolCallId: 'c2', toolName: 'show_image', input: '{"text_only":true}' },
                    ],
                    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
                    usage,
                    warnings: [],
                },
                { content: [{ type: 'text', text: 'A dot.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
            ],
        });
        const result = await generateText({ model, tools: aiSdkTools(pkg), prompt: 'Show it.', stopWhen: stepCountIs(3) });
        expect(result.text).toBe('A dot.');
        const toolMessage = model.doGenerateCalls[1]!.prompt.find((m) => m.role === 'tool')!;
        const outputs = (toolMessage.content as { output: unknown }[]).map((p) => p.output);
        expect(outputs).toEqual([
            {
                type: 'content',
                value: [
                    { type: 'text', text: 'A red dot:' },
                    { type: 'image-data', data: PNG, mediaType: 'image/png' },
                    { type: 'text', text: NOTES },
                    { type: 'file-data', data: PDF, mediaType: 'application/pdf', filename: 'report.pdf' },
                ],
            },
            { type: 'text', value: 'A red dot.' },
        ]);
        // What execute returned: the text for readers of text, and the parts.
        expect(result.steps[0]!.toolResults.map((r) => r.output)).toEqual([{ text: PARTS_TEXT, parts: expect.any(Array) }, 'A red dot.']);
    });
});
