/**
 * Definitions that are hard to read from the tree: where a C or C++ macro the grammar cannot expand
 * stands in a declaration, TypeScript's overloads, object literals' methods, ES5 classes.
 */
import { describe, expect, it } from 'vitest';
import { defs, spans } from '../../support/symbols.js';

describe('definitions around macros the grammar cannot expand', () => {
    it('C: a typedef with an annotation macro before its name is named by the name', async () => {
        const src = ['#include "internal.h"', '', 'typedef unsigned int __bitwise fpi_t;', 'typedef int __bitwise gfp_t;', ''].join('\n');
        expect(await defs('page.c', src)).toEqual(['3 type fpi_t', '4 type gfp_t']);
    });

    it('C: #defines after a declaration the grammar cannot read are still macros, not one in a comment', async () => {
        const src = [
            '#include "a.h"',
            'extern __printf(7, 8)',
            'void __ext4_error(struct super_block *, const char *, unsigned int, bool,',
            '\t\t  int, __u64, const char *, ...);',
            '',
            '#define ext4_error(sb, fmt, ...) \\',
            '\t__ext4_error((sb), __func__, __LINE__, false, 0, 0, (fmt), ##__VA_ARGS__)',
            '/*',
            '#define IN_COMMENT 1',
            '*/',
            '#define LIMIT 3',
            '',
            'static inline int ok(void)',
            '{',
            '\treturn 0;',
            '}',
            '',
        ].join('\n');
        const found = await spans('ext4.h', src);
        expect(found).toContain('6-7 macro ext4_error');
        expect(found).toContain('11-11 macro LIMIT');
        expect(found.filter((d) => d.includes('IN_COMMENT'))).toEqual([]);
    });

    it('C and C++: a function with a macro after its parameters is named by its name, also in a class', async () => {
        const cpp = [
            '#define BOOST_NOEXCEPT noexcept',
            'int f() BOOST_NOEXCEPT { return 1; }',
            'int h() MYMACRO() { return 1; }',
            'int k(int a) BOOST_NOEXCEPT',
            '{ return a; }',
            'namespace ns { class W { public: int size() const BOOST_NOEXCEPT { return 0; } }; }',
            'int g() noexcept { return 2; }',
            '',
        ].join('\n');
        expect(await defs('m.cpp', cpp)).toEqual(['1 macro BOOST_NOEXCEPT', '2 function f', '3 function h', '4 function k', '6 module ns', '6 class ns.W', '6 method ns.W.size', '7 function g']);
        expect(await defs('m.c', 'int f(void) __attribute_const__ { return 1; }\nint g(void) { return 2; }\n')).toEqual(['1 function f', '2 function g']);
    });

    it('C and C++: a struct or class with an annotation macro before its name, with its methods', async () => {
        expect(await defs('s.c', ['struct __randomize_layout cred {', '\tint usage;', '};', ''].join('\n'))).toEqual(['1 struct cred']);
        const src = [
            'template<class OStream>',
            'class BOOST_SYMBOL_VISIBLE basic_oprimitive',
            '{',
            '  void put(int c) {}',
            '};',
            'class BOOST_SYMBOL_VISIBLE sink : public base {',
            '  void flush() {}',
            '};',
            'template <> class BOOST_X_ABI status_code<void>',
            '{',
            '  int value() const { return 1; }',
            '};',
            '',
        ].join('\n');
        expect(await defs('c.hpp', src)).toEqual(['2 class basic_oprimitive', '4 method basic_oprimitive.put', '6 class sink', '7 method sink.flush', '9 class status_code', '11 method status_code.value']);
    });

    it('C++: a macro before or after a function does not take its name or make it a method', async () => {
        const src = [
            'namespace tools {',
            'template <class T, class V>',
            'inline V evaluate(const T* a, const V&) BOOST_MATH_NOEXCEPT(V)',
            '{',
            '   return static_cast<V>(0);',
            '}',
            'template <class Backend>',
            'inline BOOST_MP_CXX14_CONSTEXPR typename std::enable_if<is_integer<Backend>::value>::type',
            'divide_qr(const Backend& x, Backend& q)',
            '{',
            '}',
            'BOOST_FORCEINLINE boost::winapi::BOOL_ VirtualUnlock(void* address)',
            '{ return 0; }',
            'template <typename T0>',
            '    BOOST_CONSTEXPR BOOST_FUSION_GPU_ENABLED',
            '    inline list<T0&>',
            '    list_tie(T0 & arg0)',
            '{ return list<T0&>(arg0); }',
            '}',
            'int tools::Engine::stop() { return 1; }',
            '',
        ].join('\n');
        expect(await defs('ops.hpp', src)).toEqual([
            '1 module tools',
            '3 function tools.evaluate',
            '8 function tools.divide_qr',
            '12 function tools.VirtualUnlock',
            '15 function tools.list_tie',
            '20 method tools.Engine.stop',
        ]);
    });
});

describe('TypeScript definitions listed once, locals left out', () => {
    it('an overloaded function or method is one definition, from its first signature to its implementation', async () => {
        const src = [
            'export function f(a: string): string;',
            'export function f(a: number): number;',
            'export function f(a: any): any { return a; }',
            'declare function g(): void;',
            'class K {',
            '  h(a: string): void;',
            '  h(a: any): void {}',
            '}',
            'interface I { m(): void; m(a: number): void; }',
            'interface J { a(): void; }',
            'function a(): void {}',
            '',
        ].join('\n');
        expect(await spans('o.ts', src)).toEqual(['1-3 function f', '4-4 function g', '5-8 class K', '6-7 method K.h', '9-9 interface I', '9-9 method I.m', '10-10 interface J', '10-10 method J.a', '11-11 function a']);
    });

    it('a member of a type written in an as or satisfies expression is not a definition', async () => {
        const src = ['const items = list.filter(Boolean) as {', '  onSelect(): void', '}[];', 'const c = {} satisfies { run(): void };', 'type A = { keep(): void };', ''].join('\n');
        expect(await defs('t.ts', src)).toEqual(['5 type A', '5 method keep']);
    });

    it("an object literal's methods in a function or a class property are not definitions; at file scope they are methods of the variable that holds it", async () => {
        const src = [
            'export const api = { run() {} };',
            'function make() {',
            '  return { get id() { return 1; }, go() {} };',
            '}',
            'class A { m() { const o = { x() {} }; } }',
            'class B {',
            '  options = { getX() { return 1; } };',
            '}',
            '',
        ].join('\n');
        const expected = ['1 variable api', '1 method api.run', '2 function make', '5 class A', '5 method A.m', '6 class B'];
        expect(await defs('l.ts', src)).toEqual(expected);
        expect(await defs('l.js', src)).toEqual(expected);
    });
});

describe('JavaScript classes without class syntax', () => {
    it('a method set on a prototype is a method of its constructor; a function set on an object at file scope is a function; an anonymous class is named by its variable', async () => {
        const src = [
            'function Stream() {}',
            'Stream.prototype.emit = function (a) {',
            '  return a;',
            '};',
            'Stream.options.check = function () {};',
            'var Propagator = class {',
            '  inject() {}',
            '};',
            'function load() { this.onload = function () {}; }',
            'module.exports = () => cached;',
            '',
        ].join('\n');
        expect(await defs('s.js', src)).toEqual(['1 function Stream', '2 method Stream.emit', '5 function check', '6 variable Propagator', '6 class Propagator', '7 method Propagator.inject', '9 function load']);
    });
});
