import { putPosting, putPostings } from '../../src/search-index/shared/posting-codec.js';

/** The packed masks the helpers give local id `id`: none (0) for every third id, as the build stores a small file's, else made from the id and `factor`. */
const maskOf = (id: number, factor: number): number => (id % 3 === 0 ? 0 : (id * factor) & 0xffff || 1);

/**
 * The bytes of a posting list of `ids` (ascending, local to the list's first id) as single
 * postings only, every third posting without masks (0), as the build stores a small file's, the
 * others with masks made from the id and `factor`.
 */
export function postingBytes(ids: readonly number[], factor: number): Uint8Array {
    const buf = new Uint8Array(ids.length * 8 + 8);
    let at = 0;
    let prev = -1;
    for (const id of ids) {
        at = putPosting(buf, at, id - prev, maskOf(id, factor));
        prev = id;
    }
    return buf.subarray(0, at);
}

/** The same list as the build encodes it: runs of 128 postings packed where that is shorter (posting-pack.ts). */
export function packedPostingBytes(ids: readonly number[], factor: number): Uint8Array {
    const buf = new Uint8Array(ids.length * 8 + 8);
    return buf.subarray(0, putPostings(buf, 0, ids, ids.map((id) => maskOf(id, factor)), 0, ids.length, -1));
}

/** The two encodings the decoding tests run on, by name. */
export const ENCODINGS: [string, (ids: readonly number[], factor: number) => Uint8Array][] = [
    ['single postings', postingBytes],
    ['packs', packedPostingBytes],
];
