import { errors } from '../../errors/shared/errors.js';
import { quotePath } from '../../print/shared/display.js';
import { describeNumbers } from './ranges.js';

/** A document shown in numbered sections: a PDF's pages, a notebook's cells. */
export interface SectionedDocument {
    shown: string;
    /** `PDF`, `notebook (Python 3)`: said in the header. */
    what: string;
    /** `page` or `cell`. */
    unit: string;
    /** The `read_file` parameter that picks sections: `pages` or `cells`. */
    param: string;
    count: number;
    /** The section's text, after its marker (called in order, only for sections shown). */
    textOf: (n: number) => Promise<string> | string;
    /** The section's marker (default `[page N]`). */
    markerOf?: (n: number) => string;
    /** The text for a section without text (default: none, shown empty). */
    empty?: string;
}

/**
 * What `read_file` shows of a PDF or a notebook: a header, then each section's text after its
 * marker, within `maxChars`, and a note saying which sections come next. Without a list
 * (`wanted` undefined) the sections are read from the first until the bound is reached, and one
 * that does not fit whole is left for the next call (unless it is the first); with a list, the
 * section the bound cuts is shown cut, with a note. `shown` lists the sections shown, in whole or in part.
 * With `startChar` (read_file's `start_char`) the first section's text starts there and a cut
 * section's note names the `start_char` that continues it; without it, a section longer than the
 * bound cannot be continued and its note says to raise max_chars.
 */
export async function renderSections(doc: SectionedDocument, wanted: readonly number[] | undefined, maxChars: number, startChar?: number): Promise<{ text: string; shown: number[] }> {
    const list = wanted ?? Array.from({ length: doc.count }, (_, i) => i + 1);
    const marker = doc.markerOf ?? ((n: number) => `[${doc.unit} ${n}]`);
    let body = '';
    const done: number[] = [];
    let cut: { n: number; from: number; shown: number; length: number } | undefined;
    for (const n of list) {
        const whole = (await doc.textOf(n)).replace(/\s+$/u, '');
        const from = done.length === 0 ? (startChar ?? 1) : 1;
        if (from > 1 && from > whole.length) {
            throw errors.invalidArgument('read_file', `start_char ${from} is beyond the end of ${doc.unit} ${n} of ${quotePath(doc.shown)}, which has ${whole.length} characters.`);
        }
        const text = whole.slice(from - 1);
        const head = from > 1 ? `${marker(n).replace(/\]$/, '')}, from character ${from.toLocaleString('en-US')}]\n` : `${marker(n)}\n`;
        const section = `${head}${whole === '' && doc.empty !== undefined ? doc.empty : text}\n`;
        if (body.length + section.length > maxChars) {
            if (wanted === undefined && done.length > 0) break;
            const room = Math.max(0, maxChars - body.length);
            body += section.slice(0, room);
            cut = { n, from, shown: Math.max(0, room - head.length), length: whole.length };
            done.push(n);
            break;
        }
        body += section;
        done.push(n);
    }
    const next = list.slice(done.length);
    const header = `--- ${quotePath(doc.shown)} (${doc.what}, ${doc.unit}${done.length === 1 ? '' : 's'} ${done.length > 0 ? describeNumbers(done) : 'none'} of ${doc.count}) ---`;
    const notes: string[] = [];
    // A section cut only at its line break is shown whole: no start_char continues it.
    if (cut && cut.from - 1 + cut.shown >= cut.length && startChar !== undefined) cut = undefined;
    if (cut) {
        const after = cut.from - 1 + cut.shown;
        const how = startChar === undefined ? 'raise max_chars to see all of it' : `continue with ${doc.param}="${cut.n}" and start_char=${after + 1}`;
        notes.push(`[Truncated at ${maxChars} characters (max_chars / maxCharsPerFile): ${doc.unit} ${cut.n} is cut off after ${after} of its ${cut.length} characters; ${how}.]`);
    }
    if (next.length > 0) {
        const ahead = describeNumbers(next.slice(0, Math.max(1, done.length))).replace(/, /g, ',');
        notes.push(`[${next.length} more ${doc.unit}${next.length === 1 ? '' : 's'} of ${doc.count} not shown; continue with ${doc.param}="${ahead}".]`);
    }
    // Sections and notes one a line, with no newline after the last: the text ends where the document
    // does. A cut section's last newline is its text's own, counted by the note's start_char: kept.
    return { text: [header, cut ? body : body.replace(/\n$/, ''), ...notes].filter((part) => part !== '').join('\n'), shown: done };
}
