import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Language as LanguageType, Parser as ParserType, Query as QueryType, Range, Tree } from 'web-tree-sitter';
import type { LanguageInfo } from '../../src/symbols/shared/languages.js';
import { QUERIES } from './queries.js';

/**
 * tree-sitter on a pool thread: web-tree-sitter (WASM) is loaded on the first parse, each
 * grammar and its query on the first file of its language, and kept for the thread's life.
 * WASM rather than native bindings: the same speed here (about 3 MB/s of kernel C per thread
 * for either), no build or native addon on any platform, and safe in worker threads.
 */

interface Loaded {
    parser: ParserType;
    query: QueryType;
}

let runtime: Promise<typeof import('web-tree-sitter')> | undefined;
// Loaded through require from this file's place (as koffi is in workers/fs/held-at.ts), so the tests' worker bundle finds it too.
const require = createRequire(import.meta.url);
const languages = new Map<string, Promise<Loaded>>();

function grammarsDir(): string {
    return path.join(path.dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
}

async function load(info: LanguageInfo): Promise<Loaded> {
    runtime ??= (async () => {
        const m = require('web-tree-sitter') as typeof import('web-tree-sitter');
        await m.Parser.init();
        return m;
    })();
    const { Parser, Language, Query } = await runtime;
    const language: LanguageType = await Language.load(readFileSync(path.join(grammarsDir(), info.grammar)));
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
    return parser.parse(text, null, { progressCallback, ...(ranges && { includedRanges: ranges }) });
}
