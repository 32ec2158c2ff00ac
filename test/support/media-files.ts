/**
 * Media files made by the tests: images (sharp), a one-colour PNG bomb written by hand (its rows
 * deflated in one pass: a header of any size over a few kilobytes), PDFs (pdf-lib, and an
 * encrypted one written by hand, since pdf-lib does not encrypt), and notebooks.
 */
import zlib from 'node:zlib';
import sharp from 'sharp';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

/** A still image of `width`×`height` in `format`, with a gradient so that JPEG has something to code. */
export async function image(width: number, height: number, format: 'png' | 'jpeg' | 'webp' | 'gif' | 'tiff' | 'avif' = 'png'): Promise<Buffer> {
    const raw = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
            const i = (y * width + x) * 3;
            raw[i] = x & 255;
            raw[i + 1] = y & 255;
            raw[i + 2] = (x ^ y) & 255;
        }
    }
    return sharp(raw, { raw: { width, height, channels: 3 } }).toFormat(format).toBuffer();
}

/** An animated GIF of `frames` frames of 20×10, one colour each. */
export async function animatedGif(frames = 3): Promise<Buffer> {
    const colours = ['#f00', '#0f0', '#00f', '#ff0', '#0ff'];
    const pngs = await Promise.all(Array.from({ length: frames }, (_, i) => sharp({ create: { width: 20, height: 10, channels: 4, background: colours[i % colours.length]! } }).png().toBuffer()));
    return sharp(pngs, { join: { animated: true } }).gif().toBuffer();
}

function chunk(type: string, data: Buffer): Buffer {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
}

/**
 * A valid PNG of `width`×`height` pixels, all black: 1-bit greyscale, so 20,000×20,000 pixels
 * are 50 MB of rows that deflate to about 50 KB.
 */
export function onePngColour(width: number, height: number): Buffer {
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width, 0);
    ihdr.writeUInt32BE(height, 4);
    ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, filter 0, no interlace
    const row = Math.ceil(width / 8) + 1;
    const idat = zlib.deflateSync(Buffer.alloc(row * height), { level: 9 });
    return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** A PDF of `pages` pages, each with `lines` lines of text naming its page; the pages in `blank` have no text. */
export async function textPdf(pages: number, lines = 40, blank: readonly number[] = []): Promise<Buffer> {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let p = 1; p <= pages; p++) {
        const page = doc.addPage([612, 792]);
        if (blank.includes(p)) continue;
        for (let l = 1; l <= lines; l++) page.drawText(`Page ${p} line ${l}: the quick brown fox ${p * 1000 + l}`, { x: 40, y: 760 - l * 16, size: 10, font });
    }
    return Buffer.from(await doc.save());
}

/** A PDF of one page of text, then one page that is only `picture` (a PNG), as a scan is. */
export async function scannedPdf(picture: Buffer): Promise<Buffer> {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage([612, 792]).drawText('Cover page', { x: 40, y: 700, size: 12, font });
    const png = await doc.embedPng(picture);
    doc.addPage([612, 792]).drawImage(png, { x: 0, y: 0, width: 612, height: 792 });
    return Buffer.from(await doc.save());
}

/**
 * A PDF of four pages: 1 text, 2 a vector drawing without text (a red square and a blue circle
 * on the left half), 3 only `picture` over the whole page, 4 `picture` in a drawn frame.
 */
export async function drawingPdf(picture: Buffer): Promise<Buffer> {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage([612, 792]).drawText('A page of text', { x: 40, y: 700, size: 12, font });
    const drawing = doc.addPage([612, 792]);
    drawing.drawRectangle({ x: 40, y: 440, width: 200, height: 300, color: rgb(1, 0, 0) });
    drawing.drawCircle({ x: 140, y: 200, size: 100, color: rgb(0, 0, 1) });
    const png = await doc.embedPng(picture);
    doc.addPage([612, 792]).drawImage(png, { x: 0, y: 0, width: 612, height: 792 });
    const framed = doc.addPage([612, 792]);
    framed.drawRectangle({ x: 20, y: 20, width: 572, height: 752, borderColor: rgb(0, 0, 0), borderWidth: 4 });
    framed.drawImage(png, { x: 100, y: 100, width: 412, height: 592 });
    return Buffer.from(await doc.save());
}

/**
 * A PDF encrypted with the standard security handler (RC4, 40 bit) whose user password is not
 * empty: its O and U entries are made up, so no password opens it.
 */
export function encryptedPdf(): Buffer {
    const objects = [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
        `<< /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -44 >>`,
    ];
    let out = '%PDF-1.4\n';
    const offsets: number[] = [];
    objects.forEach((o, i) => {
        offsets.push(out.length);
        out += `${i + 1} 0 obj\n${o}\nendobj\n`;
    });
    const xref = out.length;
    out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
    out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>] >>\nstartxref\n${xref}\n%%EOF\n`;
    return Buffer.from(out, 'latin1');
}

/**
 * A notebook (nbformat 4.5, indented by one space as Jupyter writes it) of `cells` cells: odd
 * ones markdown, even ones code with a stream output and, when `imageBytes` is given, a PNG
 * output of about that many bytes (base64 in the JSON).
 */
export function notebook(cells: number, imageBytes = 0): string {
    const png = imageBytes > 0 ? Buffer.alloc(imageBytes, 7).toString('base64') : undefined;
    const list = Array.from({ length: cells }, (_, i) => {
        const n = i + 1;
        if (n % 2 === 1) return { cell_type: 'markdown', id: `md${n}`, metadata: {}, source: [`# Section ${n}\n`, 'Some text.'] };
        const outputs: object[] = [{ name: 'stdout', output_type: 'stream', text: [`result ${n}\n`] }];
        if (png) outputs.push({ data: { 'image/png': png, 'text/plain': ['<Figure size 640x480>'] }, metadata: {}, output_type: 'display_data' });
        return { cell_type: 'code', execution_count: n, id: `code${n}`, metadata: {}, outputs, source: [`x = ${n}\n`, 'print(x)'] };
    });
    return `${JSON.stringify({ cells: list, metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } }, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;
}
