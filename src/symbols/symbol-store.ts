import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { BLOCK_NAMES, BLOCK_SHIFT, BY_FILE, decodeRows, decodeSigs, SIG_NONE, type BlockRows, type SigPlace } from './shared/symbol-codec.js';
import { decodePoints, type FilePoints } from './shared/checkpoint-codec.js';
import { blocksOf, DIGEST_BYTES, Failure, HEADER_BYTES, kindOfCode, layoutOf, readCounts, SYMBOL_MAGIC, type SymbolCounts, type SymbolLayout } from './shared/symbol-format.js';
import type { Definition } from './shared/types.js';
import { NameList, SymbolFileError } from './symbol-names.js';
import { FileRows, readChecked } from './file-rows.js';
import { Turns } from '../engine/turns.js';
import { indexesBy, readSignatures } from './signature-read.js';
import { inflated, rowBytesAtMost } from './shared/deflated.js';
import { settled, stampOf } from './file-stamp.js';
import { RowCrcs } from './row-crcs.js';

export { requiredWord, SymbolFileError } from './symbol-names.js';

/** Bytes read at once while the file is checked. */
const READ_BYTES = 1 << 20;

/**
 * A generation's symbol table as served (symbol-format.ts): where its blocks start held; the
 * names (symbol-names.ts), the rows, the rows by file and the signatures' places left on disk,
 * read a chunk, a block or a file at a time for a call (no object per definition). The whole file is
 * checked against its digest when loaded; a file that fails is never used.
 */
export class SymbolStore {
    readonly counts: SymbolCounts;
    readonly bytes: number;
    readonly names: NameList;
    /** Set by a call that read other bytes than those checked at load: the table is made again. */
    broken = false;
    /** Each block's rows' CRC-32, taken when loaded: the rows are read from the file per block. */
    readonly #rowCrc: Uint32Array;
    readonly #blockRows: Uint32Array;
    readonly #blockDefs: Uint32Array;
    readonly #blockSigs: Uint32Array;
    readonly #conts: string;
    readonly #contOff: Uint32Array;
    readonly #fh: fsp.FileHandle;
    readonly #l: SymbolLayout;
    /** The block decoded last: definitions are asked for a name's rows in order. */
    #cached: { b: number; rows: BlockRows } | null = null;
    /** Files whose parse timed out when the table was made (parsed again when asked). */
    readonly timedOut: Uint32Array;
    readonly #pointOff: Uint32Array;
    readonly #points: Buffer;
    /** The definitions by file, read from the file per call (file-rows.ts). */
    readonly byFile: FileRows;

    /**
     * @param head - the file's bytes up to the names (header, blocks' starts).
     * @param cols - its bytes from the containers to the rows by file.
     */
    private constructor(fh: fsp.FileHandle, head: Buffer, cols: Buffer, counts: SymbolCounts, bytes: number, names: NameList, rowCrc: Uint32Array) {
        const l = layoutOf(counts);
        const blocks = blocksOf(counts.names) + 1;
        const u32 = (at: number, n: number): Uint32Array => (at < l.names ? new Uint32Array(head.buffer, head.byteOffset + at, n) : new Uint32Array(cols.buffer, cols.byteOffset + at - l.contOff, n));
        [this.#fh, this.#l, this.counts, this.bytes, this.names] = [fh, l, counts, bytes, names];
        [this.#blockRows, this.#blockDefs, this.#blockSigs] = [u32(l.blockRows, blocks), u32(l.blockDefs, blocks), u32(l.blockSigs, blocks)];
        this.#rowCrc = rowCrc;
        this.#contOff = u32(l.contOff, counts.containers + 1);
        this.#conts = cols.toString('utf8', l.contText - l.contOff, l.contText - l.contOff + counts.containerBytes);
        const ids = u32(l.failedIds, counts.failed);
        this.timedOut = ids.filter((_, i) => cols[l.failedWhy - l.contOff + i] === Failure.Timeout);
        this.#pointOff = u32(l.pointOff, counts.tableSize + 1);
        this.#points = cols.subarray(l.points - l.contOff, l.points - l.contOff + counts.pointBytes);
        if (this.#pointOff[counts.tableSize] !== counts.pointBytes) throw new SymbolFileError('symbols file: checkpoints and counts disagree');
        const fileOff = u32(l.fileOff, counts.tableSize + 1);
        if (fileOff[0] !== 0 || fileOff[counts.tableSize] !== counts.fileRowBytes) throw new SymbolFileError('symbols file: rows by file and counts disagree');
        this.byFile = new FileRows(fh, l.fileRows, fileOff, u32(l.fileCrc, counts.tableSize), counts.defs);
        const ends = [this.#blockRows[blocks - 1], this.#blockDefs[blocks - 1], this.#blockSigs[blocks - 1]];
        if (ends[0] !== counts.rowBytes || ends[1] !== counts.defs || ends[2] !== counts.sigBytes) throw new SymbolFileError('symbols file: blocks and counts disagree');
        if (this.#conts.length !== this.#contOff[counts.containers]) throw new SymbolFileError('symbols file: text and offsets disagree');
    }

    /**
     * Opens and checks `file` (no link followed; a regular file of this user): its digest over
     * every byte, its counts and layout against its size, and `tableSize` against the table it
     * was made for, yielding to the event loop between slices of `turns`. @throws SymbolFileError when it does not check out.
     */
    static async load(file: string, tableSize: number, turns = new Turns()): Promise<SymbolStore> {
        // O_NONBLOCK: a FIFO put in its place must not hold the open (and the process) forever.
        const fh = await fsp.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
        try {
            const now = Date.now();
            const st = await fh.stat();
            if (!st.isFile() || (process.getuid !== undefined && st.uid !== process.getuid())) throw new SymbolFileError(`${file} is not a file of this user`);
            if (st.size < HEADER_BYTES) throw new SymbolFileError(`${file} is too short`);
            const first = Buffer.alloc(HEADER_BYTES);
            await fh.read(first, 0, HEADER_BYTES, 0);
            if (!first.subarray(0, SYMBOL_MAGIC.length).equals(SYMBOL_MAGIC)) throw new SymbolFileError(`${file} is not a symbols file`);
            const counts = readCounts(first);
            const l = layoutOf(counts);
            if (l.end !== st.size || counts.tableSize !== tableSize) throw new SymbolFileError(`${file} does not fit its generation`);
            // Memory: the coded names are kept only until checked, the rows only streamed past for
            // their blocks' CRCs (row-crcs.ts); the names, the rows, the rows by file and the
            // signatures' places are read from disk by the calls that need them.
            const parts: [number, Buffer][] = [[0, Buffer.allocUnsafeSlow(l.names)], [l.names, Buffer.allocUnsafeSlow(l.rows - l.names)], [l.contOff, Buffer.allocUnsafeSlow(l.fileRows - l.contOff)]];
            const [[, head], [, coded], [, cols]] = parts as [[number, Buffer], [number, Buffer], [number, Buffer]];
            const hash = createHash('sha256');
            const chunk = Buffer.allocUnsafe(READ_BYTES);
            let rowCrcs: RowCrcs | undefined;
            const rowCrcsOf = (): RowCrcs => new RowCrcs(new Uint32Array(head.buffer, head.byteOffset + l.blockRows, blocksOf(counts.names) + 1), counts.rowBytes);
            for (let at = SYMBOL_MAGIC.length + DIGEST_BYTES; at < st.size; ) {
                // The blocks' starts are all in before the rows begin: a read ends there.
                const { bytesRead } = await fh.read(chunk, 0, Math.min(READ_BYTES, st.size - at, at < l.rows ? l.rows - at : Infinity), at);
                if (bytesRead === 0) throw new SymbolFileError(`${file} ended early`);
                const got = chunk.subarray(0, bytesRead);
                hash.update(got);
                for (const [from, buf] of parts) {
                    const [a, b] = [Math.max(at, from), Math.min(at + bytesRead, from + buf.length)];
                    if (a < b) chunk.copy(buf, a - from, a - at, b - at);
                }
                if (at >= l.rows && at < l.contOff) {
                    rowCrcs ??= rowCrcsOf();
                    rowCrcs.feed(at - l.rows, got.subarray(0, Math.min(bytesRead, l.contOff - at)));
                }
                at += bytesRead;
                if (turns.due) await turns.yield();
            }
            first.copy(head, 0);
            if (!hash.digest().equals(first.subarray(SYMBOL_MAGIC.length, SYMBOL_MAGIC.length + DIGEST_BYTES))) throw new SymbolFileError(`${file} fails its checksum`);
            // Every byte read and checked under one stamp, settled: the names read later trust it (symbol-names.ts).
            const stamp = stampOf(st);
            const trusted = settled(st, now) && stampOf(await fh.stat()) === stamp;
            const names = await NameList.open(fh, l.names, coded.subarray(0, counts.codedBytes), counts.names, counts.nameBytes, turns, stamp, trusted);
            rowCrcs ??= rowCrcsOf();
            if (!rowCrcs.done) throw new SymbolFileError(`${file}: rows and blocks disagree`);
            const store = new SymbolStore(fh, head, cols, counts, st.size, names, rowCrcs.crcs);
            await store.#check(turns);
            return store;
        } catch (err) {
            await fh.close();
            throw err instanceof SymbolFileError ? err : new SymbolFileError(err instanceof Error ? err.message : String(err));
        }
    }

    /**
     * The blocks' and offsets' order checked (the blocks' rows, their order and their CRC-32s,
     * what later reads are checked against, as the file was read: row-crcs.ts), in slices between yields, as all grow
     * with the tree (the kernel's: 100,000 blocks, twice 84,000 offsets). A block's rows are inflated and checked
     * on their first use instead (#block, as a call's rows are read): inflating them all took the
     * kernel's load from 0.7 s to 2.3 s. @throws SymbolFileError when one does not fit.
     */
    async #check(turns: Turns): Promise<void> {
        for (const [offsets, what] of [[this.#pointOff, 'checkpoints'], [this.byFile.start, 'rows by file']] as const) {
            for (let id = 0; id < this.counts.tableSize; id++) {
                if (offsets[id]! > offsets[id + 1]!) throw new SymbolFileError(`symbols file: ${what} out of order`);
                if ((id & 4095) === 0 && turns.due) await turns.yield();
            }
        }
        const defs = this.#blockDefs;
        for (let b = 0; b + 1 < defs.length; b++) {
            if (defs[b]! > defs[b + 1]! || this.#blockSigs[b]! > this.#blockSigs[b + 1]!) throw new SymbolFileError('symbols file: blocks out of order');
            // Every block holds names, and each name a definition: one without rows is not the writer's.
            if (defs[b] === defs[b + 1]) throw new SymbolFileError('symbols file: a block without rows');
            if ((b & 1023) === 0 && turns.due) await turns.yield();
        }
    }

    /** File `id`'s checkpoints as the table was made (checkpoint-codec.ts), or `null` when it has none or they do not decode. */
    pointsOf(id: number): FilePoints | null {
        if (id < 0 || id >= this.counts.tableSize) return null;
        const [from, to] = [this.#pointOff[id]!, this.#pointOff[id + 1]!];
        if (from === to) return null;
        try {
            return decodePoints(this.#points, from, to);
        } catch {
            return null;
        }
    }

    /** Whether file `id` has checkpoints in the table (with its bytes' CRC-32). */
    #pointed(id: number): boolean {
        return id >= 0 && id < this.counts.tableSize && this.#pointOff[id]! < this.#pointOff[id + 1]!;
    }

    /** Definition `k` with its name, without its signature. */
    definitionAt(k: number): Definition {
        const b = this.#blockOf(k);
        const starts = this.#block(b).nameStart;
        let n = 0;
        while (starts[n + 1]! <= k - this.#blockDefs[b]!) n++;
        return this.definition(k, this.nameAt((b << BLOCK_SHIFT) + n));
    }

    async close(): Promise<void> {
        await this.#fh.close().catch(() => undefined);
    }

    nameAt(n: number): string {
        return this.names.nameAt(n);
    }

    /** The number of the name `name`, or -1. */
    find(name: string): number {
        return this.names.find(name);
    }

    /** The numbers of the names `re` matches, until the call's time or cancellation (symbol-names.ts). */
    matching(re: RegExp, stop: { deadline: number; signal?: AbortSignal | undefined } = { deadline: Infinity }): Promise<{ names: number[]; stopped: boolean }> {
        return this.names.matching(re, stop);
    }

    /**
     * Block `b`'s rows read from the file (some 300 bytes), inflated and decoded, the last one
     * kept. The decoding checks them as the load did before (counts, every row whole, the block
     * ending where its rows do): a block that fails is the writer's error, found on its first use
     * and handled as a file changed on disk (the table is made again, the call scans).
     * @throws SymbolFileError when not the bytes checked at load, or when they do not decode.
     */
    #block(b: number): BlockRows {
        if (this.#cached?.b === b) return this.#cached.rows;
        const names = Math.min(BLOCK_NAMES, this.counts.names - (b << BLOCK_SHIFT));
        try {
            const from = this.#blockRows[b]!;
            const buf = readChecked(this.#fh, this.#l.rows + from, this.#blockRows[b + 1]! - from, this.#rowCrc[b]!);
            if (buf === null) throw new RangeError('its rows changed on disk');
            const defs = this.#blockDefs[b + 1]! - this.#blockDefs[b]!;
            const raw = inflated(buf, rowBytesAtMost(names, defs));
            const rows = decodeRows(raw, 0, raw.length, names, defs);
            this.#cached = { b, rows };
            return rows;
        } catch (err) {
            throw new SymbolFileError(`symbols file: block ${b}: ${err instanceof Error ? err.message : String(err)}`);
        }
    }

    /** The block holding definition `k`. */
    #blockOf(k: number): number {
        const c = this.#cached?.b;
        if (c !== undefined && this.#blockDefs[c]! <= k && k < this.#blockDefs[c + 1]!) return c;
        let [a, b] = [0, this.#blockDefs.length - 2];
        while (a < b) {
            const m = (a + b + 1) >>> 1;
            if (this.#blockDefs[m]! <= k) a = m;
            else b = m - 1;
        }
        return a;
    }

    /** The definitions' numbers of name number `n`: `[from, to)`. */
    definitionsOf(n: number): [number, number] {
        const b = n >> BLOCK_SHIFT;
        const rows = this.#block(b);
        const base = this.#blockDefs[b]!;
        return [base + rows.nameStart[n & (BLOCK_NAMES - 1)]!, base + rows.nameStart[(n & (BLOCK_NAMES - 1)) + 1]!];
    }

    fileOf(k: number): number {
        const b = this.#blockOf(k);
        return this.#block(b).file[k - this.#blockDefs[b]!]!;
    }

    /** Definition `k` without its signature, with its name given. */
    definition(k: number, name: string): Definition {
        const b = this.#blockOf(k);
        const rows = this.#block(b);
        const i = k - this.#blockDefs[b]!;
        const c = rows.cont[i]!;
        const container = c === 0 ? [] : this.#conts.slice(this.#contOff[c - 1]!, this.#contOff[c]! - 1).split('\0');
        return { kind: kindOfCode(rows.kind[i]!)!, name, container, line: rows.line[i]!, endLine: rows.end[i]!, signature: '' };
    }

    /** Where the signatures of definitions `ks` stand in their files, read from the table's file a block at a time; `null` where the bytes do not decode. */
    async #places(ks: readonly number[]): Promise<(SigPlace | null)[]> {
        const byBlock = indexesBy(ks, (k) => this.#blockOf(k));
        const out: (SigPlace | null)[] = ks.map(() => null);
        await Promise.all(
            [...byBlock].map(async ([b, is]) => {
                const files = this.#block(b).file;
                const [from, to] = [this.#blockSigs[b]!, this.#blockSigs[b + 1]!];
                const buf = Buffer.alloc(to - from);
                const { bytesRead } = await this.#fh.read(buf, 0, buf.length, this.#l.sigs + from);
                if (bytesRead !== buf.length) return;
                let places: SigPlace[];
                try {
                    places = decodeSigs(buf, 0, buf.length, files, (f) => !this.#pointed(f));
                } catch {
                    return;
                }
                for (const i of is) out[i] = places[ks[i]! - this.#blockDefs[b]!]!;
            }),
        );
        return out;
    }

    /**
     * The signatures of definitions `ks`, read back from their source files (`realOf(k)`, each
     * unchanged since the generation): `null` where they cannot be vouched for (signature-read.ts).
     */
    async signatures(ks: readonly number[], realOf: (k: number) => string): Promise<(string | null)[]> {
        return readSignatures(ks, await this.#places(ks), realOf, (k) => this.pointsOf(this.fileOf(k))?.crc);
    }
}
