import { EntryKind } from '../../src/search/shared/protocol.js';

/**
 * A directory's getdents64 records kept as they came, for the tree check's fast path
 * (workers/search-index/index-check.ts): no string, object or sort per entry. Each name stays
 * where the kernel wrote it, NUL-terminated, so statx is handed its address (held-at.ts
 * `statAtAddress`), and it is found by its bytes through a hash of them. Perf: making each name a
 * string, sorting the names and handing them to statx as strings (UTF-8 encoded again per call)
 * took most of the check's user time.
 *
 * Only a directory whose names are all ASCII and whose entries all have a type is held so
 * ({@link parse} says false otherwise: the caller lists it as strings, held-at.ts `list`): an
 * ASCII name's bytes compare as its UTF-16 code units do, against any stored name.
 */

// linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name (NUL-terminated, padded to 8 bytes).
const RECLEN = 16;
const TYPE = 18;
const NAME = 19;
/** Free bytes kept before each getdents64 call: a record of the longest name (255 bytes) fits. */
export const RAW_SLACK = 512;
const FIRST_BYTES = 32 * 1024;

/** The entry kinds of d_type (1 FIFO, 2 character device, 4 directory, 6 block device, 8 regular, 10 link, 12 socket); -1: none given. */
const KIND_OF_TYPE = new Int8Array(16).fill(-1);
KIND_OF_TYPE[4] = EntryKind.Dir;
KIND_OF_TYPE[8] = EntryKind.File;
KIND_OF_TYPE[10] = EntryKind.Link;
for (const t of [1, 2, 6, 12]) KIND_OF_TYPE[t] = EntryKind.Other;

/** One directory's records and entries; reused from one directory to the next (one per depth of a walk). */
export class RawListing {
    /** The records, from offset 0 to {@link used}. */
    buf: Buffer;
    /** The address of `buf[0]`, where {@link grow} was given a way to learn it. */
    address = 0;
    used = 0;
    /** Entries (`.` and `..` left out): where each name starts in {@link buf}, its length, its kind ({@link EntryKind}). */
    count = 0;
    starts = new Int32Array(256);
    lens = new Int32Array(256);
    kinds = new Int8Array(256);
    /** Set by the caller for each entry it matched with a stored one. */
    matched = new Uint8Array(256);
    /** Open addressing on the names' hashes: entry index plus one, 0 for empty. */
    #slots = new Int32Array(1024);
    #mask = 1023;
    readonly #addressOf: (buf: Buffer) => number;

    constructor(addressOf: (buf: Buffer) => number) {
        this.#addressOf = addressOf;
        this.buf = Buffer.allocUnsafeSlow(FIRST_BYTES);
        this.address = addressOf(this.buf);
    }

    /** Empties it for the next directory. */
    reset(): void {
        this.used = 0;
        this.count = 0;
    }

    /** Makes room for {@link RAW_SLACK} more bytes of records (a new buffer, the records copied). */
    reserve(): void {
        if (this.buf.length - this.used >= RAW_SLACK) return;
        const grown = Buffer.allocUnsafeSlow(this.buf.length * 2);
        this.buf.copy(grown, 0, 0, this.used);
        this.buf = grown;
        this.address = this.#addressOf(grown);
    }

    /** Reads the records into entries and their hash; false when a name is not ASCII or an entry has no type. */
    parse(): boolean {
        const buf = this.buf;
        for (let o = 0; o < this.used; ) {
            const reclen = buf.readUInt16LE(o + RECLEN);
            const start = o + NAME;
            const type = buf[o + TYPE]!;
            const kind = type < 16 ? KIND_OF_TYPE[type]! : -1;
            o += reclen;
            if (kind < 0) return false;
            let end = start;
            let high = 0;
            for (let b = buf[end]!; b !== 0; b = buf[++end]!) high |= b;
            if (high >= 0x80) return false;
            const len = end - start;
            if (buf[start] === 0x2e && (len === 1 || (len === 2 && buf[start + 1] === 0x2e))) continue;
            if (this.count === this.starts.length) this.#growEntries();
            this.starts[this.count] = start;
            this.lens[this.count] = len;
            this.kinds[this.count] = kind;
            this.matched[this.count] = 0;
            this.count++;
        }
        this.#hashAll();
        return true;
    }

    /** Entry `k`'s name (ASCII). */
    name(k: number): string {
        return this.buf.toString('latin1', this.starts[k]!, this.starts[k]! + this.lens[k]!);
    }

    /** The entry whose name is `bytes[from, to)`, or -1. */
    find(bytes: Uint8Array, from: number, to: number): number {
        const len = to - from;
        const buf = this.buf;
        for (let s = hashOf(bytes, from, to) & this.#mask; ; s = (s + 1) & this.#mask) {
            const k = this.#slots[s]! - 1;
            if (k < 0) return -1;
            if (this.lens[k] !== len) continue;
            const a = this.starts[k]!;
            let i = 0;
            while (i < len && buf[a + i] === bytes[from + i]) i++;
            if (i === len) return k;
        }
    }

    #hashAll(): void {
        let size = this.#slots.length;
        while (size < this.count * 2) size *= 2;
        if (size !== this.#slots.length) this.#slots = new Int32Array(size);
        else this.#slots.fill(0);
        this.#mask = size - 1;
        const buf = this.buf;
        for (let k = 0; k < this.count; k++) {
            const a = this.starts[k]!;
            let s = hashOf(buf, a, a + this.lens[k]!) & this.#mask;
            while (this.#slots[s] !== 0) s = (s + 1) & this.#mask;
            this.#slots[s] = k + 1;
        }
    }

    #growEntries(): void {
        const n = this.starts.length * 2;
        const grow = <T extends Int32Array | Int8Array | Uint8Array>(a: T, b: T): T => (b.set(a), b);
        this.starts = grow(this.starts, new Int32Array(n));
        this.lens = grow(this.lens, new Int32Array(n));
        this.kinds = grow(this.kinds, new Int8Array(n));
        this.matched = grow(this.matched, new Uint8Array(n));
    }
}

/** FNV-1a of `bytes[from, to)`. */
function hashOf(bytes: Uint8Array, from: number, to: number): number {
    let h = 0x811c9dc5;
    for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    return (h ^ (h >>> 15)) >>> 0;
}
