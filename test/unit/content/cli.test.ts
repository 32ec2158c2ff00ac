/**
 * The command line prints a result's content parts: text as it is, a one-line summary (kind,
 * MIME type, size) for an image or a binary resource. The catalog is extended with the test
 * tool `show_image` so that `main` runs it as it runs any tool.
 */
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/hosts/cli/main.js';
import { tempDir } from '../../support/helpers.js';
import { PDF_BYTES, PNG_BYTES } from '../../support/content-parts-fixture.js';

vi.mock('../../../src/tools/catalog.js', async (importOriginal) => {
    const catalog = await importOriginal<typeof import('../../../src/tools/catalog.js')>();
    const TEST_TOOL = 'show_image' as import('../../../src/tools/catalog.js').ToolName;
    return {
        ...catalog,
        REFERENCE_TOOL_NAMES: [...catalog.REFERENCE_TOOL_NAMES, TEST_TOOL],
        isToolName: (name: string) => name === TEST_TOOL || catalog.isToolName(name),
        loadToolClass: async (name: import('../../../src/tools/catalog.js').ToolName) =>
            name === TEST_TOOL ? (await import('../../support/content-parts-fixture.js')).ShowImageTool : catalog.loadToolClass(name),
    };
});

async function run(args: string[]): Promise<{ code: number; stdout: string }> {
    let stdout = '';
    const code = await main(['--write', tempDir('lcf-parts-cli-'), ...args], { out: (t) => (stdout += `${t}\n`), err: (t) => (stdout += `stderr: ${t}\n`), stdin: () => '' });
    return { code, stdout };
}

describe('llm-chat-file command line, content parts', () => {
    it('prints text parts as they are and a summary line for the image and the PDF', async () => {
        expect(await run(['show_image', '{}'])).toEqual({
            code: 0,
            stdout: [
                'A red dot:',
                `[image image/png, ${PNG_BYTES} bytes]`,
                '--- file:///project/notes.md (text/markdown) ---',
                '# Notes',
                'none',
                `[resource file:///project/report.pdf, application/pdf, ${PDF_BYTES} bytes]`,
                '',
            ].join('\n'),
        });
    });

    it('prints a text result as before', async () => {
        expect(await run(['show_image', '{"text_only":true}'])).toEqual({ code: 0, stdout: 'A red dot.\n' });
    });
});
