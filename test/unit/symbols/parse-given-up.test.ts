/**
 * A parse given up at its time limit (workers/symbols/parser.ts `parseWithin`) leaves the thread's
 * parser ready for another text: tree-sitter resumes a halted parse on the parser's next call
 * unless it is reset, and that call's text is another file's.
 */
import { describe, expect, it } from 'vitest';
import { languageOf } from '../../../src/symbols/shared/languages.js';
import { loaded, parseWithin } from '../../../workers/symbols/parser.js';

describe('a parse given up at its limit', () => {
    it('leaves the parser to parse the next text from its start', async () => {
        const { parser } = await loaded(languageOf('a.c')!);
        const small = 'int after(void) { return 1; }\n';
        const want = parseWithin(parser, small, 60_000)!;
        const wanted = want.rootNode.toString();
        want.delete();
        // Nested initializers, long enough that no parse ends before its first progress check.
        const big = `int t[] = {${'{1,2,{3,{4}}},'.repeat(20_000)}};\n`;
        expect(parseWithin(parser, big, 0), 'given up').toBeNull();
        const got = parseWithin(parser, small, 60_000);
        expect(got, 'parsed').not.toBeNull();
        try {
            expect(got!.rootNode.toString()).toBe(wanted);
            expect(got!.rootNode.endIndex).toBe(small.length);
        } finally {
            got!.delete();
        }
    });
});
