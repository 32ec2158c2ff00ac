import fs from 'node:fs';
import type fsp from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { Turns } from '../engine/turns.js';
import { inflated } from './shared/deflated.js';
import { decodeFileRows, type FileDefs } from './shared/file-rows-codec.js';

/**
 * The symbol table's definitions by file as served: left in the table's file, each file's rows
 * (deflated, deflated.ts) read when a call needs them (find_references' lexed files, a few hundred at most). Memory: two
 * numbers per table entry (where its rows start, their CRC-32), where holding the rows would take
 * 12 bytes a definition (62 MB for the Linux tree's 5.2 million). A file's rows that do not match
 * their CRC (the file changed on disk since it was loaded) or do not decode are not given: the
 * caller parses that file.
 */
export class FileRows {
    constructor(
        readonly fh: fsp.FileHandle,
        /** Where the section's bytes start in the file. */
        readonly at: number,
        /** Per table entry (and one past the last), where its rows start in the section. */
        readonly start: Uint32Array,
        readonly crc: Uint32Array,
        readonly defs: number,
    ) {}

    /**
     * The rows of files `ids`, in their order: `null` for one not in the table, unreadable, or
     * failing its check. Perf: read by synchronous positioned reads in turns (a call's 556 files
     * took 7-44 ms as promises on the libuv pool at load 8, its 4 threads taking turns).
     */
    async read(ids: readonly number[]): Promise<(FileDefs | null)[]> {
        const turns = new Turns();
        const out: (FileDefs | null)[] = [];
        for (const id of ids) {
            out.push(this.#one(id));
            if (turns.due) await turns.yield();
        }
        return out;
    }

    #one(id: number): FileDefs | null {
        if (!Number.isInteger(id) || id < 0 || id >= this.crc.length) return null;
        try {
            const buf = readChecked(this.fh, this.at + this.start[id]!, this.start[id + 1]! - this.start[id]!, this.crc[id]!);
            // A file's rows are a count and three varints of 10 bytes at most a row.
            return buf === null ? null : decodeFileRows(inflated(buf, 10 + 30 * this.defs), this.defs);
        } catch {
            return null;
        }
    }
}

/**
 * `length` bytes of the table's file at `position`, read synchronously, or `null` when they are
 * not all there or fail `crc` (the file changed on disk since it was loaded and checked; no CRC
 * given: bytes the caller vouches for otherwise); read into the start of `into` when it is long
 * enough. @throws the read's system error.
 */
export function readChecked(fh: fsp.FileHandle, position: number, length: number, crc: number | undefined, into?: Buffer): Buffer | null {
    const buf = into !== undefined && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
    const read = length === 0 ? 0 : fs.readSync(fh.fd, buf, 0, length, position);
    return read === length && (crc === undefined || crc32(buf) === crc) ? buf : null;
}

/**
 * The innermost definition of a file (its rows `rows`) holding each of `lines`, as find_references
 * picks it from a parse's definitions (the one of fewest lines): its number, or -1 for none;
 * `null` when two of as few lines that `shown` prints differently hold a line: which of them holds
 * the use there, only a parse tells (the characters each spans), so the file is parsed.
 */
export function enclosing(rows: FileDefs, lines: readonly number[], shown: (k: number) => string): number[] | null {
    const out: number[] = [];
    for (const l of lines) {
        let best = -1;
        let tied = false;
        for (let i = 0; i < rows.def.length; i++) {
            const [a, b] = [rows.line[i]!, rows.end[i]!];
            if (a > l || l > b) continue;
            if (best === -1 || b - a < rows.end[best]! - rows.line[best]!) [best, tied] = [i, false];
            else if (b - a === rows.end[best]! - rows.line[best]! && shown(rows.def[i]!) !== shown(rows.def[best]!)) tied = true;
        }
        if (tied) return null;
        out.push(best === -1 ? -1 : rows.def[best]!);
    }
    return out;
}
