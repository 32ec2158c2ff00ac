import type { Node } from 'web-tree-sitter';

/** Declarators that wrap the one they name in a type: the innermost of them says what the name is. */
const DERIVED: ReadonlySet<string> = new Set(['pointer_declarator', 'array_declarator', 'function_declarator', 'reference_declarator']);

/**
 * The variable a C or C++ declaration's declarator `top` declares, walked down its nesting
 * (`*const *x`, `b[2][2]`, `(*fp)(void)`, `(*x[4])(void)`), and the node whose span is the
 * variable's: the declaration for its first declarator, as a lone variable's is, else the
 * declarator alone (its own line, and the references on it enclosed by it). `undefined` when it
 * declares a function (`f(void)`, `*f(int)`, `(*get(void))[3]`: the declarator nearest the name
 * is a function's) or a name in parentheses alone (`T (name)`), which is how the grammar reads a
 * macro call at file scope (`static DEFINE_MUTEX(lock);`).
 */
export function declaredVariable(declaration: Node, top: Node): { name: Node; span: Node; sigStart: number | undefined } | undefined {
    let n: Node | null = top;
    let nearest = '';
    while (n !== null && n.type !== 'identifier') {
        const type: string = n.type;
        if (DERIVED.has(type)) nearest = type;
        else if (type === 'parenthesized_declarator') nearest = type;
        else if (type !== 'init_declarator' && type !== 'attributed_declarator') return undefined;
        n = n.childForFieldName('declarator') ?? firstDeclarator(n);
    }
    if (n === null || nearest === 'function_declarator' || nearest === 'parenthesized_declarator') return undefined;
    if (declaration.childForFieldName('declarator')?.id === top.id) return { name: n, span: declaration, sigStart: undefined };
    // A later declarator's signature starts where its declaration does when on its line (`T a = {1}, b = {2};`).
    return { name: n, span: top, sigStart: declaration.startPosition.row === top.startPosition.row ? declaration.startIndex : undefined };
}

/** The declarator a node without a `declarator` field holds (inside parentheses, a C++ `&`, an attributed one). */
function firstDeclarator(node: Node): Node | null {
    for (const c of node.namedChildren) {
        if (c !== null && (c.type === 'identifier' || c.type.endsWith('_declarator'))) return c;
    }
    return null;
}
