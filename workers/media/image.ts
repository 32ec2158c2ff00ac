import type { ImageTask, MediaResult } from '../../src/media/shared/protocol.js';
import { errors, ToolError } from '../../src/errors/shared/errors.js';
import { contentHash } from '../../src/fs/shared/content-hash.js';
import { readRegularFileSync } from '../../src/fs/shared/safe-read.js';
import { imageLine, sentSize, type ImageFacts } from '../../src/media/shared/image-line.js';
import { mediaFailure } from './failure.js';
import { loadSharp } from './libraries.js';

/** The formats sent as they are when they fit the budget (every provider takes them), by sharp's name. */
const SENDABLE: Readonly<Record<string, string>> = { jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' };
/** Raster formats the prebuilt libvips decodes (AVIF is `heif` with AV1 inside; HEIC, with HEVC inside, it does not decode). */
const READABLE = new Set(['jpeg', 'png', 'gif', 'webp', 'tiff', 'avif']);

/**
 * The `image` operation: an image as `read_file` sends it. The header alone decides a refusal
 * (too many pixels, not an image): nothing is decoded before. An image within the budget of
 * `task.limits` and in a format every provider takes is sent as its own bytes (after one decode
 * that proves it whole); a larger one, an animated one (first frame) or one in another format
 * (TIFF, AVIF) is decoded, downscaled and encoded (JPEG stays JPEG, WebP stays WebP, else PNG).
 */
export async function runImageTask(task: ImageTask): Promise<MediaResult> {
    try {
        const file = readRegularFileSync(task.shown, task.real, task.realRoots, task.maxBytes, 'maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)');
        const sharp = loadSharp();
        const { limits } = task;
        let meta;
        try {
            // The header only: the pixel count is checked below, with the figures in the message.
            meta = await sharp(file.bytes, { limitInputPixels: false }).metadata();
        } catch (err) {
            if (/\.bmp$/i.test(task.shown)) throw errors.unreadableMedia(task.shown, 'image', `(${file.size} bytes) is a BMP, which cannot be read here; convert it to PNG first.`);
            throw notAnImage(task.shown, file.size, err);
        }
        const format = meta.format === 'heif' ? (meta.compression === 'av1' ? 'avif' : 'heic') : meta.format;
        if (!READABLE.has(format) || !meta.width || !meta.height) {
            throw errors.unreadableMedia(task.shown, 'image', `(${file.size} bytes) is ${format === 'svg' ? 'SVG' : `in a format that cannot be read here (${format})`}. Readable: PNG, JPEG, GIF, WebP, TIFF, AVIF; convert it to PNG first.`);
        }
        const rotated = (meta.orientation ?? 1) >= 5;
        const width = rotated ? meta.height : meta.width;
        const height = rotated ? meta.width : meta.height;
        if (width * height > limits.maxInputPixels) throw errors.tooManyPixels(task.shown, width, height, limits.maxInputPixels);
        const frames = meta.pages ?? 1;
        const [sendWidth, sendHeight] = sentSize(width, height, limits);
        const resized = sendWidth !== width || sendHeight !== height;
        const original = SENDABLE[meta.format];
        // Security: limitInputPixels makes libvips itself refuse a bomb whose frames hold more than the header said.
        const pipeline = sharp(file.bytes, { limitInputPixels: limits.maxInputPixels, failOn: 'truncated' }).rotate();
        let data: Buffer;
        let mimeType: string;
        try {
            if (!resized && original !== undefined && frames === 1 && (meta.orientation ?? 1) === 1) {
                // Decoded once to prove the file whole (a truncated image would be refused by the provider, not here).
                await pipeline.raw().toBuffer();
                data = file.bytes;
                mimeType = original;
            } else {
                const out = pipeline.resize(sendWidth, sendHeight, { fit: 'fill' });
                if (meta.format === 'jpeg') [data, mimeType] = [await out.jpeg({ quality: 85 }).toBuffer(), 'image/jpeg'];
                else if (meta.format === 'webp') [data, mimeType] = [await out.webp({ quality: 85 }).toBuffer(), 'image/webp'];
                else [data, mimeType] = [await out.png().toBuffer(), 'image/png'];
            }
        } catch (err) {
            throw notAnImage(task.shown, file.size, err, format);
        }
        const facts: ImageFacts = { format, width, height, sendWidth, sendHeight, mimeType, bytes: data.length, frames, limits };
        return { ok: true, text: imageLine(task.shown, facts), images: [{ data: data.toString('base64'), mimeType }], hash: contentHash(file.bytes) };
    } catch (err) {
        return mediaFailure(err, task.shown);
    }
}

/** The refusal of a file the image library cannot decode, with the library's reason. */
function notAnImage(shown: string, size: number, err: unknown, format?: string): ToolError {
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/^Input (buffer|file) /, '');
    const what = format === undefined ? 'is not an image the image library can read' : `is a damaged or truncated ${format.toUpperCase()} image`;
    return errors.unreadableMedia(shown, 'image', `(${size} bytes) ${what} (${reason}).`);
}
