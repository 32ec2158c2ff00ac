import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Language as LanguageType, Parser as ParserType, Query as QueryType, Range, Tree } from 'web-tree-sitter';
import type { LanguageInfo } from '../../src/symbols/shared/languages.js';
import { wasm, type WasmModule } from '../../src/engine/shared/wasm-modules.js';
import { sharedWasmModule } from '../pool/wasm-modules.js';
import { QUERIES } from './queries.js';

/**
 * tree-sitter on a pool thread: web-tree-sitter (WASM) is loaded on the first parse, each
 * grammar and its query on the first file of its language, and kept for the thread's life.
 * WASM rather than native bindings: the same speed here (about 3 MB/s of kernel C per thread
 * for either), no build or native addon on any platform, and safe in worker threads. The runtime
 * and the grammars are instantiated from modules the host compiled once for the process
 * (workers/pool/wasm-modules.ts), when it serves them: the optimized code of their hot functions
 * is then made once, not once per thread (Perf: some 2 s of CPU per thread for the C++ grammar).
 */

interface Loaded {
    parser: ParserType;
    query: QueryType;
}

let runtime: Promise<typeof import('web-tree-sitter')> | undefined;

/** Whether this thread has loaded tree-sitter (its WebAssembly memory, which never shrinks, made). */
export function parserLoaded(): boolean {
    return runtime !== undefined;
}
// Loaded through require from this file's place (as koffi is in workers/fs/held-at.ts), so the tests' worker bundle finds it too.
const require = createRequire(import.meta.url);
const languages = new Map<string, Promise<Loaded>>();

function grammarsDir(): string {
    return path.join(path.dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
}

/** Modules to instantiate in place of the bytes `Language.load` is given (see {@link loadLanguage}). */
const compiledFor = new WeakMap<Uint8Array, WasmModule>();
let instantiateHooked = false;

/**
 * `Language.load` from a compiled module: web-tree-sitter 0.25 takes only bytes or a path and
 * instantiates the bytes it was given, so `WebAssembly.instantiate` is wrapped, for this thread,
 * to use the module registered for exactly those bytes (any other call goes through unchanged).
 */
async function loadLanguage(Language: typeof LanguageType, file: string): Promise<LanguageType> {
    const bytes = readFileSync(file);
    const module = await sharedWasmModule(file);
    if (module === null) return Language.load(bytes);
    if (!instantiateHooked) {
        instantiateHooked = true;
        const instantiate = wasm.instantiate.bind(wasm);
        wasm.instantiate = (b: unknown, imports?: object): Promise<unknown> => {
            const m = b instanceof Uint8Array ? compiledFor.get(b) : undefined;
            return m === undefined ? instantiate(b, imports) : instantiate(m, imports).then((instance) => ({ module: m, instance }));
        };
    }
    compiledFor.set(bytes, module);
    try {
        return await Language.load(bytes);
    } finally {
        compiledFor.delete(bytes);
    }
}

async function loadRuntime(): Promise<typeof import('web-tree-sitter')> {
    const m = require('web-tree-sitter') as typeof import('web-tree-sitter');
    const module = await sharedWasmModule(path.join(path.dirname(require.resolve('web-tree-sitter')), 'tree-sitter.wasm'));
    if (module !== null) {
        // Emscripten's hook for a module its host instantiates: it waits for `done` (instance,
        // module), so a failed instantiation is raced here and the plain load taken instead.
        let failed: (err: unknown) => void = () => undefined;
        const failure = new Promise<never>((_, reject) => (failed = reject));
        const hooked = m.Parser.init({
            instantiateWasm(imports: object, done: (instance: unknown, module: WasmModule) => void) {
                wasm.instantiate(module, imports).then((instance) => done(instance, module), failed);
                return {};
            },
        });
        if (await Promise.race([hooked, failure]).then(() => true, () => false)) return m;
    }
    await m.Parser.init();
    return m;
}

async function load(info: LanguageInfo): Promise<Loaded> {
    runtime ??= loadRuntime();
    const { Parser, Language, Query } = await runtime;
    const language: LanguageType = await loadLanguage(Language, path.join(grammarsDir(), info.grammar));
    const parser = new Parser();
    parser.setLanguage(language);
    return { parser, query: new Query(language, QUERIES[info.id]!) };
}

/** The parser and query of `info`'s language, loaded once per thread. */
export function loaded(info: LanguageInfo): Promise<Loaded> {
    let l = languages.get(info.id);
    if (l === undefined) {
        l = load(info);
        // A failed load is tried again by the next file rather than remembered.
        l.catch(() => languages.delete(info.id));
        languages.set(info.id, l);
    }
    return l;
}

/** Parses `text` (only `ranges` of it when given), or returns `null` when it takes longer than `ms` milliseconds. */
export function parseWithin(parser: ParserType, text: string, ms: number, ranges?: Range[]): Tree | null {
    const end = performance.now() + ms;
    // The progress callback cancels the parse when it returns true.
    const progressCallback = ((): boolean => performance.now() > end) as unknown as () => void;
    const tree = parser.parse(ranges === undefined ? text : rangedInput(text, ranges), null, { progressCallback, ...(ranges && { includedRanges: ranges }) });
    // tree-sitter resumes a parse given up on the parser's next call unless reset, and that call
    // parses another text (the next file, or the same one without ranges): a tree of the wrong text.
    if (tree === null) parser.reset();
    return tree;
}

/**
 * The text of a ranged parse as the lexer asks for it: from `index` to the end of the range it
 * lies in (the tree's nodes read their text through it too, a range at a time). web-tree-sitter
 * copies a string's next 5,119 characters into the parser's buffer per chunk asked for, and the
 * lexer asks again at each range it enters past that buffer, so a text read in many short ranges
 * (a C file's code between its function bodies) was mostly copied for nothing.
 */
function rangedInput(text: string, ranges: readonly Range[]): (index: number) => string {
    return (index: number): string => {
        // The first range ending after `index`, else the last.
        let [lo, hi] = [0, ranges.length - 1];
        while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if (ranges[mid]!.endIndex <= index) lo = mid + 1;
            else hi = mid;
        }
        const end = ranges[lo]!.endIndex;
        // Past the ranges (a node's text read to its end): the rest, as for a text parsed whole.
        return end > index ? text.slice(index, end) : text.slice(index);
    };
}
