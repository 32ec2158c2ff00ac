import fs from 'node:fs';
import { writeAll } from '../../src/fs/shared/write-all.js';

/**
 * Streams of the symbol table's merge: part files read a line at a time and output columns
 * written a value at a time, each through one small buffer, so that the merge's memory does not
 * grow with the tree.
 */

/** Bytes each writer buffers. */
export const BUFFER_BYTES = 64 << 10;
/** Bytes each reader buffers at first: the merge reads every part at once (the kernel's: 271, so 4 MB). */
const READ_BYTES = 16 << 10;
export const WRITE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

/** A file of lines (`\n`-terminated UTF-8) read in order. */
export class LineReader {
    readonly #fd: number;
    #buf = Buffer.allocUnsafe(READ_BYTES);
    #from = 0;
    #to = 0;
    #eof = false;

    constructor(file: string) {
        this.#fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    }

    /** The next line without its end, or `null` at the end of the file. */
    next(): string | null {
        for (;;) {
            const nl = this.#buf.indexOf(0x0a, this.#from);
            if (nl !== -1 && nl < this.#to) {
                const line = this.#buf.toString('utf8', this.#from, nl);
                this.#from = nl + 1;
                return line;
            }
            if (this.#eof) {
                if (this.#from === this.#to) return null;
                const line = this.#buf.toString('utf8', this.#from, this.#to);
                this.#from = this.#to;
                return line;
            }
            this.#fill();
        }
    }

    #fill(): void {
        const left = this.#to - this.#from;
        // A line longer than the buffer grows it (a definition's name or container is not bounded).
        if (left * 2 > this.#buf.length) {
            const bigger = Buffer.allocUnsafe(this.#buf.length * 2);
            this.#buf.copy(bigger, 0, this.#from, this.#to);
            this.#buf = bigger;
        } else this.#buf.copy(this.#buf, 0, this.#from, this.#to);
        [this.#from, this.#to] = [0, left];
        const n = fs.readSync(this.#fd, this.#buf, left, this.#buf.length - left, null);
        if (n === 0) this.#eof = true;
        this.#to += n;
    }

    close(): void {
        fs.closeSync(this.#fd);
    }
}

/** A new file (created exclusively, mode 0600) written in order through a buffer. */
export class ColumnWriter {
    readonly #fd: number;
    readonly #buf = Buffer.allocUnsafe(BUFFER_BYTES);
    #at = 0;
    /** Bytes written so far. */
    bytes = 0;

    constructor(readonly file: string) {
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
