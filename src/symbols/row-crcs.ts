import { crc32 } from 'node:zlib';
import { SymbolFileError } from './symbol-names.js';

/**
 * Each block's rows' CRC-32, taken as the rows section streams past while the file is checked at
 * load, so that the section is never held whole. Memory: a buffer of it (15 MB for the Linux
 * tree) would, once freed, raise glibc's mmap threshold to its size for the process's life, and
 * with it the free memory every thread's arena keeps at its top (up to twice that), which
 * malloc_trim leaves alone.
 */
export class RowCrcs {
    /** Block `b`'s CRC-32, once its last byte was fed. */
    readonly crcs: Uint32Array;
    readonly #starts: Uint32Array;
    #b = 0;
    #crc = 0;

    /**
     * @param starts - where each block's rows start in the section, and where the last ends.
     * @throws SymbolFileError when a block holds no rows or the last ends elsewhere than `rowBytes`.
     */
    constructor(starts: Uint32Array, rowBytes: number) {
        for (let b = 0; b + 1 < starts.length; b++) {
            // Every block holds names, and each name a definition: one without rows is not the writer's.
            if (starts[b]! >= starts[b + 1]!) throw new SymbolFileError(starts[b] === starts[b + 1] ? 'symbols file: a block without rows' : 'symbols file: blocks out of order');
        }
        if (starts.length === 0 || starts[starts.length - 1] !== rowBytes) throw new SymbolFileError('symbols file: blocks and counts disagree');
        this.#starts = starts;
        this.crcs = new Uint32Array(starts.length - 1);
    }

    /** `bytes`, found at `at` in the section, right after those fed before. */
    feed(at: number, bytes: Uint8Array): void {
        const starts = this.#starts;
        let i = 0;
        while (this.#b < this.crcs.length) {
            i = Math.max(i, starts[this.#b]! - at);
            if (i >= bytes.length) return;
            const end = starts[this.#b + 1]! - at;
            const to = Math.min(end, bytes.length);
            this.#crc = crc32(bytes.subarray(i, to), this.#crc);
            i = to;
            if (to < end) return;
            this.crcs[this.#b++] = this.#crc;
            this.#crc = 0;
        }
    }

    /** Whether every block's rows were fed. */
    get done(): boolean {
        return this.#b === this.crcs.length;
    }
}
