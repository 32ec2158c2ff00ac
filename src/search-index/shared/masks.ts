import { forEachFoldedByte, LOWER_BYTES as LOWER } from '../../search/shared/fold.js';
import { GramSlots } from './gram-slots.js';
import type { MaskedList } from './posting-codec.js';

/**
 * Per-posting masks of the trigram index: for each (gram, file) posting, two 8-bit masks over the
 * file's folded UTF-8 bytes (the bytes the grams are taken from, src/search/shared/fold.ts):
 * - next-byte mask: the bit {@link NEXT_BIT} of every byte that follows an occurrence of the gram;
 * - location mask: bit `p % 8` of every byte position `p` where the gram starts.
 * Packed in 16 bits: next-byte mask high, location mask low (a gram that occurs has a location
 * bit, so a packed value of 0 means "not seen in this file").
 *
 * A literal of the pattern (its folded bytes, contiguous in the folded text of every file that
 * holds it) starting at `p` puts its gram `i` at `p + i`, followed by the literal's byte `i + 3`:
 * so in such a file, the gram `i`'s next-byte mask has that byte's bit, and `p % 8` is in every
 * gram's location mask rotated back by `i`. {@link keepFitting} checks exactly this: a necessary
 * condition, which only rules files out (the regex still runs on the files it keeps).
 */

/** The next-byte mask's bit of a byte: a hash mixing its high bits in, so that letters and digits spread over all 8 bits. */
export const NEXT_BIT = new Uint8Array(256).map((_, b) => 1 << ((b ^ (b >> 3) ^ (b >> 6)) & 7));

/** `ROTR[r << 8 | x]`: the 8 bits of `x` rotated right by `r` (0-7). */
const ROTR = new Uint8Array(8 * 256).map((_, i) => {
    const r = i >> 8;
    const x = i & 0xff;
    return ((x >>> r) | (x << (8 - r))) & 0xff;
});

/**
 * The ids of `ids` (ascending) in which a literal whose grams are `grams` (gram `i` starting at
 * the literal's byte `i`) may occur, as far as the masks tell. `listOf(g)` gives gram `g`'s
 * posting list, which holds every id of `ids`, or `null` when it was not read: that gram is then
 * left out of the check. Perf: one pass per gram over its list, no call per id (a common word
 * keeps tens of thousands of files).
 */
export function keepFitting(grams: readonly number[], ids: Uint32Array, listOf: (gram: number) => MaskedList | null): Uint32Array {
    // Per id, the positions mod 8 where the literal may start (0: ruled out).
    const start = new Uint8Array(ids.length).fill(0xff);
    for (let i = 0; i < grams.length; i++) {
        const list = listOf(grams[i]!);
        if (list === null) continue;
        const need = i + 1 < grams.length ? NEXT_BIT[grams[i + 1]! & 0xff]! : 0;
        const rot = (i & 7) << 8;
        const lid = list.ids;
        const lm = list.masks;
        for (let k = 0, j = 0; k < ids.length; k++) {
            const id = ids[k]!;
            while (lid[j] !== id) j++;
            const m = lm[j]!;
            start[k] = need !== 0 && ((m >>> 8) & need) === 0 ? 0 : start[k]! & ROTR[rot | (m & 0xff)]!;
        }
    }
    const out = new Uint32Array(ids.length);
    let n = 0;
    for (let k = 0; k < ids.length; k++) if (start[k] !== 0) out[n++] = ids[k]!;
    return out.subarray(0, n);
}

/**
 * Bytes of text from which a file's postings carry masks; a smaller file's are stored without
 * them (posting-codec.ts). Why (docs/search-index.md, "Masks where they pay"): in a small file a
 * literal's grams rarely all occur apart, so the grams alone already rule it out, and a posting's
 * mask bytes are two of its three; at a million small files they made the index 136% of the text.
 */
export const MASKS_FROM = 4096;

/** Whether a file of `textBytes` bytes of text keeps its postings' masks. */
export function masksPay(textBytes: number): boolean {
    return textBytes >= MASKS_FROM;
}

/** The bit of a byte position in the location mask. */
const locBit = (pos: number): number => 1 << (pos & 7);

/**
 * A file's distinct grams with their packed masks, in order of first occurrence, made one file at
 * a time on a build thread. Memory: for ASCII bytes (each below 0x80) over 7-bit packed grams, a
 * slot per possible gram (4 MiB), set back to zero at the file's grams after each file (even when
 * it fails); for decoded text over all 2^24 grams, a map that grows with the file's grams
 * (gram-slots.ts), not a table of 32 MiB whose pages stay resident.
 * Perf: the ASCII table is 8 times denser than the full one (fewer cache and TLB misses): this
 * pass took a third less time on the Linux tree's sources.
 */
export class MaskedGrams {
    #ascii: Uint16Array | null = null;
    #slots: GramSlots | null = null;

    /** The last file's grams and masks: `grams[0..count)`, `masks[0..count)` (views reused by the next file). */
    grams = new Uint32Array(1 << 14);
    masks = new Uint16Array(1 << 14);
    count = 0;

    /** ASCII bytes (each below 0x80; folded as fold.ts folds them: A-Z to a-z), without decoding. */
    ascii(bytes: Uint8Array): void {
        const t = (this.#ascii ??= new Uint16Array(1 << 21));
        this.count = 0;
        if (bytes.length < 3) return;
        // Grams packed 7 bits a byte while counting, unpacked by #collect.
        let w = (LOWER[bytes[0]!]! << 7) | LOWER[bytes[1]!]!;
        let prev = -1;
        try {
            for (let i = 2; i < bytes.length; i++) {
                const b = LOWER[bytes[i]!]!;
                if (prev >= 0) t[prev] = t[prev]! | (NEXT_BIT[b]! << 8);
                w = ((w << 7) | b) & 0x1fffff;
                if (t[w] === 0) this.#add(w);
                t[w] = t[w]! | locBit(i - 2);
                prev = w;
            }
        } finally {
            this.#collect(t);
        }
        for (let i = 0; i < this.count; i++) {
            const k = this.grams[i]!;
            this.grams[i] = ((k >>> 14) << 16) | (((k >>> 7) & 0x7f) << 8) | (k & 0x7f);
        }
    }

    /** Decoded text, folded and encoded as fold.ts's forEachGram does. */
    text(text: string): void {
        const m = (this.#slots ??= new GramSlots());
        this.count = 0;
        let w = 0;
        let pos = 0;
        // The previous gram's slot: a later slot() may move the slots, but only after it is used.
        let prev = -1;
        try {
            forEachFoldedByte(text, (b) => {
                if (prev >= 0) m.values[prev] = m.values[prev]! | (NEXT_BIT[b]! << 8);
                w = ((w << 8) | b) & 0xffffff;
                if (++pos >= 3) {
                    const s = m.slot(w);
                    if (m.added) this.#add(w);
                    m.values[s] = m.values[s]! | locBit(pos - 3);
                    prev = s;
                }
            });
        } finally {
            for (let i = 0; i < this.count; i++) this.masks[i] = m.values[m.slot(this.grams[i]!)]!;
            m.clear();
        }
    }

    #add(g: number): void {
        if (this.count === this.grams.length) {
            const grams = new Uint32Array(this.count * 2);
            grams.set(this.grams);
            this.grams = grams;
            this.masks = new Uint16Array(this.count * 2);
        }
        this.grams[this.count++] = g;
    }

    /** The masks of the file's grams, their slots cleared for the next file. */
    #collect(t: Uint16Array): void {
        for (let i = 0; i < this.count; i++) {
            const g = this.grams[i]!;
            this.masks[i] = t[g]!;
            t[g] = 0;
        }
    }
}
