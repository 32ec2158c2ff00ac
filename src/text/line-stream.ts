import type { FileHandle } from 'node:fs/promises';
import { isBinary, BINARY_SAMPLE_BYTES, hasUtf16Bom, hasUtf8Bom } from './shared/text.js';
import type { StreamedLine } from './shared/read-render.js';

/**
 * Line ranges of files too large to load (above `maxFileSize`), read by streaming: the file is
 * read in chunks of {@link CHUNK_BYTES}, lines are counted by their `\n` bytes, and only the
 * lines asked for are kept, bounded by a character budget, so memory stays bounded whatever the
 * file's size or the length of its lines. Same line model as `splitLines` (`"a\nb\n"` and `"a\nb"`
 * have 2 lines). Each kept line is decoded on its own as UTF-8, or Latin-1 when it is not valid
 * UTF-8; a UTF-8 BOM is dropped. UTF-16 files are not streamed (see {@link streamable}).
 */

/** Bytes read per chunk. */
export const CHUNK_BYTES = 1024 * 1024;

/** Lines `first..` of a file and its total line count. */
export interface StreamedRange {
    total: number;
    first: number;
    lines: StreamedLine[];
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** Why a file cannot be streamed: `binary` (its first bytes look binary), `utf16` (a UTF-16 BOM), or `null` when it can. */
export async function streamable(handle: FileHandle): Promise<'binary' | 'utf16' | null> {
    const sample = Buffer.alloc(BINARY_SAMPLE_BYTES);
    const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
    const head = sample.subarray(0, bytesRead);
    if (hasUtf16Bom(head)) return 'utf16';
    return !hasUtf8Bom(head) && isBinary(head) ? 'binary' : null;
}

/** The file's number of lines, counting `\n` bytes chunk by chunk. */
export async function countLines(handle: FileHandle): Promise<number> {
    return (await readLines(handle, 1, 0, 0)).total;
}

/**
 * Lines `start..end` (1-based, inclusive; `end` may be `Infinity`) of the file, kept until they
 * hold more than `budget` characters (the lines after that are counted, not kept; the last kept
 * line may be a prefix, `complete: false`), and the file's total line count.
 */
export async function readLines(handle: FileHandle, start: number, end: number, budget: number): Promise<StreamedRange> {
    // Perf: a kept line is held to this many bytes; at most 4 bytes per character, so it still holds more than `budget` characters.
    const lineCap = budget * 4 + 8;
    const lines: StreamedLine[] = [];
    let kept = 0;
    let lineNo = 1;
    let parts: Buffer[] = [];
    let held = 0;
    let pending = 0;
    let cut = false;
    const keeping = (): boolean => lineNo >= start && lineNo <= end && kept <= budget;
    const finish = (eolBytes: boolean): void => {
        if (keeping()) {
            let bytes = Buffer.concat(parts, held);
            if (lineNo === 1 && hasUtf8Bom(bytes)) bytes = bytes.subarray(3);
            let eol = eolBytes ? '\n' : '';
            if (!cut && eolBytes && bytes.length > 0 && bytes[bytes.length - 1] === 13) {
                bytes = bytes.subarray(0, -1);
                eol = '\r\n';
            }
            const text = decodeLine(bytes, cut);
            lines.push({ text, eol, complete: !cut });
            kept += text.length + eol.length;
        }
        parts = [];
        held = 0;
        pending = 0;
        cut = false;
    };
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let position = 0;
    for (;;) {
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        const data = chunk.subarray(0, bytesRead);
        let pos = 0;
        for (;;) {
            const nl = data.indexOf(10, pos);
            const stop = nl === -1 ? data.length : nl;
            if (stop > pos) {
                pending += stop - pos;
                if (keeping() && held < lineCap) {
                    const take = Math.min(stop - pos, lineCap - held);
                    parts.push(Buffer.from(data.subarray(pos, pos + take)));
                    held += take;
                    if (take < stop - pos) cut = true;
                } else if (keeping()) {
                    cut = true;
                }
            }
            if (nl === -1) break;
            finish(true);
            lineNo++;
            pos = nl + 1;
        }
    }
    if (pending > 0) {
        finish(false);
        return { total: lineNo, first: start, lines };
    }
    return { total: lineNo - 1, first: start, lines };
}

/** One line's bytes as text: strict UTF-8, else Latin-1; a prefix (`cut`) may end inside a character, so it is decoded leniently. */
function decodeLine(bytes: Buffer, cut: boolean): string {
    if (cut) return utf8Lenient.decode(bytes);
    try {
        return utf8Strict.decode(bytes);
    } catch {
        return bytes.toString('latin1');
    }
}
