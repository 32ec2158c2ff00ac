/**
 * The file table's names (format.ts): held as their bytes, as the table file stores them, with
 * where each one starts, rather than as strings; each name is decoded when it is asked for. Perf:
 * a large tree's names as strings (one each, or one joined string of 10 MB at ten times the Linux
 * tree) would live on the host's heap, slow its scavenges and set off a full collection of 50 ms
 * or more while a built table is decoded; as bytes they are outside that heap and decoding a table
 * only finds the NULs.
 */

import { bytesOf, decodeName, hasEscapedBytes } from '../../print/shared/byte-names.js';

/** Called between slices of work; a caller on the main thread yields to the event loop there. */
export type Pause = () => Promise<void>;

/** Bytes of names looked through (for their NULs) or copied between two calls of a {@link Pause}. */
const NAME_BYTES_SLICE = 64 * 1024;
const REPLACEMENT = '\uFFFD';

/**
 * The entries' names: name `i` is the bytes between the `i`-th and the `i + 1`-th NUL of
 * {@link bytes} (names never hold one): UTF-8, a byte that is not part of valid UTF-8 as itself
 * (print/shared/byte-names.ts), so a name decodes to the string the walk listed.
 */
export class Names {
    /** The names' bytes joined by NUL. */
    readonly bytes: Buffer;
    /** Where each name starts in {@link bytes}, and the last one's end plus one. */
    readonly #starts: Uint32Array;

    private constructor(bytes: Buffer, starts: Uint32Array) {
        this.bytes = bytes;
        this.#starts = starts;
    }

    /** The names of `list` (none may hold a NUL). */
    static of(list: readonly string[]): Names {
        const starts = new Uint32Array(list.length + 1);
        let at = 0;
        for (let i = 0; i < list.length; i++) {
            starts[i] = at;
            const name = list[i]!;
            at += (hasEscapedBytes(name) ? bytesOf(name).length : Buffer.byteLength(name, 'utf8')) + 1;
        }
        starts[list.length] = at;
        const bytes = Buffer.allocUnsafeSlow(Math.max(0, at - 1));
        for (let i = 0; i < list.length; i++) {
            const name = list[i]!;
            const from = starts[i]!;
            if (hasEscapedBytes(name)) bytesOf(name).copy(bytes, from);
            else bytes.write(name, from, 'utf8');
            if (i + 1 < list.length) bytes[starts[i + 1]! - 1] = 0;
        }
        return new Names(bytes, starts);
    }

    get length(): number {
        return this.#starts.length - 1;
    }

    /** Where name `i`'s bytes start in {@link bytes}. */
    startOf(i: number): number {
        return this.#starts[i]!;
    }

    /** Where name `i`'s bytes end in {@link bytes} (its NUL, or the end). */
    endOf(i: number): number {
        return this.#starts[i + 1]! - 1;
    }

    /** Name `i` (0 ≤ i < {@link length}). */
    get(i: number): string {
        const a = this.#starts[i]!;
        const b = this.#starts[i + 1]! - 1;
        const s = this.bytes.toString('utf8', a, b);
        // Node decodes an invalid byte as U+FFFD: such a name is decoded byte for byte.
        return s.includes(REPLACEMENT) ? decodeName(this.bytes.subarray(a, b)) : s;
    }

    /**
     * Name `i` compared with `name` by UTF-16 code units (negative: name `i` sorts first); an
     * ASCII name is compared in place, byte by byte, without making a string of it.
     */
    compare(i: number, name: string): number {
        const bytes = this.bytes;
        const a = this.#starts[i]!;
        const len = this.#starts[i + 1]! - 1 - a;
        const n = Math.min(len, name.length);
        for (let k = 0; k < n; k++) {
            const x = bytes[a + k]!;
            const c = name.charCodeAt(k);
            // UTF-8 bytes order as code points, not as UTF-16 code units: past ASCII, as strings.
            if (x >= 0x80 || c >= 0x80) return compareUnits(this.get(i), name);
            if (x !== c) return x - c;
        }
        // One is a prefix of the other, ASCII up to there: the shorter sorts first.
        return len - name.length;
    }

    /** Names `[from, to)` joined by NUL. */
    joined(from: number, to: number): string {
        return decodeName(this.bytes.subarray(this.#starts[from]!, Math.max(this.#starts[from]!, this.#starts[to]! - 1)));
    }

    /** The same names in memory of their own ({@link bytes} may be a view of a larger buffer, then freed), copied in slices with `pause` between them. */
    async compacted(pause: Pause): Promise<Names> {
        const src = this.bytes;
        const bytes = Buffer.allocUnsafeSlow(src.length);
        for (let at = 0; at < src.length; at += NAME_BYTES_SLICE) {
            src.copy(bytes, at, at, Math.min(src.length, at + NAME_BYTES_SLICE));
            await pause();
        }
        return new Names(bytes, this.#starts);
    }

    /** The names in `bytes`, joined by NUL, starting at `starts` (see {@link decodeNames}). */
    static fromBytes(bytes: Buffer, starts: Uint32Array): Names {
        return new Names(bytes, starts);
    }

    *[Symbol.iterator](): IterableIterator<string> {
        for (let i = 0; i < this.length; i++) yield this.get(i);
    }
}

/** `a` compared with `b` by UTF-16 code units. */
function compareUnits(a: string, b: string): number {
    const n = Math.min(a.length, b.length);
    for (let k = 0; k < n; k++) {
        const d = a.charCodeAt(k) - b.charCodeAt(k);
        if (d !== 0) return d;
    }
    return a.length - b.length;
}

/** The names' bytes joined by NUL, as the table file stores them (a view, not a copy). */
export async function encodeNames(names: Names, _pause: Pause): Promise<Buffer> {
    return names.bytes;
}

/**
 * The names in `bytes[from, to)` (joined by NUL): those of `toString('utf8', from, to).split('\0')`,
 * a view of `bytes` (not a copy), its NULs found {@link NAME_BYTES_SLICE} bytes between two calls of `pause`.
 */
export async function decodeNames(bytes: Buffer, from: number, to: number, pause: Pause): Promise<Names> {
    let starts = new Uint32Array(1024);
    let n = 0;
    const startAt = (at: number): void => {
        if (n === starts.length) {
            const grown = new Uint32Array(starts.length * 2);
            grown.set(starts);
            starts = grown;
        }
        starts[n++] = at;
    };
    const view = bytes.subarray(from, to);
    // Perf: Buffer's indexOf costs two to three times as much over shared memory (a reopen's
    // table: 57 ms against 26 ms for a loop, ten copies of the Linux tree); elsewhere it is the faster.
    const shared = view.buffer instanceof SharedArrayBuffer;
    startAt(0);
    for (let at = 0; at < view.length; ) {
        const stop = Math.min(view.length, at + NAME_BYTES_SLICE);
        if (shared) {
            for (let i = at; i < stop; i++) if (view[i] === 0) startAt(i + 1);
        } else for (let nul = view.indexOf(0, at); nul !== -1 && nul < stop; nul = view.indexOf(0, nul + 1)) startAt(nul + 1);
        at = stop;
        await pause();
    }
    startAt(view.length + 1);
    return Names.fromBytes(view, starts.slice(0, n));
}
