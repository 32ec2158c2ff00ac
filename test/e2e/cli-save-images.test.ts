/**
 * `llm-chat-file --save-images DIR read_file ...` as a subprocess: each image part written to a
 * new file in DIR (never over an existing one, mode 0600), its path in the summary line; a bad
 * DIR is a usage error before any call, and nothing is written.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHILD_NODE_ARGS, childModule } from '../support/child-source.js';
import { snapshot, tempDir, writeTree } from '../support/helpers.js';
import { image } from '../support/media-files.js';

function cli(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LLM_CHAT_FS_')));
    return new Promise((resolve) => {
        execFile(process.execPath, [...CHILD_NODE_ARGS, childModule('src/cli.ts'), ...args], { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
            const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0;
            resolve({ code, stdout, stderr });
        });
    });
}

describe('llm-chat-file --save-images', () => {
    it('writes each image to a new file, never over an existing one, and prints its path', async () => {
        const root = tempDir('lcf-save-');
        const png = await image(16, 8, 'png');
        const gif = await image(4, 4, 'gif');
        writeTree(root, { 'a.png': png, 'b.gif': gif, 'out/image-1.png': 'kept' });
        const out = path.join(root, 'out');
        const r = await cli(root, ['--read', root, '--save-images', 'out', 'read_file', '{"paths":["a.png","b.gif","a.png"]}']);
        expect(r.code).toBe(0);
        const saved = [path.join(out, 'image-2.png'), path.join(out, 'image-1.gif'), path.join(out, 'image-3.png')];
        const lines = r.stdout.split('\n').filter((l) => l.startsWith('[image '));
        expect(lines).toEqual([
            `[image image/png, ${png.length.toLocaleString('en-US')} bytes, saved to ${saved[0]}]`,
            `[image image/gif, ${gif.length.toLocaleString('en-US')} bytes, saved to ${saved[1]}]`,
            `[image image/png, ${png.length.toLocaleString('en-US')} bytes, saved to ${saved[2]}]`,
        ]);
        expect(fs.readFileSync(saved[0]!)).toEqual(png);
        expect(fs.readFileSync(saved[1]!)).toEqual(gif);
        expect(fs.readFileSync(path.join(out, 'image-1.png'), 'utf8')).toBe('kept');
        for (const f of saved) expect(fs.statSync(f).mode & 0o777).toBe(0o600);
    });

    it('creates a missing directory with mode 0700', async () => {
        const root = tempDir('lcf-save-');
        writeTree(root, { 'a.png': await image(8, 8, 'png') });
        const r = await cli(root, ['--read', root, '--save-images', 'new/shots', 'read_file', '{"paths":["a.png"]}']);
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(`saved to ${path.join(root, 'new/shots/image-1.png')}]`);
        expect(fs.statSync(path.join(root, 'new/shots')).mode & 0o777).toBe(0o700);
    });

    it('refuses a file as the directory, an empty name and the option without a tool call, writing nothing', async () => {
        const root = tempDir('lcf-save-');
        writeTree(root, { 'a.png': await image(8, 8, 'png'), 'file.txt': 'x' });
        const before = snapshot(root);
        const file = await cli(root, ['--read', root, '--save-images', 'file.txt', 'read_file', '{"paths":["a.png"]}']);
        expect(file).toMatchObject({ code: 2, stdout: '', stderr: 'llm-chat-file: --save-images file.txt: not a directory. Name a directory, not a file.\n' });
        const empty = await cli(root, ['--read', root, '--save-images', '', 'read_file', '{"paths":["a.png"]}']);
        expect(empty).toMatchObject({ code: 2, stderr: 'llm-chat-file: --save-images needs a directory; got an empty string.\n' });
        const tools = await cli(root, ['--save-images', 'out', 'tools']);
        expect(tools.code).toBe(2);
        expect(tools.stderr).toContain('--save-images applies to a tool call only.');
        expect(snapshot(root)).toEqual(before);
    });

    it('never writes through a link planted under a name', async () => {
        const root = tempDir('lcf-save-');
        writeTree(root, { 'a.png': await image(8, 8, 'png'), 'a.txt': 'hello\n' });
        const out = path.join(root, 'out');
        fs.mkdirSync(out);
        fs.symlinkSync(path.join(root, 'nowhere'), path.join(out, 'image-1.png'));
        const r = await cli(root, ['--read', root, '--save-images', 'out', 'read_file', '{"paths":["a.txt","a.png"]}']);
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(`--- ${path.join(root, 'a.txt')} (lines 1-1 of 1) ---\nhello\n`);
        expect(r.stdout).toContain(`saved to ${path.join(out, 'image-2.png')}]`);
        expect(fs.existsSync(path.join(root, 'nowhere'))).toBe(false);
    });
});
