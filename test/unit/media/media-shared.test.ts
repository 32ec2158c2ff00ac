/** The pure parts of media reads: page and cell lists, the image budget, and notebook edits on JSON text of any layout. */
import { describe, expect, it } from 'vitest';
import { sentSize } from '../../../src/media/shared/image-line.js';
import { mediaKindOf } from '../../../src/media/shared/kinds.js';
import { cellSpans, deleteCell, insertCell, newCell, replaceCellSource } from '../../../src/media/shared/notebook-edit.js';
import { beyondNote, describeNumbers, numbersIn, parseRanges, type NumberRange } from '../../../src/media/shared/ranges.js';
import { unusedNote } from '../../../src/tools/read-media.js';

describe('page and cell lists', () => {
    it('parses lists, open ends and repeats, in the order given', () => {
        const r = parseRanges('7-9, 2,3-', 'page');
        expect(r).toEqual([{ first: 7, last: 9 }, { first: 2, last: 2 }, { first: 3, last: undefined }]);
        expect(numbersIn(r as never, 10, 'page')).toEqual([7, 8, 9, 2, 3, 4, 5, 6, 10]);
        expect(describeNumbers([1, 2, 3, 7, 9, 10])).toBe('1-3, 7, 9-10');
    });

    it('names the numbers past the end, never an open end', () => {
        const note = (spec: string, count: number): string | undefined => beyondNote(parseRanges(spec, 'page') as NumberRange[], count, 'page', 'PDF');
        expect(note('3-9', 5)).toBe('[pages 6-9 do not exist: the PDF has 5 pages.]');
        expect(note('5-6', 5)).toBe('[page 6 does not exist: the PDF has 5 pages.]');
        expect(note('1-3,2-8,4-7', 5)).toBe('[pages 6-8 do not exist: the PDF has 5 pages.]');
        expect(note('1-2', 1)).toBe('[page 2 does not exist: the PDF has 1 page.]');
        expect(note('2-', 5)).toBeUndefined();
        expect(note('1-5', 5)).toBeUndefined();
    });

    it('names the text-read parameters a media read does not use', () => {
        expect(unusedNote('image', {})).toBeUndefined();
        expect(unusedNote('image', { pages: '1' })).toBeUndefined();
        expect(unusedNote('image', { last_lines: 3 })).toBe('[last_lines applies to text files and is not used for this image: the whole image is sent.]');
        // A PDF takes start_char within its first page read.
        expect(unusedNote('pdf', { start_char: 2 })).toBeUndefined();
        expect(unusedNote('pdf', { start_line: 1, start_char: 2 })).toBe('[start_line applies to text files and is not used for this PDF: pages picks the pages of a PDF.]');
        // So does a notebook, within its first cell read.
        expect(unusedNote('notebook', { start_line: 1, start_char: 2, encoding: 'latin1' })).toBe('[start_line and encoding apply to text files and are not used for this notebook: cells picks the cells of a notebook.]');
        expect(unusedNote('image', { start_char: 2 })).toBe('[start_char applies to text files and is not used for this image: the whole image is sent.]');
    });

    it('says what is wrong with a bad list', () => {
        expect(parseRanges('0', 'page')).toBe('page numbers start at 1 (got 0).');
        expect(parseRanges('1;2', 'cell')).toBe('"1;2" is not a cell list: use e.g. "3", "1-5" or "2,7-9".');
        // A number beyond 2^53 - 1 would be rounded (99999999999999999999 read as 100000000000000000000).
        expect(parseRanges('2-99999999999999999999', 'page')).toBe('page number 99999999999999999999 is too large (at most 9007199254740991).');
        expect(parseRanges('9007199254740992', 'cell')).toBe('cell number 9007199254740992 is too large (at most 9007199254740991).');
        expect(parseRanges('2-9007199254740991', 'page')).toEqual([{ first: 2, last: 9007199254740991 }]);
        expect(numbersIn([{ first: 4, last: undefined }], 3, 'page')).toBe('page 4 is beyond the end: there are 3 pages.');
    });
});

describe('media kinds and the image budget', () => {
    it('knows media by extension, any case; SVG is text', () => {
        expect(['a.PNG', 'b.jpeg', 'c.pdf', 'd.ipynb', 'e.svg', 'dir.png/x', 'noext'].map(mediaKindOf)).toEqual(['image', 'image', 'pdf', 'notebook', undefined, undefined, undefined]);
    });

    it('keeps an image within the budget and scales a larger one by its long side or its area', () => {
        const limits = { maxSide: 1568, maxPixels: 1_150_000 };
        expect(sentSize(1000, 800, limits)).toEqual([1000, 800]);
        expect(sentSize(4000, 3000, limits)).toEqual([1238, 928]);
        expect(sentSize(10_000, 100, limits)).toEqual([1568, 15]);
    });
});

describe('notebook edits on the JSON text', () => {
    const compact = '{"cells":[{"cell_type":"code","source":["a\\n","b"],"outputs":[],"metadata":{}},{"cell_type":"markdown","source":"# T","metadata":{}}],"nbformat":4}';
    const indented = JSON.stringify(JSON.parse(compact), null, 2);

    for (const [name, text] of [['compact', compact], ['indented by two', indented]] as const) {
        it(`replaces, inserts and deletes in ${name} JSON, each leaving the rest as it was`, () => {
            const replaced = replaceCellSource(text, cellSpans(text), 2, '# "New"\nline');
            expect(JSON.parse(replaced).cells[1].source).toEqual(['# "New"\n', 'line']);
            expect(replaced.slice(0, cellSpans(text).cells[1]!.start)).toBe(text.slice(0, cellSpans(text).cells[1]!.start));
            const inserted = insertCell(text, cellSpans(text), 1, newCell('raw', 'r', false));
            expect(JSON.parse(inserted).cells.map((c: { cell_type: string }) => c.cell_type)).toEqual(['raw', 'code', 'markdown']);
            expect(deleteCell(inserted, cellSpans(inserted), 1)).toBe(text);
            const appended = insertCell(text, cellSpans(text), 3, newCell('code', '', false));
            expect(JSON.parse(appended).cells[2]).toEqual({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: [] });
            expect(deleteCell(appended, cellSpans(appended), 3)).toBe(text);
        });
    }

    it('inserts into an empty cell list, and skips brackets inside strings', () => {
        const empty = '{"metadata": {"x": "]}["}, "cells": []}';
        const one = insertCell(empty, cellSpans(empty), 1, newCell('markdown', 'hi', false));
        expect(JSON.parse(one).cells).toEqual([{ cell_type: 'markdown', metadata: {}, source: ['hi'] }]);
        expect(JSON.parse(deleteCell(one, cellSpans(one), 1))).toEqual(JSON.parse(empty));
    });
});
