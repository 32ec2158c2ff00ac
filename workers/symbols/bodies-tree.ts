/**
 * The definitions' parse of a C text without its function bodies and initializer lists
 * (bodies.ts): whether the grammar read each block left out as the scan did, and the tree
 * definitions are taken from.
 */
import type { Node, Parser, Range, Tree } from 'web-tree-sitter';
import { withoutBodies, type Blanked } from './bodies.js';
import { parseWithin } from './parser.js';
import { regionsHold } from './regions.js';

/** What may hold a function at file scope: the file, its `#if` blocks, and what error recovery made of a construct it could not read. */
const FILE_SCOPE: ReadonlySet<string> = new Set(['translation_unit', 'preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'ERROR']);

/**
 * Whether the parse of the blanked text read each blanked body as a block at file scope: a
 * function's body, or a block of its own where the grammar reads as it does in the text as
 * written what comes before it (`SYSCALL_DEFINE2(…) {`); and each of `inits` as the value of a
 * declarator of a file-scope declaration outside any error node. Otherwise the scan followed the
 * braces otherwise than the grammar, and the text is parsed again (see {@link definitionsTree}).
 */
export function bodiesHold(root: Node, bodies: readonly number[], inits: ReadonlySet<number> = NONE): boolean {
    // Perf: one walk of a cursor over the file-scope nodes, no node objects made; a look-up per
    // body (descendantForIndex) walks a node's children in turn: quadratic for 45,000 functions.
    const cursor = root.walk();
    let k = 0;
    /** Whether the cursor's node holds the initializer at `k` as the value of one of its declarators; moves `k` past those it holds. */
    const initialized = (): boolean => {
        const end = cursor.endIndex;
        if (!cursor.gotoFirstChild()) return false;
        do {
            if (k >= bodies.length || bodies[k]! >= end) break;
            if (cursor.endIndex <= bodies[k]! || cursor.nodeType !== 'init_declarator') continue;
            if (!inits.has(bodies[k]!) || !cursor.gotoFirstChild()) return false;
            while (cursor.endIndex <= bodies[k]! && cursor.gotoNextSibling());
            if ((cursor.nodeType as string) !== 'initializer_list' || cursor.startIndex !== bodies[k] || cursor.endIndex !== bodies[k + 1]! + 1) return false;
            cursor.gotoParent();
            k += 2;
        } while (cursor.gotoNextSibling());
        cursor.gotoParent();
        return k >= bodies.length || bodies[k]! >= end;
    };
    /** Over the children of the cursor's node (`inError`: under an error node): false when a body is not where the scan put it. */
    const visit = (inError: boolean): boolean => {
        if (!cursor.gotoFirstChild()) return true;
        do {
            if (k >= bodies.length) break;
            if (cursor.endIndex <= bodies[k]!) continue;
            if (cursor.startIndex > bodies[k]!) return false;
            const type = cursor.nodeType;
            if (inits.has(bodies[k]!)) {
                // An initializer left out is a file-scope declaration's, read cleanly around it.
                if (type === 'declaration' && !inError) {
                    if (!initialized()) return false;
                } else if (type === 'declaration' || !FILE_SCOPE.has(type) || !visit(inError || type === 'ERROR')) return false;
            } else if (type === 'function_definition') {
                if (!cursor.gotoFirstChild()) return false;
                while (cursor.endIndex <= bodies[k]! && cursor.gotoNextSibling());
                if (cursor.nodeType !== 'compound_statement' || cursor.startIndex !== bodies[k] || cursor.endIndex !== bodies[k + 1]! + 1) return false;
                cursor.gotoParent();
                k += 2;
            } else if (type === 'compound_statement') {
                if (cursor.startIndex !== bodies[k] || cursor.endIndex !== bodies[k + 1]! + 1) return false;
                k += 2;
            } else if (!FILE_SCOPE.has(type) || !visit(inError || type === 'ERROR')) return false;
        } while (cursor.gotoNextSibling());
        cursor.gotoParent();
        return true;
    };
    try {
        return visit(false) && k >= bodies.length;
    } finally {
        cursor.delete();
    }
}

const NONE: ReadonlySet<number> = new Set();

/**
 * The tree to take definitions from: the parse of `defText` (`text`, or a copy with parts blanked)
 * without `bodies`, unless that parse did not read them as the scan did (see {@link bodiesHold}):
 * then without the function bodies alone, then of all of `text`, in the time left. With `regions` (where the uses were parsed), only those,
 * when their parse holds (regions.ts) and so do the bodies in them; else the whole. `null` when
 * `ms` milliseconds pass first.
 */
export function definitionsTree(parser: Parser, text: string, defText: string, bodies: Blanked | undefined, ms: number, regions?: Range[]): Tree | null {
    const end = performance.now() + ms;
    const parse = (ranges?: Range[], of: string = defText): Tree | null => {
        const left = end - performance.now();
        return left <= 0 ? null : parseWithin(parser, of, left, ranges);
    };
    if (regions !== undefined) {
        const tree = parse(bodies?.ranges === undefined ? regions : overlap(bodies.ranges, regions), bodies?.text);
        if (tree !== null && regionsHold(tree.rootNode, regions) && (bodies === undefined || bodiesHold(tree.rootNode, bodiesIn(bodies.bodies, regions), bodies.inits))) return tree;
        tree?.delete();
    }
    const tree = parse(bodies?.ranges, bodies?.text);
    if (tree === null || bodies === undefined || bodiesHold(tree.rootNode, bodies.bodies, bodies.inits)) return tree;
    tree.delete();
    // Initializers the grammar did not read as the scan did: the functions' bodies alone left out.
    const functions = bodies.inits.size > 0 ? withoutBodies(text, false) : undefined;
    if (functions !== undefined) return definitionsTree(parser, text, defText, functions, end - performance.now());
    return parse(undefined, text);
}

/** The parts two lists of ranges (each ascending) share. */
function overlap(a: readonly Range[], b: readonly Range[]): Range[] {
    const out: Range[] = [];
    for (let i = 0, j = 0; i < a.length && j < b.length; ) {
        const from = a[i]!.startIndex >= b[j]!.startIndex ? a[i]! : b[j]!;
        const to = a[i]!.endIndex <= b[j]!.endIndex ? a[i]! : b[j]!;
        if (from.startIndex < to.endIndex) out.push({ startIndex: from.startIndex, startPosition: from.startPosition, endIndex: to.endIndex, endPosition: to.endPosition });
        if (a[i]!.endIndex <= b[j]!.endIndex) i++;
        else j++;
    }
    return out;
}

/** The bodies (`[open, close, …]`) within `ranges` (both ascending; a range's edges lie between top-level items, never in a body). */
function bodiesIn(bodies: readonly number[], ranges: readonly Range[]): number[] {
    const out: number[] = [];
    let r = 0;
    for (let k = 0; k < bodies.length; k += 2) {
        while (r < ranges.length && ranges[r]!.endIndex <= bodies[k]!) r++;
        if (r < ranges.length && ranges[r]!.startIndex <= bodies[k]!) out.push(bodies[k]!, bodies[k + 1]!);
    }
    return out;
}
