/** read_file on PDFs: pages by number with markers, the first pages within the bound, and every bad PDF refused with nothing changed. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileToolResult } from '../../../src/tools/base.js';
import sharp from 'sharp';
import { encryptedPdf, image, scannedPdf, textPdf } from '../../support/media-files.js';
import { followCutNotes } from '../../support/section-notes.js';
import { makePackage, snapshot, tempDir, writeTree } from '../../support/helpers.js';

async function read(root: string, args: Record<string, unknown>, opts: Parameters<typeof makePackage>[1] = {}): Promise<FileToolResult[]> {
    return (await makePackage(root, opts).run('read_file', args)) as FileToolResult[];
}

/** Page `p`'s text as textPdf writes it, `lines` lines. */
const page = (p: number, lines: number): string => Array.from({ length: lines }, (_, i) => `Page ${p} line ${i + 1}: the quick brown fox ${p * 1000 + i + 1}`).join('\n');

describe('read_file on PDFs', () => {
    it('reads the pages asked for, each after its marker, in the order given', async () => {
        const root = tempDir('lcf-pdf-');
        writeTree(root, { 'doc.pdf': await textPdf(6, 2) });
        const [r] = await read(root, { paths: ['doc.pdf'], pages: '5,2-3' });
        expect(r!.result).toBe(`--- ${path.join(root, 'doc.pdf')} (PDF, pages 5, 2-3 of 6) ---\n[page 5]\n${page(5, 2)}\n[page 2]\n${page(2, 2)}\n[page 3]\n${page(3, 2)}`);
        const [open] = await read(root, { paths: ['doc.pdf'], pages: '5-' });
        expect(open!.result).toBe(`--- ${path.join(root, 'doc.pdf')} (PDF, pages 5-6 of 6) ---\n[page 5]\n${page(5, 2)}\n[page 6]\n${page(6, 2)}`);
    });

    it('without pages, reads the first pages that fit and says how to continue', async () => {
        const root = tempDir('lcf-pdf-');
        writeTree(root, { 'doc.pdf': await textPdf(30, 10) });
        const [r] = await read(root, { paths: ['doc.pdf'] }, { maxCharsPerFile: 1500 });
        // A page is about 440 characters: three fit in 1,500.
        expect(r!.result).toBe(`--- ${path.join(root, 'doc.pdf')} (PDF, pages 1-3 of 30) ---\n[page 1]\n${page(1, 10)}\n[page 2]\n${page(2, 10)}\n[page 3]\n${page(3, 10)}\n[27 more pages of 30 not shown; continue with pages="4-6".]`);
    });

    it('cuts a page asked for at max_chars and says so', async () => {
        const root = tempDir('lcf-pdf-');
        writeTree(root, { 'doc.pdf': await textPdf(3, 10) });
        const [r] = await read(root, { paths: ['doc.pdf'], pages: '2-3', max_chars: 100 });
        const head = `--- ${path.join(root, 'doc.pdf')} (PDF, page 2 of 3) ---\n`;
        expect(r!.result.startsWith(`${head}[page 2]\n${page(2, 10).slice(0, 91)}\n[Truncated at 100 characters (max_chars / maxCharsPerFile): page 2 is cut off after 91 of its`)).toBe(true);
        expect(r!.result).toMatch(/\n\[1 more page of 3 not shown; continue with pages="3"\.\]$/);
    });

    it('reads the rest of a page longer than maxCharsPerFile by following its notes, start_char within the page', async () => {
        const root = tempDir('lcf-pdf-');
        writeTree(root, { 'doc.pdf': await textPdf(2, 40) });
        const whole = page(1, 40);
        const head = `--- ${path.join(root, 'doc.pdf')} (PDF, page 1 of 2) ---\n`;
        const got = await followCutNotes(
            async (args) => (await read(root, args, { maxCharsPerFile: 1000 }))[0]!,
            { paths: ['doc.pdf'], pages: '1', max_chars: 5000 },
            { head, marker: '[page 1', unit: 'page 1', param: 'pages="1"', kind: 'PDF', length: whole.length, bound: 1000, calls: 5 },
        );
        expect(got).toBe(whole);
        // A bound that leaves out only the page's line break shows it whole, with no note to follow.
        const [exact] = await read(root, { paths: ['doc.pdf'], pages: '1', max_chars: '[page 1]\n'.length + whole.length }, { maxCharsPerFile: 5000 });
        expect(exact!.result).toBe(`${head}[page 1]\n${whole}`);
        const [beyond] = await read(root, { paths: ['doc.pdf'], pages: '1', start_char: whole.length + 1 });
        expect(beyond).toMatchObject({ status: 'error', result: `Invalid arguments for read_file: start_char ${whole.length + 1} is beyond the end of page 1 of ${path.join(root, 'doc.pdf')}, which has ${whole.length} characters.` });
    });

    it('refuses a PDF named without .pdf as binary, with a hint saying it is a PDF and which name reads it', async () => {
        const root = tempDir('lcf-pdf-');
        const bytes = await textPdf(1, 2);
        writeTree(root, { 'paper.bin': bytes, 'notes': bytes });
        const [bin, bare] = await read(root, { paths: ['paper.bin', 'notes'] });
        for (const [r, name] of [[bin!, 'paper.bin'], [bare!, 'notes']] as const) {
            expect(r).toMatchObject({ status: 'error', result: `Binary file refused: ${path.join(root, name)} (${bytes.length} bytes) is not a text file. It starts with %PDF-: a PDF, which read_file reads as one (pages) only under a name ending in .pdf.` });
        }
    });

    it('names the pages value that sends the pictures left out beyond 20 a read', async () => {
        const root = tempDir('lcf-pdf-');
        const { PDFDocument } = await import('pdf-lib');
        const doc = await PDFDocument.create();
        const png = await doc.embedPng(await image(40, 60, 'png'));
        for (let p = 1; p <= 23; p++) doc.addPage([612, 792]).drawImage(png, { x: 0, y: 0, width: 612, height: 792 });
        writeTree(root, { 'scans.pdf': Buffer.from(await doc.save()) });
        const [r] = await read(root, { paths: ['scans.pdf'], pages: '1-', page_images: true });
        expect(r!.status, r!.result).toBe('success');
        const text = (r!.parts![0] as { text: string }).text;
        expect(r!.parts!.filter((p) => p.type === 'image')).toHaveLength(20);
        expect(text.match(/its picture is not sent: at most 20 per read/g)).toHaveLength(3);
        expect(text.endsWith('\n[The pictures of pages 21-23 are not sent: at most 20 per read; continue with pages="21-23" and page_images=true.]')).toBe(true);
        const [rest] = await read(root, { paths: ['scans.pdf'], pages: '21-23', page_images: true });
        expect(rest!.parts!.filter((p) => p.type === 'image')).toHaveLength(3);
        expect((rest!.parts![0] as { text: string }).text).not.toContain('not sent');
    });

    it('marks a page without a text layer', async () => {
        const root = tempDir('lcf-pdf-');
        writeTree(root, { 'scan.pdf': await textPdf(2, 1, [2]) });
        const [r] = await read(root, { paths: ['scan.pdf'], pages: '2' });
        expect(r!.result).toBe(`--- ${path.join(root, 'scan.pdf')} (PDF, page 2 of 2) ---\n[page 2]\n[no text layer on this page: a scan or an image; page_images=true sends its picture]`);
        const [asked] = await read(root, { paths: ['scan.pdf'], pages: '2', page_images: true });
        expect(asked!.result).toBe(`--- ${path.join(root, 'scan.pdf')} (PDF, page 2 of 2) ---\n[page 2]\n[no text layer and no picture on this page]`);
    });

    it('sends the picture of a scanned page as an image when asked, within the image budget', async () => {
        const root = tempDir('lcf-pdf-');
        writeTree(root, { 'scan.pdf': await scannedPdf(await image(2000, 1000, 'png')) });
        const [r] = (await read(root, { paths: ['scan.pdf'], page_images: true })) as FileToolResult[];
        expect(r!.parts![0]).toEqual({ type: 'text', text: `--- ${path.join(root, 'scan.pdf')} (PDF, pages 1-2 of 2) ---\n[page 1]\nCover page\n[page 2]\n[no text layer on this page: its picture (2000x1000, sent as 1516x758 image/jpeg) follows as an image]` });
        const part = r!.parts![1]!;
        expect(part).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
        const m = await sharp(Buffer.from(part.type === 'image' ? part.data : '', 'base64')).metadata();
        expect([m.width, m.height]).toEqual([1516, 758]);
        const [plain] = (await read(root, { paths: ['scan.pdf'] })) as FileToolResult[];
        expect(plain!.parts).toBeUndefined();
    });

    it('refuses pages beyond the end, bad page lists, and pages for a file that is no PDF', async () => {
        const root = tempDir('lcf-pdf-');
        writeTree(root, { 'doc.pdf': await textPdf(4, 1), 'a.txt': 'text\n' });
        const [beyond] = await read(root, { paths: ['doc.pdf'], pages: '5' });
        expect(beyond).toMatchObject({ status: 'error', kind: 'invalid_argument', result: 'Invalid arguments for read_file: pages: page 5 is beyond the end: there are 4 pages.' });
        const [backwards] = await read(root, { paths: ['doc.pdf'], pages: '3-2' });
        expect(backwards!.result).toBe('Invalid arguments for read_file: pages: page range 3-2 ends before it starts.');
        const [syntax] = await read(root, { paths: ['doc.pdf'], pages: 'two' });
        expect(syntax).toMatchObject({ status: 'error', kind: 'invalid_argument' });
        expect(syntax!.result).toMatch(/^Invalid arguments for read_file: pages: a page list such as "3", "1-5" or "2,7-9"/);
        const [text] = await read(root, { paths: ['a.txt'], pages: '1' });
        expect(text!.result).toBe(`Invalid arguments for read_file: pages applies to PDF files; ${path.join(root, 'a.txt')} is not one (leave out pages for it).`);
        // Beside a PDF, other files are read as usual.
        const both = await read(root, { paths: ['doc.pdf', 'a.txt'], pages: '1' });
        expect(both.map((r) => r.result)).toEqual([`--- ${path.join(root, 'doc.pdf')} (PDF, page 1 of 4) ---\n[page 1]\n${page(1, 1)}`, `--- ${path.join(root, 'a.txt')} (lines 1-1 of 1) ---\ntext\n`]);
    });

    it('refuses encrypted, corrupt, truncated and mislabelled PDFs with clear errors, changing nothing', async () => {
        const root = tempDir('lcf-pdf-');
        const good = await textPdf(3, 1);
        writeTree(root, {
            'locked.pdf': encryptedPdf(),
            'junk.pdf': Buffer.from('%PDF-1.7\nthis is no PDF body at all\n'),
            'cut.pdf': good.subarray(0, good.length >> 1),
            'photo.pdf': await image(10, 10, 'png'),
            'good.pdf': good,
        });
        const before = snapshot(root);
        const results = await read(root, { paths: ['locked.pdf', 'junk.pdf', 'cut.pdf', 'photo.pdf', 'good.pdf'], pages: '1' });
        expect(results.map((r) => r.status)).toEqual(['error', 'error', 'error', 'error', 'success']);
        expect(results[0]!.result).toMatch(/^Cannot read PDF: .*locked\.pdf \(\d+ bytes\) is encrypted: it needs a password to open \(.+\); decrypt it first \(e\.g\. qpdf --decrypt\)\.$/);
        for (const r of results.slice(1, 4)) {
            expect(r.kind).toBe('binary');
            expect(r.result).toMatch(/^Cannot read PDF: .*\.pdf \(\d+ bytes\): (page 1 of )?the file is damaged or truncated, or not a PDF \(.+\)\.$/);
        }
        expect(snapshot(root)).toEqual(before);
    });

    it('content search skips PDFs and images, as other binaries', async () => {
        const root = tempDir('lcf-pdf-');
        writeTree(root, { 'doc.pdf': await textPdf(1, 1), 'shot.png': await image(8, 8, 'png'), 'notes.txt': 'PDF and PNG\n' });
        const [r] = await makePackage(root).run('search_entries', { content_pattern: 'PDF|PNG' });
        expect(r!.result).toBe('notes.txt:1: PDF and PNG');
    });
});
