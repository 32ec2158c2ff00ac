import type { ImagePayload, MediaResult, PdfTask } from '../../src/media/shared/protocol.js';
import { errors, ToolError } from '../../src/errors/shared/errors.js';
import { contentHash } from '../../src/fs/shared/content-hash.js';
import { readRegularFileSync } from '../../src/fs/shared/safe-read.js';
import { renderSections } from '../../src/media/shared/sections.js';
import { beyondNote, describeNumbers, numbersIn, parseRanges } from '../../src/media/shared/ranges.js';
import { mediaFailure } from './failure.js';
import { loadCanvas, loadUnpdf } from './libraries.js';
import { pageImage } from './pdf-page-image.js';

type CanvasImport = NonNullable<Parameters<ReturnType<typeof loadUnpdf>['createIsomorphicCanvasFactory']>[0]>;

/** Most page pictures one read sends. */
const MAX_PAGE_IMAGES = 20;

/**
 * The `pdf` operation: the text of a PDF's pages, each after a page marker, within `maxChars`
 * (src/media/shared/sections.ts). Pages are parsed one by one and only until the bound is
 * reached, so the first call on a long PDF costs the document's cross-reference table and a few pages.
 */
export async function runPdfTask(task: PdfTask): Promise<MediaResult> {
    try {
        const file = readRegularFileSync(task.shown, task.real, task.realRoots, task.maxBytes, 'maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)');
        const unpdf = loadUnpdf();
        let doc: Awaited<ReturnType<typeof unpdf.getDocumentProxy>>;
        const canvas = task.pageImages === undefined ? undefined : loadCanvas();
        // A document that may be rendered draws its pictures and patterns on canvases of the same library.
        // unpdf takes the module's default export when it has one, else the module: the required
        // CommonJS module is the object its ES-module type describes.
        const CanvasFactory = typeof canvas === 'object' ? await unpdf.createIsomorphicCanvasFactory((async () => canvas) as CanvasImport) : undefined;
        try {
            // The library takes ownership of (and may detach) the buffer it is given: a copy.
            doc = await unpdf.getDocumentProxy(new Uint8Array(file.bytes), { verbosity: 0, ...(CanvasFactory ? { CanvasFactory } : {}) });
        } catch (err) {
            throw pdfError(task.shown, file.size, err);
        }
        try {
            const count = doc.numPages;
            let wanted: number[] | undefined;
            let beyond: string | undefined;
            if (task.pages !== undefined) {
                const ranges = parseRanges(task.pages, 'page');
                const numbers = typeof ranges === 'string' ? ranges : numbersIn(ranges, count, 'page');
                if (typeof numbers === 'string') throw errors.invalidArgument('read_file', `pages: ${numbers}`);
                wanted = numbers;
                if (typeof ranges !== 'string') beyond = beyondNote(ranges, count, 'page', 'PDF');
            }
            const pictures = new Map<number, ImagePayload>();
            /** Pages whose picture was left out by the limit, named in a note with the pages value that sends them. */
            const unsent: number[] = [];
            const textOf = async (n: number): Promise<string> => {
                let text: string;
                try {
                    const content = await (await doc.getPage(n)).getTextContent();
                    text = content.items.map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : '') : '')).join('');
                } catch (err) {
                    throw pdfError(task.shown, file.size, err, n);
                }
                if (text.trim() !== '' || task.pageImages === undefined) return text;
                if (pictures.size >= MAX_PAGE_IMAGES) {
                    unsent.push(n);
                    return `[no text layer on this page; its picture is not sent: at most ${MAX_PAGE_IMAGES} per read]`;
                }
                let image;
                try {
                    image = await pageImage(unpdf, doc, n, task.pageImages);
                } catch (err) {
                    throw pdfError(task.shown, file.size, err, n);
                }
                if (image.payload) pictures.set(n, image.payload);
                return image.line;
            };
            const { text, shown } = await renderSections({ shown: task.shown, what: 'PDF', unit: 'page', param: 'pages', count, textOf, empty: '[no text layer on this page: a scan or an image; page_images=true sends its picture]' }, wanted, task.maxChars, task.startChar ?? 1);
            const images = shown.flatMap((n) => pictures.get(n) ?? []);
            const left = unsent.filter((n) => shown.includes(n));
            const pagesOf = describeNumbers(left).replace(/, /g, ',');
            const leftNote = left.length === 0 ? undefined : `[The picture${left.length === 1 ? ` of page ${pagesOf} is` : `s of pages ${describeNumbers(left)} are`} not sent: at most ${MAX_PAGE_IMAGES} per read; continue with pages="${pagesOf}" and page_images=true.]`;
            const notes = [text, beyond, leftNote].filter((t) => t !== undefined);
            return { ok: true, text: notes.join('\n'), images, hash: contentHash(file.bytes) };
        } finally {
            await doc.loadingTask.destroy();
        }
    } catch (err) {
        return mediaFailure(err, task.shown);
    }
}

/** A PDF the library refuses: encrypted, damaged or truncated, or one page of it unreadable. */
function pdfError(shown: string, size: number, err: unknown, page?: number): ToolError {
    if (err instanceof ToolError) return err;
    const name = err instanceof Error ? err.name : '';
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
    if (name === 'PasswordException') {
        return errors.unreadableMedia(shown, 'PDF', `(${size} bytes) is encrypted: it needs a password to open (${reason}); decrypt it first (e.g. qpdf --decrypt).`);
    }
    const where = page === undefined ? '' : `page ${page} of `;
    return errors.unreadableMedia(shown, 'PDF', `(${size} bytes): ${where}the file is damaged or truncated, or not a PDF (${name ? `${name}: ` : ''}${reason}).`);
}
