import { putName, sharedBytes } from '../../src/symbols/shared/name-coding.js';
import { BLOCK_NAMES, putVarint, RowEncoder, SigEncoder, type Row, type SigPlace } from '../../src/symbols/shared/symbol-codec.js';
import type { Failure } from '../../src/symbols/shared/symbol-format.js';
import { BUFFER_BYTES, ColumnWriter } from './table-io.js';

/** The streamed sections of the table, in the file's order (symbol-format.ts). */
export const STREAMED = ['blockRows', 'blockDefs', 'blockSigs', 'names', 'rows', 'fileRows', 'sigs'] as const;
export type Streamed = (typeof STREAMED)[number];
/**
 * Every temporary file of a merge, by name: the streamed sections, the rows as they are before
 * deflated with their blocks' starts, the rows by file's offsets and CRCs, and what the join
 * takes of the names' stage (`state`, JSON: {@link MergeState}).
 */
export const COLUMNS = [...STREAMED, 'rawRows', 'rawBlockRows', 'fileOff', 'fileCrc', 'state'] as const;
export type Column = (typeof COLUMNS)[number];
/** A merge's temporary file `c` (`stem` names the merge: `symbols.bin.<pid>.<random>`). */
export const columnFile = (stem: string, c: Column): string => `${stem}.${COLUMNS.indexOf(c)}.tmp`;
/** What the join takes of the names' stage besides its columns: counts, the containers in number order, the failed files and the checkpoints. */
export interface MergeState {
    names: number;
    defs: number;
    nameBytes: number;
    containers: string[];
    failed: [number, Failure][];
    points: [number, string][];
}
/** The columns the names' stage writes. */
const OWN = ['blockDefs', 'blockSigs', 'names', 'sigs', 'rawRows', 'rawBlockRows'] as const;
type Own = (typeof OWN)[number];

/**
 * The merge's output, one name at a time in sorted order: names front coded in blocks
 * (name-coding.ts), the blocks' starts, their rows raw (deflated a block at a time by a later
 * stage, merge-stages.ts) and signature places (symbol-codec.ts), each section streamed to its own
 * temporary file. Memory: the name before. A name is given by {@link begin}, its definitions by
 * {@link row} in file order, then {@link end}.
 */
export class TableEncoder {
    readonly cols: Map<Own, ColumnWriter>;
    readonly #names: ColumnWriter;
    readonly #sigCol: ColumnWriter;
    readonly #rawRows: ColumnWriter;
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

    constructor(readonly stem: string) {
        this.cols = new Map(OWN.map((name) => [name, new ColumnWriter(columnFile(stem, name))]));
        [this.#names, this.#sigCol, this.#rawRows] = [this.col('names'), this.col('sigs'), this.col('rawRows')];
    }

    col(name: Own): ColumnWriter {
        return this.cols.get(name)!;
    }

    /** A block starts: where its rows, definitions and signature places begin. */
    #startBlock(): void {
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
        const w = this.#rawRows;
        if (this.#nameAt + 10 <= BUFFER_BYTES) {
            const at = putVarint(w.buf, w.room(this.#nameAt + 10), this.#count);
            this.#nameRows.copy(w.buf, at, 0, this.#nameAt);
            w.wrote(at + this.#nameAt);
        } else {
            const count = Buffer.allocUnsafe(10);
            w.bytesOf(count.subarray(0, putVarint(count, 0, this.#count)));
            w.bytesOf(this.#nameRows.subarray(0, this.#nameAt));
        }
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
}

/** `buf`'s first `used` bytes in a buffer of `need` bytes at least. */
function grown(buf: Buffer, used: number, need: number): Buffer {
    const bigger = Buffer.allocUnsafe(Math.max(need, 2 * buf.length));
    buf.copy(bigger, 0, 0, used);
    return bigger;
}
