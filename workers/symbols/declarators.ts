import type { Node } from 'web-tree-sitter';

/** Declarators that wrap the one they name in a type: the innermost of them says what the name is. */
const DERIVED: ReadonlySet<string> = new Set(['pointer_declarator', 'array_declarator', 'function_declarator', 'reference_declarator']);

/** A declared name, where the walk down a declarator ends: a C++ `A::count` names a member defined outside its class. */
const NAMES: ReadonlySet<string> = new Set(['identifier', 'qualified_identifier']);

interface Declared {
    name: Node;
    span: Node;
    sigStart: number | undefined;
}

/**
 * The variable a C or C++ declaration's declarator `top` declares, walked down its nesting
 * (`*const *x`, `b[2][2]`, `(*fp)(void)`, `(*x[4])(void)`), and the node whose span is the
 * variable's: the declaration for its first declarator, as a lone variable's is, else the
 * declarator alone (its own line, and the references on it enclosed by it). `undefined` when it
 * declares a function (`f(void)`, `*f(int)`, `(*get(void))[3]`: the declarator nearest the name
 * is a function's) or a name in parentheses alone (`T (name)`), which is how the grammar reads a
 * macro call at file scope (`static DEFINE_MUTEX(lock);`). A name the grammar took from an
 * annotation macro is the variable's beside it ({@link annotated}).
 */
export function declaredVariable(declaration: Node, top: Node): Declared | undefined {
    let n: Node | null = top;
    let nearest = '';
    while (n !== null && !NAMES.has(n.type)) {
        const type: string = n.type;
        if (DERIVED.has(type) || type === 'parenthesized_declarator') nearest = type;
        else if (type !== 'init_declarator' && type !== 'attributed_declarator') return undefined;
        n = n.childForFieldName('declarator') ?? firstDeclarator(n);
    }
    if (n === null || nearest === 'function_declarator' || nearest === 'parenthesized_declarator') return undefined;
    if (declaration.hasError) {
        const a = annotated(declaration);
        if (a?.macro.id === n.id && a.name !== undefined) n = a.name;
    }
    return spanned(declaration, top, n);
}

/**
 * The type a typedef's declarator `top` names, walked down as a variable's is (`*pa`, `buf_t[16]`,
 * `(*fn)(void)`: a function's type is a type), with its span as a declaration's declarators have
 * theirs; `undefined` when no type name ends the walk, or the declarator is a macro's argument list.
 */
export function declaredType(typedef: Node, top: Node): Declared | undefined {
    // `typedef MACRO(x) name;` reads as a type `MACRO` and a declarator `(x)`; a typedef read with an
    // error (directives or macros inside its type) may hold any words as declarators: its first only.
    if (top.type === 'parenthesized_declarator') return undefined;
    if (typedef.hasError && typedef.childForFieldName('declarator')?.id !== top.id) return undefined;
    let n: Node | null = top;
    while (n !== null && n.type !== 'type_identifier') {
        const type: string = n.type;
        if (!DERIVED.has(type) && type !== 'parenthesized_declarator' && type !== 'attributed_declarator') return undefined;
        n = n.childForFieldName('declarator') ?? firstDeclarator(n);
    }
    return n === null ? undefined : spanned(typedef, top, n);
}

function spanned(declaration: Node, top: Node, name: Node): Declared {
    if (declaration.childForFieldName('declarator')?.id === top.id) return { name, span: declaration, sigStart: undefined };
    // A later declarator's signature starts where its declaration does when on its line (`T a = {1}, b = {2};`).
    return { name, span: top, sigStart: declaration.startPosition.row === top.startPosition.row ? declaration.startIndex : undefined };
}

/** The declarator a node without a `declarator` field holds (inside parentheses, a C++ `&`, an attributed one). */
function firstDeclarator(node: Node): Node | null {
    for (const c of node.namedChildren) {
        if (c !== null && (c.type === 'identifier' || c.type === 'type_identifier' || c.type.endsWith('_declarator'))) return c;
    }
    return null;
}

/** How kernel annotation macros are spelled (`__initdata`, `__read_mostly`, `____cacheline_aligned`). */
const ANNOTATION = /^__\w+$/;

/**
 * Whether a C declaration's errors are an annotation macro beside a variable's name and where that
 * name is: `undefined` without errors (one in an initializer list, such as a directive among its
 * items, does not count), `null` for errors of another kind. The grammar cannot expand the macro:
 * it takes one of the two names for the declarator and leaves the other in an error node
 * (`T x __initdata = 1`, `T __net_initdata x = {`, `T __rcu *x`, `T *x __read_mostly`), or ends the
 * declaration at the second name, which heads a statement after it (`char buf[16] __initdata;`,
 * `static bool __read_mostly x;`, `int x __read_mostly = 1;`). Of the two names, the macro is the
 * second when it is spelled as one, else the first when that is; neither (`T x MACRO;`): not
 * told. `name`: the variable's, where the grammar took the macro for it; undefined for
 * `int x __attribute__((unused)) = 2;` (the declaration ends before the attribute).
 */
export function annotated(declaration: Node): Annotated {
    // Perf: asked twice of a declaration in turn (its declarator's name, then whether it is kept), each a walk of its nodes.
    if (last?.tree === declaration.tree && last.id === declaration.id) return last.value;
    const value = annotatedOf(declaration);
    last = { tree: declaration.tree, id: declaration.id, value };
    return value;
}

type Annotated = { macro: Node; name: Node | undefined } | undefined | null;
let last: { tree: object; id: number; value: Annotated } | undefined;

function annotatedOf(declaration: Node): Annotated {
    const errors: Node[] = [];
    errorsIn(declaration, errors);
    if (errors.length === 0) return undefined;
    const e = errors[0]!;
    if (errors.length > 1) return null;
    if (e.isMissing) {
        // The `;` the grammar supplied at the second name, which then heads a statement of its own
        // on the line (`__initdata;`, `x;`, `*x;`, `__read_mostly = 1;`, `x = 1;`).
        const next = declaration.nextSibling;
        if (e.id !== declaration.lastChild?.id || next === null || next.startPosition.row !== e.startPosition.row) return null;
        if (next.type === 'ERROR' && next.firstChild?.type === 'attribute_specifier') return { macro: next.firstChild, name: undefined };
        const declarators = declaration.childrenForFieldName('declarator');
        const last = innermost(declarators[declarators.length - 1] ?? null);
        const head = next.type === 'expression_statement' && (next.text.endsWith(';') || lastMacro(next)) ? headOf(next.firstNamedChild) : null;
        return last === null || head === null ? null : told(last, head);
    }
    const held = e.namedChildCount === 1 ? innermost(e.firstNamedChild) : null;
    const p = e.parent;
    const beside = p?.type === 'declaration' ? (e.nextNamedSibling ?? e.previousNamedSibling) : p?.childForFieldName('declarator') ?? null;
    const other = innermost(beside);
    if (held === null || other === null) return null;
    return held.startIndex < other.startIndex ? told(held, other) : told(other, held);
}

/** Of two names in a row, the macro and the variable's name: the second is the macro when spelled as one, else the first when that is. */
function told(first: Node, second: Node): { macro: Node; name: Node | undefined } | null {
    if (ANNOTATION.test(second.text)) return { macro: second, name: first };
    return ANNOTATION.test(first.text) ? { macro: first, name: second } : null;
}

/** Whether a statement's `;` is missing before a lone annotation macro that ends the line's declaration (`T __rcu *x __read_mostly;`). */
function lastMacro(statement: Node): boolean {
    const after = statement.nextSibling;
    if (after === null || after.startPosition.row !== statement.endPosition.row) return false;
    // The macro as a statement of its own (`__read_mostly;`), or a lone name before the `;`.
    const [macro, end] = after.type === 'expression_statement' && after.namedChildCount === 1 ? [after.firstNamedChild, after.lastChild] : [after, after.nextSibling];
    return (macro?.type === 'identifier' || macro?.type === 'type_identifier') && ANNOTATION.test(macro.text) && end?.type === ';' && !end.isMissing;
}

/** The identifier an expression statement the grammar made of a declarator's rest starts with (`x`, `*x`, `x[4]`, `x = 1`). */
function headOf(node: Node | null): Node | null {
    let n = node;
    while (n !== null && n.type !== 'identifier') {
        if (n.type === 'pointer_expression' || n.type === 'subscript_expression') n = n.childForFieldName('argument');
        else if (n.type === 'assignment_expression') n = n.childForFieldName('left');
        else return null;
    }
    return n;
}

/** The error and missing nodes of a declaration, outside its initializers' values. */
function errorsIn(node: Node, out: Node[]): void {
    const value = node.type === 'init_declarator' ? node.childForFieldName('value')?.id : undefined;
    for (const c of node.children) {
        if (c === null || c.id === value) continue;
        if (c.type === 'ERROR' || c.isMissing) out.push(c);
        else if (c.hasError) errorsIn(c, out);
    }
}

/** The identifier a plain declarator names (`x`, `*x`, `x[4]`, `x = 1`), else `null`. */
function innermost(node: Node | null): Node | null {
    let n = node;
    while (n !== null && (n.type === 'pointer_declarator' || n.type === 'array_declarator' || n.type === 'init_declarator')) n = n.childForFieldName('declarator');
    return n?.type === 'identifier' ? n : null;
}
