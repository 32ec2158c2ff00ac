import { createRequire } from 'node:module';
import type Sharp from 'sharp';
import { ToolError } from '../../src/errors/shared/errors.js';
import { nativeSection } from '../../src/fs/shared/native-gate.js';

/**
 * The media libraries, loaded on a pool thread by the first task that needs one: the package
 * loads (and every other tool works) without them, and a missing native part (sharp's prebuilt
 * libvips in `@img/*`, left out by an install with `--omit=optional` or on a platform it has no
 * build for) fails only the image read, with a message saying what to install.
 */

// Loaded through require from this file's place (as koffi is in workers/fs/held-at.ts), so the tests' worker bundle finds them too.
const require = createRequire(import.meta.url);

let sharp: typeof Sharp | undefined;

/** sharp, or a ToolError saying why it is missing. */
export function loadSharp(): typeof Sharp {
    if (sharp) return sharp;
    try {
        // Loaded where the host does not terminate this thread (src/fs/shared/native-gate.ts).
        sharp = nativeSection(() => require('sharp') as typeof Sharp);
        // Perf: one pool thread decodes one image; libvips' own threads would compete with the pool's.
        sharp.concurrency(1);
        return sharp;
    } catch (err) {
        throw new ToolError(
            'io',
            `Images cannot be read here: the image library sharp (with its prebuilt libvips, @img/sharp-${process.platform}-${process.arch}) could not be loaded (${firstLine(err)}). Reinstall the package with its optional dependencies (npm install --include=optional) on a supported platform.`,
        );
    }
}

export type Unpdf = typeof import('unpdf');
let unpdf: Unpdf | undefined;

/** unpdf (pdf.js built for servers), or a ToolError saying why it is missing. */
export function loadUnpdf(): Unpdf {
    if (unpdf) return unpdf;
    try {
        return (unpdf = require('unpdf') as Unpdf);
    } catch (err) {
        throw new ToolError('io', `PDFs cannot be read here: the PDF library unpdf could not be loaded (${firstLine(err)}). Reinstall the package.`);
    }
}

type Canvas = typeof import('@napi-rs/canvas');
let canvas: Canvas | string | undefined;

/**
 * @napi-rs/canvas (skia, an optional dependency), to render PDF pages; or, when it cannot be
 * loaded, the reason as a string: pages are then sent as their largest picture instead.
 */
export function loadCanvas(): Canvas | string {
    if (canvas !== undefined) return canvas;
    try {
        canvas = nativeSection(() => require('@napi-rs/canvas') as Canvas);
    } catch (err) {
        return (canvas = `the canvas library @napi-rs/canvas could not be loaded (${firstLine(err)})`);
    }
    // pdf.js compiles fonts and patterns for the canvas with ArrayBuffer.prototype.transferToFixedLength,
    // which Node 20 lacks (Node 21 has it): without it every glyph is dropped from a rendered page.
    // A copy is all pdf.js needs of it; core-js's version would add 16 MB for one method.
    if (typeof (ArrayBuffer.prototype as { transferToFixedLength?: unknown }).transferToFixedLength !== 'function') {
        Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
            configurable: true,
            writable: true,
            value(this: ArrayBuffer, length = this.byteLength): ArrayBuffer {
                const out = new ArrayBuffer(length);
                new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
                return out;
            },
        });
    }
    return canvas;
}

function firstLine(err: unknown): string {
    return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}
