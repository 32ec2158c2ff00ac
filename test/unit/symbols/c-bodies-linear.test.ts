/**
 * The bodies' scan (workers/symbols/bodies.ts) reads a text a bounded number of times over, on
 * texts made so that a scan from each of many places to a far end would read it n²/2 times: a
 * directive of escaped apostrophes, a body of many comments with no `#` after them, a body of many
 * directives; and the blocks it leaves out are still the text's. Checked by the characters its
 * look-aheads read (`scanRead`), not by time.
 */
import { describe, expect, it } from 'vitest';
import { scanRead, withoutBodies } from '../../../workers/symbols/bodies.js';

/** `withoutBodies(text)` and the characters its look-aheads read. */
function scanned(text: string): { blanked: ReturnType<typeof withoutBodies>; read: number } {
    const before = scanRead.chars;
    const blanked = withoutBodies(text);
    return { blanked, read: scanRead.chars - before };
}

/** The `[open, close]` braces of the function `name`'s body in `text` (its first `{` after the name, its last `}` before the next line starting `}`). */
function bodyOf(text: string, name: string): number[] {
    const open = text.indexOf('{', text.indexOf(`${name}(void)`));
    return [open, text.indexOf('\n}', open) + 1];
}

const TAIL = 'int g(void)\n{\n\treturn 1;\n}\n';

describe('bodies scan: bounded reads on texts made to be quadratic', () => {
    it('reads a directive of escaped apostrophes once, not once per apostrophe', () => {
        // Each `'` opens a literal whose `\'` escapes the next one: no literal closes on the line.
        const text = `#define Q ${"'\\".repeat(20_000)}x\nint f(void)\n{\n\treturn 0;\n}\n${TAIL}`;
        const { blanked, read } = scanned(text);
        expect(blanked?.bodies).toEqual([...bodyOf(text, 'f'), ...bodyOf(text, 'g')]);
        expect(read).toBeLessThanOrEqual(3 * text.length);
        // The same with quotes and apostrophes mixed, and the line continued by backslashes.
        const mixed = `#define M ${'"\\\'\\"\\\\\n'.repeat(5_000)}x\nint f(void)\n{\n\treturn 0;\n}\n${TAIL}`;
        const m = scanned(mixed);
        expect(m.blanked?.bodies).toEqual([...bodyOf(mixed, 'f'), ...bodyOf(mixed, 'g')]);
        expect(m.read).toBeLessThanOrEqual(3 * mixed.length);
    });

    it('looks for the next # once per #, not once per comment of a body', () => {
        const text = `int f(void)\n{\n${'\tx++; /* a comment */\n'.repeat(20_000)}}\n${TAIL}`;
        const { blanked, read } = scanned(text);
        expect(blanked?.bodies).toEqual([...bodyOf(text, 'f'), ...bodyOf(text, 'g')]);
        expect(read).toBeLessThanOrEqual(3 * text.length);
        // A `#define` line in the last comment still has the body read whole (only g left out).
        const late = `int f(void)\n{\n${'\tx++; /* a comment */\n'.repeat(20_000)}\t/* see\n#define X 1 */\n}\n${TAIL}`;
        const l = scanned(late);
        expect(l.blanked?.bodies).toEqual(bodyOf(late, 'g'));
        expect(l.read).toBeLessThanOrEqual(3 * late.length);
    });

    it('keeps each directive of a body of 100,000 of them', () => {
        const text = `int f(void)\n{\n${'#if A\n\tx++;\n#endif\n'.repeat(50_000)}}\n`;
        const { blanked, read } = scanned(text);
        expect(blanked?.bodies).toEqual(bodyOf(text, 'f'));
        // The body's inside between its directives is left out: one range per `x++;` line's gap.
        const ranges = blanked!.ranges!;
        expect(ranges.length).toBe(50_000 + 1);
        expect(ranges.every((r) => text.slice(r.startIndex, r.endIndex).includes('#') || r.startIndex === 0)).toBe(true);
        expect(read).toBeLessThanOrEqual(3 * text.length);
    });
});
