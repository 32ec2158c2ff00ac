/**
 * C and C++ variables at file scope: every declarator of a declaration is a variable, whatever
 * its nesting (pointers, arrays, function pointers, parentheses); prototypes, `extern`
 * declarations, locals and a macro call read as `T (name)` are not.
 */
import { describe, expect, it } from 'vitest';
import { symbolsOf } from '../../support/symbols.js';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

/** `line-endLine kind container.name — signature` per definition. */
async function outline(name: string, text: string): Promise<string[]> {
    const r = await symbolsOf(name, text);
    if (!r.ok) throw new Error(r.message);
    return r.definitions.map((d) => `${d.line}-${d.endLine} ${d.kind} ${[...d.container, d.name].join('.')} — ${d.signature}`);
}

const FILE = [
    'static const char *n1[] = {"a"};',
    'const char *n2[2];',
    'char **n3 = 0;',
    'int (*fp)(void) = 0;',
    'int b[2][2] = {{1,2},{3,4}};',
    'int p1 = 1, p2 = 2;',
    'int *p = 0;',
    'static struct s one = {1}, two = {2};',
    '',
].join('\n');

// A later declarator's span is its own; its signature starts where its declaration does when on its line.
const FILE_OUTLINE = [
    '1-1 variable n1 — static const char *n1[] = {"a"};',
    '2-2 variable n2 — const char *n2[2];',
    '3-3 variable n3 — char **n3 = 0;',
    '4-4 variable fp — int (*fp)(void) = 0;',
    '5-5 variable b — int b[2][2] = {{1,2},{3,4}};',
    '6-6 variable p1 — int p1 = 1, p2 = 2;',
    '6-6 variable p2 — int p1 = 1, p2 = 2;',
    '7-7 variable p — int *p = 0;',
    '8-8 variable one — static struct s one = {1}, two = {2};',
    '8-8 variable two — static struct s one = {1}, two = {2};',
];

describe('C and C++ file-scope declarators', () => {
    it('makes every declarator of a file-scope declaration a variable, in C and C++, with LF or CRLF line ends', async () => {
        expect(await outline('vars.c', FILE)).toEqual(FILE_OUTLINE);
        expect(await outline('vars.cpp', FILE)).toEqual(FILE_OUTLINE);
        expect(await outline('vars.h', FILE.replaceAll('\n', '\r\n'))).toEqual(FILE_OUTLINE);
    });

    it('reads nested declarators, const pointers and attributes; leaves out prototypes, externs, typedefs\' names and locals', async () => {
        const src = [
            'static char *const x3 = "a", *const *x4;', // 1
            '__attribute__((unused)) static int x5;',
            'static int (*x8[4])(void);',
            'int *(*x9)(int), x10;',
            'extern int e1, *e2;', // 5
            'int f1(void), v1, *f2(int);',
            'int (f3)(void);',
            'int (*get(void))[3];',
            'struct { int a; } an1, *an2;',
            'static const char * const names[] = { "a", "b" };', // 10
            'static int m1 = 1,',
            '\tm2 = 2,',
            '\tm3[] = { 3 };',
            'void g(void)',
            '{', // 15
            '\tint l1, *l2;',
            '}',
            'typedef int t1;',
            '',
        ].join('\n');
        expect(await outline('nested.c', src)).toEqual([
            '1-1 variable x3 — static char *const x3 = "a", *const *x4;',
            '1-1 variable x4 — static char *const x3 = "a", *const *x4;',
            '2-2 variable x5 — __attribute__((unused)) static int x5;',
            '3-3 variable x8 — static int (*x8[4])(void);',
            '4-4 variable x9 — int *(*x9)(int), x10;',
            '4-4 variable x10 — int *(*x9)(int), x10;',
            '6-6 variable v1 — int f1(void), v1, *f2(int);',
            '9-9 variable an1 — struct { int a; } an1, *an2;',
            '9-9 variable an2 — struct { int a; } an1, *an2;',
            '10-10 variable names — static const char * const names[] = { "a", "b" };',
            '11-13 variable m1 — static int m1 = 1,',
            '12-12 variable m2 — m2 = 2,',
            '13-13 variable m3 — m3[] = { 3 };',
            '14-17 function g — void g(void)',
            '18-18 type t1 — typedef int t1;',
        ]);
    });

    it('finds the declarators of both branches of an #ifdef, in C and C++', async () => {
        const src = ['#ifdef CONFIG_X', 'static int y1, y2[3] = { 1 };', '#else', 'static int y1, *y2[3];', '#endif', ''].join('\n');
        const want = ['2-2 variable y1 — static int y1, y2[3] = { 1 };', '2-2 variable y2 — static int y1, y2[3] = { 1 };', '4-4 variable y1 — static int y1, *y2[3];', '4-4 variable y2 — static int y1, *y2[3];'];
        expect(await outline('cond.c', src)).toEqual(want);
        expect(await outline('cond.hpp', src)).toEqual(want);
    });

    it('C++: references, const pointers, attributed declarators and constructor arguments; in a namespace, variables of it; a function\'s locals are not', async () => {
        const src = ['namespace app {', 'int base = 1, &alias = base, *const cp = &base;', 'int (*hook)(int), run(int);', '}', 'void f() { int a, *b = &a; }', 'int ax [[maybe_unused]] = 1, *ay [[maybe_unused]];', 'Foo bar(1, 2), baz(3);', ''].join('\n');
        expect(await outline('refs.cpp', src)).toEqual([
            '1-4 module app — namespace app {',
            '2-2 variable app.base — int base = 1, &alias = base, *const cp = &base;',
            '2-2 variable app.alias — int base = 1, &alias = base, *const cp = &base;',
            '2-2 variable app.cp — int base = 1, &alias = base, *const cp = &base;',
            '3-3 variable app.hook — int (*hook)(int), run(int);',
            '5-5 function f — void f() { int a, *b = &a; }',
            '6-6 variable ax — int ax [[maybe_unused]] = 1, *ay [[maybe_unused]];',
            '6-6 variable ay — int ax [[maybe_unused]] = 1, *ay [[maybe_unused]];',
            '7-7 variable bar — Foo bar(1, 2), baz(3);',
            '7-7 variable baz — Foo bar(1, 2), baz(3);',
        ]);
    });

    it('leaves out what the grammar reads as `T (name)`: a macro call that defines something, as today', async () => {
        const src = ['static DEFINE_MUTEX(lock);', 'int (x);', 'static int after;', ''].join('\n');
        expect(await outline('macro.c', src)).toEqual(['3-3 variable after — static int after;']);
    });

    it('leaves out a declaration cut at the end of the file; reads one past an annotation macro after a name', async () => {
        expect(await outline('cut.c', 'int good1, *good2;\nint cut1, (*cut2')).toEqual(['1-1 variable good1 — int good1, *good2;', '1-1 variable good2 — int good1, *good2;']);
        // The grammar takes the macro for the first declarator and leaves the name before it in an error node (declarators.ts).
        expect(await outline('annot.c', 'static char buf[16] __initdata, *bp;\nint ok, *okp;\n')).toEqual([
            '1-1 variable buf — static char buf[16] __initdata, *bp;',
            '1-1 variable bp — static char buf[16] __initdata, *bp;',
            '2-2 variable ok — int ok, *okp;',
            '2-2 variable okp — int ok, *okp;',
        ]);
        // Two names neither of which is spelled as an annotation: which one is the macro is not told.
        expect(await outline('unknown.c', 'enum mode mode DEFAULT_MODE;\nint ok;\n')).toEqual(['2-2 variable ok — int ok;']);
    });

    it('file_outline lists each declarator; find_references labels a later declarator\'s line with it', async () => {
        const root = tempDir('lcf-c-decl-');
        writeTree(root, { 'v.c': FILE + 'int use(void) { return two.a + *p; }\n' });
        const p = makePackage(root, { packageOptions: { navigation: true } });
        const out = (await one(p.tool('file_outline'), { path: 'v.c' })).result as string;
        // One-line definitions print their one line number.
        expect(out.split('\n').slice(1).filter((l) => l.includes(' variable ')).map((l) => l.split(' — ')[0]!.trim())).toEqual(FILE_OUTLINE.map((l) => l.split(' — ')[0]!.replace(/^(\d+)-\1 /, '$1 ')));
        expect((await one(p.tool('find_references'), { name: 'two' })).result).toBe(['v.c:8: [variable two] static struct s one = {1}, two = {2};', 'v.c:9: [function use] int use(void) { return two.a + *p; }'].join('\n'));
    });
});
