import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { DICT_BLOCK, DICT_ENTRY } from '../../src/search-index/shared/segment.js';

/**
 * The merge's output (./index-merge.ts): its postings and its dictionary each written in order at
 * their place in the file through a buffer of their own, the dictionary a block at a time with its
 * block index made as the blocks are written (memory: the block index, 8 bytes a block of
 * {@link DICT_BLOCK} grams, not the dictionary's 20 bytes a gram).
 */

/** Bytes of output written at once. */
const WRITE_CHUNK = 1 << 20;

export function writeAll(fd: number, bytes: Uint8Array, pos: number): void {
    for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd, bytes, done, bytes.length - done, pos + done);
}

/** Sequential writes at a file position, in chunks. */
export class Writer {
    readonly #fd: number;
    readonly #buf: Buffer;
    #len = 0;
    /** File position of the next byte. */
    pos: number;

    constructor(fd: number, pos: number, chunk = WRITE_CHUNK) {
        this.#fd = fd;
        this.pos = pos;
        this.#buf = Buffer.allocUnsafe(chunk);
    }

    get heldBytes(): number {
        return this.#buf.length;
    }

    write(bytes: Uint8Array): void {
        if (this.#len + bytes.length > this.#buf.length) this.flush();
        if (bytes.length > this.#buf.length) {
            writeAll(this.#fd, bytes, this.pos);
        } else {
            this.#buf.set(bytes, this.#len);
            this.#len += bytes.length;
        }
        this.pos += bytes.length;
    }

    flush(): void {
        writeAll(this.#fd, this.#buf.subarray(0, this.#len), this.pos - this.#len);
        this.#len = 0;
    }
}

/** The output's dictionary, written at its place a block of {@link DICT_BLOCK} entries at a time; its block index kept (8 bytes a block). */
export class DictOut {
    readonly #out: Writer;
    readonly #block = Buffer.alloc(DICT_BLOCK * DICT_ENTRY);
    readonly blockIndex: Buffer;
    /** Entries in #block, and blocks written. */
    #len = 0;
    #blocks = 0;

    constructor(fd: number, dictAt: number, blocks: number) {
        this.#out = new Writer(fd, dictAt, WRITE_CHUNK / 4);
        this.blockIndex = Buffer.alloc(blocks * 8);
    }

    get heldBytes(): number {
        return this.#out.heldBytes + this.#block.length + this.blockIndex.length;
    }

    add(key: number, off: number, field: number, crc: number, count: number): void {
        const e = this.#len * DICT_ENTRY;
        this.#block.writeUInt32LE(key, e);
        this.#block.writeUInt32LE(off, e + 4);
        this.#block.writeUInt32LE(field, e + 8);
        this.#block.writeUInt32LE(crc, e + 12);
        this.#block.writeUInt32LE(count, e + 16);
        if (++this.#len === DICT_BLOCK) this.#endBlock();
    }

    /** Writes the last block; the dictionary is then whole in the file. */
    finish(): void {
        this.#endBlock();
        this.#out.flush();
    }

    #endBlock(): void {
        if (this.#len === 0) return;
        const bytes = this.#block.subarray(0, this.#len * DICT_ENTRY);
        this.blockIndex.writeUInt32LE(bytes.readUInt32LE(0), this.#blocks * 8);
        this.blockIndex.writeUInt32LE(crc32(bytes), this.#blocks * 8 + 4);
        this.#out.write(bytes);
        this.#blocks++;
        this.#len = 0;
    }
}
