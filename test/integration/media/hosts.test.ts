/** An image read by read_file, carried by every front end in its own format (the text-only ones get the text line and a note). */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicToolResult, createDispatcher, geminiFunctionResponse, openAiFunctionCallOutput, openAiToolMessage } from '../../../src/index.js';
import { aiSdkTools, type AiSdkToolOutput } from '../../../src/hosts/adapters/ai-sdk.js';
import { makePackage, tempDir, writeTree } from '../../support/helpers.js';
import { image } from '../../support/media-files.js';

async function setup() {
    const root = tempDir('lcf-media-hosts-');
    const png = await image(24, 12, 'png');
    writeTree(root, { 'shot.png': png });
    const fx = makePackage(root);
    const line = `--- ${path.join(root, 'shot.png')} (image: PNG 24x12, sent as is image/png, ${png.length.toLocaleString('en-US')} bytes, about 1 token) ---`;
    return { fx, data: png.toString('base64'), line, results: await createDispatcher(fx.pkg)('read_file', '{"paths":["shot.png"]}') };
}

describe('read_file of an image in each host', () => {
    it('Anthropic: a text block and a base64 image block', async () => {
        const { results, data, line } = await setup();
        expect(anthropicToolResult('t1', results).content).toEqual([
            { type: 'text', text: line },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
        ]);
    });

    it('OpenAI Responses: input_text and input_image; Chat Completions: the text line and a note', async () => {
        const { results, data, line } = await setup();
        expect(openAiFunctionCallOutput('c1', results).output).toEqual([
            { type: 'input_text', text: line },
            { type: 'input_image', image_url: `data:image/png;base64,${data}` },
        ]);
        expect(openAiToolMessage('c1', results).content).toMatch(new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n\\[image image/png, [\\d,]+ bytes: not shown: this host takes text only\\]$`));
    });

    it('Gemini: the text as output and the image as an inline part', async () => {
        const { results, data, line } = await setup();
        expect(geminiFunctionResponse({ name: 'read_file' }, results)).toEqual({
            functionResponse: { name: 'read_file', response: { output: `${line}\n[image image/png, ${Buffer.from(data, 'base64').length} bytes: attached]` }, parts: [{ inlineData: { mimeType: 'image/png', data } }] },
        });
    });

    it('AI SDK: content output with a media part', async () => {
        const { fx, data, line } = await setup();
        const tool = aiSdkTools(fx.pkg)['read_file']!;
        const output = (await tool.execute!({ paths: ['shot.png'] }, { toolCallId: 'x', messages: [] })) as AiSdkToolOutput;
        const model = await tool.toModelOutput!({ toolCallId: 'x', input: { paths: ['shot.png'] }, output });
        expect(JSON.stringify(model)).toContain(data);
        expect(JSON.stringify(model)).toContain(JSON.stringify(line).slice(1, -1));
    });
});
