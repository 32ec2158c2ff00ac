import { putName, sharedBytes } from '../../src/symbols/shared/name-coding.js';
import { BLOCK_NAMES, copyBytes, putVarint, RowEncoder, SigEncoder, type Row, type SigPlace } from '../../src/symbols/shared/symbol-codec.js';
import { BUFFER_BYTES, ColumnWriter } from './table-io.js';
import { publishBlocks } from '../../src/symbols/shared/merge-progress.js';
import { blocksOf, type Failure } from '../../src/symbols/shared/symbol-format.js';

/** The streamed sections of the table, in the file's order (symbol-format.ts). */
export const STREAMED = ['blockRows', 'blockDefs', 'blockSigs', 'names', 'rows', 'fileRows', 'sigs'] as const;
export type Streamed = (typeof STREAMED)[number];
/**
 * Every temporary file of a merge, by name: the streamed sections, the rows as they are before
 * deflated with their blocks' starts, the rows by file's offsets and CRCs, what the join takes of
 * the names' stage (`state`, JSON: {@link MergeState}), and the rows by file's second half when
 * made in two (merge-stages.ts `fileRows`).
 */
export const COLUMNS = [...STREAMED, 'rawRows', 'rawBlockRows', 'fileOff', 'fileCrc', 'state', 'fileRows1', 'fileOff1', 'fileCrc1'] as const;
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
/** Blocks between two tellings of the progress: the follower deflates them while the names' stage goes on. */
const PUBLISH_BLOCKS = 256;
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
    /** The UTF-8 of the current name and of the one before (front coding: its first `#prevLength` bytes), in buffers kept. */
    #cur: Buffer = Buffer.allocUnsafe(1 << 10);
    #prev: Buffer = Buffer.allocUnsafe(1 << 10);
    #prevLength = 0;
    names = 0;
    defs = 0;
    /** Bytes of the names joined by `\n`. */
    nameBytes = 0;
    /**
     * The files whose checkpoints hold a CRC-32 of their bytes (1 at their ids): their signatures
     * get no check of their own. Perf: an array rather than a set, looked up for every row.
     */
    pointed: Uint8Array = new Uint8Array(0);

    /**
     * @param progress - where the blocks whose raw rows are on disk whole are told, every
     *   {@link PUBLISH_BLOCKS} blocks and at the end (merge-progress.ts), for the rows' stage following.
     */
    constructor(
        readonly stem: string,
        readonly progress?: Int32Array,
    ) {
        this.cols = new Map(OWN.map((name) => [name, new ColumnWriter(columnFile(stem, name))]));
        [this.#names, this.#sigCol, this.#rawRows] = [this.col('names'), this.col('sigs'), this.col('rawRows')];
    }

    col(name: Own): ColumnWriter {
        return this.cols.get(name)!;
    }

    /** A block starts: where its rows, definitions and signature places begin. */
    #startBlock(): void {
        const blocks = this.names / BLOCK_NAMES;
        if (this.progress !== undefined && blocks > 0 && blocks % PUBLISH_BLOCKS === 0) {
            // The blocks before this one are whole: their rows and starts go to disk for the follower.
            this.#rawRows.flush();
            this.col('rawBlockRows').u32(this.#rawRows.bytes);
            this.col('rawBlockRows').flush();
            publishBlocks(this.progress, blocks);
        } else this.col('rawBlockRows').u32(this.#rawRows.bytes);
        this.col('blockDefs').u32(this.defs);
        this.col('blockSigs').u32(this.#sigCol.bytes);
        this.#rows.reset();
        this.#sigs.reset();
    }

    /** The next name (after every name given so far) as its UTF-8, `utf8[0, length)`; its definitions follow. */
    begin(utf8: Uint8Array, length = utf8.length): void {
        const first = this.names % BLOCK_NAMES === 0;
        if (first) this.#startBlock();
        if (this.#cur.length < length) this.#cur = Buffer.allocUnsafe(2 * length);
        const cur = this.#cur;
        copyBytes(cur, 0, utf8, 0, length);
        const shared = first ? 0 : sharedBytes(cur, this.#prev, length, this.#prevLength);
        const w = this.#names;
        if (length + 20 <= BUFFER_BYTES) w.wrote(putName(w.buf, w.room(length + 20), cur, shared, length));
        else {
            const out = Buffer.allocUnsafe(length + 20);
            w.bytesOf(out.subarray(0, putName(out, 0, cur, shared, length)));
        }
        // The two buffers swap: this name's bytes are the next one's `prev`.
        [this.#cur, this.#prev, this.#prevLength] = [this.#prev, cur, length];
        this.nameBytes += length + 1;
    }

    /** The current name's next definition: its row and where its signature stands (symbol-codec.ts). */
    row(file: number, line: number, end: number, cont: number, kind: number, sig: number, sigLen: number, check: number): void {
        if (this.#nameAt + 50 > this.#nameRows.length) this.#nameRows = grown(this.#nameRows, this.#nameAt, this.#nameAt + 50);
        this.#nameAt = this.#rows.row(this.#nameRows, this.#nameAt, file, line, end, cont, kind);
        const w = this.#sigCol;
        w.wrote(this.#sigs.place(w.buf, w.room(22), file, sig, sigLen, check, this.pointed[file] !== 1));
        this.#count++;
    }

    /** The current name's definitions are all given: its count and rows go to the block. */
    end(): void {
        const w = this.#rawRows;
        if (this.#nameAt + 10 <= BUFFER_BYTES) {
            const n = this.#nameAt;
            const at = putVarint(w.buf, w.room(n + 10), this.#count);
            copyBytes(w.buf, at, this.#nameRows, 0, n);
            w.wrote(at + n);
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
        this.begin(Buffer.from(name, 'utf8'));
        rows.forEach((r, i) => this.row(r.file, r.line, r.end, r.cont, r.kind, ...sigs[i]!));
        this.end();
    }

    /** Ends the last block (the starts one past it) and flushes every section. */
    finish(): void {
        this.#startBlock();
        for (const w of this.cols.values()) w.flush();
        if (this.progress !== undefined) publishBlocks(this.progress, blocksOf(this.names), true);
    }
}

/** `buf`'s first `used` bytes in a buffer of `need` bytes at least. */
function grown(buf: Buffer, used: number, need: number): Buffer {
    const bigger = Buffer.allocUnsafe(Math.max(need, 2 * buf.length));
    buf.copy(bigger, 0, 0, used);
    return bigger;
}
