import type { ImagePayload, MediaResult, NotebookTask } from '../../src/media/shared/protocol.js';
import { errors } from '../../src/errors/shared/errors.js';
import { contentHash } from '../../src/fs/shared/content-hash.js';
import { readRegularFileSync } from '../../src/fs/shared/safe-read.js';
import { cellMarker, cellText, MAX_NOTEBOOK_IMAGES, notebookWhat, parseNotebook } from '../../src/media/shared/notebook.js';
import { beyondNote, numbersIn, parseRanges } from '../../src/media/shared/ranges.js';
import { renderSections } from '../../src/media/shared/sections.js';
import { decodeText } from '../../src/text/shared/text.js';
import { mediaFailure } from './failure.js';

/**
 * The `notebook` operation: a notebook as numbered cells within `maxChars` (parsing the JSON of a
 * notebook full of images takes as long as reading a large file, so it runs on the pool).
 */
export async function runNotebookTask(task: NotebookTask): Promise<MediaResult> {
    try {
        const file = readRegularFileSync(task.shown, task.real, task.realRoots, task.maxBytes, 'maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)');
        const decoded = decodeText(file.bytes);
        if (!decoded.ok) throw errors.binary(task.shown, file.size);
        const nb = parseNotebook(task.shown, decoded.text);
        let wanted: number[] | undefined;
        let beyond: string | undefined;
        if (task.cells !== undefined && task.cells !== 'all') {
            const ranges = parseRanges(task.cells, 'cell');
            const numbers = typeof ranges === 'string' ? ranges : numbersIn(ranges, nb.cells.length, 'cell');
            if (typeof numbers === 'string') throw errors.invalidArgument('read_file', `cells: ${numbers}`);
            wanted = numbers;
            if (typeof ranges !== 'string') beyond = beyondNote(ranges, nb.cells.length, 'cell', 'notebook');
        }
        const byCell = new Map<number, ImagePayload[]>();
        const { text, shown } = await renderSections(
            {
                shown: task.shown,
                what: notebookWhat(nb),
                unit: 'cell',
                param: 'cells',
                count: nb.cells.length,
                markerOf: (n) => cellMarker(nb.cells[n - 1]!, n),
                textOf: (n) => {
                    const images: ImagePayload[] = [];
                    byCell.set(n, images);
                    return cellText(nb.cells[n - 1]!, task.images ? images : undefined);
                },
            },
            wanted,
            task.maxChars,
            task.startChar ?? 1,
        );
        // Only the images of the cells shown; a cell left for the next call sends its images then.
        const images = shown.flatMap((n) => byCell.get(n) ?? []).slice(0, MAX_NOTEBOOK_IMAGES);
        return { ok: true, text: beyond === undefined ? text : `${text}\n${beyond}`, images, hash: contentHash(file.bytes) };
    } catch (err) {
        return mediaFailure(err, task.shown);
    }
}
