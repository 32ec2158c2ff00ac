/**
 * Universal Ctags' definitions in the symbols bench's categories, per language, from its kinds
 * (`ctags --list-kinds-full=<lang>`). A category a language's ctags parser has no kind for is not
 * comparable there and is reported as such. docs/symbols-ctags.md explains each choice and quirk.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export const CATEGORIES = ['functions', 'methods', 'classes/structs', 'enums', 'macros', 'types', 'variables'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Tag {
    file: string;
    name: string;
    line: number;
    /** Our definitions' last line (ctags gives one line, where the name is). */
    endLine: number;
    category: Category;
    /** Ours: the innermost container's name. */
    container?: string;
    /** Ours: the kind of the innermost definition around this one, and the signature line. */
    within?: string;
    signature?: string;
    /** Ours: whether a function or method is around it (a local class, an anonymous class's method). */
    inBody?: boolean;
    /** Why ctags is plainly wrong here (a tag that is no definition, a definition it lacks), else undefined. */
    ctagsWrong?: string;
}

interface CtagsTag {
    _type: string;
    name: string;
    path: string;
    line: number;
    kind: string;
    pattern?: string;
    scopeKind?: string;
    scope?: string;
}

/** ctags' parser name for each of our languages, and the options that make it read our extensions. */
const PARSER: Record<string, { name: string; options: string[] }> = {
    c: { name: 'C', options: ['--langmap=C:.c.h'] },
    cpp: { name: 'C++', options: ['--langmap=C++:+.ipp'] },
    javascript: { name: 'JavaScript', options: [] },
    typescript: { name: 'TypeScript', options: [] },
    // ctags 5.9 maps only .ts to TypeScript; its parser reads TSX's type syntax, not its JSX.
    tsx: { name: 'TypeScript', options: ['--langmap=TypeScript:+.tsx'] },
    python: { name: 'Python', options: [] },
    go: { name: 'Go', options: [] },
    rust: { name: 'Rust', options: [] },
    java: { name: 'Java', options: [] },
};

/** A JS/TS variable whose value, as its first line shows, is a function: ctags calls it a constant or variable, we a function. */
function functionValued(t: CtagsTag): boolean {
    const line = (t.pattern ?? '').replace(/^\/\^|\$\/$/g, '');
    const at = line.search(new RegExp(`(^|[^\\w$])${t.name.replace(/\$/g, '\\$')}\\s*(:[^=]*)?=[^=>]`));
    if (at === -1) return false;
    const value = line.slice(line.indexOf('=', at) + 1).trim();
    return /^(async\s+)?(function\b|\([^()]*(\([^()]*\)[^()]*)*\)\s*(:[^=]+)?=>|[\w$]+\s*=>|\(\s*\{?\s*$|<)/.test(value);
}

/** The source line ctags gives for a tag, without its search-pattern delimiters and indentation. */
const patternLine = (t: CtagsTag): string => (t.pattern ?? '').replace(/^\/\^\s*|\$\/$/g, '');

const escaped = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A JavaScript tag whose line declares or assigns a function of its name: `function Foo(`, `proto.route = function route(`. */
function functionSyntax(t: CtagsTag): boolean {
    const name = escaped(t.name);
    return new RegExp(`(^|[^\\w$])(function\\s*\\*?\\s*${name}\\s*\\(|${name}\\s*[:=]\\s*(async\\s+)?function\\b)`).test(patternLine(t));
}

function byKind(kinds: Readonly<Record<string, Category>>): (t: CtagsTag) => Category | undefined {
    return (t) => (Object.hasOwn(kinds, t.kind) ? kinds[t.kind] : undefined);
}

/** Which kinds of ctags stand for each category, per language; `undefined` = not one of the categories. */
const CLASSIFY: Record<string, (t: CtagsTag) => Category | undefined> = {
    c: byKind({ function: 'functions', struct: 'classes/structs', union: 'classes/structs', enum: 'enums', macro: 'macros', typedef: 'types', variable: 'variables' }),
    cpp: (t) => {
        if (t.kind === 'function') return t.scopeKind === 'class' || t.scopeKind === 'struct' || t.scopeKind === 'union' ? 'methods' : 'functions';
        return byKind({ class: 'classes/structs', struct: 'classes/structs', union: 'classes/structs', enum: 'enums', macro: 'macros', typedef: 'types' })(t);
    },
    javascript: (t) => {
        if (t.kind === 'function' || t.kind === 'generator') return 'functions';
        // A `function` declaration ctags puts in a class when it loses its place in a method body.
        if (t.kind === 'method' || t.kind === 'getter' || t.kind === 'setter') return /^(async\s+)?function\b/.test(patternLine(t)) ? 'functions' : 'methods';
        if ((t.kind === 'constant' || t.kind === 'variable') && functionValued(t)) return 'functions';
        // ctags guesses an ES5 constructor from a function's body (`this.x =`); the syntax is a function.
        if (t.kind === 'class' && functionSyntax(t)) return 'functions';
        return t.kind === 'class' ? 'classes/structs' : undefined;
    },
    typescript: (t) => {
        if (t.kind === 'function' || t.kind === 'generator') return 'functions';
        if (t.kind === 'method') return 'methods';
        if ((t.kind === 'constant' || t.kind === 'variable') && functionValued(t)) return 'functions';
        return byKind({ class: 'classes/structs', enum: 'enums', interface: 'types', alias: 'types' })(t);
    },
    python: byKind({ function: 'functions', member: 'methods', class: 'classes/structs' }),
    go: (t) => {
        if (t.kind === 'func') return t.scopeKind === undefined || t.scopeKind === 'package' ? 'functions' : 'methods';
        // ctags calls a generic struct (`type T[P any] struct {`) a type.
        if (t.kind === 'type' && /^type\s+[\w$]+\s*\[.*\]\s*struct\b/.test(patternLine(t))) return 'classes/structs';
        return byKind({ struct: 'classes/structs', interface: 'types', type: 'types', talias: 'types' })(t);
    },
    rust: byKind({ function: 'functions', method: 'methods', struct: 'classes/structs', enum: 'enums', macro: 'macros', typedef: 'types', interface: 'types' }),
    java: byKind({ method: 'methods', class: 'classes/structs', enum: 'enums', interface: 'types', annotation: 'types' }),
};
CLASSIFY['tsx'] = CLASSIFY['typescript']!;

/** The categories each language's ctags parser has kinds for; the others are not comparable. */
export const COMPARABLE: Record<string, readonly Category[]> = {
    c: ['functions', 'classes/structs', 'enums', 'macros', 'types', 'variables'],
    cpp: ['functions', 'methods', 'classes/structs', 'enums', 'macros', 'types'],
    javascript: ['functions', 'methods', 'classes/structs'],
    typescript: ['functions', 'methods', 'classes/structs', 'enums', 'types'],
    tsx: ['functions', 'methods', 'classes/structs', 'enums', 'types'],
    python: ['functions', 'methods', 'classes/structs'],
    go: ['functions', 'methods', 'classes/structs', 'types'],
    rust: ['functions', 'methods', 'classes/structs', 'enums', 'macros', 'types'],
    java: ['methods', 'classes/structs', 'enums', 'types'],
};

/**
 * ctags tags that name no definition. A C/C++ "function" in capitals at the start of its line is a
 * macro call that expands to one (`BPF_CALL_2(bpf_map_push_elem, ...) {`): the function it names
 * does not exist. A JavaScript `AnonymousFunction…` is a name ctags makes up. A TypeScript alias
 * on a line like `type Foo as Bar,` is a name in an import or export list, not a type definition.
 * A JavaScript "class" on `name = {` or `name: {` is an object literal.
 */
function wrongTag(lang: string, t: CtagsTag, category: Category): string | undefined {
    const line = (t.pattern ?? '').replace(/^\/\^\s*|\$\/$/g, '');
    if ((lang === 'c' || lang === 'cpp') && (category === 'functions' || category === 'methods') && /^[A-Z][A-Z0-9_]*$/.test(t.name) && /^[A-Z][A-Z0-9_]*\s*\(/.test(line)) {
        return 'macro call taken for a function';
    }
    if (lang === 'javascript' && t.name.startsWith('AnonymousFunction')) return 'made-up name of an anonymous function';
    const name = escaped(t.name);
    // `name = {`, `name: {`, also through members or an index: `data.uniforms[ key ] = {`.
    if (lang === 'javascript' && category === 'classes/structs' && new RegExp(`(^|[^\\w$])${name}(\\s*(\\.\\s*[\\w$]+|\\[[^\\]]*\\]))*\\s*[:=]\\s*\\{`).test(line) && !/\bclass\b/.test(line)) return 'object literal taken for a class';
    const named = new RegExp(`(^|[^\\w$])${name}\\s*=\\s*class\\s+([\\w$]+)`).exec(line);
    if (lang === 'javascript' && category === 'classes/structs' && named !== null && named[2] !== t.name) return `the member a class named ${named[2]} is assigned to`;
    if (lang === 'javascript' && t.name === 'exports' && /\bmodule\.exports\s*=/.test(line)) return 'module.exports, which names no definition';
    if ((lang === 'typescript' || lang === 'tsx') && t.kind === 'alias' && /^(\{\s*)?type\s+[\w$]+(\s+as\s+[\w$]+)?\s*,?\s*(\}.*)?$/.test(line.trim())) return 'import or export list entry';
    if ((lang === 'typescript' || lang === 'tsx') && t.kind === 'alias' && /^(import|export)\s+(type\s+)?\{/.test(line.trim()) && !/=/.test(line)) return 'import or export list entry';
    return undefined;
}

/**
 * A C variable followed by an annotation macro (`int x __read_mostly;`, `T a[4] __initdata = {`):
 * ctags takes the macro for the name. Where one of ours on that line is followed by the name ctags
 * gives, spelled as an annotation (`__` first), ctags' tag is wrong and ours one it lacks; two names
 * in a row are no C declarator, so the second is the macro.
 */
export function annotationNames(lang: string, theirs: readonly Tag[], ours: readonly Tag[]): void {
    if (lang !== 'c') return;
    const byLine = new Map<string, Tag[]>();
    for (const t of ours) if (t.category === 'variables') byLine.set(`${t.file}\0${t.line}`, [...(byLine.get(`${t.file}\0${t.line}`) ?? []), t]);
    const lines = new Map<string, string[]>();
    for (const t of theirs) {
        if (t.category !== 'variables' || !/^__\w+$/.test(t.name)) continue;
        const mine = byLine.get(`${t.file}\0${t.line}`) ?? [];
        if (!lines.has(t.file)) lines.set(t.file, fs.readFileSync(t.file, 'utf8').split('\n'));
        const text = lines.get(t.file)![t.line - 1] ?? '';
        const o = mine.find((m) => m.name !== t.name && new RegExp(`(^|[^\\w$])${escaped(m.name)}(\\s*\\[[^\\]]*\\])*\\s+${escaped(t.name)}\\s*(=|;|,|$)`).test(text));
        if (o === undefined) continue;
        t.ctagsWrong ??= 'annotation macro after the name, which ctags takes for the name';
        o.ctagsWrong ??= 'variable followed by an annotation macro, which ctags tags instead';
    }
}

const implLines = new Map<string, Set<number>>();

/** The lines inside the braces of a Rust file's `impl` blocks (braces counted outside comments, strings and char literals). */
function implLinesOf(file: string): Set<number> {
    let out = implLines.get(file);
    if (out !== undefined) return out;
    out = new Set<number>();
    const text = fs.readFileSync(file, 'utf8').replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(\\.|[^"\\])*"|'(\\.|[^'\\\n])'/g, (m) => m.replace(/[^\n]/g, ' '));
    const impl = /^\s*(pub(\([^)]*\))?\s+)?(unsafe\s+)?impl\b/gm;
    for (let m = impl.exec(text); m !== null; m = impl.exec(text)) {
        let depth = 0;
        const open = text.indexOf('{', m.index);
        let line = text.slice(0, open).split('\n').length;
        for (let i = open; i !== -1 && i < text.length; i++) {
            const c = text[i];
            if (c === '\n') line++;
            else if (c === '{') depth++;
            else if (c === '}' && --depth === 0) break;
            if (depth > 0) out.add(line);
        }
    }
    implLines.set(file, out);
    return out;
}

/**
 * The lines of `source` in an `#else` or `#elif` branch, which ctags' C and C++ parser does not
 * read (it follows the first branch of each conditional): a definition there is one ctags lacks.
 */
export function elseBranchLines(source: string): Set<number> {
    const out = new Set<number>();
    // Per open conditional: whether a line of it is in a later branch.
    const open: boolean[] = [];
    source.split('\n').forEach((text, i) => {
        const d = /^\s*#\s*(if|ifdef|ifndef|else|elif|endif)\b/.exec(text)?.[1];
        if (d === 'if' || d === 'ifdef' || d === 'ifndef') open.push(false);
        else if ((d === 'else' || d === 'elif') && open.length > 0) open[open.length - 1] = true;
        else if (d === 'endif') open.pop();
        else if (open.includes(true)) out.add(i + 1);
    });
    return out;
}

export function ctagsVersion(): string {
    return execFileSync('ctags', ['--version'], { encoding: 'utf8' }).split('\n')[0]!.split(',')[0]!;
}

/** ctags' definitions in `files`, of the categories compared; the last line at which it tags a member of each class (`file\0class`); the last line it tags anything at, per file. */
export function ctagsTags(files: readonly string[], lang: string): { tags: Tag[]; lastMember: Map<string, number>; lastTag: Map<string, number>; inFunction: Map<string, { line: number; scope: string }[]>; otherKind: Map<string, string> } {
    const parser = PARSER[lang]!;
    const args = [...parser.options, '--output-format=json', '--fields=+nKsZ', `--languages=${parser.name}`, '-L', '-', '-f', '-'];
    const out = execFileSync('ctags', args, { input: files.join('\n'), encoding: 'utf8', maxBuffer: 1 << 30 });
    const tags: Tag[] = [];
    const lastMember = new Map<string, number>();
    const lastTag = new Map<string, number>();
    const inFunction = new Map<string, { line: number; scope: string }[]>();
    const otherKind = new Map<string, string>();
    for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        const t = JSON.parse(line) as CtagsTag;
        if (t._type !== 'tag') continue;
        lastTag.set(t.path, Math.max(lastTag.get(t.path) ?? 0, t.line));
        if (t.scopeKind === 'class' && t.scope !== undefined) {
            const k = `${t.path}\0${t.scope.split(/\.|::/).pop()!}`;
            lastMember.set(k, Math.max(lastMember.get(k) ?? 0, t.line));
        }
        if ((t.scopeKind === 'function' || t.scopeKind === 'method') && t.scope !== undefined) {
            const list = inFunction.get(t.path) ?? [];
            list.push({ line: t.line, scope: t.scope.split(/\.|::/).pop()! });
            inFunction.set(t.path, list);
        }
        let category = CLASSIFY[lang]!(t);
        // ctags' Rust parser loses the `impl` after a `where` clause and calls its fns functions.
        if (lang === 'rust' && category === 'functions' && t.scope === undefined && implLinesOf(t.path).has(t.line)) category = 'methods';
        if (category === undefined) otherKind.set(`${t.path}\0${t.line}\0${t.name}`, t.kind);
        // ctags names anonymous structs and enums __anon...: they have no name to find.
        if (category === undefined || t.name.startsWith('__anon')) continue;
        const ctagsWrong = wrongTag(lang, t, category);
        tags.push({ file: t.path, name: t.name, line: t.line, endLine: t.line, category, ...(ctagsWrong && { ctagsWrong }) });
    }
    return { tags, lastMember, lastTag, inFunction, otherKind };
}

/**
 * Per file, the line after the end of a function (or method) ctags still reads lines inside of: its
 * JavaScript and TypeScript parsers can lose a function's end (after some JSX, a type with a
 * template literal) and then read the rest of the file inside it, tagging its locals and no
 * function. Only functions of that name we have in the file are judged.
 */
export function lostFunctionEnds(ours: readonly Tag[], inFunction: ReadonlyMap<string, readonly { line: number; scope: string }[]>): Map<string, number> {
    const ranges = new Map<string, Tag[]>();
    for (const t of ours) {
        if (t.category !== 'functions' && t.category !== 'methods') continue;
        const k = `${t.file}\0${t.name}`;
        ranges.set(k, [...(ranges.get(k) ?? []), t]);
    }
    const lost = new Map<string, number>();
    for (const [file, list] of inFunction) {
        for (const { line, scope } of list) {
            const defs = ranges.get(`${file}\0${scope}`);
            if (defs === undefined || defs.some((d) => d.line <= line && line <= d.endLine)) continue;
            // Lost where the function ended: ctags read what follows as inside it.
            const ended = defs.filter((d) => d.endLine < line).reduce((a, d) => Math.max(a, d.endLine + 1), 0);
            if (ended > 0) lost.set(file, Math.min(lost.get(file) ?? ended, ended));
        }
    }
    return lost;
}

/**
 * Why ctags lacks one of our JavaScript, TypeScript or TSX definitions, if it plainly does. Its
 * TypeScript parser never tags a constructor, an object literal's methods, an object type's
 * members or a function declared in a function. Both parsers stop reading a class's members after
 * some constructs (TypeScript: a property whose value is a `new` expression, an overload list;
 * JavaScript: a method named `set` or `get`, a list of declarations over several lines), so they
 * tag none of them from there on. They also tag a function held by a constant as a constant (an
 * arrow on the line after `=`), tag no function held by a local variable, and can lose a
 * function's end and read the rest of the file inside it (`lostFunctionEnds`).
 */
export function lacksDefinition(lang: string, t: Tag, lastMember: ReadonlyMap<string, number>, lastTag: ReadonlyMap<string, number>, lostAt: ReadonlyMap<string, number> = new Map(), otherKind: ReadonlyMap<string, string> = new Map()): string | undefined {
    const last = lastTag.get(t.file);
    // A file ctags tags nothing in (fdir's dist/index.cjs, 600 lines of plain functions and classes): its parser gave up on it.
    if (last === undefined) return 'in a file ctags tags nothing in';
    const inBody = t.within === 'function' || t.within === 'method';
    if (lang === 'go' && inBody && (t.category === 'classes/structs' || t.category === 'types')) return "type declared in a function body, which ctags' Go parser does not tag";
    if (lang === 'java' && t.inBody === true && t.category === 'classes/structs') return "class declared in a method body, which ctags' Java parser does not tag";
    if (lang === 'java' && t.inBody === true && t.category === 'methods') return "method of a local or anonymous class in a method body, which ctags' Java parser does not tag";
    if (lang === 'cpp' && (t.category === 'functions' || t.category === 'methods') && /=\s*(default|delete)\s*;/.test(t.signature ?? '')) {
        return "defaulted or deleted function (`= default`, `= delete`), which ctags tags only as a prototype, a kind it leaves out by default";
    }
    if (lang !== 'typescript' && lang !== 'tsx' && lang !== 'javascript') return undefined;
    // These parsers tag every local variable too: after a definition past the last tag, they read nothing more.
    if (t.line > last) return 'after the last line ctags tags anything at in the file';
    const declaredFunction = t.category === 'functions' && /^(export\s+)?(default\s+)?(async\s+)?function\b/.test(t.signature ?? '');
    const held = t.category === 'functions' && new RegExp(`^(export\\s+)?(const|let|var)\\s+${escaped(t.name)}\\s*(:[^=]*)?=\\s*((async\\s+)?(\\(|[\\w$]+\\s*=>|function\\b)|$)`).test(t.signature ?? '');
    const kind = otherKind.get(`${t.file}\0${t.line}\0${t.name}`);
    if ((declaredFunction || held) && kind !== undefined) return `function that ctags tags as a ${kind}`;
    if (held && inBody) return 'function held by a local variable in a function, which ctags does not tag';
    const lost = lostAt.get(t.file);
    if (lost !== undefined && t.line >= lost && t.category === 'functions') return 'after ctags lost the end of a function, reading the rest of the file inside it';
    if (lang === 'javascript' && t.category === 'functions' && new RegExp(`\\.\\s*${escaped(t.name)}\\s*=\\s*(async\\s+)?(\\(|[\\w$]+\\s*=>|function\\s+${escaped(t.name)}\\s*\\()`).test(t.signature ?? '')) {
        return "function set on a member (`module.exports.f = (a) =>`, `req.f = function f(`), which ctags' JavaScript parser does not tag";
    }
    if (lang !== 'javascript') {
        if (t.category === 'methods' && t.within === 'variable') return "method of an object literal, which ctags' TypeScript parser does not tag";
        if (t.category === 'methods' && t.within === 'type') return "member of an object type, which ctags' TypeScript parser does not tag";
        const declared = /^(export\s+)?(default\s+)?(async\s+)?function\b/.test(t.signature ?? '');
        if (t.category === 'functions' && inBody && declared) return "function declared in a function, which ctags' TypeScript parser skips";
        if (t.category === 'functions' && !declared && new RegExp(`\\bfunction\\s*\\*?\\s*${escaped(t.name)}\\s*[(<]`).test(t.signature ?? '')) return "named function expression, which ctags' TypeScript parser does not tag";
    }
    if (t.category !== 'methods' || t.container === undefined) return undefined;
    if (t.name === 'constructor' && lang !== 'javascript') return 'constructor, which ctags does not tag';
    const lastOfClass = lastMember.get(`${t.file}\0${t.container}`);
    return lastOfClass === undefined || lastOfClass < t.line ? 'class member after ctags stops reading the class' : undefined;
}
