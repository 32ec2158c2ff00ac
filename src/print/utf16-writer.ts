/**
 * Text built as UTF-16LE bytes in one reused buffer and decoded into a string a block at a time.
 * Memory / event loop: long outputs (200,000 listed entries, 81,383 hit lines) kept as many
 * strings of a few kilobytes each would make every young-generation collection of the host's
 * main thread copy them (2-8 MB surviving each collection); a block of {@link BLOCK_BYTES}
 * decodes into one string that V8 allocates in its large-object space (above 128 KiB), which a
 * collection never copies.
 */

/** Longest byte range {@link Utf16Writer.bytes} copies in a loop rather than through a view. */
const COPY_LOOP_MAX = 1024;

/** Bytes of UTF-16LE text per block: 256 Ki characters, at least 256 KiB as a string. */
export const BLOCK_BYTES = 512 * 1024;

/**
 * UTF-16LE text written into one growing, reused buffer; {@link take} decodes it and starts over.
 * For lines written in blocks: {@link startLine} before each line, {@link takeFull} after it.
 */
export class Utf16Writer {
    #buf = Buffer.allocUnsafe(1 << 16);
    #at = 0;
    /** One byte per code unit of a block without code units above U+00FF (see {@link take}). */
    #narrow = Buffer.allocUnsafe(0);
    readonly #blockBytes: number;

    /** @param blockBytes - bytes at which {@link takeFull} hands the block out. */
    constructor(blockBytes = BLOCK_BYTES) {
        this.#blockBytes = blockBytes;
    }

    /** Bytes written since the last take. */
    get size(): number {
        return this.#at;
    }

    #room(bytes: number): void {
        if (this.#at + bytes <= this.#buf.length) return;
        const grown = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#at + bytes));
        this.#buf.copy(grown, 0, 0, this.#at);
        this.#buf = grown;
    }

    /** One UTF-16 code unit. */
    char(unit: number): void {
        this.#room(2);
        this.#buf[this.#at++] = unit & 0xff;
        this.#buf[this.#at++] = unit >>> 8;
    }

    /** A whole number from 0 to 2^32 - 1 in decimal, as `String(n)` writes it. */
    number(n: number): void {
        let digits = 1;
        for (let v = n; v >= 10; v = Math.floor(v / 10)) digits++;
        this.#room(2 * digits);
        let v = n;
        for (let i = digits - 1; i >= 0; i--) {
            this.#buf[this.#at + 2 * i] = 48 + (v % 10);
            this.#buf[this.#at + 2 * i + 1] = 0;
            v = Math.floor(v / 10);
        }
        this.#at += 2 * digits;
    }

    /** UTF-16LE bytes `from..to` of `bytes`. */
    bytes(bytes: Uint8Array, from = 0, to = bytes.length): void {
        const n = to - from;
        this.#room(n);
        const buf = this.#buf;
        if (n > COPY_LOOP_MAX) {
            buf.set(bytes.subarray(from, to), this.#at);
        } else {
            // Memory / event loop: a short range is copied in a loop, not through a subarray view
            // (a view per hit and per path would be half of what printing many hits allocates).
            const at = this.#at - from;
            for (let i = from; i < to; i++) buf[at + i] = bytes[i]!;
        }
        this.#at += n;
    }

    /** A string's UTF-16 code units (lone surrogates too). */
    string(s: string): void {
        this.#room(2 * s.length);
        this.#at += this.#buf.write(s, this.#at, 'utf16le');
    }

    /** Starts a line: a `\n` after the block's previous line (none at a block's start). */
    startLine(): void {
        if (this.#at > 0) this.char(10);
    }

    /** {@link take} when the block holds `blockBytes` or more; otherwise undefined. */
    takeFull(): string | undefined {
        return this.#at >= this.#blockBytes ? this.take() : undefined;
    }

    /**
     * The text written since the last take. Memory: when every code unit is at most U+00FF (source
     * code, mostly) the string is made from one byte per character, which V8 keeps as a one-byte
     * string: half the memory of the two-byte string a UTF-16 decode makes, all of it counted
     * toward the old generation whose growth starts the host's mark-compact collections.
     */
    take(): string {
        const buf = this.#buf;
        const n = this.#at >> 1;
        this.#at = 0;
        if (buf.byteOffset % 2 !== 0) return buf.toString('utf16le', 0, 2 * n);
        const units = new Uint16Array(buf.buffer, buf.byteOffset, n);
        if (this.#narrow.length < n) this.#narrow = Buffer.allocUnsafe(Math.max(n, this.#narrow.length * 2));
        const narrow = this.#narrow;
        let high = 0;
        for (let i = 0; i < n; i++) {
            const u = units[i]!;
            high |= u;
            if (high > 0xff) return buf.toString('utf16le', 0, 2 * n);
            narrow[i] = u;
        }
        return narrow.toString('latin1', 0, n);
    }
}
