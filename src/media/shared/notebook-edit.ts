/**
 * Edits of a notebook's cells on its JSON text: only the bytes of the cell changed (or of the
 * cell inserted or deleted, with its separator) change; every other byte of the file stays as it
 * was, whatever the writer's indentation, key order or escapes. The spans come from a scan of
 * the JSON text, not from parsing and printing it again.
 */

interface Span {
    start: number;
    end: number;
}

/** Where each cell of the notebook's `cells` array is, and the array itself. */
export interface CellSpans {
    array: Span;
    cells: Span[];
}

const WS = /\s/;

function skipWs(s: string, i: number): number {
    while (i < s.length && WS.test(s[i]!)) i++;
    return i;
}

/** The index after the JSON value starting at `i` (which must be valid JSON: the caller parsed it first). */
function skipValue(s: string, i: number): number {
    const c = s[i];
    if (c === '"') {
        for (i++; s[i] !== '"'; i++) if (s[i] === '\\') i++;
        return i + 1;
    }
    if (c === '{' || c === '[') {
        let depth = 0;
        for (; i < s.length; i++) {
            const d = s[i];
            if (d === '"') i = skipValue(s, i) - 1;
            else if (d === '{' || d === '[') depth++;
            else if (d === '}' || d === ']') if (--depth === 0) return i + 1;
        }
        return i;
    }
    while (i < s.length && !/[\s,\]}]/.test(s[i]!)) i++;
    return i;
}

/** The members of the object at `i`: each key and its value's span. */
function members(s: string, i: number): Map<string, Span> {
    const out = new Map<string, Span>();
    i = skipWs(s, i + 1);
    while (s[i] !== '}') {
        const keyEnd = skipValue(s, i);
        const key = JSON.parse(s.slice(i, keyEnd)) as string;
        const start = skipWs(s, skipWs(s, keyEnd) + 1);
        const end = skipValue(s, start);
        out.set(key, { start, end });
        i = skipWs(s, end);
        if (s[i] === ',') i = skipWs(s, i + 1);
    }
    return out;
}

/** The spans of `text`'s cells; `text` must be a notebook's valid JSON (an object with a `cells` array). */
export function cellSpans(text: string): CellSpans {
    const array = members(text, skipWs(text, 0)).get('cells')!;
    const cells: Span[] = [];
    let i = skipWs(text, array.start + 1);
    while (text[i] !== ']') {
        const end = skipValue(text, i);
        cells.push({ start: i, end });
        i = skipWs(text, end);
        if (text[i] === ',') i = skipWs(text, i + 1);
    }
    return { array, cells };
}

/** The indentation of the line `at` is on. */
function indentAt(s: string, at: number): string {
    const line = s.lastIndexOf('\n', at - 1) + 1;
    return /^[ \t]*/.exec(s.slice(line, at))![0];
}

/** A source as nbformat stores it: its lines, each with its `\n` but the last. */
export function sourceLines(source: string): string[] {
    return source === '' ? [] : source.split(/(?<=\n)/);
}

/**
 * `value` as JSON laid out like `like` (the value it replaces, or a sibling): on one line when
 * that one is, else one element or member per line, indented as the file indents.
 */
function layout(value: unknown, text: string, like: Span): string {
    const old = text.slice(like.start, like.end);
    if (!old.includes('\n')) return JSON.stringify(value);
    const base = indentAt(text, like.start);
    const inner = /\n([ \t]*)\S/.exec(old)?.[1] ?? `${base} `;
    const unit = inner.length > base.length ? inner.slice(base.length) : ' ';
    return JSON.stringify(value, null, unit).replace(/\n/g, `\n${base}`);
}

/** `text` with cell `n`'s (1-based) source replaced by `source`; its outputs are kept. */
export function replaceCellSource(text: string, spans: CellSpans, n: number, source: string): string {
    const cell = spans.cells[n - 1]!;
    const src = members(text, cell.start).get('source');
    if (src === undefined) {
        // A cell without a source (not valid nbformat, but seen): the source goes first.
        const at = skipWs(text, cell.start + 1);
        return `${text.slice(0, at)}"source": ${JSON.stringify(sourceLines(source))}, ${text.slice(at)}`;
    }
    return text.slice(0, src.start) + layout(sourceLines(source), text, src) + text.slice(src.end);
}

/** A new cell of `type` with `source`, as nbformat 4 writes one; an `id` when the notebook's cells have ids. */
export function newCell(type: 'code' | 'markdown' | 'raw', source: string, withId: boolean): Record<string, unknown> {
    const cell: Record<string, unknown> = { cell_type: type };
    if (type === 'code') cell.execution_count = null;
    if (withId) cell.id = Math.random().toString(16).slice(2, 10).padEnd(8, '0');
    cell.metadata = {};
    if (type === 'code') cell.outputs = [];
    cell.source = sourceLines(source);
    return cell;
}

/** `text` with `cell` inserted before cell `n` (1-based; `count + 1` appends it). */
export function insertCell(text: string, spans: CellSpans, n: number, cell: Record<string, unknown>): string {
    const { cells, array } = spans;
    if (cells.length === 0) {
        const base = indentAt(text, array.start);
        const body = JSON.stringify(cell, null, ' ').replace(/\n/g, `\n${base}  `);
        return `${text.slice(0, array.start)}[\n${base}  ${body}\n${base}]${text.slice(array.end)}`;
    }
    const like = cells[Math.min(n, cells.length) - 1]!;
    const json = layout(cell, text, like);
    if (n <= cells.length) {
        const at = cells[n - 1]!.start;
        const sep = n > 1 ? text.slice(cells[n - 2]!.end, at) : `,\n${indentAt(text, at)}`;
        return text.slice(0, at) + json + sep + text.slice(at);
    }
    const last = cells[cells.length - 1]!;
    const sep = cells.length > 1 ? text.slice(cells[cells.length - 2]!.end, cells[cells.length - 1]!.start) : `,\n${indentAt(text, last.start)}`;
    return text.slice(0, last.end) + sep + json + text.slice(last.end);
}

/** `text` without cell `n` (1-based) and one separator next to it. */
export function deleteCell(text: string, spans: CellSpans, n: number): string {
    const { cells } = spans;
    const cell = cells[n - 1]!;
    if (n < cells.length) return text.slice(0, cell.start) + text.slice(cells[n]!.start);
    if (n > 1) return text.slice(0, cells[n - 2]!.end) + text.slice(cell.end);
    return text.slice(0, cell.start) + text.slice(cell.end);
}
