/**
 * C function bodies blanked for the definitions' parse (workers/symbols/bodies.ts): what the scan
 * blanks and keeps, the files it leaves as written, and that the outline, the references' enclosing
 * definitions and the checkpoints are those of the parse of the text as written. That parse is the
 * same worker code with the blanking turned off (a second instance of symbols.ts whose
 * `withoutBodies` answers "parse as written"); the files are real.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { withoutBodies } from '../../../workers/symbols/bodies.js';
import type { FileSymbols, SymbolsTask } from '../../../src/symbols/shared/types.js';
import { parsedText, outlineLines, symbolsWith, writeTemp, type SymbolsRun } from '../../support/symbols.js';

type Run = SymbolsRun;
let plainRun: Run;
/** What the oracle's `withoutBodies` gives: nothing, so the oracle parses the text as written. */
let plainBlanks: unknown;
/** The calls of the oracle's `withoutBodies`: the oracle's parse asks it, not the module's own. */
let plainCalls = 0;

// The oracle is a second instance of symbols.ts alone (the query makes it another module), whose
// import of bodies.ts the mock answers; every other module stays the one the fork loaded. A reset
// of the module registry instead would make each next file of this fork load its modules again.
const PLAIN_SYMBOLS = '../../../workers/symbols/symbols.js?plain';
beforeAll(async () => {
    vi.doMock('../../../workers/symbols/bodies.js', async (original) => ({ ...(await original<object>()), withoutBodies: () => void plainCalls++ }));
    plainRun = ((await import(/* @vite-ignore */ PLAIN_SYMBOLS)) as typeof import('../../../workers/symbols/symbols.js')).runSymbolsTask;
    plainBlanks = (await import('../../../workers/symbols/bodies.js')).withoutBodies('int f(void) { return 0; }');
    vi.doUnmock('../../../workers/symbols/bodies.js');
});
afterAll(() => vi.doUnmock('../../../workers/symbols/bodies.js'));

const symbols = symbolsWith;
const write = (name: string, text: string): string => writeTemp('lcf-c-bodies-', name, text);
const seen = parsedText;
const outline = outlineLines;

const SOURCE = [
    '#include <linux/types.h>', // 1
    '#define OUTER(x) ((x) + 1)',
    '/* a comment with { braces } and a "quote */',
    'static const char *msg = "} not a body {";',
    'static int plain(int a)', // 5
    '{',
    '\tconst char *s = "a string with } and \\" inside {";',
    "\tchar c = '{';",
    '\t// a line comment with { and a continued line \\',
    '\t   still the comment }', // 10
    '#define IN_BODY 3',
    '\treturn a + IN_BODY + c;',
    '}',
    '',
    'static int local_types(void)', // 15
    '{',
    '\tstruct local_s { int x; } v = { 1 };',
    '\tenum { LOCAL_A, LOCAL_B } e = LOCAL_A;',
    '\treturn v.x + e;',
    '}', // 20
    '',
    'int kr(a, b)',
    '\tint a;',
    '\tint b;',
    '{', // 25
    '\treturn plain(a) + b;',
    '}',
    '',
    'static void __attribute__((noinline)) attributed(void) {',
    '\tif (msg[0]) { plain(1); }', // 30
    '}',
    '',
    'DEFINE_THING(name) {',
    '\tplain(2);',
    '}', // 35
    '',
    'static const char *multi = "first \\',
    'second }";',
    '',
    'int __init late_init(void)', // 40
    '{',
    '\treturn plain(3);',
    '}',
    '',
].join('\n');

describe('C function bodies blanked for the definitions', () => {
    it('compares with an oracle that blanks nothing', async () => {
        expect(seen('int f(void) { return 0; }')).toBe('int f(void) {           }');
        expect(plainBlanks).toBeUndefined();
        const calls = plainCalls;
        await symbols(plainRun, write('oracle.c', 'int f(void) { return 0; }\n'));
        expect(plainCalls).toBeGreaterThan(calls);
    });

    it('blanks the inside of top-level function bodies, keeping newlines, braces, directives and bodies that define types', () => {
        const b = withoutBodies(SOURCE)!;
        const lines = seen(SOURCE)!.split('\n');
        const src = SOURCE.split('\n');
        expect(lines.length).toBe(src.length);
        // `plain`: every line of its body blanked but the directive.
        expect(lines.slice(6, 10).every((l) => l.trim() === '')).toBe(true);
        expect(lines[10]).toBe('#define IN_BODY 3');
        expect(lines[11]!.trim()).toBe('');
        expect(lines[5]).toBe('{');
        expect(lines[12]).toBe('}');
        // A body that defines a struct and an enum stays as written.
        expect(lines.slice(15, 20)).toEqual(src.slice(15, 20));
        // K&R, an attribute before the name, a macro's `NAME(x) {`, `__init`: blanked.
        for (const row of [25, 29, 33, 41]) expect(lines[row]!.trim(), `line ${row + 1}`).toBe('');
        expect(lines[28]).toBe('static void __attribute__((noinline)) attributed(void) {');
        // Everything outside bodies is the text as written.
        for (const row of [0, 1, 2, 3, 4, 21, 22, 23, 36, 37, 39]) expect(lines[row]).toBe(src[row]);
        expect(b.bodies.length).toBe(2 * 5);
    });

    it('gives the outline the parse of the text as written gives', async () => {
        const file = write('bodies.c', SOURCE);
        const ours = await symbols(runSymbolsTask, file);
        expect(outline(ours)).toEqual(outline(await symbols(plainRun, file)));
        expect(ours.definitions.map((d) => `${d.line}-${d.endLine} ${d.kind} ${d.name}`)).toEqual([
            '2-2 macro OUTER',
            '4-4 variable msg',
            '5-13 function plain',
            '11-11 macro IN_BODY',
            '15-20 function local_types',
            '17-17 struct local_s',
            '18-18 constant LOCAL_A',
            '18-18 constant LOCAL_B',
            '22-27 function kr',
            '29-31 function attributed',
            '37-38 variable multi',
            '40-43 function late_init',
        ]);
    });

    // 300 functions: past the bodies left out as ranges, blanked in a copy of the text. Two
    // directives in a row in each body: their parts touch.
    it.each([12, 300])('gives the checkpoints and the references\' enclosing definitions the parse as written gives (%i functions)', async (count) => {
        // Long enough between items for checkpoints (512 characters apart).
        const text = Array.from({ length: count }, (_, k) => `int f${k}(int a)\n{\n#ifdef X\n#endif\n${'\ta = plain(a) + 1;\n'.repeat(30)}${k === 5 ? '\trare(a);\n' : ''}\treturn a;\n}\n`).join('\n');
        const source = `static int plain(int a)\n{\n\treturn a;\n}\n\n${text}`;
        const file = write('many.c', source);
        const rareLine = source.split('\n').findIndex((l) => l.includes('rare(')) + 1;
        const ours = await symbols(runSymbolsTask, file, { checkpoints: true });
        const plain = await symbols(plainRun, file, { checkpoints: true });
        expect(ours.checkpoints!.length).toBeGreaterThan(4);
        expect(ours.checkpoints).toEqual(plain.checkpoints);
        const refs = await symbols(runSymbolsTask, file, { references: 'plain' });
        const plainRefs = await symbols(plainRun, file, { references: 'plain' });
        expect(refs.references).toEqual(plainRefs.references);
        expect(refs.references!.length).toBe(1 + count * 30);
        const b = withoutBodies(source)!;
        expect(b[count > 256 ? 'text' : 'ranges']).toBeDefined();
        // The blanked copy keeps every index: each body's braces where they are in the file.
        const copy = b.text ?? source;
        expect(copy.length).toBe(source.length);
        for (let k = 0; k < b.bodies.length; k += 2) expect(copy.charAt(b.bodies[k]!) + copy.charAt(b.bodies[k + 1]!)).toBe('{}');
        expect(outline(refs)).toEqual(outline(plainRefs));
        // Each use's innermost enclosing definition is the outline's.
        const inner = (defs: FileSymbols & { ok: true }, line: number) => defs.definitions.filter((d) => d.line <= line && line <= d.endLine).sort((x, y) => x.endLine - x.line - (y.endLine - y.line))[0]?.name;
        for (const r of refs.references!) expect(inner(refs, r.line)).toBe(inner(ours, r.line));
        // With the table's checkpoints, the uses of a rare name are parsed in its region only, and the
        // definitions in the blanked text's same region: the enclosing one is still the outline's.
        const taken = { shown: 'many.c', real: file, checkpoints: ours.checkpoints!, chars: ours.chars, crc: ours.crc! };
        const task = { op: 'symbols' as const, files: [taken], realRoots: null, maxBytes: 1 << 20, parseMs: 60_000, references: 'rare' };
        const regional = (await runSymbolsTask(task)).files[0]!;
        const plainRegional = (await plainRun(task)).files[0]!;
        if (!regional.ok || !plainRegional.ok) throw new Error('not parsed');
        expect(regional.regions).toBe(true);
        expect(regional.references!.map((r) => r.line)).toEqual([rareLine]);
        expect(regional.references).toEqual(plainRegional.references);
        expect(regional.definitions.map((d) => d.name)).toContain('f5');
        expect(outline(regional)).toEqual(outline(plainRegional));
        expect(inner(regional, rareLine)).toBe('f5');
    });

    it('leaves a file as written where the braces cannot be followed as the grammar would', async () => {
        const cases: Record<string, string> = {
            'an #else in a body whose branches open a block each': 'int f(int a)\n{\n#ifdef X\n\tif (a) {\n#else\n\tif (!a) {\n#endif\n\t\treturn 1;\n\t}\n\treturn 0;\n}\nint g(void) { return 2; }\n',
            'a closing brace too many': 'int f(void)\n{\n\treturn 0;\n}\n}\nint g(void) { return 1; }\n',
            'a body not closed': 'int f(void)\n{\n\treturn 0;\n\nint g(void) { return 1; }\n',
            'a comment not closed': 'int f(void)\n{\n\treturn 0; /* open\n}\n',
            'a string not closed on its line': 'int f(void)\n{\n\tputs("open\n");\n}\n',
            'a file that is only a body': '{\n\tint x = 1;\n\treturn x;\n}\n',
            'a header without bodies': '#define A 1\nstruct s { int a; };\nint f(void);\n',
        };
        for (const [what, text] of Object.entries(cases)) {
            expect(withoutBodies(text), what).toBeUndefined();
            const file = write('odd.c', text);
            expect(outline(await symbols(runSymbolsTask, file)), what).toEqual(outline(await symbols(plainRun, file)));
        }
    });

    it('reads a body\'s #if without #else, a continued directive and a comment in a directive as the grammar does', async () => {
        const text = [
            'int f(int a)',
            '{',
            '#if defined(A) /* a { in a comment',
            '   still the directive } */',
            '\ta++;',
            '#endif',
            '#define LONG(x) \\',
            '\t{ (x) }',
            '\treturn a;',
            '}',
            'int g(void) { return 0; }',
            '',
        ].join('\n');
        expect(seen(text)!.split('\n').map((l) => l.trimEnd())).toEqual(['int f(int a)', '{', '#if defined(A) /* a { in a comment', '   still the directive } */', '', '#endif', '#define LONG(x) \\', '\t{ (x) }', '', '}', `int g(void) {${' '.repeat(' return 0; '.length)}}`, '']);
        const file = write('directives.c', text);
        expect(outline(await symbols(runSymbolsTask, file))).toEqual(outline(await symbols(plainRun, file)));
    });

    it('reads a body whole where a comment in it holds a #define line, in a file the grammar reads with an error', async () => {
        const text = ['int f(void)', '{', '\t/* an example:', '#define NOT_A_MACRO 1', '\t */', '\treturn 0;', '}', 'int g(void) { return 1; }', 'extern __printf(7, 8) void h(const char *, ...);', 'int k(void) { return 2; }', ''].join('\n');
        const view = seen(text)!.split('\n');
        expect(view.slice(2, 6)).toEqual(text.split('\n').slice(2, 6));
        expect(view[7]!.trimEnd()).toBe('int g(void) {           }');
        const file = write('comment-define.c', text);
        const ours = outline(await symbols(runSymbolsTask, file));
        expect(ours).toEqual(outline(await symbols(plainRun, file)));
        expect(ours.join('\n')).not.toContain('NOT_A_MACRO');
    });

    it('keeps a body with an #else or #elif as written and blanks the others', async () => {
        const text = 'int f(void)\n{\n#if A\n\treturn 1;\n#elif B\n\treturn 2;\n#else\n\treturn 3;\n#endif\n}\nint g(void) { return 4; }\n';
        expect(seen(text)).toBe(text.replace(' return 4; ', ' '.repeat(' return 4; '.length)));
        const file = write('else.c', text);
        expect(outline(await symbols(runSymbolsTask, file))).toEqual(outline(await symbols(plainRun, file)));
    });

    it('blanks the bodies of a 2 MB file of one line and gives its outline', async () => {
        const one = 'static int f0(int a){if(a){return a;}return 0;}';
        const n = Math.ceil((2 << 20) / one.length);
        const text = Array.from({ length: n }, (_, k) => one.replace('f0', `f${k}`)).join('');
        // So many bodies are blanked in a copy of the text, not left out as ranges (each one the lexer looks among).
        const b = withoutBodies(text)!;
        expect(b.bodies.length).toBe(2 * n);
        expect(b.ranges).toBeUndefined();
        expect(b.text!.length).toBe(text.length);
        expect(b.text!.includes('return')).toBe(false);
        const file = write('one-line.c', text);
        const ours = await symbols(runSymbolsTask, file);
        expect(ours.definitions.length).toBe(n);
        expect(ours.definitions[n - 1]!.name).toBe(`f${n - 1}`);
        expect(outline(ours)).toEqual(outline(await symbols(plainRun, file)));
    });
});
