import { writeAll } from '../../src/fs/shared/write-all.js';
import { DictBlocks } from '../../src/search-index/shared/dict-blocks.js';
import { MOST_POSTING_BYTES as MOST, NO_MASKS, putPostings } from '../../src/search-index/shared/posting-codec.js';
import { PACK } from '../../src/search-index/shared/posting-pack.js';

/**
 * The merge's output (./index-merge.ts): its postings and its dictionary each written in order at
 * their place in the file through a buffer of their own, and one gram's list encoded as its
 * inputs' lists come.
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

/**
 * One gram's merged list, encoded as the inputs' lists come in id order: only the postings of a
 * pack not yet full wait decoded, the rest is held encoded. The packs fall where one encoding of
 * the whole list puts them (every 128 postings from its start, across the inputs' bounds), so the
 * bytes are the same. Memory: a list held decoded (6 bytes a posting) with a body sized for the
 * worst case (7 more) grew to some 12 MB for a common gram at ten times the Linux tree, where
 * its encoding is a few bytes a posting.
 */
export class MergedList {
    readonly #firstId: number;
    /** Postings decoded and not yet encoded (fewer than a pack between two {@link add} calls). */
    #ids = new Uint32Array(1 << 12);
    #masks = new Uint16Array(1 << 12);
    #pending = 0;
    /** Local id of the last posting encoded (-1: none yet). */
    #prev = -1;
    #body: Buffer = Buffer.allocUnsafe(1 << 16);
    #len = 0;
    /** Postings of the list so far. */
    count = 0;

    constructor(firstId: number) {
        this.#firstId = firstId;
    }

    get heldBytes(): number {
        return this.#ids.byteLength + this.#masks.byteLength + this.#body.length;
    }

    /** Begins the next gram's list. */
    start(): void {
        [this.#pending, this.#prev, this.#len, this.count] = [0, -1, 0, 0];
    }

    /** Adds the first `n` of `ids` (absolute, above every id added before) and their masks. */
    add(ids: Uint32Array, masks: Uint16Array, n: number): void {
        const need = this.#pending + n;
        if (this.#ids.length < need) {
            const size = Math.max(need, 2 * this.#ids.length);
            const [i, m] = [new Uint32Array(size), new Uint16Array(size)];
            i.set(this.#ids.subarray(0, this.#pending));
            m.set(this.#masks.subarray(0, this.#pending));
            [this.#ids, this.#masks] = [i, m];
        }
        this.#ids.set(ids.subarray(0, n), this.#pending);
        // A posting decoded without masks is encoded without them (0); masks of all ones rule out as little.
        for (let k = 0; k < n; k++) this.#masks[this.#pending + k] = masks[k] === NO_MASKS ? 0 : masks[k]!;
        this.#pending = need;
        this.count += n;
        this.#encode(need - (need % PACK));
    }

    /** The list's body, whole (valid until the next {@link start}). */
    finish(): Buffer {
        this.#encode(this.#pending);
        return this.#body.subarray(0, this.#len);
    }

    /** Encodes the first `n` pending postings after the list's body so far. */
    #encode(n: number): void {
        if (n === 0) return;
        if (this.#body.length < this.#len + n * MOST) {
            const body = Buffer.allocUnsafe(Math.max(this.#len + n * MOST, 2 * this.#body.length));
            this.#body.copy(body, 0, 0, this.#len);
            this.#body = body;
        }
        this.#len = putPostings(this.#body, this.#len, this.#ids, this.#masks, 0, n, this.#prev, this.#firstId);
        this.#prev = this.#ids[n - 1]! - this.#firstId;
        this.#ids.copyWithin(0, n, this.#pending);
        this.#masks.copyWithin(0, n, this.#pending);
        this.#pending -= n;
    }
}
