/** The symbols operation (workers/symbols/symbols.ts) on one small file per language: each kind, its container, its lines. */
import { describe, expect, it } from 'vitest';
import { defs } from '../../support/symbols.js';

describe('definitions per language', () => {
    it('C: functions, macros, structs, unions, enums and their constants, typedefs, file-scope variables; no locals, prototypes or externs', async () => {
        const src = [
            '#define MAX 10',
            '#define SQR(x) ((x) * (x))',
            'struct point { int x, y; };',
            'union value { int i; float f; };',
            'enum color { RED, GREEN };',
            'typedef struct point point_t;',
            'typedef int (*handler_t)(int);',
            'static int counter = 0;',
            'int table[4];',
            'extern int elsewhere;',
            'int prototype(void);',
            'static int *make(int n)',
            '{',
            '    int local = n;',
            '    return 0;',
            '}',
            'void run(void) { }',
        ].join('\n');
        expect(await defs('a.c', src)).toEqual([
            '1 macro MAX',
            '2 macro SQR',
            '3 struct point',
            '4 union value',
            '5 enum color',
            '5 constant color.RED',
            '5 constant color.GREEN',
            '6 type point_t',
            '7 type handler_t',
            '8 variable counter',
            '9 variable table',
            '12 function make',
            '17 function run',
        ]);
    });

    it('C: an annotation macro before a function or variable (notrace, __weak) does not make a variable of the type', async () => {
        const src = ['notrace u64 __weak running_clock(void)', '{', '\treturn 0;', '}', 'static const_debug __maybe_unused unsigned int sched_features =', '\t1;', ''].join('\n');
        expect(await defs('clock.c', src)).toEqual(['1 function running_clock', '5 variable sched_features']);
    });

    it('C and C++: one annotation macro between the type and a function taking (void) (__init, __sched, __weak) leaves the function its name and first line', async () => {
        const src = [
            'static int __init foo_init(void)', '{', '\treturn 0;', '}',
            'asmlinkage __visible void __sched schedule(void)', '{', '\tfoo();', '}',
            'static int __init', 'split_init(void)', '{', '\treturn 1;', '}',
            'int __weak arch_foo(void)', '{', '\treturn 2;', '}',
            'int (x);', 'void plain(void)', '{', '}', '',
        ].join('\n');
        const want = ['1 function foo_init', '5 function schedule', '9 function split_init', '14 function arch_foo', '19 function plain'];
        expect(await defs('init.c', src)).toEqual(want);
        expect(await defs('init.cpp', src)).toEqual(want);
    });

    it('C++: namespaces, classes with methods, out-of-line methods, aliases', async () => {
        const src = ['namespace app {', 'class Engine {', ' public:', '  int run() { return 0; }', '};', 'using Id = int;', '}', 'int app::Engine::stop() { return 1; }', ''].join('\n');
        expect(await defs('a.cpp', src)).toEqual(['1 module app', '2 class app.Engine', '4 method app.Engine.run', '6 type app.Id', '8 method app.Engine.stop']);
    });

    it('JavaScript: functions, classes, methods, arrow functions and file-scope variables', async () => {
        const src = ['export function top() {}', 'class Box {', '  open() {}', '}', 'const make = () => 1;', 'let count = 0;', 'function outer() { const inner = 1; }', ''].join('\n');
        expect(await defs('a.js', src)).toEqual(['1 function top', '2 class Box', '3 method Box.open', '5 function make', '6 variable count', '7 function outer']);
    });

    it('TypeScript: interfaces, type aliases, enums, namespaces, classes, methods', async () => {
        const src = ['export interface Shape { area(): number; }', 'type Id = string;', 'enum Mode { A, B }', 'namespace Geo { export const unit = 1; }', 'export class Circle implements Shape {', '  area(): number { return 0; }', '}', ''].join('\n');
        expect(await defs('a.ts', src)).toEqual(['1 interface Shape', '1 method Shape.area', '2 type Id', '3 enum Mode', '4 module Geo', '4 variable Geo.unit', '5 class Circle', '6 method Circle.area']);
    });

    it('TypeScript: a member of an inline type in a parameter is not a definition, one of a type alias is', async () => {
        const src = ['type Walker = { step(): void };', 'function visit(node: { isDirectory(): boolean }, cb: Array<{ done(): void }>): void {}', ''].join('\n');
        expect(await defs('b.ts', src)).toEqual(['1 type Walker', '1 method step', '2 function visit']);
    });

    it('TSX: a component and its props type', async () => {
        const src = ['type Props = { name: string };', 'export function Hello(p: Props) { return <b>{p.name}</b>; }', ''].join('\n');
        expect(await defs('a.tsx', src)).toEqual(['1 type Props', '2 function Hello']);
    });

    it('Python: classes, methods, functions, module variables; no locals', async () => {
        const src = ['LIMIT = 3', 'class Store:', '    size = 1', '    def get(self):', '        x = 1', '        return x', 'def helper():', '    pass', ''].join('\n');
        expect(await defs('a.py', src)).toEqual(['1 variable LIMIT', '2 class Store', '4 method Store.get', '7 function helper']);
    });

    it('Go: functions, methods by receiver, structs, interfaces, types, constants, variables', async () => {
        const src = ['package main', 'const Max = 3', 'var count int', 'type Server struct { port int }', 'type Runner interface { Run() }', 'type ID string', 'func (s *Server) Start() {}', 'func main() { x := 1; _ = x }', ''].join('\n');
        expect(await defs('a.go', src)).toEqual(['2 constant Max', '3 variable count', '4 struct Server', '5 interface Runner', '6 type ID', '7 method Server.Start', '8 function main']);
    });

    it('Rust: functions, structs, enums, traits, impl methods, modules, macros, constants', async () => {
        const src = ['const MAX: u32 = 3;', 'struct Point { x: i32 }', 'enum Shape { Dot }', 'trait Draw { fn draw(&self); }', 'impl Point {', '    fn new() -> Self { Point { x: 0 } }', '}', 'mod util { pub fn help() {} }', 'macro_rules! twice { ($e:expr) => { $e * 2 } }', ''].join('\n');
        expect(await defs('a.rs', src)).toEqual(['1 constant MAX', '2 struct Point', '3 enum Shape', '4 interface Draw', '4 method Draw.draw', '6 method Point.new', '8 module util', '8 function util.help', '9 macro twice']);
    });

    it('Java: classes, interfaces, enums with constants, methods and constructors', async () => {
        const src = ['interface Shape { double area(); }', 'enum Color { RED }', 'class Circle implements Shape {', '  Circle() {}', '  public double area() { return 0; }', '}', ''].join('\n');
        expect(await defs('A.java', src)).toEqual(['1 interface Shape', '1 method Shape.area', '2 enum Color', '2 constant Color.RED', '3 class Circle', '4 method Circle.Circle', '5 method Circle.area']);
    });

    it('Python: a function nested in a method is a function of the method, as ctags has it', async () => {
        const src = ['class Parser:', '    def parse(self):', '        def helper():', '            pass', '        return helper', ''].join('\n');
        expect(await defs('n.py', src)).toEqual(['1 class Parser', '2 method Parser.parse', '3 function Parser.parse.helper']);
    });

    it('JavaScript: functions nested in a function or method are named under it, local function variables and named function expressions too, as ctags has them', async () => {
        const src = [
            'class A {',
            '  m() {',
            '    function inner() {}',
            '    const arrow = () => 2;',
            '    const count = 1;',
            '  }',
            '}',
            'function outer() {',
            '  function nested() {}',
            '  const local = function () {};',
            '  return function named() {};',
            '}',
            'exports.parse = function parse(s) {};',
            'req.host = wrap(function host() {});',
            'var same = function same() {};',
            '',
        ].join('\n');
        expect(await defs('n.js', src)).toEqual([
            '1 class A',
            '2 method A.m',
            '3 function A.m.inner',
            '4 function A.m.arrow',
            '8 function outer',
            '9 function outer.nested',
            '10 function outer.local',
            '11 function outer.named',
            '13 function parse',
            '14 function host',
            '15 function same',
        ]);
    });

    it("JavaScript and TypeScript: an object literal's methods at file scope are methods of the variable or keys that hold it", async () => {
        const src = ['const api = {', '  run() {},', '  v1: { get(id) {} },', '};', 'module.exports = { close() {} };', ''].join('\n');
        const expected = ['1 variable api', '2 method api.run', '3 method api.v1.get', '5 method close'];
        expect(await defs('o.js', src)).toEqual(expected);
        expect(await defs('o.ts', src)).toEqual(expected);
    });

    it('TypeScript: a construct signature is a method new; a nested function is named under its function', async () => {
        const src = ['interface Ctor {', '  new (info?: string): Error;', '}', 'export function audit() {', '  const end = (): void => {};', '}', ''].join('\n');
        expect(await defs('c.ts', src)).toEqual(['1 interface Ctor', '2 method Ctor.new', '4 function audit', '5 function audit.end']);
    });

    it('C and C++: a definition after a function the grammar misread is not named under that function', async () => {
        const src = ['int f(void) { return 0; }', 'struct s { int x; };', '#define M 1', ''].join('\n');
        expect(await defs('f.c', src)).toEqual(['1 function f', '2 struct s', '3 macro M']);
    });

    it('Rust: the methods of an impl for a primitive, unit, slice or reference type are methods', async () => {
        const src = ['impl Deserialize for () {', '    fn deserialize() {}', '}', 'impl Read for &[u8] {', '    fn consume() {}', '}', 'impl Thing for u8 {', '    fn one() {}', '}', "impl<'a> Thing for &'a Bytes {", '    fn two() {}', '}', ''].join('\n');
        expect(await defs('i.rs', src)).toEqual(['2 method ().deserialize', '5 method &[u8].consume', '8 method u8.one', '11 method Bytes.two']);
    });

    it('Java: the elements of an annotation type are its methods; a local class in a method is named under it', async () => {
        const src = ['@interface Prop {', '  boolean bound() default true;', '}', 'class Ops {', '  Object make() {', '    class Sink { void begin() {} }', '    return new Sink();', '  }', '}', ''].join('\n');
        expect(await defs('P.java', src)).toEqual(['1 interface Prop', '2 method Prop.bound', '4 class Ops', '5 method Ops.make', '6 class Ops.make.Sink', '6 method Ops.make.Sink.begin']);
    });

    it('C++: a template specialization is a definition of the template it specializes, with its methods', async () => {
        const src = ['template <int N> struct chooser { };', 'template <> struct chooser<8> {', '  static int apply() { return 8; }', '};', 'template <class T> class box<T*> { };', ''].join('\n');
        expect(await defs('s.hpp', src)).toEqual(['1 struct chooser', '2 struct chooser', '3 method chooser.apply', '5 class box']);
    });

    it('JavaScript and TypeScript: a named class expression is a class, its methods methods', async () => {
        const src = ['var Node = class Node {', '  constructor() {}', '};', ''].join('\n');
        expect(await defs('c.js', src)).toEqual(['1 variable Node', '1 class Node', '2 method Node.constructor']);
        expect(await defs('c.ts', src)).toEqual(['1 variable Node', '1 class Node', '2 method Node.constructor']);
    });
});
