/** A PDF's page or a notebook's cell read past `read_file`'s bound by following its notes. */
import { expect } from 'vitest';
import type { FileToolResult } from '../../src/tools/base.js';

export interface CutSection {
    /** The result's first line and its newline. */
    head: string;
    /** The section's marker without its closing bracket (`[page 1`, `[cell 1: markdown`). */
    marker: string;
    /** How notes name it (`page 1`), the call that continues it (`pages="1"`), the file's kind (`PDF`). */
    unit: string;
    param: string;
    kind: string;
    /** The section's characters; the bound in force; the most calls allowed. */
    length: number;
    bound: number;
    calls: number;
}

/**
 * Reads from `first` (with `max_chars`), then from each note's `start_char`, until a result has no
 * note: each result's head, marker and note checked against what was gathered. Returns the text.
 */
export async function followCutNotes(read: (args: Record<string, unknown>) => Promise<FileToolResult>, first: Record<string, unknown>, s: CutSection): Promise<string> {
    const { max_chars: _bound, ...rest } = first;
    const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const cut = new RegExp(`\\n\\[Truncated at ${s.bound} characters \\(max_chars / maxCharsPerFile\\): ${esc(s.unit)} is cut off after (\\d+) of its (\\d+) characters; continue with ${esc(s.param)} and start_char=(\\d+)\\.\\]$`);
    let got = '';
    let args = first;
    for (let calls = 0; ; calls++) {
        expect(calls).toBeLessThan(s.calls);
        const r = await read(args);
        expect(r.status, r.result).toBe('success');
        expect(r.result.startsWith(s.head), r.result.slice(0, 200)).toBe(true);
        expect(r.result).not.toContain(`not used for this ${s.kind}`);
        const from = got.length + 1;
        const marker = from === 1 ? `${s.marker}]\n` : `${s.marker}, from character ${from.toLocaleString('en-US')}]\n`;
        expect(r.result.slice(s.head.length, s.head.length + marker.length)).toBe(marker);
        const body = r.result.slice(s.head.length + marker.length);
        const note = cut.exec(body);
        if (note === null) return got + body;
        expect(Number(note[2])).toBe(s.length);
        got += body.slice(0, note.index);
        expect(Number(note[3])).toBe(got.length + 1);
        args = { ...rest, start_char: Number(note[3]) };
    }
}
