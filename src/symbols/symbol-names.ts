import fs from 'node:fs';
import type fsp from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { BLOCK_NAMES, BLOCK_SHIFT, VarintReader } from './shared/symbol-codec.js';
import { decodeNameBlock, searchPiece, type NameBlock } from './shared/name-coding.js';
import { Turns } from '../engine/turns.js';
import { readChecked } from './file-rows.js';
import { anchoredPrefix, requiredWord } from './name-patterns.js';
import { Lru } from '../search/shared/lru.js';
import { settled, stampOf } from './file-stamp.js';

export { anchoredPrefix, requiredWord };

/** Coded bytes of names read from the file at once, whole blocks (some 4,000 of the Linux tree's names). */
const CHUNK_BYTES = 1 << 17;
/**
 * Coded chunks kept in memory, the last used first (some 30 of the Linux tree's 200): an exact
 * name or an anchored start reads one or two again and again, a regex without either reads all.
 */
export const KEPT_BYTES = 4 << 20;
/** Coded bytes sampled for how often each byte occurs (one in this many). */
const SAMPLE_EVERY = 61;

/** A symbols file that is not whole, not this generation's, or not the index's own: it is ignored and made again. */
export class SymbolFileError extends Error {}

/**
 * A table's names as served: left front coded in the table's file (shared/name-coding.ts),
 * sorted by JS string order, and read a chunk of blocks at a time, each chunk checked against
 * the CRC-32 taken when the table was loaded. Held: where each block starts, and each chunk's CRC
 * and first name (some 0.5 MB for the Linux tree's 3.2 million names, where the names decoded
 * took 91 MB). Perf: an exact name is a binary search over the chunks' first names, then one
 * chunk read; a regex's anchored start reads the chunks from there on; a regex's word is looked
 * for in the coded bytes as read (its part after its last cut) and only the blocks holding it are
 * decoded; other regexes decode every block.
 */
export class NameList {
    /** The chunks read last (and the very last, kept or not), and the last block decoded: a call asks for names in order. */
    readonly #kept = new Lru<number, Buffer>(KEPT_BYTES, (b) => b.length);
    #last: { c: number; bytes: Buffer } | null = null;
    /**
     * Where a pass reads the chunks it does not keep, reused: a buffer per chunk would leave up
     * to the names' 37 MB (the kernel's) of freed C heap behind on the host each regex call.
     */
    #pass: Buffer = Buffer.alloc(0);
    #block: { b: number; names: NameBlock } | null = null;

    private constructor(
        readonly fh: fsp.FileHandle,
        /** Where the names' section starts in the file. */
        readonly at: number,
        readonly count: number,
        /** Per block (and one past the last), where its coded names start in the section. */
        readonly blockAt: Uint32Array,
        /** Per chunk (and one past the last), its first block; its CRC-32 and first name. */
        readonly chunkBlock: Uint32Array,
        readonly chunkCrc: Uint32Array,
        readonly chunkFirst: string[],
        /** How often each byte occurs in a sample of the coded names. */
        readonly freq: Uint32Array,
        /** The table file's stamp when loaded (file-stamp.ts). */
        readonly stamp: string,
        /** Per chunk, 1 once its bytes checked out under that stamp, settled: read again without their CRC while the file keeps it. */
        readonly verified: Uint8Array,
    ) {}

    get chunks(): number {
        return this.chunkCrc.length;
    }

    /**
     * The names of a table loaded from `fh` (their section at `at`), checked on their coded bytes
     * `coded` (held by the caller only while loading): `count` names of `bytes` bytes joined by
     * `\n`, each block's first name sharing nothing, no name sharing more than the one before
     * holds. Yields between blocks. `stamp`: the file's when loaded; `trusted`: whether the load
     * checked every byte under it, settled. @throws RangeError when they do not.
     */
    static async open(fh: fsp.FileHandle, at: number, coded: Uint8Array, count: number, bytes: number, turns: Turns, stamp = '', trusted = false): Promise<NameList> {
        const blocks = Math.ceil(count / BLOCK_NAMES);
        const blockAt = new Uint32Array(blocks + 1);
        const r = new VarintReader(coded);
        const freq = new Uint32Array(256);
        let [total, prev, sampled] = [0, 0, 0];
        for (let n = 0; n < count; n++) {
            if ((n & (BLOCK_NAMES - 1)) === 0) {
                blockAt[n >> BLOCK_SHIFT] = r.at;
                // Event loop: the bytes are sampled a block at a time, as they are checked.
                for (; sampled < r.at; sampled += SAMPLE_EVERY) freq[coded[sampled]!]!++;
                if (turns.due) await turns.yield();
            }
            if (r.at >= coded.length) throw new RangeError('names: fewer than counted');
            const shared = r.next();
            const rest = r.next();
            if (shared > ((n & (BLOCK_NAMES - 1)) === 0 ? 0 : prev) || r.at + rest > coded.length) throw new RangeError('names: a name does not fit');
            r.at += rest;
            prev = shared + rest;
            total += prev + 1;
        }
        if (total !== bytes || r.at !== coded.length) throw new RangeError('names: more than counted');
        blockAt[blocks] = r.at;
        const firsts: number[] = [];
        for (let b = 0; b < blocks; b++) if (firsts.length === 0 || blockAt[b]! - blockAt[firsts[firsts.length - 1]!]! >= CHUNK_BYTES) firsts.push(b);
        const chunkBlock = Uint32Array.from([...firsts, blocks]);
        const chunkCrc = new Uint32Array(firsts.length);
        const chunkFirst: string[] = [];
        for (const [c, b] of firsts.entries()) {
            chunkCrc[c] = crc32(coded.subarray(blockAt[b]!, blockAt[chunkBlock[c + 1]!]!));
            chunkFirst.push(firstName(coded, blockAt[b]!));
            if (turns.due) await turns.yield();
        }
        for (; sampled < coded.length; sampled += SAMPLE_EVERY) freq[coded[sampled]!]!++;
        return new NameList(fh, at, count, blockAt, chunkBlock, chunkCrc, chunkFirst, freq, stamp, new Uint8Array(firsts.length).fill(trusted ? 1 : 0));
    }

    /**
     * Chunk `c`'s coded bytes, kept or read from the file and checked. Perf: read without their
     * CRC while the file keeps the stamp they checked out under (a regex over the kernel's names
     * reads all 37 MB of them, each call). `keep: false` (a pass over every chunk, which would push out
     * all the others): not kept. @throws SymbolFileError when not the bytes checked at load.
     */
    #chunkBytes(c: number, keep = true): Buffer {
        if (this.#last?.c === c) return this.#last.bytes;
        const kept = this.#kept.get(c);
        if (kept !== undefined) return kept;
        const [from, to] = [this.blockAt[this.chunkBlock[c]!]!, this.blockAt[this.chunkBlock[c + 1]!]!];
        let bytes: Buffer | null;
        try {
            const now = Date.now();
            const st = fs.fstatSync(this.fh.fd);
            const same = this.stamp !== '' && stampOf(st) === this.stamp;
            const unchecked = same && this.verified[c] === 1;
            // A chunk not kept is read into the pass's buffer, which #last may hold: let go first.
            if (!keep && this.#last?.bytes.buffer === this.#pass.buffer) this.#last = null;
            if (!keep && this.#pass.length < to - from) this.#pass = Buffer.allocUnsafeSlow(Math.max(to - from, 2 * CHUNK_BYTES));
            bytes = readChecked(this.fh, this.at + from, to - from, unchecked ? undefined : this.chunkCrc[c]!, keep ? undefined : this.#pass);
            // A write while the bytes were read: the stamp moved, so they are checked after all.
            if (bytes !== null && unchecked && stampOf(fs.fstatSync(this.fh.fd)) !== this.stamp && crc32(bytes) !== this.chunkCrc[c]) bytes = null;
            if (bytes !== null && same && settled(st, now)) this.verified[c] = 1;
        } catch (err) {
            throw new SymbolFileError(`symbols file: names: ${err instanceof Error ? err.message : String(err)}`);
        }
        if (bytes === null) throw new SymbolFileError(`symbols file: names of chunk ${c} changed on disk`);
        if (keep) this.#kept.set(c, bytes);
        this.#last = { c, bytes };
        return bytes;
    }

    /** The chunk holding block `b`. */
    #chunkOf(b: number): number {
        return lastAtMost(this.chunkBlock, 0, this.chunks - 1, b);
    }

    /** Block `b`'s names decoded (the last one kept). @throws SymbolFileError when they do not decode. */
    #names(b: number): NameBlock {
        if (this.#block?.b === b) return this.#block.names;
        const c = this.#chunkOf(b);
        const bytes = this.#chunkBytes(c);
        const base = this.blockAt[this.chunkBlock[c]!]!;
        try {
            const names = decodeNameBlock(bytes, this.blockAt[b]! - base, this.blockAt[b + 1]! - base, Math.min(BLOCK_NAMES, this.count - (b << BLOCK_SHIFT)));
            this.#block = { b, names };
            return names;
        } catch (err) {
            throw new SymbolFileError(`symbols file: names of block ${b}: ${err instanceof Error ? err.message : String(err)}`);
        }
    }

    nameAt(n: number): string {
        const { text, starts } = this.#names(n >> BLOCK_SHIFT);
        const i = n & (BLOCK_NAMES - 1);
        return text.toString('utf8', starts[i], starts[i + 1]! - 1);
    }

    /** The number of the first name not before `s` in JS string order (`count` when none). */
    lowerBound(s: string): number {
        if (this.count === 0) return 0;
        // The last chunk, then the last block in it, whose first name is before `s`; then its names in order.
        let [a, z] = [0, this.chunks - 1];
        while (a < z) {
            const m = (a + z + 1) >>> 1;
            if (this.chunkFirst[m]! < s) a = m;
            else z = m - 1;
        }
        const bytes = this.#chunkBytes(a);
        const base = this.blockAt[this.chunkBlock[a]!]!;
        let [b, e] = [this.chunkBlock[a]!, this.chunkBlock[a + 1]! - 1];
        while (b < e) {
            const m = (b + e + 1) >>> 1;
            if (firstName(bytes, this.blockAt[m]! - base) < s) b = m;
            else e = m - 1;
        }
        const { text, starts } = this.#names(b);
        let n = 0;
        while (n + 1 < starts.length && text.toString('utf8', starts[n], starts[n + 1]! - 1) < s) n++;
        return Math.min(this.count, (b << BLOCK_SHIFT) + n);
    }

    /** The number of the name `name`, or -1. */
    find(name: string): number {
        const n = this.lowerBound(name);
        return n < this.count && this.nameAt(n) === name ? n : -1;
    }

    /**
     * The numbers of the names `re` matches (its own flags, tested on each name alone), in order,
     * until `stop.deadline` (epoch ms) or `stop.signal`: then `stopped` and the names found so
     * far. Between chunks of names the call yields and checks its time.
     */
    async matching(re: RegExp, stop: { deadline: number; signal?: AbortSignal | undefined }): Promise<{ names: number[]; stopped: boolean }> {
        const out: number[] = [];
        const turns = new Turns();
        const halt = async (): Promise<boolean> => {
            if (Date.now() >= stop.deadline || stop.signal?.aborted === true) return true;
            if (turns.due) await turns.yield();
            return false;
        };
        const plain = !re.ignoreCase && !re.flags.includes('v');
        const prefix = plain ? anchoredPrefix(re.source) : '';
        if (prefix !== '') {
            // Perf: names starting with a word are side by side in the sorted names.
            for (let n = this.lowerBound(prefix); n < this.count; n++) {
                if ((n & 1023) === 0 && (await halt())) return { names: out, stopped: true };
                const name = this.nameAt(n);
                if (!name.startsWith(prefix)) break;
                if (re.test(name)) out.push(n);
            }
            return { names: out, stopped: false };
        }
        const word = plain ? requiredWord(re.source) : '';
        const wordBytes = Buffer.from(word, 'utf8');
        const needle = word === '' ? null : this.#needle(searchPiece(wordBytes));
        for (let c = 0; c < this.chunks; c++) {
            if (await halt()) return { names: out, stopped: true };
            const bytes = this.#chunkBytes(c, false);
            const base = this.blockAt[this.chunkBlock[c]!]!;
            const [first, last] = [this.chunkBlock[c]!, this.chunkBlock[c + 1]! - 1];
            // Perf: with a word, only the blocks whose coded bytes hold its piece are decoded and tested.
            for (let b = first; b <= last; b++) {
                if (needle !== null) {
                    const hit = bytes.indexOf(needle, this.blockAt[b]! - base);
                    if (hit === -1) break;
                    b = lastAtMost(this.blockAt, b, last, hit + base);
                }
                const { text, starts } = this.#names(b);
                if (needle === null) {
                    for (let i = 0; i + 1 < starts.length; i++) if (re.test(text.toString('utf8', starts[i], starts[i + 1]! - 1))) out.push((b << BLOCK_SHIFT) + i);
                    continue;
                }
                // Only the block's names holding the whole word are made strings and tested.
                for (let i = 0, hit = text.indexOf(wordBytes); hit !== -1; hit = text.indexOf(wordBytes, starts[i])) {
                    while (starts[i + 1]! <= hit) i++;
                    if (re.test(text.toString('utf8', starts[i], starts[i + 1]! - 1))) out.push((b << BLOCK_SHIFT) + i);
                    i++;
                }
            }
        }
        return { names: out, stopped: false };
    }

    /**
     * The part of `piece` to look for: from its rarest byte in the names on. Perf: a byte search
     * is fast when the needle's first byte is rare and slow when it is common.
     */
    #needle(piece: Uint8Array): Buffer {
        let best = 0;
        for (let i = 1; i + Math.min(3, piece.length) <= piece.length; i++) if (this.freq[piece[i]!]! < this.freq[piece[best]!]!) best = i;
        return Buffer.from(piece.subarray(best));
    }
}

/** The last index `i` in `[from, to]` with `sorted[i] <= v` (`from` when none is). */
function lastAtMost(sorted: Uint32Array, from: number, to: number, v: number): number {
    let [a, b] = [from, to];
    while (a < b) {
        const m = (a + b + 1) >>> 1;
        if (sorted[m]! <= v) a = m;
        else b = m - 1;
    }
    return a;
}

/** A block's first name (stored whole) from the coded bytes at `at`. */
function firstName(coded: Uint8Array, at: number): string {
    const r = new VarintReader(coded, at);
    r.next();
    const len = r.next();
    return Buffer.from(coded.buffer, coded.byteOffset + r.at, len).toString('utf8');
}
