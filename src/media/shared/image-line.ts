import type { ImageLimits } from '../../config/shared/configuration.js';
import { quotePath } from '../../print/shared/display.js';

/** What `read_file` says of an image it sends. */
export interface ImageFacts {
    /** The file's format as the image library names it (`jpeg`, `png`, `avif`, ...). */
    format: string;
    /** Its size, upright (after the EXIF orientation). */
    width: number;
    height: number;
    /** The size sent. */
    sendWidth: number;
    sendHeight: number;
    mimeType: string;
    /** Bytes sent. */
    bytes: number;
    /** Frames of an animated image (1 for a still one). */
    frames: number;
    limits: ImageLimits;
}

/** Pixels per token of an image, as Anthropic documents its cost (tokens ≈ width × height / 750). */
export const PIXELS_PER_TOKEN = 750;

/**
 * The size an image is sent at: its own when it fits the budget, else scaled down, aspect kept,
 * until its long side is at most `maxSide` and its area at most `maxPixels`.
 */
export function sentSize(width: number, height: number, limits: Pick<ImageLimits, 'maxSide' | 'maxPixels'>): [number, number] {
    const scale = Math.min(1, limits.maxSide / Math.max(width, height), Math.sqrt(limits.maxPixels / (width * height)));
    if (scale >= 1) return [width, height];
    return [Math.max(1, Math.floor(width * scale)), Math.max(1, Math.floor(height * scale))];
}

/**
 * The text sent with an image: a header like a text read's, naming the path, the format, the
 * original and sent sizes and the estimated cost, then a note for a downscaled or animated image.
 * `--- /p/photo.jpg (image: JPEG 4000x3000, sent as 1238x928 image/jpeg, 187,342 bytes, about 1,532 tokens) ---`
 */
export function imageLine(shown: string, f: ImageFacts): string {
    const n = (x: number): string => x.toLocaleString('en-US');
    const tokens = Math.ceil((f.sendWidth * f.sendHeight) / PIXELS_PER_TOKEN);
    const sent = f.sendWidth === f.width && f.sendHeight === f.height ? 'sent as is' : `sent as ${f.sendWidth}x${f.sendHeight}`;
    let out = `--- ${quotePath(shown)} (image: ${f.format.toUpperCase()} ${f.width}x${f.height}, ${sent} ${f.mimeType}, ${n(f.bytes)} bytes, about ${n(tokens)} token${tokens === 1 ? '' : 's'}) ---`;
    if (f.frames > 1) out += `\n[Animated ${f.format.toUpperCase()} of ${f.frames} frames: only the first frame is sent.]`;
    if (f.sendWidth !== f.width || f.sendHeight !== f.height) {
        out += `\n[Downscaled to the image budget: long side at most ${n(f.limits.maxSide)} px and at most ${n(f.limits.maxPixels)} pixels (images.maxSide / images.maxPixels).]`;
    }
    return out;
}
