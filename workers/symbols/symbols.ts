import { statSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { toToolError, ToolError } from '../../src/errors/shared/errors.js';
import { readRegularFileSync } from '../../src/fs/shared/safe-read.js';
import { osPath } from '../../src/print/shared/byte-names.js';
import { languageOf, supportedLanguages, type LanguageInfo } from '../../src/symbols/shared/languages.js';
import type { Definition, FileSymbols, SymbolKind, SymbolsResult, SymbolsTask } from '../../src/symbols/shared/types.js';
import { byteSpans } from '../../src/symbols/shared/signature.js';
import { signatureOf } from './signature-of.js';
import { lexedReferences, plainIdentifier } from './lexed.js';
import { referencesIn, withinDefinitions } from './uses.js';
import { decodeText, type TextEncodingInfo } from '../../src/text/shared/text.js';
import { loaded, parseWithin } from './parser.js';
import { takeTaskPriority } from '../pool/background.js';
import { checkpointsOf, matchesAround, regionsFor, regionsHold } from './regions.js';
import { atFileScope, keep, objectOwner } from './keep.js';
import { lostMacros, patchedStart, realName, withoutLoneMacros, withoutMacroDeclarations } from './repairs.js';
import { withoutBodies } from './bodies.js';
import { declaredType, declaredVariable } from './declarators.js';
import { definitionsTree } from './bodies-tree.js';
import { directiveFile, macroDefinitions } from './directives.js';
import type { Node, Parser, QueryMatch, Range, Tree } from 'web-tree-sitter';

/** Kinds whose definitions contain others: a class's members, a function's nested functions and local classes (`f.inner`, as ctags scopes them). */
const CONTAINERS: ReadonlySet<string> = new Set(['class', 'struct', 'union', 'interface', 'module', 'scope', 'enum', 'function', 'method']);
/** Kinds inside which a function is a method. */
const CLASS_LIKE: ReadonlySet<string> = new Set(['class', 'struct', 'union', 'interface', 'scope']);

/** The `symbols` operation: each file's definitions, one outcome per file. */
export async function runSymbolsTask(task: SymbolsTask): Promise<SymbolsResult> {
    // A thread of a call's own (src/symbols/parse.ts, large files) takes the pool's nice value.
    const priority = task as { nice?: number; idle?: boolean };
    if (priority.nice !== undefined) takeTaskPriority(priority);
    const files: FileSymbols[] = [];
    for (const f of task.files) {
        const ms = task.deadline === undefined ? task.parseMs : Math.min(task.parseMs, task.deadline - Date.now());
        if (ms <= 0) {
            files.push({ ok: false, kind: 'timeout', message: `The time limit was reached before ${f.shown} was parsed.`, late: true });
            continue;
        }
        try {
            files.push(await fileSymbols(f.shown, f.real, { ...task, parseMs: ms }, f));
        } catch (err) {
            const e = toToolError(err, f.shown);
            files.push({ ok: false, kind: e.kind, message: e.message });
        }
    }
    return { ok: true, files };
}

async function fileSymbols(shown: string, real: string, task: SymbolsTask, taken: { checkpoints?: number[]; chars?: number; crc?: number } = {}): Promise<FileSymbols> {
    const info = languageOf(real);
    if (info === undefined) {
        // A missing path, a directory or what is not a regular file gets the error a read of it gets.
        if (statSync(osPath(real), { throwIfNoEntry: false })?.isFile() !== true) readRegularFileSync(shown, real, task.realRoots, task.maxBytes);
        throw new ToolError('wrong_type', `No grammar for ${shown}: code navigation supports ${supportedLanguages()}.`);
    }
    const { bytes } = readRegularFileSync(shown, real, task.realRoots, task.maxBytes);
    const decoded = decodeText(bytes);
    if (!decoded.ok) throw new ToolError('binary', `Binary file: ${shown} is not source text.`);
    const text = decoded.text;
    // A C file of directives and comments alone: its macros read from the text (directives.ts);
    // before the grammar is loaded, which a thread of its own for a large file then never does.
    const plain = info.id === 'c' && task.references === undefined ? directiveFile(text) : null;
    if (plain !== null) {
        const spans = task.spans === true ? [] : undefined;
        const definitions = macroDefinitions(text, plain.macros, spans);
        return outcome(info, text, decoded.info, bytes, definitions, spans, task.checkpoints === true ? plain.checkpoints : undefined);
    }
    const { parser, query } = await loaded(info);
    // Checkpoints taken of another text are not this one's.
    const fits = taken.checkpoints !== undefined && taken.chars === text.length && taken.crc === crc32(bytes);
    // The table's definitions are this text's: a C file's uses may be told without a parse.
    if (fits && task.lexed === true && info.id === 'c' && task.references !== undefined && plainIdentifier(parser, task.references)) {
        const lexed = lexedReferences(text, task.references, taken.checkpoints!);
        if (lexed !== null) return { ok: true, language: info.id, lines: lexed.lines, chars: text.length, definitions: [], references: lexed.references, lexed: true };
    }
    // Definitions are read past C++ macros that stand alone on their lines, C declarations made of
    // a macro call alone (repairs.ts) and C function bodies (bodies.ts); uses are looked for in the
    // text as written: with uses asked, such a file is parsed twice, so the enclosing definitions
    // are the outline's and the table's.
    const started = performance.now();
    const source = info.id === 'c' ? withoutMacroDeclarations(text) : text;
    const bodies = info.id === 'c' ? withoutBodies(source) : undefined;
    const blanked = info.id === 'cpp' ? withoutLoneMacros(text) : source;
    const tree: (Tree & { regions?: Range[] }) | null = task.references === undefined ? definitionsTree(parser, source, blanked, bodies, task.parseMs) : parseUses(parser, text, task, fits ? taken.checkpoints : undefined);
    if (tree === null) {
        parser.reset();
        throw new ToolError('timeout', `Parsing ${shown} took longer than ${task.parseMs} ms: the file was skipped.`);
    }
    try {
        const points = task.checkpoints === true && !tree.regions ? checkpointsOf(tree.rootNode, info.id === 'typescript' || info.id === 'tsx') : undefined;
        const spans = task.spans === true ? [] : undefined;
        const [around, at, ranges]: [number[], number[], number[]] = [[], [], []];
        const references = task.references === undefined ? undefined : referencesIn(tree.rootNode, text, task.references, around, at);
        const left = task.parseMs - (performance.now() - started);
        const defTree = references !== undefined && (blanked !== text || bodies !== undefined) && left > 0 ? definitionsTree(parser, source, blanked, bodies, left, tree.regions) : null;
        const root = defTree?.rootNode ?? tree.rootNode;
        let definitions: Definition[];
        try {
            // With references asked, only the definitions on their lines (the enclosing ones) are wanted.
            definitions = definitionsOf(references === undefined ? query.matches(root) : matchesAround(query, root, around), info, text, root, spans, ranges);
        } finally {
            defTree?.delete();
        }
        const within = references && withinDefinitions(at, ranges);
        return { ...outcome(info, text, decoded.info, bytes, definitions, spans, points), ...(references && { references, within }), ...(tree.regions && { regions: true as const }) };
    } finally {
        tree.delete();
    }
}

/** A file's outcome from its definitions (with their signatures' character spans when asked) and checkpoints. */
function outcome(info: LanguageInfo, text: string, encoding: TextEncodingInfo, bytes: Uint8Array, definitions: Definition[], spans: number[] | undefined, points: number[] | undefined): FileSymbols & { ok: true } {
    // A final line end does not start another line.
    const lines = text.length === 0 ? 0 : 1 + countLines(text, 0, text.length - 1);
    const sigSpans = spans && byteSpans(text, spans, encoding.encoding === 'utf8' ? (encoding.bom ? 3 : 0) : null);
    return { ok: true, language: info.id, lines, chars: text.length, definitions, ...(sigSpans && { sigSpans }), ...(points && { checkpoints: points, crc: crc32(bytes) }) };
}

/**
 * The tree to look for `task.references` in: with the file's checkpoints, only the regions around
 * the name's occurrences are parsed (one parse of those ranges, positions the file's own); the
 * whole file when they cover most of it, or when the regions' parse meets an error (error
 * recovery may read a region otherwise than the whole parse did). `regions`: the ranges parsed.
 */
function parseUses(parser: Parser, text: string, task: SymbolsTask, checkpoints: readonly number[] | undefined): (Tree & { regions?: Range[] }) | null {
    const ranges = task.references !== undefined && checkpoints !== undefined ? regionsFor(text, task.references, checkpoints) : undefined;
    const end = performance.now() + task.parseMs;
    if (ranges !== undefined) {
        const tree = parseWithin(parser, text, task.parseMs, ranges);
        if (tree !== null && regionsHold(tree.rootNode, ranges)) return Object.assign(tree, { regions: ranges });
        tree?.delete();
    }
    // Both parses share the file's time.
    const left = end - performance.now();
    return left <= 0 ? null : parseWithin(parser, text, left);
}

interface Found {
    kind: SymbolKind | 'scope';
    name: string;
    /** The definition's span in the source, as character indexes, and its first and last lines (1-based). */
    start: number;
    end: number;
    line: number;
    endLine: number;
    nameEnd: number;
    /** A container name given by the definition itself (a Go method's receiver, a C++ `A::b`). */
    owner: string | undefined;
    /** Whether the node is a TypeScript signature, an overload when the next definition has its name. */
    overload: boolean;
    /** Where the signature starts, when not at `start`: a later declarator's declaration on its line. */
    sigStart?: number | undefined;
}

function foundAt(kind: Found['kind'], name: string, node: Node, nameEnd: number, owner: string | undefined, overloads = false): Found {
    const endLine = node.endPosition.row + 1 - (node.endPosition.column === 0 && node.endPosition.row > node.startPosition.row ? 1 : 0);
    const overload = overloads && (node.type === 'function_signature' || node.type === 'method_signature');
    return { kind, name, start: node.startIndex, end: node.endIndex, line: node.startPosition.row + 1, endLine, nameEnd, owner, overload };
}

const ADJACENT = /^[\s;]*((export|declare|default|public|private|protected|static|async|abstract|override)\s+)*$/;
const COMMENTS = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;

/**
 * TypeScript overloads (`f(a: string): string; f(a: number): number; f(a) {…}`) are one
 * definition: from the first signature to the implementation, as ctags has it at the first.
 */
function mergeOverloads(found: Found[], source: string): Found[] {
    const out: Found[] = [];
    for (const f of found) {
        const p = out[out.length - 1];
        // A class's overload signatures are methods to the query, its implementation a function in a
        // class. Perf: overloads are told by what stands between them (comments, `export`), not by
        // their parent nodes, whose look-up walks down from the root.
        if (p !== undefined && p.overload && p.name === f.name && p.end <= f.start && ADJACENT.test(source.slice(p.end, f.start).replace(COMMENTS, ''))) {
            [p.end, p.endLine, p.overload] = [f.end, f.endLine, f.overload];
        } else out.push(f);
    }
    return out;
}

/** The definitions of `matches`; `ranges` gets each one's span in characters, `[start, end)`. */
function definitionsOf(matches: QueryMatch[], info: LanguageInfo, source: string, root: Node, spans?: number[], ranges: number[] = []): Definition[] {
    const found: Found[] = [];
    const seen = new Set<number>();
    const cLike = info.id === 'c' || info.id === 'cpp';
    const typed = info.id === 'typescript' || info.id === 'tsx';
    const macroNames = new Set<number>();
    for (const m of matches) {
        let node: Node | undefined;
        let kind: string | undefined;
        let name: Node | undefined;
        let receiver: Node | undefined;
        let inObject = false;
        for (const c of m.captures) {
            if (c.name === 'name') name = c.node;
            else if (c.name === 'receiver') receiver = c.node;
            else if (c.name === 'in_object') inObject = true;
            else if (c.name === 'scope') [node, kind] = [c.node, 'scope'];
            else if (c.name.startsWith('definition.')) [node, kind] = [c.node, c.name.slice('definition.'.length)];
        }
        if (node === undefined || kind === undefined || name === undefined) continue;
        // Each declarator of a C declaration or typedef is a definition of its own, spanning its declarator but the first.
        let [span, sigStart]: [Node, number | undefined] = [node, undefined];
        // Perf: read once; each read of a node's type is a call into the WebAssembly module.
        const type = node.type;
        if (cLike && (type === 'declaration' || type === 'type_definition')) {
            const v = type === 'declaration' ? declaredVariable(node, name) : declaredType(node, name);
            if (v === undefined) continue;
            [name, span, sigStart] = [v.name, v.span, v.sigStart];
        }
        // One definition per node (two patterns may match one typedef).
        if (seen.has(span.id)) continue;
        if (inObject && !atFileScope(node)) continue;
        if (!keep(node, kind, name, info, type)) continue;
        seen.add(span.id);
        if (cLike) {
            if (kind === 'macro') macroNames.add(name.startIndex);
            const real = realName(node, name, type);
            const f = foundAt(kind as Found['kind'], real.text, span, real.node.endIndex, real.owner);
            f.sigStart = sigStart;
            const start = patchedStart(node, name, type);
            if (start !== node) [f.start, f.line] = [start.startIndex, start.startPosition.row + 1];
            found.push(f);
        } else {
            found.push(foundAt(kind as Found['kind'], name.text, node, name.endIndex, inObject ? objectOwner(node) : receiver?.text, typed));
        }
    }
    if (cLike && root.hasError) {
        // Perf: lines counted from the previous macro on, the macros coming in source order.
        let [at, line] = [0, 1];
        for (const m of lostMacros(root, source, macroNames)) {
            [at, line] = [m.start, line + countLines(source, at, m.start)];
            found.push({ kind: 'macro', name: m.name, start: m.start, end: m.end, line, endLine: line + countLines(source, m.start, m.end), nameEnd: m.nameEnd, owner: undefined, overload: false });
        }
    }
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    const merged = typed ? mergeOverloads(found, source) : found;
    // Containers by nesting: a stack of the open containers, outermost first; and of the open
    // definitions of any kind, since a function nested in a method is a function, not a method.
    const open: Found[] = [];
    const enclosing: Found[] = [];
    const out: Definition[] = [];
    for (const f of merged) {
        while (open.length > 0 && open[open.length - 1]!.end <= f.start) open.pop();
        while (enclosing.length > 0 && enclosing[enclosing.length - 1]!.end <= f.start) enclosing.pop();
        const container = open.map((o) => o.name);
        if (f.owner !== undefined) container.push(...f.owner.split('::'));
        const inClass = (enclosing.length > 0 && CLASS_LIKE.has(enclosing[enclosing.length - 1]!.kind)) || f.owner !== undefined;
        enclosing.push(f);
        if (f.kind !== 'scope') {
            const kind: SymbolKind = f.kind === 'function' && inClass ? 'method' : f.kind;
            out.push({ kind, name: f.name, container, line: f.line, endLine: f.endLine, signature: signatureOf(source, f.sigStart ?? f.start, f.nameEnd, spans) });
            ranges.push(f.start, f.end);
        }
        // A C or C++ function holds no definitions, but one the grammar misread may span the next ones.
        if (CONTAINERS.has(f.kind) && !(cLike && (f.kind === 'function' || f.kind === 'method'))) open.push(f);
    }
    return out;
}

function countLines(source: string, from: number, to: number): number {
    let n = 0;
    for (let i = source.indexOf('\n', from); i !== -1 && i < to; i = source.indexOf('\n', i + 1)) n++;
    return n;
}
