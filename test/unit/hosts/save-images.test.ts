/** The CLI's image saver: a write that fails is said in the summary line and marks the run failed. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { imageSaver } from '../../../src/hosts/cli/save-images.js';
import { tempDir } from '../../support/helpers.js';

describe('imageSaver', () => {
    it('says an image was not saved when its directory is gone, and marks the run failed', async () => {
        const root = tempDir('lcf-saver-');
        const saver = await imageSaver('shots', root);
        if (typeof saver === 'string') throw new Error(saver);
        fs.rmdirSync(path.join(root, 'shots'));
        const line = saver.line({ type: 'image', mimeType: 'image/png', data: Buffer.from('png bytes').toString('base64') });
        expect(line).toMatch(/^\[image image\/png, 9 bytes, not saved: ENOENT: no such file or directory, open '.*\/shots\/image-1\.png'\]$/);
        expect(saver.failed).toBe(true);
        expect(fs.existsSync(path.join(root, 'shots'))).toBe(false);
    });

    it('names a resource part without writing it', async () => {
        const root = tempDir('lcf-saver-');
        const saver = await imageSaver(root, root);
        if (typeof saver === 'string') throw new Error(saver);
        expect(saver.line({ type: 'resource', uri: 'file:///x.bin', mimeType: 'application/octet-stream', blob: 'AAAA' })).toBe('[resource file:///x.bin, application/octet-stream, 3 bytes]');
        expect(fs.readdirSync(root)).toEqual([]);
        expect(saver.failed).toBe(false);
    });

    it('makes missing parents, refuses a file on the way, and says why a directory under /proc cannot be made instead of looping', async () => {
        const root = tempDir('lcf-saver-');
        expect(typeof await imageSaver('a/b/c', root)).toBe('object');
        expect(fs.statSync(path.join(root, 'a/b/c')).mode & 0o777).toBe(0o700);
        expect(fs.statSync(path.join(root, 'a')).mode & 0o777).toBe(0o700);
        fs.writeFileSync(path.join(root, 'f'), 'x');
        expect(await imageSaver('f', root)).toBe('--save-images f: not a directory. Name a directory, not a file.');
        expect(await imageSaver('f/sub', root)).toBe('--save-images f/sub: cannot be used (ENOTDIR). Name a directory you can write to.');
        expect(fs.readFileSync(path.join(root, 'f'), 'utf8')).toBe('x');
        if (fs.existsSync('/proc/self')) expect(await imageSaver('/proc/lcf-no-such/dir', root)).toMatch(/^--save-images \/proc\/lcf-no-such\/dir: cannot be used \(E[A-Z]+\)\. Name a directory you can write to\.$/);
    });
});
