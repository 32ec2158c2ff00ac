import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { writeAll } from '../../src/fs/shared/write-all.js';

/**
 * Streams of the symbol table's build: part files and the merge's output columns written a value
 * at a time through one small buffer each (parts are read by part-file.ts), so that the merge's
 * memory does not grow with the tree.
 */

/** Bytes each writer buffers. */
export const BUFFER_BYTES = 64 << 10;
export const WRITE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

/** A new file (created exclusively, mode 0600) written in order through a buffer. */
export class ColumnWriter {
    readonly #fd: number;
    readonly #buf = Buffer.allocUnsafe(BUFFER_BYTES);
    #at = 0;
    /** Bytes written so far. */
    bytes = 0;

    /** The CRC-32 of the bytes written so far, when asked for (`withCrc`). */
    crc = 0;

    constructor(
        readonly file: string,
        readonly withCrc = false,
    ) {
        this.#fd = fs.openSync(file, WRITE_FLAGS, 0o600);
    }

    #room(n: number): void {
        if (this.#at + n > this.#buf.length) this.flush();
    }

    /** The buffer {@link room} makes room in. */
    get buf(): Buffer {
        return this.#buf;
    }

    /**
     * Where `n` bytes (at most {@link BUFFER_BYTES}) may be put in {@link buf}; {@link wrote}
     * then takes them. Perf: encoders write in place, without a buffer of their own per value.
     */
    room(n: number): number {
        this.#room(n);
        return this.#at;
    }

    /** The bytes put in {@link buf} from {@link room}'s offset up to `to` are written. */
    wrote(to: number): void {
        this.bytes += to - this.#at;
        this.#at = to;
    }

    u8(v: number): void {
        this.#room(1);
        this.#buf[this.#at++] = v;
        this.bytes += 1;
    }

    u16(v: number): void {
        this.#room(2);
        this.#at = this.#buf.writeUInt16LE(v, this.#at);
        this.bytes += 2;
    }

    u32(v: number): void {
        this.#room(4);
        this.#at = this.#buf.writeUInt32LE(v, this.#at);
        this.bytes += 4;
    }

    bytesOf(b: Buffer): void {
        if (b.length > this.#buf.length) {
            this.flush();
            writeAll(this.#fd, b);
            if (this.withCrc) this.crc = crc32(b, this.crc);
        } else {
            this.#room(b.length);
            b.copy(this.#buf, this.#at);
            this.#at += b.length;
        }
        this.bytes += b.length;
    }

    /** `s` as UTF-8. */
    text(s: string): void {
        const n = Buffer.byteLength(s, 'utf8');
        if (n > this.#buf.length) return this.bytesOf(Buffer.from(s, 'utf8'));
        this.#room(n);
        this.#buf.write(s, this.#at, 'utf8');
        this.#at += n;
        this.bytes += n;
    }

    flush(): void {
        writeAll(this.#fd, this.#buf.subarray(0, this.#at));
        if (this.withCrc) this.crc = crc32(this.#buf.subarray(0, this.#at), this.crc);
        this.#at = 0;
    }

    /** Flushes and syncs the file to disk. */
    sync(): void {
        this.flush();
        fs.fsyncSync(this.#fd);
    }

    close(): void {
        fs.closeSync(this.#fd);
    }
}

/** A new file (as {@link ColumnWriter} makes it) holding `bytes`, or `text` as UTF-8. */
export function writeColumn(file: string, bytes: Buffer | string): void {
    const w = new ColumnWriter(file);
    try {
        if (typeof bytes === 'string') w.text(bytes);
        else w.bytesOf(bytes);
        w.flush();
    } finally {
        w.close();
    }
}

/** Copies the file `from` to `fd`'s current end, every byte also given to `seen`. */
export function copyInto(fd: number, from: string, seen: (b: Buffer) => void): void {
    const src = fs.openSync(from, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const buf = Buffer.allocUnsafe(1 << 20);
    try {
        for (let n; (n = fs.readSync(src, buf, 0, buf.length, null)) > 0; ) {
            seen(buf.subarray(0, n));
            writeAll(fd, buf.subarray(0, n));
        }
    } finally {
        fs.closeSync(src);
    }
}
