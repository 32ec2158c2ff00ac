/**
 * C and C++ definitions the grammar gives in shapes the plain queries miss: every declarator of a
 * typedef, a C++ static member defined outside its class (`int A::count = 0;`), a file-scope
 * variable whose initializer list holds a directive, and one with an annotation macro (`__initdata`,
 * `__read_mostly`) beside its name. Each is checked in the outline of one file (the scan path's
 * parse) and through find_symbol with the index's symbol table and without it, which must agree.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { symbolsOf as tableOf } from '../../../src/symbols/symbol-table.js';
import { symbolsOf } from '../../support/symbols.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { callTool, navigationPackages } from '../../support/navigation.js';

/** `line-endLine kind container.name — signature` per definition. */
async function outline(name: string, text: string): Promise<string[]> {
    const r = await symbolsOf(name, text);
    if (!r.ok) throw new Error(r.message);
    return r.definitions.map((d) => `${d.line}-${d.endLine} ${d.kind} ${[...d.container, d.name].join('.')} — ${d.signature}`);
}

const TYPEDEFS = ['typedef int t1, *t2;', 'typedef struct s { int a; } a, *pa;', 'typedef int (*fn1)(void), (*fn2)(int);', 'typedef char buf_t[16], *names_t[4];', 'typedef void (action_t) (int a);', 'typedef IMPDEF(impl_type) movable_type;', ''].join('\n');

const MEMBERS = ['struct A { static int count; struct B { static const int n; }; };', 'int A::count = 0;', 'const int A::B::n = 1;', 'template<class T> struct X { static int v; };', 'template<class T> int X<T>::v = 0;', 'int A::f(int);', ''].join('\n');

const ANNOTATED = [
    'static int a1 __initdata = 1, b1;', // 1
    'static char buf[16] __initdata;',
    'struct s v1 __read_mostly = { .a = 1 };',
    'static struct pernet_operations __net_initdata ops1 = {',
    '\t.init = f,', // 5
    '};',
    'static int __read_mostly x1;',
    'static struct conn __rcu *x2;',
    'static u64 x4[] __initdata = {',
    '\t1,', // 10
    '};',
    'static int *x5 __read_mostly;',
    'DEFINE_PER_CPU(int, pc);',
    'const struct file_operations ops2 = {',
    '\t.llseek = f,', // 15
    '#ifdef CONFIG_COMPAT',
    '\t.compat = g,',
    '#endif',
    '};',
    'int after;', // 20
    'int x7 __attribute__((unused)) = 2;',
    'static int lim __read_mostly = 128;',
    'static bool __read_mostly done;',
    'static struct buf __percpu *bufs;',
    'static bool __ro_after_init huge = true;',
    'static struct xfrm_tunnel __rcu *handlers __read_mostly;',
    'const struct net_offload __rcu *offloads[MAX_PROTOS] __read_mostly;',
    '',
].join('\n');

const pkgOf = navigationPackages();
const call = callTool;

/** find_symbol for each name with the symbol table and without: the same answer, the table answering each. */
async function sameAnswers(files: Record<string, string>, names: readonly string[]): Promise<string[]> {
    const root = tempDir('lcf-c-defs-');
    writeTree(root, files);
    const pkg = pkgOf(root, { dir: tempDir('lcf-c-defs-index-') });
    const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(tree.status().state).toBe('ready');
    expect(await tableOf(tree).ready(), tableOf(tree).error).not.toBeNull();
    const plain = pkgOf(root, false);
    const out: string[] = [];
    for (const name of names) {
        const answered = tableOf(tree).answered;
        const a = await call(pkg, 'find_symbol', { name });
        expect(tableOf(tree).answered, `${name}: the table answered`).toBe(answered + 1);
        expect(a, name).toBe(await call(plain, 'find_symbol', { name }));
        out.push(a);
    }
    return out;
}

describe('C and C++ definitions in shapes the plain queries miss', () => {
    it('makes every declarator of a typedef a type: pointers, arrays, function pointers, after a struct body; not a macro call\'s argument', async () => {
        const want = [
            '1-1 type t1 — typedef int t1, *t2;',
            '1-1 type t2 — typedef int t1, *t2;',
            '2-2 type a — typedef struct s { int a; } a, *pa;',
            '2-2 struct s — typedef struct s { int a; } a, *pa;',
            '2-2 type pa — typedef struct s { int a; } a, *pa;',
            '3-3 type fn1 — typedef int (*fn1)(void), (*fn2)(int);',
            '3-3 type fn2 — typedef int (*fn1)(void), (*fn2)(int);',
            '4-4 type buf_t — typedef char buf_t[16], *names_t[4];',
            '4-4 type names_t — typedef char buf_t[16], *names_t[4];',
            '5-5 type action_t — typedef void (action_t) (int a);',
        ];
        // C's grammar reads `IMPDEF(impl_type)` as a macro's type; C++'s as a type and the declarator `(impl_type)`, left out.
        expect(await outline('types.c', TYPEDEFS)).toEqual([...want, '6-6 type movable_type — typedef IMPDEF(impl_type) movable_type;']);
        expect(await outline('types.hpp', TYPEDEFS)).toEqual(want);
    });

    it('makes a C++ static member defined outside its class a variable of the class, qualified or templated; not a prototype', async () => {
        expect(await outline('members.cpp', MEMBERS)).toEqual([
            '1-1 struct A — struct A { static int count; struct B { static const int n; }; };',
            '1-1 struct A.B — struct B { static const int n; }; };',
            '2-2 variable A.count — int A::count = 0;',
            '3-3 variable A.B.n — const int A::B::n = 1;',
            '4-4 struct X — template<class T> struct X { static int v; };',
            '5-5 variable X<T>.v — template<class T> int X<T>::v = 0;',
        ]);
    });

    it('reads a file-scope variable past an annotation macro beside its name and a directive in its initializer list; not a macro call', async () => {
        expect(await outline('annotated.c', ANNOTATED)).toEqual([
            '1-1 variable a1 — static int a1 __initdata = 1, b1;',
            '1-1 variable b1 — static int a1 __initdata = 1, b1;',
            '2-2 variable buf — static char buf[16] __initdata;',
            '3-3 variable v1 — struct s v1 __read_mostly = { .a = 1 };',
            '4-6 variable ops1 — static struct pernet_operations __net_initdata ops1 = {',
            '7-7 variable x1 — static int __read_mostly x1;',
            '8-8 variable x2 — static struct conn __rcu *x2;',
            '9-11 variable x4 — static u64 x4[] __initdata = {',
            '12-12 variable x5 — static int *x5 __read_mostly;',
            '14-19 variable ops2 — const struct file_operations ops2 = {',
            '20-20 variable after — int after;',
            '21-21 variable x7 — int x7 __attribute__((unused)) = 2;',
            '22-22 variable lim — static int lim __read_mostly = 128;',
            '23-23 variable done — static bool __read_mostly done;',
            '24-24 variable bufs — static struct buf __percpu *bufs;',
            '25-25 variable huge — static bool __ro_after_init huge = true;',
            '26-26 variable handlers — static struct xfrm_tunnel __rcu *handlers __read_mostly;',
            '27-27 variable offloads — const struct net_offload __rcu *offloads[MAX_PROTOS] __read_mostly;',
        ]);
    });

    it('finds a class template\'s members by the template\'s name alone, as by its spelling with arguments', async () => {
        const text = ['template<class T> struct X { static int v; void f(); };', 'template<class T> int X<T>::v = 0;', 'template<class T> void X<T>::f() {}', 'template<typename K, typename V> int Map<K, V>::size = 0;', ''].join('\n');
        const got = await sameAnswers({ 'tmpl.cpp': text }, ['X::v', 'X/v', 'X<T>::v', 'X::f', 'Map::size', 'Map<K, V>::size']);
        expect(got.map((a) => a.split('\n')[0])).toEqual([
            ...Array.from({ length: 3 }, () => 'success: tmpl.cpp:2: variable X<T>.v — template<class T> int X<T>::v = 0;'),
            'success: tmpl.cpp:3: method X<T>.f — template<class T> void X<T>::f() {}',
            ...Array.from({ length: 2 }, () => 'success: tmpl.cpp:4: variable Map<K, V>.size — template<typename K, typename V> int Map<K, V>::size = 0;'),
        ]);
    });

    it('answers find_symbol for them alike with the symbol table and without', async () => {
        const names = ['t2', 'pa', 'fn2', 'names_t', 'A/count', 'n', 'v', 'b1', 'buf', 'x1', 'ops2', 'done'];
        const got = await sameAnswers({ 'types.h': TYPEDEFS, 'members.cpp': MEMBERS, 'annotated.c': ANNOTATED }, names);
        expect(got.map((a) => a.split('\n')[0])).toEqual([
            'success: types.h:1: type t2 — typedef int t1, *t2;',
            'success: types.h:2: type pa — typedef struct s { int a; } a, *pa;',
            'success: types.h:3: type fn2 — typedef int (*fn1)(void), (*fn2)(int);',
            'success: types.h:4: type names_t — typedef char buf_t[16], *names_t[4];',
            'success: members.cpp:2: variable A.count — int A::count = 0;',
            'success: members.cpp:3: variable A.B.n — const int A::B::n = 1;',
            'success: members.cpp:5: variable X<T>.v — template<class T> int X<T>::v = 0;',
            'success: annotated.c:1: variable b1 — static int a1 __initdata = 1, b1;',
            'success: annotated.c:2: variable buf — static char buf[16] __initdata;',
            'success: annotated.c:7: variable x1 — static int __read_mostly x1;',
            'success: annotated.c:14: variable ops2 — const struct file_operations ops2 = {',
            'success: annotated.c:23: variable done — static bool __read_mostly done;',
        ]);
    });
});
