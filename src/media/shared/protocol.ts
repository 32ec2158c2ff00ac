import type { Access, ImageLimits } from '../../config/shared/configuration.js';
import type { ToolErrorKind } from '../../errors/shared/errors.js';

/**
 * The media operations' tasks and results (workers/media/): one file per task, opened with the
 * same safe open as every read, decoded on a pool thread so that the host's event loop never
 * decodes an image or parses a PDF.
 */

/** What every media task names: the file as shown and its real path, and the open's limits. */
export interface MediaFile {
    shown: string;
    real: string;
    /** Real access roots the opened file is re-checked against; `null` when symlink resolution is off. */
    realRoots: readonly Access[] | null;
    /** Files above this many bytes are refused (`maxFileSize`). */
    maxBytes: number;
}

/** An image part's payload as a worker hands it back. */
export interface ImagePayload {
    /** base64, no `data:` prefix. */
    data: string;
    mimeType: string;
}

/** Reads an image and sends it within the budget of `limits` (workers/media/image.ts). */
export interface ImageTask extends MediaFile {
    op: 'image';
    limits: ImageLimits;
}

/** Reads the text of a PDF's pages (workers/media/pdf.ts). */
export interface PdfTask extends MediaFile {
    op: 'pdf';
    /** The pages asked for (`"2,7-9"`), or `undefined` for the first pages that fit. */
    pages: string | undefined;
    maxChars: number;
    /** read_file's `start_char`: where in the first page read its text starts (1-based). */
    startChar: number | undefined;
    /** Send the picture of each shown page without text (a scan) within these limits; `undefined`: do not. */
    pageImages: ImageLimits | undefined;
}

/** Reads a notebook as cells (workers/media/notebook.ts). */
export interface NotebookTask extends MediaFile {
    op: 'notebook';
    /** The cells asked for, or `undefined` for the first cells that fit. */
    cells: string | undefined;
    maxChars: number;
    /** read_file's `start_char`: where in the first cell read its text starts (1-based). */
    startChar: number | undefined;
    /** Send the images of the shown cells' outputs as image parts. */
    images: boolean;
}

/**
 * A media task's result: the text shown (header, content, notes), the images to send after it,
 * and the content hash of the file's bytes (read-before-write).
 */
export type MediaResult = { ok: true; text: string; images: ImagePayload[]; hash: string } | { ok: false; kind: ToolErrorKind; message: string };

export type MediaTask = ImageTask | PdfTask | NotebookTask;
