import type { ImageLimits } from '../../src/config/shared/configuration.js';
import type { ImagePayload } from '../../src/media/shared/protocol.js';
import { sentSize } from '../../src/media/shared/image-line.js';
import { loadCanvas, loadSharp, type Unpdf } from './libraries.js';

type Doc = Awaited<ReturnType<Unpdf['getDocumentProxy']>>;

/** What is sent for a page without text: an image and the line that stands for it, or only the line. */
export type PageImage = { payload: ImagePayload; line: string } | { payload?: undefined; line: string };

/** Scale pages are rendered at: 144 dpi, so that small print stays legible after the downscale to the budget. */
export const RENDER_SCALE = 2;

/** The operators that paint something other than one picture: a page with any of them is rendered. */
const DRAWING_OPS = [
    'stroke', 'closeStroke', 'fill', 'eoFill', 'fillStroke', 'eoFillStroke', 'closeFillStroke', 'closeEOFillStroke', 'constructPath', 'rawFillPath',
    'showText', 'showSpacedText', 'nextLineShowText', 'nextLineSetSpacingShowText', 'shadingFill',
    'paintImageMaskXObject', 'paintImageMaskXObjectGroup', 'paintInlineImageXObject', 'paintInlineImageXObjectGroup',
    'paintImageXObjectRepeat', 'paintImageMaskXObjectRepeat', 'paintSolidColorImageMask',
] as const;

/**
 * The image sent for page `n`, which has no text layer, within the image budget `limits`.
 *
 * A page that paints one picture and nothing else (a scan) is sent as that picture, decoded by
 * the PDF library and scaled by sharp: it is what a rendering would show, and drawing a
 * 300-dpi scan through pdf.js onto the canvas takes seconds (docs/tools.md has the figures).
 * Any other page (vector drawings, text as outlines, several pictures) is rendered with
 * @napi-rs/canvas; without it, its largest picture is sent with a line saying why.
 */
export async function pageImage(unpdf: Unpdf, doc: Doc, n: number, limits: ImageLimits): Promise<PageImage> {
    const page = await doc.getPage(n);
    const { OPS } = await unpdf.getResolvedPDFJS();
    const ops = (await page.getOperatorList()).fnArray;
    const drawing = new Set<number>(DRAWING_OPS.map((name) => OPS[name]));
    const pictures = ops.filter((op) => op === OPS.paintImageXObject).length;
    const draws = ops.some((op) => drawing.has(op));
    if (!draws && pictures === 0) return { line: '[no text layer and no picture on this page]' };
    if (!draws && pictures === 1) {
        const picture = await largestPicture(unpdf, doc, n, limits);
        if (picture) return { payload: picture.payload, line: `[no text layer on this page: its picture (${picture.size}) follows as an image]` };
    }
    const canvas = loadCanvas();
    if (typeof canvas === 'string') {
        const picture = await largestPicture(unpdf, doc, n, limits);
        const why = `the page is not rendered: ${canvas}; install it (npm install @napi-rs/canvas) to render pages`;
        if (!picture) return { line: `[no text layer on this page and no picture in it; ${why}]` };
        return { payload: picture.payload, line: `[no text layer on this page: its largest picture (${picture.size}) follows as an image; ${why}]` };
    }
    const base = page.getViewport({ scale: 1 });
    const area = Math.max(1, base.width * base.height);
    // Memory: a page is drawn at most twice as large (per side) as it is sent; a poster page at
    // 144 dpi would take hundreds of megabytes to be sent at a megapixel.
    const wanted = Math.min(RENDER_SCALE, 2 * Math.min(limits.maxSide / Math.max(1, base.width, base.height), Math.sqrt(limits.maxPixels / area)));
    // Security: the rendered size stays within images.maxInputPixels, the limit every decoded image has.
    const scale = Math.min(wanted, Math.sqrt(limits.maxInputPixels / area));
    const viewport = page.getViewport({ scale });
    const width = Math.max(1, Math.floor(viewport.width));
    const height = Math.max(1, Math.floor(viewport.height));
    const surface = canvas.createCanvas(width, height);
    try {
        const context = surface.getContext('2d');
        // The canvas library's canvas stands for the DOM's, which pdf.js's types name.
        await page.render({ canvas: surface, canvasContext: context, viewport } as unknown as Parameters<typeof page.render>[0]).promise;
        const pixels = context.getImageData(0, 0, width, height).data;
        const [w, h] = sentSize(width, height, limits);
        const data = await loadSharp()(Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), { raw: { width, height, channels: 4 } })
            .flatten({ background: '#ffffff' })
            .resize(w, h, { fit: 'fill' })
            .jpeg({ quality: 85 })
            .toBuffer();
        const lowered = scale < wanted ? `, at ${Math.round(72 * scale)} dpi rather than ${Math.round(72 * wanted)} to stay within images.maxInputPixels (${limits.maxInputPixels.toLocaleString('en-US')} pixels)` : '';
        return { payload: { data: data.toString('base64'), mimeType: 'image/jpeg' }, line: `[no text layer on this page: the page rendered (${width}x${height}${lowered}, sent as ${w}x${h} image/jpeg) follows as an image]` };
    } finally {
        surface.width = 0;
        surface.height = 0;
        page.cleanup();
    }
}

/**
 * The largest picture drawn on page `n` within images.maxInputPixels, decoded by the PDF library
 * and encoded as JPEG within the image budget; `undefined` for a page without one.
 */
async function largestPicture(unpdf: Unpdf, doc: Doc, n: number, limits: ImageLimits): Promise<{ payload: ImagePayload; size: string } | undefined> {
    const found = await unpdf.extractImages(doc, n);
    const largest = found.filter((i) => i.width * i.height <= limits.maxInputPixels).sort((a, b) => b.width * b.height - a.width * a.height)[0];
    if (largest === undefined) return undefined;
    const [w, h] = sentSize(largest.width, largest.height, limits);
    const data = await loadSharp()(largest.data, { raw: { width: largest.width, height: largest.height, channels: largest.channels } })
        .resize(w, h, { fit: 'fill' })
        .jpeg({ quality: 85 })
        .toBuffer();
    return { payload: { data: data.toString('base64'), mimeType: 'image/jpeg' }, size: `${largest.width}x${largest.height}, sent as ${w}x${h} image/jpeg` };
}
