/**
 * The package without sharp's native part: it loads and every other read works; reading an image
 * fails with a message saying what to install. A child process whose `require('sharp')` throws
 * (a hook preloaded through NODE_OPTIONS, which the pool's threads load too), as on a platform without
 * a prebuilt libvips or after an install that left optional dependencies out.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHILD_NODE_ARGS, childModule, envWithout } from '../support/child-source.js';
import { tempDir } from '../support/helpers.js';
import { image } from '../support/media-files.js';

const run = promisify(execFile);

describe('without sharp', () => {
    it('loads, reads text, and refuses an image with a clear message', async () => {
        const dir = tempDir('lcf-nosharp-');
        fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
        fs.writeFileSync(path.join(dir, 'b.png'), await image(8, 8));
        const script = `
            const { FileToolPackage, Workspace, AccessType } = await import(${JSON.stringify(pathToFileURL(childModule('src/index.ts')).href)});
            const ws = new Workspace({ accesses: [{ type: AccessType.Read, path: ${JSON.stringify(dir)} }], workspacePath: ${JSON.stringify(dir)} });
            const pkg = new FileToolPackage(ws);
            const read = pkg.tools().find((t) => t.name === 'read_file');
            const out = await read.execute({ paths: ['a.txt', 'b.png'] });
            console.log(JSON.stringify(out.map((r) => [r.status, r.result])));
            await pkg.close();`;
        const { stdout } = await run(process.execPath, [...CHILD_NODE_ARGS, '--input-type=module', '-e', script], { cwd: dir, timeout: 60_000, env: envWithout(dir, 'sharp', "Cannot find module '@img/sharp-linux-x64/sharp.node'") });
        const [text, img] = JSON.parse(stdout.trim().split('\n').pop()!) as [string, string][];
        expect(text).toEqual(['success', `--- ${path.join(dir, 'a.txt')} (lines 1-1 of 1) ---\nhello\n`]);
        expect(img![0]).toBe('error');
        expect(img![1]).toMatch(/^Images cannot be read here: the image library sharp \(with its prebuilt libvips, @img\/sharp-linux-x64\) could not be loaded \(Cannot find module '@img\/sharp-linux-x64\/sharp\.node'\)\. Reinstall the package with its optional dependencies/);
    });
});
