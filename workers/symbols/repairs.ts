import type { Node } from 'web-tree-sitter';
import { blankedText } from './bodies.js';
import { C, continued } from './c-chars.js';

/**
 * Where a C or C++ macro the grammar cannot expand misleads it, the definition's real name. The
 * grammar reads an unknown macro as a type or a declarator, so the name it gives may be the macro's,
 * a type before the name, or nothing at all; these repairs read the name from the nodes around it.
 */

/** A definition's name and, for a qualified C++ name (`A::b`), the scopes before it. */
export interface RealName {
    node: Node;
    text: string;
    owner: string | undefined;
}

/** An all-capitals identifier, as macros are named (`BOOST_MATH_NOEXCEPT`). */
const MACRO_LIKE = /^[A-Z][A-Z0-9_]*$/;
/** A scope that is a type or namespace name; a scope with spaces outside its template arguments or the keyword `typename` is a return type the grammar took for one. */
const NOT_A_SCOPE = /^typename$|^[^<]*\s/;

/** The name of the definition `def` (of type `defType`) whose `@name` capture is `name`. */
export function realName(def: Node, name: Node, defType: string = def.type): RealName {
    const type = name.type;
    if (type === 'qualified_identifier') return qualified(name);
    if (type === 'type_identifier' && defType === 'type_definition') {
        const real = typedefName(name);
        return { node: real, text: real.text, owner: undefined };
    }
    const text = name.text;
    if (defType === 'function_definition' && type === 'identifier' && MACRO_LIKE.test(text)) {
        const declared = declaredBefore(def) ?? declaredInError(def, name);
        if (declared !== undefined) return { node: declared, text: declared.text, owner: undefined };
    }
    return { node: name, text, owner: undefined };
}

/**
 * `A::B::f` walked by its fields: the last `name` is the name, the `scope`s before it the owner.
 * When a macro before a definition makes the grammar read the return type as scopes
 * (`BOOST_FORCEINLINE boost::winapi::BOOL_ VirtualUnlock(…)`, with no `::` before the name), the
 * scopes up to the missing `::` are the return type and dropped.
 */
function qualified(name: Node): RealName {
    let scopes: string[] = [];
    let broken = false;
    let n: Node = name;
    while (n.type === 'qualified_identifier') {
        const scope = n.childForFieldName('scope');
        const next = n.childForFieldName('name');
        if (next === null) break;
        if (scope !== null) {
            const between = n.text.slice(scope.endIndex - n.startIndex, next.startIndex - n.startIndex);
            if (!between.includes('::') || NOT_A_SCOPE.test(scope.text)) scopes = [];
            else scopes.push(scope.text);
        }
        if (n.children.some((c) => c?.type === 'ERROR')) broken = true;
        n = next;
    }
    return { node: n, text: n.text, owner: broken || scopes.length === 0 ? undefined : scopes.join('::') };
}

/**
 * `typedef unsigned int __bitwise fpi_t;`: the grammar takes the annotation macro for the name and
 * leaves the real one after it, in an error node within the typedef or, when it ends the typedef
 * there, in a statement of its own on the same line.
 */
function typedefName(name: Node): Node {
    const inside = name.nextSibling;
    if (inside?.type === 'ERROR') return onlyIdentifier(inside) ?? name;
    const def = name.parent;
    const after = def?.nextSibling;
    if (def === null || after === null || after === undefined || def.text.endsWith(';') || after.startPosition.row !== name.endPosition.row) return name;
    return onlyIdentifier(after) ?? name;
}

/** The identifier that is all of `node` but a `;`. */
function onlyIdentifier(node: Node): Node | undefined {
    if (!/^[A-Za-z_]\w*\s*;?$/.test(node.text)) return undefined;
    let n: Node | null = node;
    while (n !== null && n.type !== 'identifier' && n.type !== 'type_identifier') n = n.firstNamedChild;
    return n ?? undefined;
}

/**
 * `T f(…) BOOST_MATH_NOEXCEPT(V) {`: a macro after the parameters makes the grammar end a
 * declaration of `f` there and read `BOOST_MATH_NOEXCEPT(V) {…}` as a definition with no return
 * type. The name is the one that declaration declares, when it ends on the definition's line.
 */
function declaredBefore(def: Node): Node | undefined {
    if (def.childForFieldName('type') !== null) return undefined;
    let prev = def.previousNamedSibling;
    if (prev?.type === 'template_declaration') prev = prev.lastNamedChild;
    if (prev?.type !== 'declaration' || prev.endPosition.row !== def.startPosition.row) return undefined;
    let d = prev.childForFieldName('declarator');
    while (d !== null && (d.type === 'pointer_declarator' || d.type === 'reference_declarator')) d = d.childForFieldName('declarator') ?? d.lastNamedChild;
    if (d?.type !== 'function_declarator') return undefined;
    const id = d.childForFieldName('declarator');
    return id !== null && (id.type === 'identifier' || id.type === 'field_identifier') ? id : undefined;
}

/**
 * `T f() MACRO() {`: the grammar reads `MACRO()` as the function's declarator and leaves `f()` in
 * an error node before it; the name is the identifier that error node declares.
 */
function declaredInError(def: Node, name: Node): Node | undefined {
    for (const c of def.namedChildren) {
        if (c === null || c.type !== 'ERROR' || c.endIndex > name.startIndex) continue;
        const d = c.namedChildren.find((n) => n?.type === 'init_declarator' || n?.type === 'function_declarator');
        const id = d?.childForFieldName('declarator');
        if (id !== null && id !== undefined && (id.type === 'identifier' || id.type === 'field_identifier') && !MACRO_LIKE.test(id.text)) return id;
    }
    return undefined;
}

/**
 * Where a definition whose name the grammar read as its type (`static int __init f(void) {`, see
 * queries.ts) begins: at the declaration the grammar ended at the macro (`static int __init`, its
 * `;` missing) when that ends on the definition's line or the line before (`static int __init` on
 * a line of its own), else at the definition.
 */
export function patchedStart(def: Node, name: Node, defType: string = def.type): Node {
    if (defType !== 'function_definition' || def.childForFieldName('type')?.id !== name.id) return def;
    const prev = def.previousNamedSibling;
    if (prev?.type !== 'declaration' || prev.text.endsWith(';') || prev.endPosition.row < def.startPosition.row - 1) return def;
    return prev;
}

/** A `#define` the tree does not show. */
export interface LostMacro {
    name: string;
    start: number;
    end: number;
    nameEnd: number;
}

const DEFINE = /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)/gm;

/**
 * `#define`s that error recovery swallowed: after a construct it cannot read (`extern
 * __printf(7, 8)` before a prototype) the grammar may take the next hundreds of lines, directives
 * included, into one error node. A directive is a line of its own, so it is found in the text,
 * as ctags does, and kept unless it lies in a comment or is one of the tree's.
 */
export function lostMacros(root: Node, source: string, known: ReadonlySet<number>): LostMacro[] {
    const out: LostMacro[] = [];
    for (const m of source.matchAll(DEFINE)) {
        const nameStart = m.index + m[0].length - m[1]!.length;
        if (known.has(nameStart)) continue;
        const at = root.descendantForIndex(nameStart, nameStart + 1);
        if (at !== null && (at.type === 'comment' || at.type.includes('string') || at.type === 'char_literal')) continue;
        let end = source.indexOf('\n', m.index);
        while (end !== -1 && source[source[end - 1] === '\r' ? end - 2 : end - 1] === '\\') end = source.indexOf('\n', end + 1);
        out.push({ name: m[1]!, start: m.index, end: end === -1 ? source.length : end, nameEnd: nameStart + m[1]!.length });
    }
    return out;
}

/**
 * A line that is one macro-like name (`BOOST_LOG_OPEN_NAMESPACE`), or one call of a macro-like name
 * ended by `;` (`BOOST_STATIC_ASSERT_MSG((…), "…");`), maybe with a line comment; group 1 is the call.
 */
const LONE_MACRO = /^[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]*(\(.*\)[ \t]*;)?[ \t]*(?:\/\/[^\n]*)?\r?$/gm;
/** A line after which a declaration may begin: a directive, a comment, the end of a statement or block, an access label, a template head. */
const DECLARATION_BEFORE = /^(?:#.*|\/\/.*|\/\*.*|\*.*|.*\*\/|.*[{};]|(?:public|private|protected)\s*:|template\s*<.*>)?$/;
/** A line that continues an expression or a list, so the name before it is a value (an enumerator, an argument). */
const CONTINUES = /^[}),;=(]/;

/**
 * C++ text with each macro that stands alone on its line between declarations turned into spaces,
 * for the definitions' parse. The grammar reads such a name (a namespace opened or closed,
 * `BOOST_FORCEINLINE` above a function) as the type of what follows: `BOOST_LOG_OPEN_NAMESPACE`
 * before `namespace sinks {` makes the namespace a function, whose body cannot hold the classes in
 * it. It reads a macro call among a class's members (a static assertion) as a member whose
 * declarator is the arguments, and an argument it cannot read as one (a string of several words)
 * can make it give up the whole class. Offsets and lines are kept. A name in a list (`FOO_B`
 * before `};`) or an expression is kept.
 */
export function withoutLoneMacros(source: string): string {
    const spans: number[] = [];
    /** Where the last line blanked ends: a lone macro right after it (`NS_END`, `NS_BEGIN`) follows a declaration's end too. */
    let blankedEnd = -1;
    for (const m of source.matchAll(LONE_MACRO)) {
        const afterBlanked = blankedEnd >= 0 && source.slice(blankedEnd, m.index).trim() === '';
        if (!afterBlanked && !DECLARATION_BEFORE.test(neighbourLine(source, m.index, -1))) continue;
        if (m[1] === undefined && CONTINUES.test(neighbourLine(source, m.index + m[0].length, 1))) continue;
        const at = m.index + /[A-Z]/.exec(m[0])!.index;
        const end = m[1] === undefined ? at + /^[A-Z0-9_]*/.exec(source.slice(at, at + m[0].length))![0].length : m.index + m[0].indexOf(m[1]) + m[1].length;
        spans.push(at, end);
        blankedEnd = m.index + m[0].length;
    }
    return blankedSpans(source, spans);
}

/** `source` with each span of `spans` (`[start, end, …]`, ascending, apart) turned into spaces, newlines kept: the same offsets and lines. */
function blankedSpans(source: string, spans: readonly number[]): string {
    return spans.length === 0 ? source : blankedText(source, [0, ...spans, source.length]);
}

/** The nearest line before (`step` -1) or after (1) the line at `at` that is not blank, trimmed; '' at the file's start or end. */
function neighbourLine(source: string, at: number, step: -1 | 1): string {
    let i = at;
    for (;;) {
        if (step < 0 ? i <= 0 : i >= source.length) return '';
        const start = step < 0 ? source.lastIndexOf('\n', i - 2) + 1 : i + 1;
        const nl = source.indexOf('\n', start);
        const end = nl === -1 ? source.length : nl;
        const line = source.slice(start, end).trim();
        if (line !== '') return line;
        i = step < 0 ? start : end;
    }
}

/**
 * A file-scope declaration that is one call of a macro-like name after `const` (or `volatile`),
 * maybe `static` or `extern` before it, at a line's start: `static const DECLARE_TLV_DB_SCALE(`.
 */
const MACRO_DECLARATION = /^(?:(?:static|extern)[ \t]+)?(?:(?:const|volatile)[ \t]+)+[A-Z][A-Z0-9_]*[ \t]*\(/gm;
/** A directive's line (a `#define` in a comment too): lostMacros reads the text's and asks the tree what holds each. */
const DIRECTIVE_LINE = /\n[ \t]*#/;

/**
 * C text with each declaration made of a macro call alone (`static const
 * DECLARE_TLV_DB_SCALE(hp_vol_tlv, -2325, 75, 0);`, the macro expanding to a variable) turned into
 * spaces, for the definitions' parse. The grammar reads the name after `const` as a type macro
 * whose argument is a type, so such a declaration has no declarator and is never a definition;
 * but error recovery over a longer one (`DECLARE_TLV_DB_RANGE(bst_tlv,` and seven lines of
 * numbers and calls) may go on past its `;`, into the next declarations: the initializer after it
 * became a block that held the rest of the file (sound/soc/codecs/rt5665.c), and every variable
 * after it was lost. Offsets and lines are kept. Only a call whose parentheses close before any
 * `;`, brace or stray comment close, with no directive line in it, followed by its `;`, is
 * blanked; one on a line that a backslash continues (a macro's body) is kept.
 */
export function withoutMacroDeclarations(source: string): string {
    const spans: number[] = [];
    let from = 0;
    MACRO_DECLARATION.lastIndex = 0;
    for (let m = MACRO_DECLARATION.exec(source); m !== null; m = MACRO_DECLARATION.exec(source)) {
        if (m.index < from || (m.index > 0 && continued(source, m.index - 1))) continue;
        const end = callEnd(source, m.index + m[0].length - 1);
        // A directive, even in a comment, stays where lostMacros looks for it.
        if (end === -1 || DIRECTIVE_LINE.test(source.slice(m.index, end))) continue;
        let i = end;
        while (i < source.length && isSpace(source.charCodeAt(i))) i++;
        if (source.charCodeAt(i) !== C.Semi) continue;
        spans.push(m.index, i + 1);
        from = i + 1;
        MACRO_DECLARATION.lastIndex = from;
    }
    return blankedSpans(source, spans);
}

function isSpace(c: number): boolean {
    return c === C.Space || c === C.Tab || c === C.Nl || c === C.Cr || c === 12 || c === 11;
}

/**
 * The index past the `)` closing the `(` at `open`, comments and literals read; -1 when a `;`, a
 * brace, a `*\/` outside a comment or a literal not closed on its line comes first.
 */
function callEnd(source: string, open: number): number {
    let depth = 0;
    for (let i = open; i < source.length; i++) {
        const c = source.charCodeAt(i);
        if (c === C.LParen) depth++;
        else if (c === C.RParen) {
            if (--depth === 0) return i + 1;
        } else if (c === C.Semi || c === C.LBrace || c === C.RBrace) return -1;
        else if (c === C.Star && source.charCodeAt(i + 1) === C.Slash) return -1;
        else if (c === C.Slash && source.charCodeAt(i + 1) === C.Star) {
            const close = source.indexOf('*/', i + 2);
            if (close === -1) return -1;
            i = close + 1;
        } else if (c === C.Slash && source.charCodeAt(i + 1) === C.Slash) {
            const nl = source.indexOf('\n', i);
            if (nl === -1 || continued(source, nl)) return -1;
            i = nl - 1;
        } else if (c === C.Quote || c === C.Apos) {
            let j = i + 1;
            for (; j < source.length; j++) {
                const d = source.charCodeAt(j);
                if (d === c || d === C.Nl) break;
                if (d === C.Backslash) j++;
            }
            if (source.charCodeAt(j) !== c) return -1;
            i = j;
        }
    }
    return -1;
}
