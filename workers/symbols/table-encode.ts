import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { deflated } from '../../src/symbols/shared/deflated.js';
import { encodeFileRows } from '../../src/symbols/shared/file-rows-codec.js';
import { putName, sharedBytes } from '../../src/symbols/shared/name-coding.js';
import { BLOCK_NAMES, putVarint, RowEncoder, SigEncoder, type Row, type SigPlace } from '../../src/symbols/shared/symbol-codec.js';
import { BUFFER_BYTES, ColumnWriter } from './table-io.js';

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
 * and the name before it. A name is given by {@link begin}, its definitions by {@link row} in
 * file order, then {@link end}.
 */
export class TableEncoder {
    readonly cols: Map<Streamed | Raw, ColumnWriter>;
    readonly #names: ColumnWriter;
    readonly #sigCol: ColumnWriter;
    readonly #rawRows: ColumnWriter;
    /** The current block's rows (`#blockAt` bytes), deflated when it ends. */
    #block: Buffer = Buffer.allocUnsafe(1 << 16);
    #blockAt = 0;
    /** The current name's rows (`#nameAt` bytes, `#count` of them), until its count is written before them. */
    #nameRows: Buffer = Buffer.allocUnsafe(1 << 12);
    #nameAt = 0;
    #count = 0;
    readonly #rows = new RowEncoder();
    readonly #sigs = new SigEncoder();
    /** The UTF-8 of the current name and of the one before (front coding), in buffers kept. */
    #cur: Buffer = Buffer.allocUnsafe(1 << 10);
    #prev: Buffer = Buffer.alloc(0);
    #prevBuf: Buffer = Buffer.allocUnsafe(1 << 10);
    names = 0;
    defs = 0;
    /** Bytes of the names joined by `\n`. */
    nameBytes = 0;
    /** The files whose checkpoints hold a CRC-32 of their bytes: their signatures get no check of their own. */
    pointed: ReadonlySet<number> = new Set();

    constructor(stem: string) {
        this.cols = new Map([...STREAMED, ...RAW].map((name, i) => [name, new ColumnWriter(`${stem}.${i}.tmp`)]));
        [this.#names, this.#sigCol, this.#rawRows] = [this.col('names'), this.col('sigs'), this.col('rawRows')];
    }

    col(name: Streamed | Raw): ColumnWriter {
        return this.cols.get(name)!;
    }

    /** A block starts: where its rows, definitions and signature places begin. */
    #startBlock(): void {
        if (this.#blockAt > 0) this.col('rows').bytesOf(deflated(this.#block.subarray(0, this.#blockAt)));
        this.#blockAt = 0;
        this.col('blockRows').u32(this.col('rows').bytes);
        this.col('rawBlockRows').u32(this.#rawRows.bytes);
        this.col('blockDefs').u32(this.defs);
        this.col('blockSigs').u32(this.#sigCol.bytes);
        this.#rows.reset();
        this.#sigs.reset();
    }

    /** The next name (after every name given so far); its definitions follow. */
    begin(name: string): void {
        const first = this.names % BLOCK_NAMES === 0;
        if (first) this.#startBlock();
        if (this.#cur.length < 3 * name.length) this.#cur = Buffer.allocUnsafe(6 * name.length);
        const bytes = this.#cur.subarray(0, this.#cur.write(name, 0, 'utf8'));
        const shared = first ? 0 : sharedBytes(bytes, this.#prev);
        const w = this.#names;
        if (bytes.length + 20 <= BUFFER_BYTES) w.wrote(putName(w.buf, w.room(bytes.length + 20), bytes, shared));
        else {
            const out = Buffer.allocUnsafe(bytes.length + 20);
            w.bytesOf(out.subarray(0, putName(out, 0, bytes, shared)));
        }
        // The two buffers swap: this name's bytes are the next one's `prev`.
        [this.#cur, this.#prevBuf] = [this.#prevBuf, this.#cur];
        this.#prev = bytes;
        this.nameBytes += bytes.length + 1;
    }

    /** The current name's next definition: its row and where its signature stands (symbol-codec.ts). */
    row(file: number, line: number, end: number, cont: number, kind: number, sig: number, sigLen: number, check: number): void {
        if (this.#nameAt + 50 > this.#nameRows.length) this.#nameRows = grown(this.#nameRows, this.#nameAt, this.#nameAt + 50);
        this.#nameAt = this.#rows.row(this.#nameRows, this.#nameAt, file, line, end, cont, kind);
        const w = this.#sigCol;
        w.wrote(this.#sigs.place(w.buf, w.room(22), file, sig, sigLen, check, !this.pointed.has(file)));
        this.#count++;
    }

    /** The current name's definitions are all given: its count and rows go to the block. */
    end(): void {
        if (this.#blockAt + 10 + this.#nameAt > this.#block.length) this.#block = grown(this.#block, this.#blockAt, this.#blockAt + 10 + this.#nameAt);
        const from = this.#blockAt;
        const at = putVarint(this.#block, from, this.#count);
        this.#nameRows.copy(this.#block, at, 0, this.#nameAt);
        this.#blockAt = at + this.#nameAt;
        this.#rawRows.bytesOf(this.#block.subarray(from, this.#blockAt));
        this.names++;
        this.defs += this.#count;
        [this.#nameAt, this.#count] = [0, 0];
    }

    /** A name with its definitions in file order, at once. */
    add(name: string, rows: readonly Row[], sigs: readonly SigPlace[]): void {
        this.begin(name);
        rows.forEach((r, i) => this.row(r.file, r.line, r.end, r.cont, r.kind, ...sigs[i]!));
        this.end();
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

/** `buf`'s first `used` bytes in a buffer of `need` bytes at least. */
function grown(buf: Buffer, used: number, need: number): Buffer {
    const bigger = Buffer.allocUnsafe(Math.max(need, 2 * buf.length));
    buf.copy(bigger, 0, 0, used);
    return bigger;
}
