import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { PART_MAGIC, type Failure, type PartRecord } from '../../src/symbols/shared/symbol-format.js';
import { copyBytes, putVarint } from '../../src/symbols/shared/symbol-codec.js';
import { BUFFER_BYTES, ColumnWriter } from './table-io.js';

/**
 * The symbol table's part files (symbol-format.ts, `PART_MAGIC`): written by a `symbols-part`
 * task, read once by the merge. Perf: binary records read without a JSON value per line (the
 * kernel's 5.2 million took the merge's thread some 4 s of CPU as JSON); a name that repeats the
 * record before's is not stored again, and is the same string for the merge to compare.
 */

/** The head of a part: its failed files and checkpoints. */
export type PartHead = [failed: [number, Failure][], points: [number, string][]];

/** A record's numbers take at most this many bytes (seven varints). */
const NUMBERS_MOST = 70;

/** Writes the new file `file`: `head`, then `records` (sorted by name in JS string order, a name's in file order). Not synced. */
export function writePart(file: string, head: PartHead, records: readonly PartRecord[]): void {
    const w = new ColumnWriter(file, true);
    try {
        const json = Buffer.from(JSON.stringify(head), 'utf8');
        const top = Buffer.alloc(PART_MAGIC.length + 8);
        PART_MAGIC.copy(top);
        top.writeUInt32LE(records.length, PART_MAGIC.length);
        top.writeUInt32LE(json.length, PART_MAGIC.length + 4);
        w.bytesOf(top);
        w.bytesOf(json);
        let name: string | null = null;
        for (const r of records) {
            // Unsigned varints: the signature's offset is -1 when not known.
            putString(w, r[0] === name ? null : r[0]);
            name = r[0];
            putString(w, r[3]);
            w.wrote(putNumbers(w.buf, w.room(NUMBERS_MOST), r));
        }
        w.flush();
        const crc = Buffer.alloc(4);
        crc.writeUInt32LE(w.crc);
        w.bytesOf(crc);
        w.flush();
    } finally {
        w.close();
    }
}

function putNumbers(out: Buffer, at: number, r: PartRecord): number {
    at = putVarint(out, at, r[1]);
    at = putVarint(out, at, r[2]);
    at = putVarint(out, at, r[4]);
    at = putVarint(out, at, r[5]);
    at = putVarint(out, at, r[6] + 1);
    at = putVarint(out, at, r[7]);
    return putVarint(out, at, r[8]);
}

/** Strings up to this long are tried as ASCII, a byte per character put in JS. */
const SHORT = 64;

/** A string as its UTF-8 byte length plus one and its bytes; `null` (the name before again) as 0. */
function putString(w: ColumnWriter, s: string | null): void {
    if (s === null) return w.u8(0);
    // Perf: names and containers (most empty) are short and ASCII: written without the two calls
    // into the runtime (its UTF-8 length, its bytes) each string took, a fifth of a part's CPU.
    if (s.length <= SHORT) {
        const at = w.room(SHORT + 1);
        const buf = w.buf;
        let i = 0;
        for (; i < s.length; i++) {
            const c = s.charCodeAt(i);
            if (c > 0x7f) break;
            buf[at + 1 + i] = c;
        }
        if (i === s.length) {
            buf[at] = s.length + 1;
            return w.wrote(at + 1 + s.length);
        }
    }
    const n = Buffer.byteLength(s, 'utf8');
    if (n + 10 > BUFFER_BYTES) {
        w.wrote(putVarint(w.buf, w.room(10), n + 1));
        return w.bytesOf(Buffer.from(s, 'utf8'));
    }
    const at = putVarint(w.buf, w.room(n + 10), n + 1);
    w.wrote(at + w.buf.write(s, at, 'utf8'));
}

/** Bytes each reader buffers at first: the merge reads every part at once (the kernel's: some 460, so 7 MB). */
const READ_BYTES = 16 << 10;

/**
 * A part file read a record at a time: the current record's fields are the reader's own (no
 * array per record). Checked as it is read: its magic, each record in order, and at its end the
 * count of records, the CRC-32 of its bytes and nothing after; a part that fails throws, naming
 * the file.
 */
export class PartReader {
    readonly head: PartHead;
    name = '';
    /** The current name's UTF-8: its first {@link nameLength} bytes, until a record with another name is read. */
    nameBytes = Buffer.allocUnsafe(256);
    nameLength = 0;
    file = 0;
    kind = 0;
    cont = '';
    line = 0;
    end = 0;
    sig = 0;
    sigLen = 0;
    check = 0;
    readonly #path: string;
    readonly #fd: number;
    #buf = Buffer.allocUnsafe(READ_BYTES);
    #at = 0;
    #to = 0;
    #eof = false;
    /** The CRC-32 of the bytes read before `#crcAt`. */
    #crc = 0;
    #crcAt = 0;
    readonly #size: number;
    #left: number;
    #first = true;

    /** `k`: the part's number, which orders two parts' definitions of one name in one file. */
    constructor(
        file: string,
        readonly k = 0,
    ) {
        this.#path = file;
        this.#fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
        try {
            this.#size = fs.fstatSync(this.#fd).size;
            this.#need(PART_MAGIC.length + 8);
            if (this.#to < PART_MAGIC.length + 8) this.#fail('cut short');
            if (!this.#buf.subarray(0, PART_MAGIC.length).equals(PART_MAGIC)) this.#fail('not a part file');
            this.#left = this.#buf.readUInt32LE(PART_MAGIC.length);
            const json = this.#buf.readUInt32LE(PART_MAGIC.length + 4);
            if (json > this.#size) this.#fail('cut short');
            this.#at = PART_MAGIC.length + 8;
            this.#need(json);
            if (this.#to - this.#at < json) this.#fail('cut short');
            this.head = this.#headOf(this.#buf.toString('utf8', this.#at, this.#at + json));
            this.#at += json;
        } catch (err) {
            fs.closeSync(this.#fd);
            throw err;
        }
    }

    /** The head's JSON, as far as the merge takes it before the part's CRC is checked: two lists. */
    #headOf(json: string): PartHead {
        let head: unknown;
        try {
            head = JSON.parse(json);
        } catch {
            this.#fail('its head is not JSON');
        }
        if (!Array.isArray(head) || head.length !== 2 || !head.every((l) => Array.isArray(l))) this.#fail('its head is not two lists');
        return head as PartHead;
    }

    /** Reads the next record into the reader's fields; `false` after the last (the part then checked whole). */
    next(): boolean {
        if (this.#left === 0) {
            this.#end();
            return false;
        }
        this.#left--;
        if (this.#newName()) {
            const name = this.nameBytes.toString('utf8', 0, this.nameLength);
            if (!this.#first && name < this.name) this.#fail('records out of order');
            this.name = name;
        } else if (this.#first) this.#fail('a first record without a name');
        this.#first = false;
        this.cont = this.#string() ?? this.#fail('a record without a container');
        this.#need(NUMBERS_MOST);
        this.file = this.#varint();
        this.kind = this.#varint();
        this.line = this.#varint();
        this.end = this.#varint();
        this.sig = this.#varint() - 1;
        this.sigLen = this.#varint();
        this.check = this.#varint();
        if (this.#at > this.#to) this.#fail('cut short');
        return true;
    }

    close(): void {
        fs.closeSync(this.#fd);
    }

    /**
     * Reads a record's name into {@link nameBytes}; `false` for the name before again. Perf: the
     * merge writes a name's bytes as read, rather than encoding its string again.
     */
    #newName(): boolean {
        const n = this.#length();
        if (n < 0) return false;
        if (this.nameBytes.length < n) this.nameBytes = Buffer.allocUnsafe(2 * n);
        copyBytes(this.nameBytes, 0, this.#buf, this.#at, n);
        this.nameLength = n;
        this.#at += n;
        return true;
    }

    /** A string's byte length, its bytes then in the buffer from `#at`; -1 for `null` (the name before again). */
    #length(): number {
        this.#need(10);
        const n = this.#varint();
        if (n === 0) return -1;
        if (n - 1 > this.#size) this.#fail('a string past its end');
        this.#need(n - 1);
        if (this.#at + n - 1 > this.#to) this.#fail('cut short');
        return n - 1;
    }

    #string(): string | null {
        const n = this.#length();
        if (n <= 0) return n < 0 ? null : '';
        const s = this.#buf.toString('utf8', this.#at, this.#at + n);
        this.#at += n;
        return s;
    }

    #varint(): number {
        const b = this.#buf;
        let x = b[this.#at++]!;
        if (x < 0x80) return x;
        let [v, scale] = [x & 0x7f, 0x80];
        for (let i = 1; i < 10; i++) {
            x = b[this.#at++]!;
            v += (x & 0x7f) * scale;
            if (x < 0x80) return v;
            scale *= 0x80;
        }
        return this.#fail('a number too long');
    }

    /** At least `n` bytes from `#at` in the buffer, or as many as the file has left (zeros after them). */
    #need(n: number): void {
        if (this.#to - this.#at >= n || this.#eof) return;
        this.#crc = crc32(this.#buf.subarray(this.#crcAt, this.#at), this.#crc);
        const left = this.#to - this.#at;
        const size = Math.max(this.#buf.length, 2 * (left + n));
        const buf = size > this.#buf.length ? Buffer.allocUnsafe(size) : this.#buf;
        this.#buf.copy(buf, 0, this.#at, this.#to);
        [this.#buf, this.#at, this.#to, this.#crcAt] = [buf, 0, left, 0];
        while (this.#to < this.#buf.length) {
            const got = fs.readSync(this.#fd, this.#buf, this.#to, this.#buf.length - this.#to, null);
            if (got === 0) {
                this.#eof = true;
                // A record cut short reads on into zeros, and fails: a string of none is a name, not a container.
                this.#buf.fill(0, this.#to);
                break;
            }
            this.#to += got;
        }
    }

    /** After the last record: the CRC-32 of every byte before it, then the file's end. */
    #end(): void {
        // Five asked for: a byte past the CRC is read if there is one.
        this.#need(5);
        if (this.#to - this.#at !== 4) this.#fail(this.#to - this.#at < 4 ? 'cut short' : 'bytes past its records');
        const crc = crc32(this.#buf.subarray(this.#crcAt, this.#at), this.#crc);
        if (crc !== this.#buf.readUInt32LE(this.#at)) this.#fail('checksum does not match');
    }

    #fail(why: string): never {
        throw new Error(`symbols part ${this.#path}: ${why}`);
    }
}
