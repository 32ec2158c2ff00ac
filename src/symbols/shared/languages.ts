/**
 * The languages code navigation parses, by file name: each with the tree-sitter grammar it is
 * parsed with (a WASM file of the `tree-sitter-wasms` package) and the names a model may use for it.
 */

export interface LanguageInfo {
    /** The name tools print and accept. */
    readonly id: string;
    /** File name endings, lower case, with the dot. */
    readonly extensions: readonly string[];
    /** The grammar's WASM file in `tree-sitter-wasms/out/`. */
    readonly grammar: string;
}

export const LANGUAGES: readonly LanguageInfo[] = [
    { id: 'c', extensions: ['.c', '.h'], grammar: 'tree-sitter-c.wasm' },
    { id: 'cpp', extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++', '.ipp', '.tpp', '.inl'], grammar: 'tree-sitter-cpp.wasm' },
    { id: 'javascript', extensions: ['.js', '.mjs', '.cjs', '.jsx'], grammar: 'tree-sitter-javascript.wasm' },
    { id: 'typescript', extensions: ['.ts', '.mts', '.cts'], grammar: 'tree-sitter-typescript.wasm' },
    { id: 'tsx', extensions: ['.tsx'], grammar: 'tree-sitter-tsx.wasm' },
    { id: 'python', extensions: ['.py', '.pyi'], grammar: 'tree-sitter-python.wasm' },
    { id: 'go', extensions: ['.go'], grammar: 'tree-sitter-go.wasm' },
    { id: 'rust', extensions: ['.rs'], grammar: 'tree-sitter-rust.wasm' },
    { id: 'java', extensions: ['.java'], grammar: 'tree-sitter-java.wasm' },
];

/** Globs of every supported language's files: what navigation calls search when not told. */
export const SOURCE_GLOBS: readonly string[] = LANGUAGES.flatMap((l) => l.extensions.map((e) => `*${e}`));
const BY_EXTENSION = new Map(LANGUAGES.flatMap((l) => l.extensions.map((e) => [e, l] as const)));

/** The language of a file by its name, or `undefined` when no grammar parses it. */
export function languageOf(file: string): LanguageInfo | undefined {
    const base = file.slice(file.lastIndexOf('/') + 1).toLowerCase();
    const dot = base.lastIndexOf('.');
    return dot <= 0 ? undefined : BY_EXTENSION.get(base.slice(dot));
}

/** For messages: `c (.c .h), cpp (.cc …), …`. */
export function supportedLanguages(): string {
    return LANGUAGES.map((l) => `${l.id} (${l.extensions.join(' ')})`).join(', ');
}
