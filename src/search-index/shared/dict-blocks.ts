import { crc32 } from 'node:zlib';
import { DICT_BLOCK, DICT_ENTRY } from './segment.js';

/**
 * A segment's dictionary (./segment.ts) made in gram order and handed on a block of
 * {@link DICT_BLOCK} entries at a time, its block index made as the blocks are handed on: the
 * build's parts and the merge write it in order at its place in the file. Memory: one block and the
 * block index (8 bytes a block), where the whole dictionary is 20 bytes a gram: garbage left by
 * every part of a build, millions of grams held whole by a merge.
 */
export class DictBlocks {
    readonly #block = Buffer.alloc(DICT_BLOCK * DICT_ENTRY);
    readonly #emit: (bytes: Buffer) => void;
    readonly blockIndex: Buffer;
    /** Entries in #block, and blocks handed on. */
    #len = 0;
    #blocks = 0;

    /** `emit` takes each block's bytes (reused after the call). */
    constructor(grams: number, emit: (bytes: Buffer) => void) {
        this.#emit = emit;
        this.blockIndex = Buffer.alloc(Math.ceil(grams / DICT_BLOCK) * 8);
    }

    get heldBytes(): number {
        return this.#block.length + this.blockIndex.length;
    }

    /** The next gram's entry: its key, its list's offset, length field, CRC and posting count. */
    add(key: number, off: number, field: number, crc: number, count: number): void {
        const e = this.#len * DICT_ENTRY;
        this.#block.writeUInt32LE(key, e);
        this.#block.writeUInt32LE(off, e + 4);
        this.#block.writeUInt32LE(field, e + 8);
        this.#block.writeUInt32LE(crc, e + 12);
        this.#block.writeUInt32LE(count, e + 16);
        if (++this.#len === DICT_BLOCK) this.#endBlock();
    }

    /** Hands on the last block. @throws Error when fewer grams were added than announced. */
    finish(): void {
        this.#endBlock();
        if (this.#blocks * 8 !== this.blockIndex.length) throw new Error('fewer dictionary blocks than counted');
    }

    #endBlock(): void {
        if (this.#len === 0) return;
        const bytes = this.#block.subarray(0, this.#len * DICT_ENTRY);
        this.blockIndex.writeUInt32LE(bytes.readUInt32LE(0), this.#blocks * 8);
        this.blockIndex.writeUInt32LE(crc32(bytes), this.#blocks * 8 + 4);
        this.#emit(bytes);
        this.#blocks++;
        this.#len = 0;
    }
}
