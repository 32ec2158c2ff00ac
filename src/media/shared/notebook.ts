import { errors } from '../../errors/shared/errors.js';
import type { ImagePayload } from './protocol.js';

/**
 * A Jupyter notebook (nbformat 4) as `read_file` shows it: numbered cells with their type and
 * source, and each output summarized (its type and size; text cut to {@link OUTPUT_CHARS}; images
 * named, sent as images only when asked), never the raw JSON with its base64.
 */

/** Characters of one text output shown; the rest is counted. */
export const OUTPUT_CHARS = 500;
/** Most images one read of a notebook sends. */
export const MAX_NOTEBOOK_IMAGES = 20;

type Multiline = string | string[] | undefined;
interface Output {
    output_type?: string;
    name?: string;
    text?: Multiline;
    data?: Record<string, Multiline | object>;
    ename?: string;
    evalue?: string;
    execution_count?: number | null;
}
export interface Cell {
    cell_type?: string;
    source?: Multiline;
    outputs?: Output[];
    execution_count?: number | null;
}
export interface Notebook {
    cells: Cell[];
    metadata?: { kernelspec?: { display_name?: string }; language_info?: { name?: string } };
}

const joined = (v: Multiline): string => (Array.isArray(v) ? v.join('') : typeof v === 'string' ? v : '');

/** The notebook in `text`. @throws ToolError `binary` when it is not notebook JSON. */
export function parseNotebook(shown: string, text: string): Notebook {
    let nb: unknown;
    try {
        nb = JSON.parse(text);
    } catch (err) {
        throw errors.unreadableMedia(shown, 'notebook', `is not valid JSON (${err instanceof Error ? err.message : String(err)}); read it as text with read_file and without cells.`);
    }
    if (nb === null || typeof nb !== 'object' || !Array.isArray((nb as Notebook).cells)) {
        throw errors.unreadableMedia(shown, 'notebook', 'has no "cells" list (not an nbformat 4 notebook); read it as text with read_file and without cells.');
    }
    return nb as Notebook;
}

/** `notebook (Python 3)`, for the header. */
export function notebookWhat(nb: Notebook): string {
    const kernel = nb.metadata?.kernelspec?.display_name ?? nb.metadata?.language_info?.name;
    return kernel ? `notebook (${kernel})` : 'notebook';
}

/** The marker of cell `n`: `[cell 3: code, executed 5]`. */
export function cellMarker(cell: Cell, n: number): string {
    const run = cell.cell_type === 'code' ? (typeof cell.execution_count === 'number' ? `, executed ${cell.execution_count}` : ', not executed') : '';
    return `[cell ${n}: ${cell.cell_type ?? 'unknown'}${run}]`;
}

/**
 * A cell's source and its outputs summarized; the images of its outputs are added to `images`
 * when given (up to {@link MAX_NOTEBOOK_IMAGES}), else named with how to get them.
 */
export function cellText(cell: Cell, images: ImagePayload[] | undefined): string {
    let out = joined(cell.source);
    (cell.outputs ?? []).forEach((o, i) => {
        out += `\n${outputText(o, i + 1, images)}`;
    });
    return out;
}

function outputText(o: Output, k: number, images: ImagePayload[] | undefined): string {
    const n = (x: number): string => x.toLocaleString('en-US');
    const cutText = (t: string): string => (t.length > OUTPUT_CHARS ? `${t.slice(0, OUTPUT_CHARS)}\n[... ${n(t.length - OUTPUT_CHARS)} more characters of this output not shown]` : t);
    const type = o.output_type ?? 'unknown';
    if (type === 'stream') {
        const t = joined(o.text);
        return `[output ${k}: stream ${o.name ?? ''}, ${n(t.length)} characters]\n${cutText(t.replace(/\n$/, ''))}`;
    }
    if (type === 'error') return `[output ${k}: error ${o.ename ?? ''}: ${cutText(o.evalue ?? '')}]`;
    const data = o.data ?? {};
    const kinds: string[] = [];
    let text = '';
    let imageNote = '';
    for (const [mime, value] of Object.entries(data)) {
        const v = typeof value === 'string' || Array.isArray(value) ? joined(value as Multiline) : JSON.stringify(value);
        if (mime.startsWith('image/') && mime !== 'image/svg+xml') {
            const bytes = Math.floor((v.replace(/\s/g, '').length * 3) / 4);
            kinds.push(`${mime} ${n(bytes)} bytes`);
            if (images === undefined) imageNote = '(images not sent: read_file with cell_images=true sends them)';
            else if (images.length < MAX_NOTEBOOK_IMAGES) images.push({ mimeType: mime, data: v.replace(/\s/g, '') });
            else imageNote = `(image not sent: at most ${MAX_NOTEBOOK_IMAGES} images per read)`;
        } else {
            kinds.push(`${mime} ${n(v.length)} characters`);
            if (text === '' && (mime === 'text/plain' || mime === 'text/markdown')) text = v;
        }
    }
    const head = `[output ${k}: ${type}: ${kinds.join(', ') || 'no data'}${imageNote ? ` ${imageNote}` : ''}]`;
    return text === '' ? head : `${head}\n${cutText(text.replace(/\n$/, ''))}`;
}
