import { writeAll } from '../../src/fs/shared/write-all.js';
import { DictBlocks } from '../../src/search-index/shared/dict-blocks.js';

/**
 * The merge's output (./index-merge.ts): its postings and its dictionary each written in order at
 * their place in the file through a buffer of their own.
 */

/** Bytes of output written at once. */
const WRITE_CHUNK = 1 << 20;

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

/** The output's dictionary, written at its place a block at a time (../../src/search-index/shared/dict-blocks.ts). */
export class DictOut extends DictBlocks {
    readonly #out: Writer;

    constructor(fd: number, dictAt: number, grams: number) {
        const out = new Writer(fd, dictAt, WRITE_CHUNK / 4);
        super(grams, (bytes) => out.write(bytes));
        this.#out = out;
    }

    override get heldBytes(): number {
        return this.#out.heldBytes + super.heldBytes;
    }

    /** Writes the last block; the dictionary is then whole in the file. */
    override finish(): void {
        super.finish();
        this.#out.flush();
    }
}
