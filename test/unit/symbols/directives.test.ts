/**
 * C files of directives and comments alone, read without a parse (workers/symbols/directives.ts):
 * which files the scan takes, and that the outcome of each (definitions, lines, signatures and
 * their byte spans, checkpoints) is the parse's byte for byte. The parse is the same worker code
 * with the scan turned off (a second instance of symbols.ts whose `directiveFile` answers "parse");
 * the files are real.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { directiveFile } from '../../../workers/symbols/directives.js';
import type { FileSymbols, SymbolsTask } from '../../../src/symbols/shared/types.js';
import { tempDir } from '../../support/helpers.js';

type Run = (task: SymbolsTask) => ReturnType<typeof runSymbolsTask>;
let parsedRun: Run;
let parsedCalls = 0;

// As in c-bodies.test.ts: a second instance of symbols.ts alone, whose import of directives.ts the mock answers.
const PARSED_SYMBOLS = '../../../workers/symbols/symbols.js?parsed';
beforeAll(async () => {
    vi.doMock('../../../workers/symbols/directives.js', async (original) => ({ ...(await original<object>()), directiveFile: () => (parsedCalls++, null) }));
    parsedRun = ((await import(/* @vite-ignore */ PARSED_SYMBOLS)) as typeof import('../../../workers/symbols/symbols.js')).runSymbolsTask;
    vi.doUnmock('../../../workers/symbols/directives.js');
});
afterAll(() => vi.doUnmock('../../../workers/symbols/directives.js'));

async function outcome(run: Run, file: string): Promise<FileSymbols & { ok: true }> {
    const r = (await run({ op: 'symbols', files: [{ shown: path.basename(file), real: file }], realRoots: null, maxBytes: 4 << 20, parseMs: 120_000, spans: true, checkpoints: true })).files[0]!;
    if (!r.ok) throw new Error(r.message);
    return r;
}

/** Writes `text` (a string, or bytes) to a new `.h` file; the scan's answer and both outcomes. */
async function both(text: string | Buffer, name = 'x.h'): Promise<{ scanned: boolean; fast: FileSymbols & { ok: true }; parsed: FileSymbols & { ok: true } }> {
    const file = path.join(tempDir('lcf-directives-'), name);
    fs.writeFileSync(file, text);
    const before = parsedCalls;
    const [fast, parsed] = [await outcome(runSymbolsTask, file), await outcome(parsedRun, file)];
    // The oracle asked its own (mocked) scan, so its outcome is the parse's; only C files are scanned.
    expect(parsedCalls).toBe(before + (/\.[ch]$/.test(name) ? 1 : 0));
    return { scanned: directiveFile(typeof text === 'string' ? text : text.toString('latin1')) !== null, fast, parsed };
}

const GUARD = (body: string[]): string => ['/*', ' * SPDX-License-Identifier: MIT', ' */', '#ifndef _X_H', '#define _X_H', '', ...body, '', '#endif /* _X_H */', ''].join('\n');

/** Files the scan reads: each outcome must be the parse's. */
const TAKEN: [string, string | Buffer][] = [
    ['an empty file', ''],
    ['a comment alone', '/* nothing here */\n'],
    ['register defines in an include guard', GUARD(['// addressBlock: x', '#define mmA 0x0000', '#define mmA_BASE_IDX 0', '#define A__F_MASK 0x00000001L', '#define A__F__SHIFT 0x1'])],
    ['lines continued by backslashes', '#define MULTI(a, b) \\\n\tdo { \\\n\t\tf(a); \\\n\t} while (0)\n#define NEXT 1\n'],
    ['comments after a define, one spanning lines', '#define A 1 /* one */\n#define B 2 /* two\n   lines */\n#define C 3 // line\n'],
    ['a comment before the value on a continued line', '#define D \\\n\t/* the value */ 4\n'],
    ['defines in #if, #elif, #else and #ifdef blocks', '#if defined(CONFIG_A) && !defined CONFIG_B || (X > 3 && F(1, 2))\n#define IN_IF 1\n#elif X << 2 == 0x10UL\n#define IN_ELIF 2\n#else\n# define IN_ELSE 3\n#endif\n#ifdef Y\n  #  define NESTED 4\n#ifndef Z\n#define DEEP 5\n#endif\n#endif // Y\n'],
    ['#undef, #pragma, #error, #include', '#include <linux/types.h>\n#include "local.h" /* why */\n#undef A\n#pragma once\n#error don\'t\n#define A 1\n'],
    ['function-like macros with spaces', '#define F( a , b ) ((a) + (b))\n#define G(...) g(__VA_ARGS__)\n#define H (x)\n#define I() i\n#define J(a, ...) j(a)\n'],
    ['a value with "/*" in quotes and a slash before the line end', '#define S "/*" x\n still the comment */\n#define T 1 /\n 2\n#define URL "http://example.org"\n'],
    ['CRLF line ends', '#ifndef W_H\r\n#define W_H\r\n#define W1 1 \\\r\n\t+ 2\r\n#endif\r\n'],
    ['keywords in conditions', '#if sizeof(int) > 4 || int\n#define K1 1\n#elif true && defined(inline) || defined const\n#endif\n#ifdef const\n#define K2 2\n#endif\n#if 1 - - 1 == +2 && A() && 08\n#endif\n'],
    ['keywords as macro names', '#define inline __inline__\n#define bool _Bool\n#define NULL ((void *)0)\n'],
    ['spaces before a line end, which let the next line be the value', '#define X \n#define Y 1\n#define F(a)\t\n\n  f(a)\n#define Z /* z */ \n/* w */\n#define V 2 /* two */ \n\n/* then this */\n'],
    ['comments after #if, #ifdef, #else and #endif, with spaces after them', '#if A /* a */ \n#define B 1\n#elif C \n#endif \n#ifdef D /* d */ \n#else /* e */ \n#endif /* f */ \n'],
    ['a `//` within a value, then a `/*`', '#define A 1 // x /* y\n */\n#define B 2\n'],
    ['a Latin-1 comment', Buffer.from('/* caf\xe9 */\n#define E 1\n', 'latin1')],
    ['top-level defines far apart (checkpoints)', Array.from({ length: 60 }, (_, k) => `/* block ${k} ${'x'.repeat(40)} */\n#define TOP_${k} ${k} /* ${'y'.repeat(30)} */`).join('\n') + '\n'],
];

/** Files the scan leaves to the parse (a stray token, or a form whose tree has an error or may be read otherwise). */
const LEFT: [string, string][] = [
    ['a stray token among the directives', '#ifndef S_H\n#define S_H\n#define A 1\nFOO\n#endif\n'],
    ['a declaration', '#define A 1\nint a;\n'],
    ['a named variadic parameter', '#define F(a, b...) a\n'],
    ['code after a comment within a value', '#define M(x) \\\n\tdo { \\\n\t\t/* note */ \\\n\t\tf(x); \\\n\t} while (0)\n'],
    ['a ternary in #if', '#if A ? B : C\n#define T 1\n#endif\n'],
    ['a character in #if', "#if 'a'\n#define T 1\n#endif\n"],
    ['an #endif without #if', '#define A 1\n#endif\n'],
    ['an #if not closed', '#if A\n#define A 1\n'],
    ['a token after #ifdef\'s name', '#ifdef A B\n#define A 1\n#endif\n'],
    ['a define not ended by a newline', '#define A 1'],
    ['a value that begins with `//` and holds a `/*`', '#define A // x /* y\n */\n'],
    ['a slash before a backslash-newline in a value', '#define P a /\\\nb\n'],
    ['an #include of a macro', '#include FOO_H\n#define A 1\n'],
    ['spaces between an #include and its line end', '#include <a.h> \n#define A 1\n'],
    ['a second value after a comment', '#define A 1 /* c */\t\n#define B 2\n'],
    ['an #undef with spaces after its comment', '#undef Z /* c */ \n#define W\n'],
    ['a directive after a comment on its line', '/* x */ #define A 1\n'],
];

describe('directive files read without a parse', () => {
    for (const [what, text] of TAKEN) {
        it(`reads ${what} as the parse does`, async () => {
            const { scanned, fast, parsed } = await both(text);
            expect(scanned).toBe(true);
            expect(fast).toEqual(parsed);
        });
    }

    for (const [what, text] of LEFT) {
        it(`leaves ${what} to the parse`, async () => {
            const { scanned, fast, parsed } = await both(text);
            expect(scanned).toBe(false);
            expect(fast).toEqual(parsed);
        });
    }

    it('gives the lines, signatures and checkpoints the table keeps', async () => {
        const { fast } = await both(TAKEN.find((t) => t[0].startsWith('lines continued'))![1]);
        expect(fast.definitions.map((d) => [d.name, d.line, d.endLine, d.signature])).toEqual([
            ['MULTI', 1, 4, '#define MULTI(a, b) \\'],
            ['NEXT', 5, 5, '#define NEXT 1'],
        ]);
        const far = await both(TAKEN.find((t) => t[0].startsWith('top-level'))![1]);
        expect(far.fast.checkpoints!.length).toBeGreaterThan(2);
        expect(far.fast.definitions).toHaveLength(60);
    });

    it('leaves C files with code to the parse, and other languages untouched', async () => {
        const { scanned, fast } = await both('#define A 1\nstatic int f(void) { return A; }\n', 'y.c');
        expect(scanned).toBe(false);
        expect(fast.definitions.map((d) => d.name)).toEqual(['A', 'f']);
        const cpp = await both('#define A 1\n', 'z.hpp');
        expect(cpp.fast).toEqual(cpp.parsed);
    });
});
