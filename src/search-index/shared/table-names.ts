/**
 * The file table's names (format.ts): held as one string rather than a string each, and encoded
 * or decoded in slices, so that a large tree's names neither weigh on the host's garbage
 * collector nor hold its event loop while a table is written or read.
 */

import { bytesOf, decodeName } from '../../print/shared/byte-names.js';

/** Called between slices of work; a caller on the main thread yields to the event loop there. */
export type Pause = () => Promise<void>;

/** Names encoded or decoded between two calls of a {@link Pause}. */
const NAME_SLICE = 4096;
/** Bytes of names decoded between two calls of a {@link Pause} (cut at the next NUL). */
const NAME_BYTES_SLICE = 64 * 1024;
const NUL = Buffer.from([0]);

/**
 * The entries' names, held as one string: name `i` is the text between the `i`-th and the
 * `i + 1`-th NUL (names never hold one), a name cut from the text when it is asked for. Perf:
 * the Linux tree's 84k names as strings of their own would survive the host's scavenges (young
 * objects copied one by one) and hold its event loop for 10-12 ms each during a build.
 */
export class Names {
    /** The names joined by NUL. */
    readonly text: string;
    /** Where each name starts in {@link text} (UTF-16 code units), and one past the last one's NUL. */
    readonly #starts: Uint32Array;

    private constructor(text: string, starts: Uint32Array) {
        this.text = text;
        this.#starts = starts;
    }

    /** The names of `list` (none may hold a NUL). */
    static of(list: readonly string[]): Names {
        const starts = new Uint32Array(list.length + 1);
        let at = 0;
        for (let i = 0; i < list.length; i++) {
            starts[i] = at;
            at += list[i]!.length + 1;
        }
        starts[list.length] = at;
        return new Names(list.join('\0'), starts);
    }

    /** The names in `text`, joined by NUL, `count` of them, starting at `starts` (see {@link decodeNames}). */
    static fromText(text: string, starts: Uint32Array): Names {
        return new Names(text, starts);
    }

    get length(): number {
        return this.#starts.length - 1;
    }

    /** Name `i` (0 ≤ i < {@link length}). */
    get(i: number): string {
        return this.text.slice(this.#starts[i]!, this.#starts[i + 1]! - 1);
    }

    /**
     * Name `i` compared with `name` by UTF-16 code units (negative: name `i` sorts first), without
     * making a string of name `i`.
     */
    compare(i: number, name: string): number {
        const text = this.text;
        const a = this.#starts[i]!;
        const len = this.#starts[i + 1]! - 1 - a;
        const n = Math.min(len, name.length);
        for (let k = 0; k < n; k++) {
            const d = text.charCodeAt(a + k) - name.charCodeAt(k);
            if (d !== 0) return d;
        }
        return len - name.length;
    }

    /** Names `[from, to)` joined by NUL. */
    joined(from: number, to: number): string {
        return this.text.slice(this.#starts[from]!, this.#starts[to]! - 1);
    }

    *[Symbol.iterator](): IterableIterator<string> {
        for (let i = 0; i < this.length; i++) yield this.get(i);
    }
}

/** The names joined by NUL as UTF-8, {@link NAME_SLICE} names between two calls of `pause`. */
export async function encodeNames(names: Names, pause: Pause): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (let i = 0; i < names.length; i += NAME_SLICE) {
        if (i > 0) parts.push(NUL);
        // A name that is not UTF-8 is stored as its bytes (print/shared/byte-names.ts).
        parts.push(bytesOf(names.joined(i, Math.min(names.length, i + NAME_SLICE))));
        await pause();
    }
    return Buffer.concat(parts);
}

/**
 * The names in `bytes[from, to)` (UTF-8, joined by NUL): those of `toString('utf8', from, to).split('\0')`,
 * decoded in pieces of about {@link NAME_BYTES_SLICE} bytes cut at a NUL (which UTF-8 uses for
 * U+0000 alone, so no character is cut), with `pause` between them.
 */
export async function decodeNames(bytes: Buffer, from: number, to: number, pause: Pause): Promise<Names> {
    const pieces: string[] = [];
    let starts = new Uint32Array(1024);
    let n = 0;
    let base = 0;
    const startAt = (at: number): void => {
        if (n === starts.length) {
            const grown = new Uint32Array(starts.length * 2);
            grown.set(starts);
            starts = grown;
        }
        starts[n++] = at;
    };
    for (let at = from; ; ) {
        let cut = to;
        if (at + NAME_BYTES_SLICE < to) {
            const nul = bytes.indexOf(0, at + NAME_BYTES_SLICE);
            if (nul !== -1 && nul < to) cut = nul;
        }
        let piece = bytes.toString('utf8', at, cut);
        if (piece.includes('\uFFFD')) piece = decodeName(bytes.subarray(at, cut));
        pieces.push(piece);
        startAt(base);
        for (let nul = piece.indexOf('\0'); nul !== -1; nul = piece.indexOf('\0', nul + 1)) startAt(base + nul + 1);
        base += piece.length + 1;
        if (cut >= to) break;
        at = cut + 1;
        await pause();
    }
    startAt(base);
    return Names.fromText(pieces.join('\0'), starts.slice(0, n));
}
