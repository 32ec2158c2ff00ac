/**
 * The symbol table's file (`symbols.bin` in an index generation's folder): every definition of
 * the generation's source files, grouped by name, in columns. Written once by the pool
 * (workers/symbols/symbols-table.ts), read by the host (src/symbols/symbol-store.ts).
 *
 * Layout, little-endian, every array 4-byte aligned:
 * - magic `LCFSYM01`, then the SHA-256 of every byte after the digest;
 * - counts (`COUNTS` u32): table entries, names, definitions, containers, failed files, bytes of
 *   the names, bytes of the containers, bytes of the signatures;
 * - names: char offsets (u32, names + 1) into the names joined by `\n` (UTF-8 bytes follow);
 *   sorted by JS string order, so a name is found by binary search and a regex runs over one string;
 * - definitions grouped by name: start per name (u32, names + 1), then per definition the file's
 *   table id, first line, last line, container (u32 each: 0 none, else 1 + its number) and kind (u8);
 * - containers: char offsets and their text (parts joined by NUL, containers by `\n`);
 * - files whose parse failed: table id (u32) and why (u8: {@link Failure});
 * - signature byte offsets (u32, definitions + 1), then the signatures' UTF-8 bytes (left on disk
 *   while serving: read for the lines a call prints).
 */
import { SYMBOL_KINDS, type SymbolKind } from './types.js';

export const SYMBOL_MAGIC = Buffer.from('LCFSYM01', 'latin1');
export const DIGEST_BYTES = 32;
export const COUNTS = 8;
export const HEADER_BYTES = SYMBOL_MAGIC.length + DIGEST_BYTES + COUNTS * 4;
/** The file's name in a generation's folder, and a temporary one's while it is written. */
export const SYMBOLS_FILE = 'symbols.bin';
export const SYMBOLS_TMP = /^symbols(-part-\d+\.[0-9a-f]{8}\.json|\.bin\.\d+\.[0-9a-f]{8}\.tmp)$/;

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
    sigBytes: number;
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
    sigOff: number;
    sigText: number;
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
        sigOff: take(4 * (c.defs + 1)),
        sigText: 0,
        end: 0,
    };
    l.sigText = at;
    l.end = at + c.sigBytes;
    return l;
}

export function readCounts(header: Buffer): SymbolCounts {
    const at = SYMBOL_MAGIC.length + DIGEST_BYTES;
    const u = (k: number): number => header.readUInt32LE(at + 4 * k);
    return { tableSize: u(0), names: u(1), defs: u(2), containers: u(3), failed: u(4), nameBytes: u(5), containerBytes: u(6), sigBytes: u(7) };
}

export function writeCounts(header: Buffer, c: SymbolCounts): void {
    const at = SYMBOL_MAGIC.length + DIGEST_BYTES;
    [c.tableSize, c.names, c.defs, c.containers, c.failed, c.nameBytes, c.containerBytes, c.sigBytes].forEach((v, k) => header.writeUInt32LE(v, at + 4 * k));
}

export const KIND_CODES: ReadonlyMap<SymbolKind, number> = new Map(SYMBOL_KINDS.map((k, i) => [k, i]));
export const kindOfCode = (code: number): SymbolKind | undefined => SYMBOL_KINDS[code];

/** One file's outcome in a part file: `[id, definitions]`, or `[id, failure]` when its parse failed. */
export type PartFile = [number, PartDefinition[]] | [number, Failure];
/** `[kind code, name, container parts joined by NUL, line, last line, signature]`. */
export type PartDefinition = [number, string, string, number, number, string];
