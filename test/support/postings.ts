import { putPosting } from '../../src/search-index/shared/posting-codec.js';

/**
 * The bytes of a posting list of `ids` (ascending, local to the list's first id): every third
 * posting without masks (0), as the build stores a small file's, the others with masks made from
 * the id and `factor`.
 */
export function postingBytes(ids: readonly number[], factor: number): Uint8Array {
    const buf = new Uint8Array(ids.length * 8 + 8);
    let at = 0;
    let prev = -1;
    for (const id of ids) {
        at = putPosting(buf, at, id - prev, id % 3 === 0 ? 0 : (id * factor) & 0xffff || 1);
        prev = id;
    }
    return buf.subarray(0, at);
}
