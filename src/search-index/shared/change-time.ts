/**
 * The file table's change time (ctime) of an entry, folded to 32 bits. The change time cannot be
 * set back by a user (any write, chmod, chown, link or rename moves it), so a file rewritten in
 * place with its size and modification time restored (`cp -p` over it, `rsync --inplace -t`,
 * `touch -r`) differs from the table by it.
 *
 * Memory: 4 bytes per entry where the f64 of Node's `ctimeMs` would take 8 (3.3 MB against
 * 6.7 MB at ten times the Linux tree), and held while serving. Only "equal or not" is asked of
 * it: the fold is a bijection of the double's low word for a given high word (two change times
 * within the same 2^20 ms, about 17 minutes, never fold alike), mixed with the high word for the
 * rest (a collision there is a 2^-32 chance, and only matters for a file whose size and
 * modification time are the table's too).
 */

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** The fold of `ctimeMs` (Node's arithmetic: seconds * 1e3 + nanoseconds / 1e6); 0 for 0 (no stat). */
export function foldChangeTime(ctimeMs: number): number {
    if (ctimeMs === 0) return 0;
    f64[0] = ctimeMs;
    // Little-endian words: [0] the low 32 bits of the mantissa, [1] sign, exponent, its top 20 bits.
    let h = u32[0]! ^ Math.imul(u32[1]!, 0x9e3779b1);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
}
