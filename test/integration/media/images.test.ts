/** read_file on images: image parts within the pixel budget, first frames, and every bad image refused with nothing changed. */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { FileToolResult } from '../../../src/tools/base.js';
import { runImageTask } from '../../../workers/media/image.js';
import { animatedGif, image, onePngColour, textPdf } from '../../support/media-files.js';
import { makePackage, snapshot, tempDir, writeTree } from '../../support/helpers.js';

async function read(root: string, args: Record<string, unknown>, opts: Parameters<typeof makePackage>[1] = {}): Promise<FileToolResult[]> {
    return (await makePackage(root, opts).run('read_file', args)) as FileToolResult[];
}

/** The size of the image part's picture. */
async function sizeOf(r: FileToolResult): Promise<[number, number, string | undefined]> {
    const part = r.parts?.find((p) => p.type === 'image');
    if (part?.type !== 'image') throw new Error(`no image part in ${r.result}`);
    const m = await sharp(Buffer.from(part.data, 'base64')).metadata();
    return [m.width, m.height, part.mimeType];
}

describe('read_file on images', () => {
    it('downscales a 4000x3000 JPEG to at most 1.15 MP and says what it sent', async () => {
        const root = tempDir('lcf-img-');
        writeTree(root, { 'photo.jpg': await image(4000, 3000, 'jpeg') });
        const [r] = await read(root, { paths: ['photo.jpg'] });
        expect(r!.status).toBe('success');
        const [w, h, mime] = await sizeOf(r!);
        expect(w * h).toBeLessThanOrEqual(1_150_000);
        expect(Math.max(w, h)).toBeLessThanOrEqual(1568);
        expect(mime).toBe('image/jpeg');
        expect(r!.parts![0]).toEqual({ type: 'text', text: expect.stringContaining(`--- ${path.join(root, 'photo.jpg')} (image: JPEG 4000x3000, sent as ${w}x${h} image/jpeg, `) });
        expect(r!.result).toContain(`about ${Math.ceil((w * h) / 750).toLocaleString('en-US')} tokens`);
        expect(r!.result).toContain('[Downscaled to the image budget');
        // A text-only host gets the text and a line saying the image was not shown.
        expect(r!.result).toMatch(/\[image image\/jpeg, [\d,]+ bytes: not shown: this host takes text only\]$/);
    });

    it('sends a small PNG as its own bytes and keeps WebP, GIF; converts TIFF and AVIF to PNG', async () => {
        const root = tempDir('lcf-img-');
        const png = await image(40, 30, 'png');
        writeTree(root, { 'a.png': png, 'b.webp': await image(40, 30, 'webp'), 'c.gif': await image(40, 30, 'gif'), 'd.tiff': await image(40, 30, 'tiff'), 'e.avif': await image(40, 30, 'avif') });
        const results = await read(root, { paths: ['a.png', 'b.webp', 'c.gif', 'd.tiff', 'e.avif'] });
        expect(results.map((r) => r.status)).toEqual(Array(5).fill('success'));
        const image0 = results[0]!.parts![1]!;
        expect(image0.type === 'image' && Buffer.from(image0.data, 'base64').equals(png)).toBe(true);
        const sizes = await Promise.all(results.map(sizeOf));
        expect(sizes).toEqual([[40, 30, 'image/png'], [40, 30, 'image/webp'], [40, 30, 'image/gif'], [40, 30, 'image/png'], [40, 30, 'image/png']]);
        expect(results[4]!.result).toContain('(image: AVIF 40x30, sent as is image/png');
    });

    it('sends the first frame of an animated GIF and says so', async () => {
        const root = tempDir('lcf-img-');
        writeTree(root, { 'anim.gif': await animatedGif(3) });
        const [r] = await read(root, { paths: ['anim.gif'] });
        expect(r!.result).toContain('[Animated GIF of 3 frames: only the first frame is sent.]');
        const part = r!.parts![1]!;
        const m = await sharp(Buffer.from(part.type === 'image' ? part.data : '', 'base64')).metadata();
        expect([m.width, m.height, m.pages ?? 1]).toEqual([20, 10, 1]);
    });

    it('takes its budget from the configuration', async () => {
        const root = tempDir('lcf-img-');
        writeTree(root, { 'wide.png': await image(600, 200, 'png') });
        const [r] = await read(root, { paths: ['wide.png'] }, { images: { maxSide: 300 } });
        expect(await sizeOf(r!)).toEqual([300, 100, 'image/png']);
        expect(r!.result).toContain('long side at most 300 px');
    });

    it('refuses a 20,000 x 20,000 PNG from its header, with the figures', async () => {
        const root = tempDir('lcf-img-');
        writeTree(root, { 'bomb.png': onePngColour(20_000, 20_000) });
        const before = snapshot(root);
        const [r] = await read(root, { paths: ['bomb.png'] });
        expect(r).toMatchObject({ status: 'error', kind: 'too_large' });
        expect(r!.result).toBe(`Image too large: ${path.join(root, 'bomb.png')} is 20000x20000 = 400,000,000 pixels, above the limit of 50,000,000 pixels; nothing was decoded. Raise images.maxInputPixels (LLM_CHAT_FS_IMAGE_MAX_INPUT_PIXELS) to read it.`);
        expect(snapshot(root)).toEqual(before);
    });

    it('refuses corrupt, truncated, mislabelled and too large images with clear errors, changing nothing', async () => {
        const root = tempDir('lcf-img-');
        const png = await image(300, 200, 'png');
        writeTree(root, {
            'noise.png': Buffer.from('this is not an image at all, just text'),
            'cut.png': png.subarray(0, png.length >> 1),
            'doc.jpg': await textPdf(1),
            'ok.png': png,
            'pic.bmp': Buffer.concat([Buffer.from('BM'), Buffer.alloc(60, 1)]),
            'vector.png': Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
        });
        const before = snapshot(root);
        const results = await read(root, { paths: ['noise.png', 'cut.png', 'doc.jpg', 'vector.png', 'ok.png'] });
        expect(results.map((r) => r.status)).toEqual(['error', 'error', 'error', 'error', 'success']);
        expect(results[0]!.result).toMatch(/^Cannot read image: .*noise\.png \(38 bytes\) is not an image the image library can read \(.+\)\.$/);
        expect(results[1]!.result).toMatch(/^Cannot read image: .*cut\.png \(\d+ bytes\) is a damaged or truncated PNG image \(.+\)\.$/);
        expect(results[2]!.result).toMatch(/^Cannot read image: .*doc\.jpg \(\d+ bytes\) is in a format that cannot be read here \(pdf\)|is not an image the image library can read/);
        expect(results[3]!.result).toMatch(/vector\.png \(\d+ bytes\) is SVG\./);
        expect(results.slice(0, 4).map((r) => r.kind)).toEqual(['binary', 'binary', 'binary', 'binary']);
        const [bmp] = await read(root, { paths: ['pic.bmp'] });
        expect(bmp!.result).toBe(`Cannot read image: ${path.join(root, 'pic.bmp')} (62 bytes) is a BMP, which cannot be read here; convert it to PNG first.`);
        const big = await read(root, { paths: ['ok.png'] }, { maxFileSize: 100 });
        expect(big[0]).toMatchObject({ status: 'error', kind: 'too_large' });
        expect(big[0]!.result).toMatch(/^File too large: .*ok\.png is \d+ bytes, above the limit of 100 bytes/);
        expect(snapshot(root)).toEqual(before);
    });

    it('reads SVG as text, and an image beside text files in one call', async () => {
        const root = tempDir('lcf-img-');
        const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>\n';
        writeTree(root, { 'logo.svg': svg, 'a.txt': 'hello\n', 'b.png': await image(10, 10) });
        const results = await read(root, { paths: ['logo.svg', 'a.txt', 'b.png'] });
        expect(results[0]!.result).toBe(`--- ${path.join(root, 'logo.svg')} (lines 1-1 of 1) ---\n${svg}`);
        expect(results[1]!.result).toBe(`--- ${path.join(root, 'a.txt')} (lines 1-1 of 1) ---\nhello\n`);
        expect(results[2]!.parts?.map((p) => p.type)).toEqual(['text', 'image']);
    });

    it('sends at most 20 images per call; the others are refused with a note', async () => {
        const root = tempDir('lcf-img-');
        const png = await image(4, 4);
        const names = Array.from({ length: 22 }, (_, i) => `i${i}.png`);
        writeTree(root, Object.fromEntries(names.map((n) => [n, png])));
        const results = await read(root, { paths: names });
        expect(results.filter((r) => r.status === 'success')).toHaveLength(20);
        expect(results[21]!.result).toBe(`Too many images: read_file sends at most 20 images per call; read ${path.join(root, 'i21.png')} in another call.`);
    });

    it('the image operation refuses a file above maxBytes before decoding and reads through the safe open', async () => {
        const dir = tempDir('lcf-img-op-');
        fs.writeFileSync(path.join(dir, 'a.png'), await image(10, 10));
        const limits = { maxSide: 1568, maxPixels: 1_150_000, maxInputPixels: 50_000_000 };
        const r = await runImageTask({ op: 'image', shown: 'a.png', real: path.join(dir, 'a.png'), realRoots: null, maxBytes: 10, limits });
        expect(r).toMatchObject({ ok: false, kind: 'too_large' });
        const missing = await runImageTask({ op: 'image', shown: 'gone.png', real: path.join(dir, 'gone.png'), realRoots: null, maxBytes: 1 << 20, limits });
        expect(missing).toMatchObject({ ok: false, kind: 'not_found' });
    });
});
