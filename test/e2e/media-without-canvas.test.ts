/**
 * The package without the optional canvas (@napi-rs/canvas): it loads, reads text and PDFs, and a
 * page without text asked as an image is sent as its largest picture, or named without one, with
 * a line saying the page is not rendered and what to install. A child process whose
 * `require('@napi-rs/canvas')` throws (a hook preloaded through NODE_OPTIONS, which the pool's
 * threads load too), as after an install without optional dependencies.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHILD_NODE_ARGS, childModule, envWithout } from '../support/child-source.js';
import { tempDir } from '../support/helpers.js';
import { drawingPdf, image } from '../support/media-files.js';

const run = promisify(execFile);

describe('without the canvas', () => {
    it('loads, reads text, and sends a page without text as its largest picture, saying why it is not rendered', async () => {
        const dir = tempDir('lcf-nocanvas-');
        fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
        fs.writeFileSync(path.join(dir, 'd.pdf'), await drawingPdf(await image(40, 30, 'png')));
        const script = `
            const { FileToolPackage, Workspace, AccessType } = await import(${JSON.stringify(pathToFileURL(childModule('src/index.ts')).href)});
            const ws = new Workspace({ accesses: [{ type: AccessType.Read, path: ${JSON.stringify(dir)} }], workspacePath: ${JSON.stringify(dir)} });
            const pkg = new FileToolPackage(ws);
            const read = pkg.tools().find((t) => t.name === 'read_file');
            const out = await read.execute({ paths: ['a.txt', 'd.pdf'], pages: '2-4', page_images: true });
            console.log(JSON.stringify(out.map((r) => [r.status, r.parts?.[0]?.text ?? r.result, (r.parts ?? []).map((p) => p.type)])));
            await pkg.close();`;
        const { stdout } = await run(process.execPath, [...CHILD_NODE_ARGS, '--input-type=module', '-e', script], { cwd: dir, timeout: 60_000, env: envWithout(dir, '@napi-rs/canvas', "Cannot find module '@napi-rs/canvas'") });
        const [text, pdf] = JSON.parse(stdout.trim().split('\n').pop()!) as [string, string, string[]][];
        expect(text!.slice(0, 2)).toEqual(['success', `--- ${path.join(dir, 'a.txt')} (lines 1-1 of 1) ---\nhello\n`]);
        expect(pdf![0]).toBe('success');
        const why = "the page is not rendered: the canvas library @napi-rs/canvas could not be loaded (Cannot find module '@napi-rs/canvas'); install it (npm install @napi-rs/canvas) to render pages";
        expect(pdf![1]).toBe(
            `--- ${path.join(dir, 'd.pdf')} (PDF, pages 2-4 of 4) ---\n` +
                `[page 2]\n[no text layer on this page and no picture in it; ${why}]\n` +
                '[page 3]\n[no text layer on this page: its picture (40x30, sent as 40x30 image/jpeg) follows as an image]\n' +
                `[page 4]\n[no text layer on this page: its largest picture (40x30, sent as 40x30 image/jpeg) follows as an image; ${why}]`,
        );
        expect(pdf![2]).toEqual(['text', 'image', 'image']);
    });
});
