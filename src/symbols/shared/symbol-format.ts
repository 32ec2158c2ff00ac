/**
 * The symbol table's file (`symbols.bin` in an index generation's folder): every definition of
 * the generation's source files, grouped by name, in columns. Written once by the pool
 * (workers/symbols/symbols-table.ts, merging part files sorted by name), read by the host
 * (src/symbols/symbol-store.ts).
 *
 * Layout, little-endian, every array 4-byte aligned:
 * - magic `LCFSYM03`, then the SHA-256 of every byte after the digest;
 * - counts (`COUNTS` u32): table entries, names, definitions, containers, failed files, bytes of
 *   the names, bytes of the containers;
 * - names: char offsets (u32, names + 1) into the names joined by `\n` (UTF-8 bytes follow);
 *   sorted by JS string order, so a name is found by binary search and a regex runs over one string;
 * - definitions grouped by name: start per name (u32, names + 1), then per definition the file's
 *   table id, first line, last line, container (u32 each: 0 none, else 1 + its number) and kind (u8);
 * - containers: char offsets and their text (parts joined by NUL, containers by `\n`);
 * - files whose parse failed: table id (u32) and why (u8: {@link Failure});
 * - per definition, where its signature's text stands in its file (byte offset u32,
 *   {@link SIG_UNKNOWN} when not known; byte length u16, its top bit set when the text was cut)
 *   and a check of the signature (u16, signature.ts): last, left on disk while serving and read
 *   for the definitions a call prints.
 *
 * Signatures are not stored: a file the table answers for is unchanged since the generation, so
 * its signature is read back from the file when printed (and checked; a file that fails the check
 * is parsed again).
 */
import { SYMBOL_KINDS, type SymbolKind } from './types.js';

export const SYMBOL_MAGIC = Buffer.from('LCFSYM03', 'latin1');
export const DIGEST_BYTES = 32;
export const COUNTS = 7;
/** A signature's offset when not known (a file not UTF-8, or over 4 GB): printed from a parse of the file. */
export const SIG_UNKNOWN = 0xffffffff;
/** A signature's byte length at most in the table (the top bit of its u16 says the text was cut). */
export const SIG_MAX_BYTES = 0x7fff;
export const SIG_CUT = 0x8000;
export const HEADER_BYTES = SYMBOL_MAGIC.length + DIGEST_BYTES + COUNTS * 4;
/** The file's name in a generation's folder, and a temporary one's while it is written. */
export const SYMBOLS_FILE = 'symbols.bin';
export const SYMBOLS_TMP = /^symbols(-part-\d+\.[0-9a-f]{8}\.ndjson|\.bin\.\d+\.[0-9a-f]{8}(\.\d+)?\.tmp)$/;

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
}

/** Byte offsets of each section, from the counts. */
export interface SymbolLayout {
    nameOff: number;
    nameText: number;
    defStart: number;
    defFile: number;
    defLine: number;
    defEnd: number;
    defCont: number;
    defKind: number;
    contOff: number;
    contText: number;
    failedIds: number;
    failedWhy: number;
    defSig: number;
    defSigLen: number;
    defCheck: number;
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
    const l = {
        nameOff: take(4 * (c.names + 1)),
        nameText: take(c.nameBytes),
        defStart: take(4 * (c.names + 1)),
        defFile: take(4 * c.defs),
        defLine: take(4 * c.defs),
        defEnd: take(4 * c.defs),
        defCont: take(4 * c.defs),
        defKind: take(c.defs),
        contOff: take(4 * (c.containers + 1)),
        contText: take(c.containerBytes),
        failedIds: take(4 * c.failed),
        failedWhy: take(c.failed),
        defSig: take(4 * c.defs),
        defSigLen: take(2 * c.defs),
        defCheck: take(2 * c.defs),
        end: 0,
    };
    l.end = at;
    return l;
}

export function readCounts(header: Buffer): SymbolCounts {
    const at = SYMBOL_MAGIC.length + DIGEST_BYTES;
    const u = (k: number): number => header.readUInt32LE(at + 4 * k);
    return { tableSize: u(0), names: u(1), defs: u(2), containers: u(3), failed: u(4), nameBytes: u(5), containerBytes: u(6) };
}

export function writeCounts(header: Buffer, c: SymbolCounts): void {
    const at = SYMBOL_MAGIC.length + DIGEST_BYTES;
    [c.tableSize, c.names, c.defs, c.containers, c.failed, c.nameBytes, c.containerBytes].forEach((v, k) => header.writeUInt32LE(v, at + 4 * k));
}

export const KIND_CODES: ReadonlyMap<SymbolKind, number> = new Map(SYMBOL_KINDS.map((k, i) => [k, i]));
export const kindOfCode = (code: number): SymbolKind | undefined => SYMBOL_KINDS[code];

/**
 * A part file (the `symbols-part` operation's output) holds one JSON value per line: first the
 * failed files (`[id, Failure][]`), then one {@link PartRecord} per definition, sorted by name in
 * JS string order (a name's definitions in file order), so that parts merge as streams.
 */
/** `[name, file id, kind code, container parts joined by NUL, line, last line, signature offset, length | cut, check]`. */
export type PartRecord = [string, number, number, string, number, number, number, number, number];
