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

    it('C++: a class with an annotation macro before a base clause or a specialization is named by its name', async () => {
        const src = [
            'template <class DomainType> class BOOST_X_ABI status_code_storage : public status_code<void>',
            '{',
            '  int value() const { return 1; }',
            '};',
            'template <class E> class BOOST_X_ABI status_code<erased<E>> : public mixins::mixin<detail::storage<erased<E>>, erased<E>>',
            '{',
            '  status_code() {}',
            '  void clear() {}',
            '};',
            '',
        ].join('\n');
        expect(await defs('c.hpp', src)).toEqual(['1 class status_code_storage', '3 method status_code_storage.value', '5 class status_code', '7 method status_code.status_code', '8 method status_code.clear']);
    });

    it('C++: a macro alone on its line (a namespace opened or closed) leaves the classes after it whole', async () => {
        const log = [
            'namespace boost {',
            '',
            'BOOST_LOG_OPEN_NAMESPACE',
            '',
            'namespace sinks {',
            '',
            'template< typename SinkBackendT >',
            'class unlocked_sink :',
            '    public basic_sink_frontend',
            '{',
            'public:',
            '    BOOST_STATIC_ASSERT_MSG((has_requirement< typename sink_backend_type::frontend_requirements, concurrent_feeding >::value), "Unlocked sink frontend is incompatible");',
            '    unlocked_sink() : m_pBackend(0)',
            '    {',
            '    }',
            '    void flush() {}',
            '};',
            '',
            '} // namespace sinks',
            '',
            'BOOST_LOG_CLOSE_NAMESPACE // namespace log',
            '',
            '} // namespace boost',
            '',
        ].join('\n');
        expect(await defs('unlocked_frontend.hpp', log)).toEqual([
            '1 module boost',
            '5 module boost.sinks',
            '8 class boost.sinks.unlocked_sink',
            '13 method boost.sinks.unlocked_sink.unlocked_sink',
            '16 method boost.sinks.unlocked_sink.flush',
        ]);
        const spirit = [
            'namespace boost {',
            '    namespace spirit {',
            '    BOOST_SPIRIT_CLASSIC_NAMESPACE_BEGIN',
            '',
            'template <typename CharT, typename TailT>',
            'class distinct_parser',
            '{',
            'public:',
            '    typedef',
            '        contiguous<sequence<chseq<CharT const*> > >',
            '            result_t;',
            '',
            '    distinct_parser()',
            '    :   tail(chset<CharT>())',
            '    {',
            '    }',
            '};',
            '',
            '    BOOST_SPIRIT_CLASSIC_NAMESPACE_END',
            '    }',
            '}',
            '',
        ].join('\n');
        expect(await defs('distinct.hpp', spirit)).toEqual([
            '1 module boost',
            '2 module boost.spirit',
            '6 class boost.spirit.distinct_parser',
            '9 type boost.spirit.distinct_parser.result_t',
            '13 method boost.spirit.distinct_parser.distinct_parser',
        ]);
    });

    it('C++: a macro call among a class\'s members, whose argument the grammar cannot read, leaves the class whole', async () => {
        const src = [
            'class sink {',
            '    BOOST_STATIC_ASSERT_MSG((has_requirement< typename backend::requirements, feeding >::value), "Unlocked sink frontend is incompatible");',
            '    void flush() {}',
            '};',
            '',
        ].join('\n');
        expect(await defs('sink.hpp', src)).toEqual(['1 class sink', '3 method sink.flush']);
    });

    it('C++: two lone macros in a row (a namespace closed, another opened) are both read past', async () => {
        const src = ['M_END', 'M_BEGIN', 'int f2(int x)', '{', '    return x;', '}', 'NS_END', '', 'NS_BEGIN', 'int f3(void) { return 3; }', ''].join('\n');
        expect(await defs('w.hpp', src)).toEqual(['3 function f2', '10 function f3']);
    });

    it('C++: an enumerator alone on its line stays an enumerator', async () => {
        const src = ['enum E {', '  FOO_A,', '  FOO_B', '};', 'enum F {', '  ONLY_ONE', '};', 'int x = f(1,', '  SOME_FLAG', ');', ''].join('\n');
        expect(await defs('e.hpp', src)).toEqual(['1 enum E', '2 constant E.FOO_A', '3 constant E.FOO_B', '5 enum F', '6 constant F.ONLY_ONE', '8 variable x']);
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
