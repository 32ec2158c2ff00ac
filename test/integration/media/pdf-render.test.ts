/**
 * read_file with page_images on PDFs made here: a page of vector drawing is rendered (with
 * @napi-rs/canvas) within the image budget, a page that is one picture is sent as that picture, a
 * text page is never rendered; a page too large for images.maxInputPixels is rendered at a lower
 * scale and says so. Notes for pages beyond the end and for text-read parameters with media.
 */
import path from 'node:path';
import { PDFDocument, rgb } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { FileToolResult } from '../../../src/tools/base.js';
import { drawingPdf, encryptedPdf, image, notebook, textPdf } from '../../support/media-files.js';
import { makePackage, snapshot, tempDir, writeTree } from '../../support/helpers.js';

async function read(root: string, args: Record<string, unknown>, opts: Parameters<typeof makePackage>[1] = {}): Promise<FileToolResult[]> {
    return (await makePackage(root, opts).run('read_file', args)) as FileToolResult[];
}

/** The RGB of the pixel at (x, y), as fractions of the image's width and height. */
async function pixel(data: string, fx: number, fy: number): Promise<number[]> {
    const { data: raw, info } = await sharp(Buffer.from(data, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const i = (Math.floor(fy * info.height) * info.width + Math.floor(fx * info.width)) * info.channels;
    return [raw[i]!, raw[i + 1]!, raw[i + 2]!];
}

const near = (rgb: number[], want: number[]): boolean => rgb.every((v, i) => Math.abs(v - want[i]!) < 40);

describe('read_file page_images on PDFs', () => {
    it('renders a page of vector drawing, sends a page of one picture as it, and never renders a text page', async () => {
        const root = tempDir('lcf-pdf-render-');
        writeTree(root, { 'd.pdf': await drawingPdf(await image(400, 300, 'png')) });
        const [r] = await read(root, { paths: ['d.pdf'], page_images: true });
        const file = path.join(root, 'd.pdf');
        expect(r!.parts![0]).toEqual({
            type: 'text',
            text:
                `--- ${file} (PDF, pages 1-4 of 4) ---\n[page 1]\nA page of text\n` +
                '[page 2]\n[no text layer on this page: the page rendered (1224x1584, sent as 942x1219 image/jpeg) follows as an image]\n' +
                '[page 3]\n[no text layer on this page: its picture (400x300, sent as 400x300 image/jpeg) follows as an image]\n' +
                '[page 4]\n[no text layer on this page: the page rendered (1224x1584, sent as 942x1219 image/jpeg) follows as an image]',
        });
        const images = r!.parts!.slice(1);
        expect(images.map((p) => p.type === 'image' && p.mimeType)).toEqual(['image/jpeg', 'image/jpeg', 'image/jpeg']);
        const [drawing, picture, framed] = images.map((p) => (p.type === 'image' ? p.data : ''));
        expect((await sharp(Buffer.from(drawing!, 'base64')).metadata()).width).toBe(942);
        // The red square on the upper left, the blue circle below it, the right half white.
        expect(near(await pixel(drawing!, 0.2, 0.2), [255, 0, 0])).toBe(true);
        expect(near(await pixel(drawing!, 0.23, 0.75), [0, 0, 255])).toBe(true);
        expect(near(await pixel(drawing!, 0.8, 0.5), [255, 255, 255])).toBe(true);
        expect((await sharp(Buffer.from(picture!, 'base64')).metadata()).width).toBe(400);
        // The frame's black border at the page's edge: the page was rendered, not its picture sent.
        expect(near(await pixel(framed!, 20 / 612, 0.5), [0, 0, 0])).toBe(true);
    });

    it('sends only the text of a text page', async () => {
        const root = tempDir('lcf-pdf-render-');
        writeTree(root, { 'doc.pdf': await textPdf(2, 1) });
        const [r] = await read(root, { paths: ['doc.pdf'], page_images: true });
        expect(r!.parts).toBeUndefined();
        expect(r!.result).toBe(`--- ${path.join(root, 'doc.pdf')} (PDF, pages 1-2 of 2) ---\n[page 1]\nPage 1 line 1: the quick brown fox 1001\n[page 2]\nPage 2 line 1: the quick brown fox 2001`);
    });

    it('renders a page whose size at 144 dpi is above images.maxInputPixels at a lower scale, and says so', async () => {
        const root = tempDir('lcf-pdf-render-');
        writeTree(root, { 'd.pdf': await drawingPdf(await image(40, 30, 'png')) });
        const [r] = await read(root, { paths: ['d.pdf'], pages: '2', page_images: true }, { images: { maxInputPixels: 1_000_000, maxPixels: 1_000_000 } });
        expect(r!.parts![0]).toEqual({
            type: 'text',
            text: `--- ${path.join(root, 'd.pdf')} (PDF, page 2 of 4) ---\n[page 2]\n[no text layer on this page: the page rendered (879x1137, at 103 dpi rather than 144 to stay within images.maxInputPixels (1,000,000 pixels), sent as 879x1137 image/jpeg) follows as an image]`,
        });
        const part = r!.parts![1]!;
        const m = await sharp(Buffer.from(part.type === 'image' ? part.data : '', 'base64')).metadata();
        expect(m.width * m.height).toBeLessThanOrEqual(1_000_000);
    });

    it('draws a poster-sized page at most twice as large as it is sent', async () => {
        const root = tempDir('lcf-pdf-render-');
        const doc = await PDFDocument.create();
        doc.addPage([14_400, 14_400]).drawRectangle({ x: 0, y: 0, width: 7_200, height: 14_400, color: rgb(1, 0, 0) });
        writeTree(root, { 'poster.pdf': Buffer.from(await doc.save()) });
        const [r] = await read(root, { paths: ['poster.pdf'], page_images: true });
        const text = r!.parts![0]!.type === 'text' ? r!.parts![0]!.text : '';
        const [, w, h, sw, sh] = /the page rendered \((\d+)x(\d+), sent as (\d+)x(\d+) image\/jpeg\) follows as an image\]$/.exec(text)!.map(Number);
        expect(w).toBe(h);
        expect(w! * h!).toBeLessThanOrEqual(4 * 1_150_000);
        expect(sw! * sh!).toBeLessThanOrEqual(1_150_000);
        expect(w).toBeGreaterThan(sw!);
        const part = r!.parts![1]!;
        expect(near(await pixel(part.type === 'image' ? part.data : '', 0.25, 0.5), [255, 0, 0])).toBe(true);
        expect(near(await pixel(part.type === 'image' ? part.data : '', 0.75, 0.5), [255, 255, 255])).toBe(true);
    });

    it('still refuses encrypted and damaged PDFs with clear errors, changing nothing', async () => {
        const root = tempDir('lcf-pdf-render-');
        const good = await drawingPdf(await image(40, 30, 'png'));
        writeTree(root, { 'locked.pdf': encryptedPdf(), 'cut.pdf': good.subarray(0, good.length >> 1), 'junk.pdf': Buffer.from('%PDF-1.7\nno body\n') });
        const before = snapshot(root);
        const results = await read(root, { paths: ['locked.pdf', 'cut.pdf', 'junk.pdf'], page_images: true });
        expect(results.map((r) => r.status)).toEqual(['error', 'error', 'error']);
        expect(results[0]!.result).toMatch(/^Cannot read PDF: .*locked\.pdf \(\d+ bytes\) is encrypted: it needs a password to open/);
        for (const r of results.slice(1)) expect(r.result).toMatch(/^Cannot read PDF: .*\.pdf \(\d+ bytes\): (page \d+ of )?the file is damaged or truncated, or not a PDF \(.+\)\.$/);
        expect(snapshot(root)).toEqual(before);
    });
});

describe('read_file says what it does not use on media', () => {
    it('notes pages and cells beyond the end; an open end names none', async () => {
        const root = tempDir('lcf-media-notes-');
        writeTree(root, { 'doc.pdf': await textPdf(5, 1), 'nb.ipynb': notebook(3) });
        const [pdf] = await read(root, { paths: ['doc.pdf'], pages: '3-9' });
        expect(pdf!.result).toMatch(/\(PDF, pages 3-5 of 5\) ---\n[^]*fox 5001\n\[pages 6-9 do not exist: the PDF has 5 pages\.\]$/);
        const [one] = await read(root, { paths: ['doc.pdf'], pages: '2,5-6' });
        expect(one!.result).toMatch(/fox 5001\n\[page 6 does not exist: the PDF has 5 pages\.\]$/);
        const [open] = await read(root, { paths: ['doc.pdf'], pages: '4-' });
        expect(open!.result).toMatch(/fox 5001$/);
        const [nb] = await read(root, { paths: ['nb.ipynb'], cells: '2-4' });
        expect(nb!.result).toMatch(/\(notebook \(Python 3\), cells 2-3 of 3\) ---\n[^]*# Section 3\nSome text\.\n\[cell 4 does not exist: the notebook has 3 cells\.\]$/);
    });

    it('notes line parameters given with an image or a PDF, and reads a text file beside them as the reference does', async () => {
        const root = tempDir('lcf-media-notes-');
        const png = await image(8, 8, 'png');
        writeTree(root, { 'a.png': png, 'doc.pdf': await textPdf(2, 1), 'a.txt': 'one\ntwo\nthree\n' });
        const results = await read(root, { paths: ['a.png', 'doc.pdf', 'a.txt'], start_line: 2, end_line: 2 });
        const [img, pdf, text] = results;
        expect(img!.parts![0]).toEqual({ type: 'text', text: `--- ${path.join(root, 'a.png')} (image: PNG 8x8, sent as is image/png, ${png.length} bytes, about 1 token) ---\n[start_line and end_line apply to text files and are not used for this image: the whole image is sent.]` });
        expect(pdf!.result).toMatch(/fox 2001\n\[start_line and end_line apply to text files and are not used for this PDF: pages picks the pages of a PDF\.\]$/);
        expect(text!.result).toBe(`--- ${path.join(root, 'a.txt')} (lines 2-2 of 3) ---\ntwo\n`);
        const [alone] = await read(root, { paths: ['a.txt'], start_line: 2, end_line: 2 });
        expect(alone!.result).toBe(text!.result);
        const [enc] = await read(root, { paths: ['doc.pdf'], encoding: 'latin1', line_numbers: true });
        expect(enc!.result).toMatch(/\n\[line_numbers and encoding apply to text files and are not used for this PDF: pages picks the pages of a PDF\.\]$/);
    });
});
