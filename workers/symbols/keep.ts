/**
 * Which query matches are definitions, and whose members they are, where the syntax alone does
 * not say: variables only at file scope, JavaScript's functions set on objects, named function
 * expressions, the methods of an object literal.
 */
import type { LanguageInfo } from '../../src/symbols/shared/languages.js';
import { FILE_SCOPE } from './queries.js';
import { annotated } from './declarators.js';
import type { Node } from 'web-tree-sitter';

/**
 * Whether a match is a definition: variables and constants only at file scope (a function held in
 * a local variable is a definition, as a nested function declaration is), no `extern`
 * declarations, no member of an inline type, no function expression named as what holds it.
 * `type`: the node's, when the caller has read it.
 */
export function keep(node: Node, kind: string, name: Node, info: LanguageInfo, type: string = node.type): boolean {
    if (type === 'method_signature' && inAnnotation(node)) return false;
    if (type === 'assignment_expression') return kind === 'method' || memberFunction(node);
    if (type === 'function_expression' || type === 'generator_function') return !namedByHolder(node, name.text);
    if (type === 'variable_declarator' && kind === 'function') return true;
    const fileScoped = kind === 'variable' || (kind === 'constant' && type !== 'enumerator' && type !== 'enum_constant') || type === 'variable_declarator';
    if (!fileScoped) return true;
    // Perf: the enclosing nodes first, since most matches are a function's locals, ruled out by
    // their first parent; the node's children are materialized only for file-scope declarations.
    const scope = FILE_SCOPE[info.id];
    for (let p = node.parent; p !== null; p = p.parent) {
        if (!scope?.has(p.type)) return false;
    }
    // A declaration the parser had to patch (`notrace u64 __weak f(void)` read as `notrace u64;` and a function): a macro misread, not a
    // variable; but a variable beside an annotation macro, or whose initializer list holds a directive, is one (declarators.ts).
    if (node.hasError && ((info.id !== 'c' && info.id !== 'cpp') || annotated(node) === null)) return false;
    if ((info.id === 'c' || info.id === 'cpp') && node.children.some((c) => c?.type === 'storage_class_specifier' && c.text === 'extern')) return false;
    return true;
}

const LOCAL_SCOPES: ReadonlySet<string> = new Set(['function_declaration', 'function_expression', 'function', 'arrow_function', 'method_definition', 'generator_function', 'generator_function_declaration', 'class_body']);

/**
 * Whether a node lies outside any function or class. An object literal's methods in a function
 * (`new TransformStream({ transform(chunk) {…} })`, `return { get id() {…} }`) are locals, left
 * out as a function's local variables are; in a class property's value (`options = { getX() {…} }`)
 * they are the value's, not the class's methods.
 */
export function atFileScope(node: Node): boolean {
    for (let p = node.parent; p !== null; p = p.parent) {
        if (LOCAL_SCOPES.has(p.type)) return false;
    }
    return true;
}

const isPrototypeMember = (left: Node | null): boolean => {
    const target = left?.childForFieldName('object');
    return target?.type === 'member_expression' && target.childForFieldName('property')?.text === 'prototype';
};

/**
 * `UPNG.encode.compress = function (…) {` at file scope defines `compress`; a prototype's member
 * is a method (its own pattern), and one assigned in a function (`this.onload = () => …`) a local.
 */
function memberFunction(node: Node): boolean {
    const left = node.childForFieldName('left');
    if (isPrototypeMember(left)) return false;
    // `module.exports = () => …` names no function: the module exports an anonymous one.
    if (left?.text === 'module.exports') return false;
    return node.parent?.type === 'expression_statement' && node.parent.parent?.type === 'program';
}

/**
 * Whether a named function expression is the value of a variable or member of its own name that
 * is a definition already (`exports.parse = function parse(…)`): one definition, not two.
 */
function namedByHolder(node: Node, name: string): boolean {
    const p = node.parent;
    if (p?.type === 'variable_declarator') return p.childForFieldName('name')?.text === name;
    if (p?.type !== 'assignment_expression') return false;
    const left = p.childForFieldName('left');
    return left?.childForFieldName('property')?.text === name && (isPrototypeMember(left) || memberFunction(p));
}

/**
 * Whose method an object literal's method is: the variable or member that holds the object, and
 * the keys of the objects around it (`const api = { v1: { run() {} } }`: `api`, `v1`).
 */
export function objectOwner(method: Node): string | undefined {
    const names: string[] = [];
    for (let o = method.parent; o?.type === 'object'; ) {
        const p = o.parent;
        if (p?.type === 'pair' && p.childForFieldName('key')?.type === 'property_identifier') {
            names.unshift(p.childForFieldName('key')!.text);
            o = p.parent;
            continue;
        }
        const holder = p?.type === 'variable_declarator' ? p.childForFieldName('name') : p?.type === 'assignment_expression' ? p.childForFieldName('left')?.childForFieldName('property') : null;
        if (holder?.type === 'identifier' || (holder?.type === 'property_identifier' && p?.childForFieldName('left')?.text !== 'module.exports')) names.unshift(holder.text);
        break;
    }
    return names.length > 0 ? names.join('::') : undefined;
}

/** Whether a member signature belongs to an inline type (`f(x: { at(): void })`, `[…] as { at(): void }[]`), not to a declared interface or type. */
function inAnnotation(node: Node): boolean {
    for (let p = node.parent; p !== null; p = p.parent) {
        if (p.type === 'type_annotation' || p.type === 'formal_parameters' || p.type === 'type_arguments' || p.type === 'as_expression' || p.type === 'satisfies_expression') return true;
        if (p.type === 'interface_declaration' || p.type === 'type_alias_declaration') return false;
    }
    return false;
}
