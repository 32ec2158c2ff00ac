/**
 * What a definition looks like in each grammar, as tree-sitter tagging queries: `@name` captures
 * the defined name, `@definition.<kind>` the whole definition (its lines, its signature line),
 * `@scope` a node that only contains definitions (a Rust `impl`, whose type names their
 * container). A `@definition.variable` or `@definition.constant` counts only at file scope
 * (see symbols.ts); a C or C++ declaration's or typedef's `@name` is each of its declarators,
 * walked down to the name in declarators.ts, since a query cannot follow nesting of any depth (a
 * prototype's `f(…)` is left out here, as most of a header's declarations are those). Kinds are those of
 * `SYMBOL_KINDS`; a function inside a class-like container becomes a method.
 */

const C_COMMON = `
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(enumerator name: (identifier) @name) @definition.constant
(type_definition declarator: (_) @name) @definition.type
(declaration declarator: [(identifier) (init_declarator) (pointer_declarator) (array_declarator) (parenthesized_declarator) (attributed_declarator) (function_declarator declarator: (parenthesized_declarator))] @name) @definition.variable
`;

/**
 * Functions, and `T f(…) MACRO {…}`: a macro after the parameters (`BOOST_NOEXCEPT`) makes the
 * grammar take the macro for the declarator and leave `f(…)` in an error node before it. And
 * `static int __init f(void) {`: an annotation macro before the name makes it end a declaration
 * there (`static int __init`, its `;` missing) and read `f(void)` as a definition of type `f`
 * whose declarator is `(void)` (repairs.ts, `patchedStart`, gives it its first line back).
 */
const C_FUNCTIONS = (name: string, macro: string) => `
(function_definition declarator: (function_declarator declarator: ${name} @name)) @definition.function
(function_definition type: (type_identifier) @name declarator: (parenthesized_declarator (identifier) @void) body: (compound_statement) (#eq? @void "void")) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: ${name} @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: ${name} @name)))) @definition.function
(function_definition (ERROR (function_declarator declarator: ${name} @name)) declarator: ${macro} body: (compound_statement)) @definition.function
`;

/**
 * `class BOOST_SYMBOL_VISIBLE name {…};`: an annotation macro between the keyword and the name makes
 * the grammar read the macro as the type's name and the class as a function `name` of that type,
 * whose body holds the members. The name is the first identifier of the error node a base clause
 * (`name : public base<…>`, `name<erased<T>> : public …`) leaves right after the macro, else the
 * declarator's; the error node's pattern comes first, since the first match of a node is kept
 * and the declarator is then the base.
 */
const MACRO_NAMED = (specifier: string, kind: string, declarator: string): string => `
(function_definition type: (${specifier}) . (ERROR . ${declarator}) body: (compound_statement)) @definition.${kind}
(function_definition type: (${specifier}) declarator: ${declarator} body: (compound_statement)) @definition.${kind}
`;

const C = C_COMMON + C_FUNCTIONS('(identifier)', '(identifier)') + MACRO_NAMED('struct_specifier', 'struct', '(identifier) @name') + MACRO_NAMED('union_specifier', 'union', '(identifier) @name');

const CPP_DECLARATOR = '[(identifier) @name (template_function name: (identifier) @name)]';
const CPP =
    C_COMMON +
    MACRO_NAMED('class_specifier', 'class', CPP_DECLARATOR) +
    MACRO_NAMED('struct_specifier', 'struct', CPP_DECLARATOR) +
    MACRO_NAMED('union_specifier', 'union', CPP_DECLARATOR) +
    C_FUNCTIONS('[(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)]', '[(identifier) (field_identifier)]') +
    `
(function_definition (ERROR (init_declarator declarator: (identifier) @name value: (argument_list))) declarator: [(identifier) (field_identifier)] body: (compound_statement)) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))) @definition.function
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (qualified_identifier) @name body: (field_declaration_list)) @definition.struct
(class_specifier name: (qualified_identifier) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list)) @definition.struct
(class_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list)) @definition.class
(union_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list)) @definition.union
(namespace_definition name: (namespace_identifier) @name) @definition.module
(declaration declarator: (reference_declarator) @name) @definition.variable
(alias_declaration name: (type_identifier) @name) @definition.type
(enum_specifier name: (qualified_identifier) @name body: (enumerator_list)) @definition.enum
`;

const JS_COMMON = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.function)
(object (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method) @in_object
(function_expression name: (identifier) @name) @definition.function
(generator_function name: (identifier) @name) @definition.function
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class !name) @definition.class)
(assignment_expression left: (member_expression object: (member_expression object: (identifier) @receiver property: (property_identifier) @prototype) property: (property_identifier) @name) right: [(function_expression) (arrow_function)] (#eq? @prototype "prototype")) @definition.method
(assignment_expression left: (member_expression property: (property_identifier) @name) right: [(function_expression) (arrow_function)]) @definition.function
(variable_declarator name: (identifier) @name value: [(number) (string) (template_string) (object) (array) (call_expression) (new_expression) (identifier) (member_expression) (true) (false) (regex) (binary_expression) (class)]) @definition.variable
`;

const JAVASCRIPT =
    JS_COMMON +
    `
(class_declaration name: (identifier) @name) @definition.class
(class name: (identifier) @name) @definition.class
`;

const TYPESCRIPT =
    JS_COMMON +
    `
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(class name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(function_signature name: (identifier) @name) @definition.function
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
(construct_signature "new" @name) @definition.method
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: [(identifier) (nested_identifier)] @name) @definition.module
`;

const PYTHON = `
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(expression_statement (assignment left: (identifier) @name)) @definition.variable
`;

const GO = `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: [(type_identifier) @receiver (pointer_type (type_identifier) @receiver) (generic_type type: (type_identifier) @receiver) (pointer_type (generic_type type: (type_identifier) @receiver))])) name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (pointer_type) (slice_type) (map_type) (array_type) (function_type) (channel_type) (generic_type)]) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(const_spec name: (identifier) @name) @definition.constant
(var_spec name: (identifier) @name) @definition.variable
`;

const RUST = `
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.union
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(impl_item type: [(type_identifier) @name (generic_type type: (type_identifier) @name) (scoped_type_identifier name: (type_identifier) @name)]) @scope
(impl_item type: (reference_type type: [(type_identifier) @name (generic_type type: (type_identifier) @name)])) @scope
(impl_item type: [(primitive_type) (unit_type) (tuple_type) (array_type) (pointer_type) (function_type) (dynamic_type) (abstract_type)] @name) @scope
(impl_item type: (reference_type type: [(primitive_type) (array_type) (tuple_type) (dynamic_type) (function_type)]) @name) @scope
`;

const JAVA = `
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(enum_constant name: (identifier) @name) @definition.constant
`;

/** Each language's query, by the language id of src/symbols/shared/languages.ts. */
export const QUERIES: Readonly<Record<string, string>> = {
    c: C,
    cpp: CPP,
    javascript: JAVASCRIPT,
    typescript: TYPESCRIPT,
    tsx: TYPESCRIPT,
    python: PYTHON,
    go: GO,
    rust: RUST,
    java: JAVA,
};

/** Node types that are a file's top level (or wrap a definition there), per language: file-scope variables and constants must sit in them. */
export const FILE_SCOPE: Readonly<Record<string, ReadonlySet<string>>> = {
    c: new Set(['translation_unit', 'preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'linkage_specification', 'declaration_list']),
    cpp: new Set(['translation_unit', 'preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'linkage_specification', 'declaration_list', 'namespace_definition', 'template_declaration']),
    javascript: new Set(['program', 'export_statement', 'lexical_declaration', 'variable_declaration']),
    typescript: new Set(['program', 'export_statement', 'lexical_declaration', 'variable_declaration', 'statement_block', 'internal_module', 'module', 'ambient_declaration', 'expression_statement']),
    tsx: new Set(['program', 'export_statement', 'lexical_declaration', 'variable_declaration', 'statement_block', 'internal_module', 'module', 'ambient_declaration', 'expression_statement']),
    python: new Set(['module', 'expression_statement', 'if_statement', 'block', 'try_statement', 'else_clause', 'except_clause']),
    go: new Set(['source_file', 'const_declaration', 'var_declaration', 'const_spec', 'var_spec', 'var_spec_list']),
    rust: new Set(['source_file', 'declaration_list', 'mod_item']),
    java: new Set(['program', 'class_body', 'enum_body', 'enum_body_declarations', 'interface_body']),
};
