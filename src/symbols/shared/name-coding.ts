import { copyBytes, putVarint, VarintReader } from './symbol-codec.js';

/**
 * The symbol table's names (symbol-format.ts): front coded in blocks, each name the bytes it
 * shares with the one before (none for a block's first) and the rest. A name shares only up to a
 * cut (see {@link nameCut}), so that a word's occurrence in a name is never split between the
 * shared bytes and the rest except at a cut: a byte search of the coded bytes for the word's part
 * after its last cut ({@link searchPiece}) then finds every block holding a name with the word,
 * without decoding the names (the host keeps them on disk and searches them as they are read).
 */

const isLowerOrDigit = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
const isUpper = (c: number): boolean => c >= 0x41 && c <= 0x5a;

/**
 * Whether a name's bytes may be cut before byte `p` (0 < p < bytes.length): after a byte that is
 * not an ASCII letter or digit (`_`, `$`, `.`, any byte of a character past ASCII), or between a
 * lowercase letter or digit and an uppercase letter (`getFoo|Bar`). Decided by the two bytes
 * around `p` alone, so a word holding both decides it as any name holding the word does.
 */
export function nameCut(bytes: Uint8Array, p: number): boolean {
    const a = bytes[p - 1]!;
    return !(isLowerOrDigit(a) || isUpper(a)) || (isLowerOrDigit(a) && isUpper(bytes[p]!));
}

/**
 * The part of `word` (bytes) that every name holding it holds in its coded bytes: from its last
 * cut on (the whole word when it has none). Where the word stands in a name's shared bytes, it
 * stands in the name before too, down to the block's first name, which shares nothing.
 */
export function searchPiece(word: Uint8Array): Uint8Array {
    for (let p = word.length - 1; p > 0; p--) if (nameCut(word, p)) return word.subarray(p);
    return word;
}

/**
 * The bytes a name (its first `length` bytes) shares with the one before it (`prev`'s first
 * `prevLength`; none at a block's first name), cut back to a cut.
 */
export function sharedBytes(name: Uint8Array, prev: Uint8Array, length = name.length, prevLength = prev.length): number {
    const most = Math.min(length, prevLength);
    let shared = 0;
    while (shared < most && name[shared] === prev[shared]) shared++;
    while (shared > 0 && (shared >= length || !nameCut(name, shared))) shared--;
    return shared;
}

/** One name (its first `length` bytes) written into `out` from `at` (room for 20 bytes past the name): its shared bytes, the rest's length, the rest. */
export function putName(out: Uint8Array, at: number, name: Uint8Array, shared: number, length = name.length): number {
    at = putVarint(out, at, shared);
    const rest = length - shared;
    at = putVarint(out, at, rest);
    copyBytes(out, at, name, shared, rest);
    return at + rest;
}

/** A block of names decoded: their bytes, each ended by `\n`, and where each starts (names + 1). */
export interface NameBlock {
    text: Buffer;
    starts: number[];
}

/**
 * Block of `names` names from `coded[from, to)`, checked as it is decoded: the first name shares
 * nothing, each shares no more than the name before holds and only up to a cut, and the block
 * ends where its names do. @throws RangeError when not.
 */
export function decodeNameBlock(coded: Uint8Array, from: number, to: number, names: number): NameBlock {
    const r = new VarintReader(coded, from, to);
    const text = Buffer.allocUnsafe(2 * (to - from) + names * 64);
    let out = text;
    const starts: number[] = [];
    let [at, prev] = [0, 0];
    for (let n = 0; n < names; n++) {
        if (r.at >= to) throw new RangeError('names: fewer than counted');
        const shared = r.next();
        const rest = r.next();
        if ((n === 0 && shared !== 0) || shared > at - prev - (n === 0 ? 0 : 1) || r.at + rest > to) throw new RangeError('names: a name does not fit');
        if (at + shared + rest + 1 > out.length) {
            const bigger = Buffer.allocUnsafe(2 * (at + shared + rest + 1));
            out.copy(bigger, 0, 0, at);
            out = bigger;
        }
        starts.push(at);
        const start = at;
        // Perf: a byte loop beats a native copy per name (most names share under 30 bytes).
        for (let i = 0; i < shared; i++) out[at++] = out[prev + i]!;
        for (let i = 0; i < rest; i++) out[at++] = coded[r.at + i]!;
        if (shared > 0 && (rest === 0 || !nameCut(out, start + shared))) throw new RangeError('names: a name shares past a cut');
        r.at += rest;
        prev = start;
        out[at++] = 0x0a;
    }
    if (r.at !== to) throw new RangeError('names: block does not end where its names do');
    starts.push(at);
    return { text: out.subarray(0, at), starts };
}
