import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { IndexFormatError } from './shared/format.js';
import type { Pause } from './shared/table-names.js';

/** Ids per checked block of a table file's name posting lists (64 KiB). */
const BLOCK_IDS = 16384;

/**
 * The ids of the names' posting lists, read from the generation's table file when a name search
 * asks for them rather than held: at ten times the Linux tree they are 33 MB of a 71 MB table.
 * The file was checked whole when it was loaded; each read is checked again, block by block,
 * against the CRC-32 taken then, so a file changed under the index is found, never read wrongly.
 * The file stays open while its generation is served (another process may remove its folder).
 */
export class NameIdsOnDisk {
    readonly #fd: number;
    readonly #file: string;
    /** Where the ids start in the file. */
    readonly #offset: number;
    readonly #count: number;
    /** CRC-32 of each block of {@link BLOCK_IDS} ids, the last one shorter. */
    readonly #crcs: Uint32Array;
    #open = true;

    private constructor(fd: number, file: string, offset: number, count: number, crcs: Uint32Array) {
        [this.#fd, this.#file, this.#offset, this.#count, this.#crcs] = [fd, file, offset, count, crcs];
    }

    /** `ids` (as loaded from `file` at `offset`, already checked) read from the file from now on. */
    static async of(file: string, offset: number, ids: Uint32Array, pause: Pause): Promise<NameIdsOnDisk> {
        const blocks = Math.ceil(ids.length / BLOCK_IDS);
        const crcs = new Uint32Array(blocks);
        for (let b = 0; b < blocks; b++) {
            const part = ids.subarray(b * BLOCK_IDS, Math.min(ids.length, (b + 1) * BLOCK_IDS));
            crcs[b] = crc32(new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
            if ((b & 15) === 15) await pause();
        }
        const fd = fs.openSync(file, 'r');
        return new NameIdsOnDisk(fd, file, offset, ids.length, crcs);
    }

    /** Ids `from` to `to` (exclusive). @throws IndexFormatError when the file no longer holds what was checked. */
    read(from: number, to: number): Uint32Array {
        if (!this.#open) throw new Error('the name posting lists are closed');
        if (from < 0 || to > this.#count || from > to) throw new RangeError(`ids ${from}-${to} of ${this.#count}`);
        if (from === to) return new Uint32Array(0);
        const first = Math.floor(from / BLOCK_IDS);
        const last = Math.floor((to - 1) / BLOCK_IDS);
        const start = first * BLOCK_IDS;
        const end = Math.min(this.#count, (last + 1) * BLOCK_IDS);
        const bytes = (end - start) * 4;
        // Its own ArrayBuffer at offset 0: aligned for the Uint32Array view.
        const buf = Buffer.allocUnsafeSlow(bytes);
        for (let got = 0; got < bytes; ) {
            const n = fs.readSync(this.#fd, buf, got, bytes - got, this.#offset + start * 4 + got);
            if (n === 0) throw new IndexFormatError(this.#file, 'name posting lists cut short');
            got += n;
        }
        for (let b = first; b <= last; b++) {
            const at = (b - first) * BLOCK_IDS * 4;
            const len = (Math.min(this.#count, (b + 1) * BLOCK_IDS) - b * BLOCK_IDS) * 4;
            if (crc32(buf.subarray(at, at + len)) !== this.#crcs[b]) throw new IndexFormatError(this.#file, 'name posting lists changed since they were checked');
        }
        return new Uint32Array(buf.buffer, (from - start) * 4, to - from);
    }

    close(): void {
        if (!this.#open) return;
        this.#open = false;
        fs.closeSync(this.#fd);
    }
}
