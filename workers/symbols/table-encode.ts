import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { deflated } from '../../src/symbols/shared/deflated.js';
import { encodeFileRows } from '../../src/symbols/shared/file-rows-codec.js';
import { putName, sharedBytes } from '../../src/symbols/shared/name-coding.js';
import { BLOCK_NAMES, RowEncoder, SigEncoder, type Row, type SigPlace } from '../../src/symbols/shared/symbol-codec.js';
import { ColumnWriter } from './table-io.js';

/** The streamed sections of the table, in the file's order (symbol-format.ts). */
export const STREAMED = ['blockRows', 'blockDefs', 'blockSigs', 'names', 'rows', 'fileRows', 'sigs'] as const;
export type Streamed = (typeof STREAMED)[number];
/** Columns of the merge's own: the rows as they are before deflated, and their blocks' starts (for the rows by file). */
const RAW = ['rawRows', 'rawBlockRows'] as const;
type Raw = (typeof RAW)[number];

/**
 * The merge's output, one name at a time in sorted order: names front coded in blocks (name-coding.ts), the
 * blocks' starts, their rows (each block's deflated, deflated.ts) and signature places
 * (symbol-codec.ts), each section streamed to its own temporary file. Memory: one block's rows
 * and the name before it.
 */
export class TableEncoder {
    readonly cols: Map<Streamed | Raw, ColumnWriter>;
    /** The current block's rows, deflated when it ends. */
    #blockRows: Buffer[] = [];
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
        this.cols = new Map([...STREAMED, ...RAW].map((name, i) => [name, new ColumnWriter(`${stem}.${i}.tmp`)]));
    }

    col(name: Streamed | Raw): ColumnWriter {
        return this.cols.get(name)!;
    }

    #room(bytes: number): Buffer {
        if (this.#scratch.length < bytes) this.#scratch = Buffer.allocUnsafe(bytes * 2);
        return this.#scratch;
    }

    /** A block starts: where its rows, definitions and signature places begin. */
    #startBlock(): void {
        if (this.#blockRows.length > 0) this.col('rows').bytesOf(deflated(Buffer.concat(this.#blockRows)));
        this.#blockRows = [];
        this.col('blockRows').u32(this.col('rows').bytes);
        this.col('rawBlockRows').u32(this.col('rawRows').bytes);
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
        const raw = out.subarray(0, this.#rows.put(out, 0, rows));
        this.col('rawRows').bytesOf(raw);
        this.#blockRows.push(Buffer.from(raw));
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
     * `tableSize` entries, each file's deflated (deflated.ts) and streamed to the `fileRows`
     * column; their offsets and CRC-32s returned. Memory: the raw rows and their rows by file, at
     * the merge's end only (some 60 MB for the Linux tree), so that a serving process makes
     * nothing of them; the deflated units are not held.
     */
    byFile(tableSize: number): { offsets: Buffer; crcs: Buffer } {
        const u32s = (c: Raw | Streamed): Uint32Array => new Uint32Array(new Uint8Array(fs.readFileSync(this.col(c).file)).buffer);
        const raw = encodeFileRows(fs.readFileSync(this.col('rawRows').file), u32s('rawBlockRows'), u32s('blockDefs'), this.names, tableSize);
        const out = this.col('fileRows');
        const [offsets, crcs] = [Buffer.alloc(4 * (tableSize + 1)), Buffer.alloc(4 * tableSize)];
        for (let f = 0; f < tableSize; f++) {
            const z = deflated(raw.data.subarray(raw.offsets.readUInt32LE(4 * f), raw.offsets.readUInt32LE(4 * f + 4)));
            offsets.writeUInt32LE(out.bytes, 4 * f);
            crcs.writeUInt32LE(crc32(z), 4 * f);
            out.bytesOf(z);
        }
        offsets.writeUInt32LE(out.bytes, 4 * tableSize);
        out.flush();
        return { offsets, crcs };
    }
}
