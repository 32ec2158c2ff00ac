/** The command line's read_file of an image: the text line, then a summary line for the image part. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/hosts/cli/main.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { image } from '../../support/media-files.js';

describe('llm-chat-file read_file of an image', () => {
    it('prints the image line and a summary of the image part', async () => {
        const root = tempDir('lcf-media-cli-');
        const png = await image(16, 8, 'png');
        writeTree(root, { 'a.png': png });
        let stdout = '';
        const code = await main(['--read', root, 'read_file', '{"paths":["a.png"]}'], { out: (t) => (stdout += `${t}\n`), err: (t) => (stdout += `stderr: ${t}\n`), stdin: () => '' });
        const size = png.length.toLocaleString('en-US');
        expect({ code, stdout }).toEqual({ code: 0, stdout: `--- ${path.join(root, 'a.png')} (image: PNG 16x8, sent as is image/png, ${size} bytes, about 1 token) ---\n[image image/png, ${size} bytes]\n` });
    });
});
