import fs from 'node:fs';
import { encodeFileRows } from '../../src/symbols/shared/file-rows-codec.js';
import { putName, sharedBytes } from '../../src/symbols/shared/name-coding.js';
import { BLOCK_NAMES, RowEncoder, SigEncoder, type Row, type SigPlace } from '../../src/symbols/shared/symbol-codec.js';
import { ColumnWriter } from './table-io.js';

/** The streamed sections of the table, in the file's order (symbol-format.ts). */
export const STREAMED = ['blockRows', 'blockDefs', 'blockSigs', 'names', 'rows', 'sigs'] as const;
export type Streamed = (typeof STREAMED)[number];

/**
 * The merge's output, one name at a time in sorted order: names front coded in blocks (name-coding.ts), the
 * blocks' starts, their rows and signature places (symbol-codec.ts), each section streamed to its
 * own temporary file. Memory: one name's rows and the name before it.
 */
export class TableEncoder {
    readonly cols: Map<Streamed, ColumnWriter>;
    readonly #rows = new RowEncoder();
    readonly #sigs = new SigEncoder();
    #prev = Buffer.alloc(0);
    #scratch = Buffer.allocUnsafe(1 << 16);
    names = 0;
    defs = 0;
    /** Bytes of the names joined by `\n`. */
    nameBytes = 0;
    /** The files whose checkpoints hold a CRC-32 of their bytes: their signatures get no check of their own. */
    pointed: ReadonlySet<number> = new Set();

    constructor(stem: string) {
        this.cols = new Map(STREAMED.map((name, i) => [name, new ColumnWriter(`${stem}.${i}.tmp`)]));
    }

    col(name: Streamed): ColumnWriter {
        return this.cols.get(name)!;
    }

    #room(bytes: number): Buffer {
        if (this.#scratch.length < bytes) this.#scratch = Buffer.allocUnsafe(bytes * 2);
        return this.#scratch;
    }

    /** A block starts: where its rows, definitions and signature places begin. */
    #startBlock(): void {
        this.col('blockRows').u32(this.col('rows').bytes);
        this.col('blockDefs').u32(this.defs);
        this.col('blockSigs').u32(this.col('sigs').bytes);
        this.#rows.reset();
        this.#sigs.reset();
    }

    /** The next name (after every name given so far) with its definitions in file order. */
    add(name: string, rows: readonly Row[], sigs: readonly SigPlace[]): void {
        const first = this.names % BLOCK_NAMES === 0;
        if (first) this.#startBlock();
        const bytes = Buffer.from(name, 'utf8');
        let out = this.#room(20 + bytes.length);
        let at = putName(out, 0, bytes, first ? 0 : sharedBytes(bytes, this.#prev));
        this.col('names').bytesOf(out.subarray(0, at));
        out = this.#room(16 + 60 * rows.length);
        this.col('rows').bytesOf(out.subarray(0, this.#rows.put(out, 0, rows)));
        at = 0;
        rows.forEach((r, i) => (at = this.#sigs.put(out, at, r.file, sigs[i]!, !this.pointed.has(r.file))));
        this.col('sigs').bytesOf(out.subarray(0, at));
        this.#prev = bytes;
        this.names++;
        this.defs += rows.length;
        this.nameBytes += bytes.length + 1;
    }

    /** Ends the last block (the starts one past it) and flushes every section. */
    finish(): void {
        this.#startBlock();
        for (const w of this.cols.values()) w.flush();
    }

    /**
     * The rows by file (file-rows-codec.ts) of the rows written, once finished, for a table of
     * `tableSize` entries. Memory: the rows and the output, at the merge's end only (about 60 MB
     * for the Linux tree), so that a serving process makes nothing of them.
     */
    byFile(tableSize: number): ReturnType<typeof encodeFileRows> {
        const u32s = (c: Streamed): Uint32Array => new Uint32Array(new Uint8Array(fs.readFileSync(this.col(c).file)).buffer);
        return encodeFileRows(fs.readFileSync(this.col('rows').file), u32s('blockRows'), u32s('blockDefs'), this.names, tableSize);
    }
}
