/**
 * The symbol table's file (`symbols.bin` in an index generation's folder): every definition of
 * the generation's source files, grouped by name, in blocks of {@link BLOCK_NAMES} names. Written
 * once by the pool (workers/symbols/symbols-table.ts, merging part files sorted by name), read by
 * the host (src/symbols/symbol-store.ts). Encodings in symbol-codec.ts.
 *
 * Layout, little-endian, every section 4-byte aligned:
 * - magic `LCFSYM07`, then the SHA-256 of every byte after the digest;
 * - counts (`COUNTS` u32): table entries, names, definitions, containers, failed files, bytes of
 *   the names joined by `\n`, bytes of the containers, then the bytes of the coded names, of the
 *   rows, of the signature places, of the checkpoints and of the rows by file;
 * - per block (and one past the last): where its rows start, its first definition's number, and
 *   where its signature places start (u32 each);
 * - names, sorted by JS string order, front coded: per name the bytes it shares with the one
 *   before (0 for a block's first) and the length of the rest (varints), then the rest's UTF-8;
 * - rows: per block, per name its definitions' count, then per definition file id, lines,
 *   container and kind as varints (symbol-codec.ts, `RowEncoder`);
 * - containers: char offsets (u32) and their text (parts joined by NUL, containers by `\n`);
 * - files whose parse failed: table id (u32) and why (u8: {@link Failure});
 * - per table entry (and one past the last), where its checkpoints start (u32), then the
 *   checkpoints (checkpoint-codec.ts): where a parse of the file stood between top-level items,
 *   so that `find_references` parses only the regions around a name's occurrences;
 * - the definitions by file (file-rows-codec.ts): per table entry (and one past the last) where
 *   its rows start (u32), per table entry the CRC-32 of its rows (u32), then the rows: left on
 *   disk while serving and read for the files a `find_references` call lexed;
 * - per block, per definition where its signature's text stands in its file and a 16-bit check
 *   (symbol-codec.ts, `SigEncoder`): last, left on disk while serving and read for the
 *   definitions a call prints.
 *
 * Signatures are not stored: a file the table answers for is unchanged since the generation, so
 * its signature is read back from the file when printed (and checked; a file that fails the check
 * is parsed again).
 */
import { BLOCK_NAMES } from './symbol-codec.js';
import { SYMBOL_KINDS, type SymbolKind } from './types.js';

export const SYMBOL_MAGIC = Buffer.from('LCFSYM07', 'latin1');
export const DIGEST_BYTES = 32;
export const COUNTS = 12;
/** A signature's byte length at most in the table (the low bit of its varint says the text was cut). */
export const SIG_MAX_BYTES = 0x7fff;
export const HEADER_BYTES = SYMBOL_MAGIC.length + DIGEST_BYTES + COUNTS * 4;
/** The file's name in a generation's folder, and a temporary one's while it is written. */
export const SYMBOLS_FILE = 'symbols.bin';
export const SYMBOLS_TMP = /^symbols(-part-\d+\.[0-9a-f]{8}\.part|\.bin\.\d+\.[0-9a-f]{8}(\.\d+)?\.tmp)$/;

/** Why a file has no definitions in the table: its parse ran out of time (parsed again on use), or it is not source text. */
export const Failure = { Timeout: 0, Other: 1 } as const;
export type Failure = (typeof Failure)[keyof typeof Failure];

export interface SymbolCounts {
    tableSize: number;
    names: number;
    defs: number;
    containers: number;
    failed: number;
    nameBytes: number;
    containerBytes: number;
    codedBytes: number;
    rowBytes: number;
    sigBytes: number;
    pointBytes: number;
    fileRowBytes: number;
}

export const blocksOf = (names: number): number => Math.ceil(names / BLOCK_NAMES);

/** Byte offsets of each section, from the counts. */
export interface SymbolLayout {
    blockRows: number;
    blockDefs: number;
    blockSigs: number;
    names: number;
    rows: number;
    contOff: number;
    contText: number;
    failedIds: number;
    failedWhy: number;
    pointOff: number;
    points: number;
    fileOff: number;
    fileCrc: number;
    fileRows: number;
    sigs: number;
    end: number;
}

const align = (n: number): number => (n + 3) & ~3;

export function layoutOf(c: SymbolCounts): SymbolLayout {
    let at = HEADER_BYTES;
    const take = (bytes: number): number => {
        const from = at;
        at = align(at + bytes);
        return from;
    };
    const blocks = 4 * (blocksOf(c.names) + 1);
    const l = {
        blockRows: take(blocks),
        blockDefs: take(blocks),
        blockSigs: take(blocks),
        names: take(c.codedBytes),
        rows: take(c.rowBytes),
        contOff: take(4 * (c.containers + 1)),
        contText: take(c.containerBytes),
        failedIds: take(4 * c.failed),
        failedWhy: take(c.failed),
        pointOff: take(4 * (c.tableSize + 1)),
        points: take(c.pointBytes),
        fileOff: take(4 * (c.tableSize + 1)),
        fileCrc: take(4 * c.tableSize),
        fileRows: take(c.fileRowBytes),
        sigs: take(c.sigBytes),
        end: 0,
    };
    l.end = at;
    return l;
}

const COUNT_KEYS = ['tableSize', 'names', 'defs', 'containers', 'failed', 'nameBytes', 'containerBytes', 'codedBytes', 'rowBytes', 'sigBytes', 'pointBytes', 'fileRowBytes'] as const;

export function readCounts(header: Buffer): SymbolCounts {
    const at = SYMBOL_MAGIC.length + DIGEST_BYTES;
    return Object.fromEntries(COUNT_KEYS.map((k, i) => [k, header.readUInt32LE(at + 4 * i)])) as unknown as SymbolCounts;
}

export function writeCounts(header: Buffer, c: SymbolCounts): void {
    const at = SYMBOL_MAGIC.length + DIGEST_BYTES;
    COUNT_KEYS.forEach((k, i) => header.writeUInt32LE(c[k], at + 4 * i));
}

export const KIND_CODES: ReadonlyMap<SymbolKind, number> = new Map(SYMBOL_KINDS.map((k, i) => [k, i]));
export const kindOfCode = (code: number): SymbolKind | undefined => SYMBOL_KINDS[code];

/**
 * A part file (the `symbols-part` operation's output, workers/symbols/part-file.ts): the magic
 * {@link PART_MAGIC}, the count of records and the byte length of a JSON head (u32 each), the head
 * (`[failed files as [id, Failure][], checkpoints as [id, base64 of checkpoint-codec.ts's
 * bytes][]]`), then one {@link PartRecord} per definition, sorted by name in JS string order (a
 * name's definitions in file order), so that parts merge as streams; last the CRC-32 of every
 * byte before it (u32). A record: its name and its container as strings (a varint of the UTF-8
 * byte length plus one, then the bytes; a name of 0 is the record before's), then file id, kind
 * code, line, last line, signature offset plus one, length << 1 | cut and check (varints).
 */
export const PART_MAGIC = Buffer.from('LCFPRT01', 'latin1');
/** `[name, file id, kind code, container parts joined by NUL, line, last line, signature offset (-1: not known), length << 1 | cut, check]`. */
export type PartRecord = [string, number, number, string, number, number, number, number, number];
