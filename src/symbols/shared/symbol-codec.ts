/**
 * The symbol table's compact encodings (symbol-format.ts), written by the merge
 * (workers/symbols/table-encode.ts) and read by the host (src/symbols/symbol-store.ts):
 * unsigned varints (7 bits a byte, low first), zigzag for signed differences, and one block's
 * definition rows and signature places.
 *
 * Numbers are JS numbers up to 2^53: a signature's byte offset may pass 2^32 (files over 4 GB are
 * not parsed, but a difference of two offsets is signed), so no 32-bit operator touches them.
 */
import { putVarint, varintBytes } from '../../search-index/shared/posting-pack.js';

/** Names per block: front coding restarts at each block's first name, and rows are decoded a block at a time. */
export const BLOCK_NAMES = 32;
export const BLOCK_SHIFT = 5;

export const zigzag = (v: number): number => (v >= 0 ? 2 * v : -2 * v - 1);
export const unzigzag = (v: number): number => (v % 2 === 0 ? v / 2 : -(v + 1) / 2);

/** Varints as the index's posting lists write them. */
export { putVarint, varintBytes };

/** Bytes up to which {@link copyBytes} copies byte by byte. */
const SHORT_COPY = 64;

/**
 * `n` bytes of `src` from `start` copied into `dst` at `at`. Perf: for the few bytes of a name or
 * of a name's rows, a byte loop beats a native copy and the view it takes.
 */
export function copyBytes(dst: Uint8Array, at: number, src: Uint8Array, start: number, n: number): void {
    if (n <= SHORT_COPY) for (let i = 0; i < n; i++) dst[at + i] = src[start + i]!;
    else dst.set(src.subarray(start, start + n), at);
}

/** A reader of varints over bytes; `at` moves past each value read. */
export class VarintReader {
    at: number;
    constructor(
        readonly bytes: Uint8Array,
        at = 0,
        readonly end = bytes.length,
    ) {
        this.at = at;
    }

    next(): number {
        const b = this.bytes;
        let x = b[this.at++]!;
        if (x < 0x80) return x;
        let [v, scale] = [x & 0x7f, 0x80];
        for (;;) {
            if (this.at >= this.end) throw new RangeError('varint past its section');
            x = b[this.at++]!;
            v += (x & 0x7f) * scale;
            if (x < 0x80) return v;
            scale *= 0x80;
            if (scale > 2 ** 56) throw new RangeError('varint too long');
        }
    }

    u16(): number {
        if (this.at + 2 > this.end) throw new RangeError('u16 past its section');
        const v = this.bytes[this.at]! | (this.bytes[this.at + 1]! << 8);
        this.at += 2;
        return v;
    }
}

/** One definition's row as stored: its file's table id, lines, container (0 none, else 1 + its number) and kind code. */
export interface Row {
    file: number;
    line: number;
    end: number;
    cont: number;
    kind: number;
}

/** Kind codes fit in 4 bits (SYMBOL_KINDS); the container number takes the rest of the varint. */
const KIND_BITS = 16;

/**
 * A block's rows, encoded in order: per name its count of definitions, then per definition the
 * file id as a difference from the previous row's (names sorted side by side often share a file:
 * a generated header's `#define`s), the first line as a difference from the previous row's when
 * the file is the same (else as it is), the last line as a difference from the first, and
 * container and kind in one varint. Differences are zigzag varints; a block starts from 0.
 */
export class RowEncoder {
    #file = 0;
    #line = 0;

    reset(): void {
        [this.#file, this.#line] = [0, 0];
    }

    /** The bytes of one name's rows (at most 5 varints of 10 bytes a row, plus its count) written into `out` from `at`. */
    put(out: Uint8Array, at: number, rows: readonly Row[]): number {
        at = putVarint(out, at, rows.length);
        for (const r of rows) at = this.row(out, at, r.file, r.line, r.end, r.cont, r.kind);
        return at;
    }

    /** One row's bytes (at most 50) written into `out` from `at`, its name's count written by the caller before it. */
    row(out: Uint8Array, at: number, file: number, line: number, end: number, cont: number, kind: number): number {
        at = putVarint(out, at, zigzag(file - this.#file));
        at = putVarint(out, at, file === this.#file ? zigzag(line - this.#line) : line);
        at = putVarint(out, at, zigzag(end - line));
        at = putVarint(out, at, cont * KIND_BITS + kind);
        this.#file = file;
        this.#line = line;
        return at;
    }
}

/** A block's rows decoded: per name the first row's number within the block (names + 1), then the rows' columns. */
export interface BlockRows {
    nameStart: Uint32Array;
    file: Float64Array;
    line: Float64Array;
    end: Float64Array;
    cont: Float64Array;
    kind: Uint8Array;
}

/** Decodes the rows of a block of `names` names holding `defs` definitions from `bytes[from, to)`. @throws RangeError when they do not fit. */
export function decodeRows(bytes: Uint8Array, from: number, to: number, names: number, defs: number): BlockRows {
    const out: BlockRows = { nameStart: new Uint32Array(names + 1), file: new Float64Array(defs), line: new Float64Array(defs), end: new Float64Array(defs), cont: new Float64Array(defs), kind: new Uint8Array(defs) };
    eachRow(bytes, from, to, names, defs, (n, k) => (out.nameStart[n] = k), (k, file, line, end, ck) => {
        [out.file[k], out.line[k], out.end[k]] = [file, line, end];
        out.cont[k] = Math.floor(ck / KIND_BITS);
        out.kind[k] = ck % KIND_BITS;
    });
    out.nameStart[names] = defs;
    return out;
}

/**
 * A block's rows read in order: `name(n, k)` as name `n`'s rows begin (`k` its first row's number
 * in the block), `row(k, file, line, end, containerAndKind)` for each. @throws RangeError when
 * the bytes do not hold `names` names and `defs` rows.
 */
export function eachRow(bytes: Uint8Array, from: number, to: number, names: number, defs: number, name: (n: number, k: number) => void, row: (k: number, file: number, line: number, end: number, ck: number) => void): void {
    const r = new VarintReader(bytes, from, to);
    let [k, file, line] = [0, 0, 0];
    for (let n = 0; n < names; n++) {
        name(n, k);
        const count = r.next();
        if (count === 0 || k + count > defs) throw new RangeError('rows: counts disagree');
        for (let i = 0; i < count; i++, k++) {
            const f = file + unzigzag(r.next());
            const v = r.next();
            line = f === file ? line + unzigzag(v) : v;
            file = f;
            const end = line + unzigzag(r.next());
            row(k, file, line, end, r.next());
        }
    }
    if (k !== defs || r.at !== to) throw new RangeError('rows: block does not end where its rows do');
}

/** Checks that `bytes[from, to)` hold the rows of `names` names and `defs` definitions, as decodeRows reads them, without keeping them. @throws RangeError when not. */
export function checkRows(bytes: Uint8Array, from: number, to: number, names: number, defs: number): void {
    const r = new VarintReader(bytes, from, to);
    let k = 0;
    for (let n = 0; n < names; n++) {
        if (r.at >= to) throw new RangeError('rows: fewer names than counted');
        const count = r.next();
        if (count === 0 || k + count > defs) throw new RangeError('rows: counts disagree');
        k += count;
        for (let i = 0; i < 4 * count; i++) {
            if (r.at >= to) throw new RangeError('rows: a row is cut short');
            r.next();
        }
    }
    if (k !== defs || r.at !== to) throw new RangeError('rows: block does not end where its rows do');
}

/** Where a definition's signature stands in its file: byte offset ({@link SIG_NONE} when not known), byte length | cut bit, check ({@link BY_FILE} when none is stored). */
export type SigPlace = [number, number, number];
/** A signature's offset when not known (a file not UTF-8): printed from a parse of the file. */
export const SIG_NONE = -1;
/** No check stored: the file's CRC-32 kept with its checkpoints vouches for its bytes. */
export const BY_FILE = -1;

/**
 * A block's signature places, in row order: the offset as a difference from the previous row's
 * when the file is the same (1: not known, even: forward, odd: back), else 1 + the offset (0: not
 * known), then length | cut and, for a file whose checkpoints hold no CRC of its bytes, the
 * signature's 16-bit check (a file with one is read and checked whole when printed: 2 bytes saved
 * a definition, some 9 MB on the Linux tree).
 */
export class SigEncoder {
    #file = -1;
    #off = 0;

    reset(): void {
        [this.#file, this.#off] = [-1, 0];
    }

    put(out: Uint8Array, at: number, file: number, place: SigPlace, checked = true): number {
        return this.place(out, at, file, place[0], place[1], place[2], checked);
    }

    /** {@link put} with the place's fields apart (at most 22 bytes written). */
    place(out: Uint8Array, at: number, file: number, off: number, lenCut: number, check: number, checked: boolean): number {
        if (off === SIG_NONE) at = putVarint(out, at, file === this.#file ? 1 : 0);
        else at = putVarint(out, at, file === this.#file ? (off >= this.#off ? 2 * (off - this.#off) + 2 : 2 * (this.#off - off) + 1) : off + 1);
        if (off !== SIG_NONE) [this.#file, this.#off] = [file, off];
        else this.#file = -1;
        at = putVarint(out, at, lenCut);
        if (!checked) return at;
        out[at++] = check & 0xff;
        out[at++] = check >>> 8;
        return at;
    }
}

/** Decodes a block's signature places for rows whose files are `files` (in row order) from `bytes[from, to)`, a check stored for those `checked` says. @throws RangeError when they do not fit. */
export function decodeSigs(bytes: Uint8Array, from: number, to: number, files: ArrayLike<number>, checked: (file: number) => boolean = () => true): SigPlace[] {
    const r = new VarintReader(bytes, from, to);
    const out: SigPlace[] = [];
    let [prevFile, prevOff] = [-1, 0];
    for (let k = 0; k < files.length; k++) {
        const f = files[k]!;
        const v = r.next();
        let off: number;
        if (f === prevFile) off = v === 1 ? SIG_NONE : v % 2 === 0 ? prevOff + (v - 2) / 2 : prevOff - (v - 1) / 2;
        else off = v === 0 ? SIG_NONE : v - 1;
        if (off !== SIG_NONE) [prevFile, prevOff] = [f, off];
        else prevFile = -1;
        const lenCut = r.next();
        out.push([off, lenCut, checked(f) ? r.u16() : BY_FILE]);
    }
    if (r.at !== to) throw new RangeError('signatures: block does not end where its places do');
    return out;
}
