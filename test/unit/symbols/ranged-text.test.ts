/**
 * A ranged parse (workers/symbols/parser.ts) hands the text to tree-sitter a range at a time; the
 * tree reads its nodes' text through the same input. A node spanning the text left out between
 * ranges, or lying past the last range, still reads as the text has it, and the tree is the one
 * of the same ranges given the text whole.
 */
import { describe, expect, it } from 'vitest';
import type { Node, Range } from 'web-tree-sitter';
import { languageOf } from '../../../src/symbols/shared/languages.js';
import { loaded, parseWithin } from '../../../workers/symbols/parser.js';
import { withoutBodies } from '../../../workers/symbols/bodies.js';

const SOURCE = [
    '/* a comment */',
    '#define ONE 1',
    'static int first(int x)',
    '{',
    '\tint y = x * 2; /* not read */',
    '\treturn y + ONE;',
    '}',
    '',
    'struct pair { int a; int b; };',
    '',
    'int second(void)',
    '{',
    '\treturn first(3);',
    '}',
    'int tail = 4;',
    '',
].join('\n');

function all(node: Node, out: Node[] = []): Node[] {
    out.push(node);
    for (const c of node.children) if (c !== null) all(c, out);
    return out;
}

describe('a ranged parse', () => {
    it('reads each node\'s text as the source has it, across the text left out', async () => {
        const { parser } = await loaded(languageOf('x.c')!);
        const ranges = withoutBodies(SOURCE)!.ranges!;
        expect(ranges.length).toBeGreaterThan(1);
        const tree = parseWithin(parser, SOURCE, 60_000, ranges)!;
        try {
            const nodes = all(tree.rootNode);
            const functions = nodes.filter((n) => n.type === 'function_definition');
            expect(functions.map((f) => f.text)).toEqual([SOURCE.slice(SOURCE.indexOf('static int first'), SOURCE.indexOf('}\n\nstruct') + 1), SOURCE.slice(SOURCE.indexOf('int second'), SOURCE.lastIndexOf('}') + 1)]);
            for (const n of nodes) expect(n.text, n.type).toBe(SOURCE.slice(n.startIndex, n.endIndex));
        } finally {
            tree.delete();
        }
    });

    it('gives the tree the same ranges give with the text handed whole, and the text past its last range', async () => {
        const { parser } = await loaded(languageOf('x.c')!);
        const end = SOURCE.indexOf('int tail');
        const ranges: Range[] = withoutBodies(SOURCE)!.ranges!.filter((r) => r.startIndex < end).map((r) => ({ ...r }));
        const last = ranges[ranges.length - 1]!;
        [last.endIndex, last.endPosition] = [end, { row: SOURCE.slice(0, end).split('\n').length - 1, column: 0 }];
        const ranged = parseWithin(parser, SOURCE, 60_000, ranges)!;
        const whole = parser.parse(SOURCE, null, { includedRanges: ranges })!;
        try {
            expect(ranged.rootNode.toString()).toBe(whole.rootNode.toString());
            const root = ranged.rootNode;
            expect(root.text).toBe(SOURCE.slice(root.startIndex, root.endIndex));
            // Past the last range: the rest of the text, as the input gives a text parsed whole.
            const input = (ranged as unknown as { textCallback: (index: number) => string }).textCallback;
            expect(input(end + 1)).toBe(SOURCE.slice(end + 1));
        } finally {
            ranged.delete();
            whole.delete();
        }
    });
});
