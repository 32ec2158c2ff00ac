import type { ToolErrorKind } from '../../errors/shared/errors.js';
import type { RealRoots } from '../../fs/shared/safe-read.js';

/** What a definition is, in the terms every language's outline uses. */
export const SYMBOL_KINDS = ['function', 'method', 'class', 'struct', 'union', 'enum', 'interface', 'type', 'macro', 'constant', 'variable', 'module'] as const;
export type SymbolKind = (typeof SYMBOL_KINDS)[number];

/** One definition of a file. Lines are 1-based and inclusive. */
export interface Definition {
    kind: SymbolKind;
    name: string;
    /** The enclosing definitions' names, outermost first (`['Outer', 'Inner']`); empty at file scope. */
    container: string[];
    line: number;
    endLine: number;
    /** The definition's first line, trimmed and cut to a bound. */
    signature: string;
}

/** A use of an identifier, found as an identifier node (not in a comment or string). */
export interface Reference {
    line: number;
    /** 1-based, in UTF-16 code units. */
    column: number;
    /** The line, trimmed and cut to a bound. */
    text: string;
}

/** The outcome for one file of a `symbols` task. */
export type FileSymbols =
    | {
          ok: true;
          language: string;
          lines: number;
          chars: number;
          definitions: Definition[];
          references?: Reference[];
          /** Per reference, when a parse told them: the index in `definitions` of the one holding it in the fewest characters, -1 for none. */
          within?: number[];
          sigSpans?: number[];
          checkpoints?: number[];
          crc?: number;
          regions?: true;
          lexed?: true;
      }
    | { ok: false; kind: ToolErrorKind; message: string; late?: true };

/** A `symbols` task: parse each file and list its definitions (workers/symbols/symbols.ts). */
export interface SymbolsTask {
    op: 'symbols';
    /**
     * With `checkpoints` (from a parse of the file when it was `chars` long and its bytes had the
     * CRC-32 `crc`, see `checkpoints` below), only the regions around `references` are parsed;
     * `definitions` then holds only theirs.
     */
    files: { shown: string; real: string; checkpoints?: number[]; chars?: number; crc?: number }[];
    realRoots: RealRoots;
    /** Bytes at most per file (`maxFileSize`). */
    maxBytes: number;
    /** Parse time at most per file, in milliseconds; a file over it is reported as `timeout`. */
    parseMs: number;
    /**
     * When the call's time ends (epoch ms): no file's parse runs past it, and a file not begun by
     * then is reported as `timeout` with `late`, so a call of thousands of files ends on time.
     */
    deadline?: number;
    /** Also list the uses of this identifier in each file. */
    references?: string;
    /**
     * With `references`, a C file whose `checkpoints` fit may have its uses told by a lexer
     * (workers/symbols/lexed.ts): its outcome then says `lexed` and gives no definitions (the
     * symbol table holds them).
     */
    lexed?: boolean;
    /** Also give where each signature's text stands in the file (`sigSpans`: byte offset, byte length, cut; offset -1 when unknown). */
    spans?: boolean;
    /** Also give where the parse stood between top-level items (`checkpoints`: `[index, row, …]`, workers/symbols/regions.ts) and the bytes' CRC-32 (`crc`). */
    checkpoints?: boolean;
}

export interface SymbolsResult {
    ok: true;
    files: FileSymbols[];
}

/** A `mentions` task: how often each of `names` occurs as a whole word in each file (workers/symbols/mentions.ts). */
export interface MentionsTask {
    op: 'mentions';
    files: { shown: string; real: string }[];
    realRoots: RealRoots;
    maxBytes: number;
    names: readonly string[];
}

/** Per file, `[index into names, count]` for the names it mentions; an unreadable file has `null`. */
export interface MentionsResult {
    ok: true;
    files: ([number, number][] | null)[];
}
