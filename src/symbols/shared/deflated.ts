import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * The symbol table's rows (a block's, by name) and rows by file (a file's) are stored deflated,
 * each unit on its own, so that one is read and inflated alone. Their varints repeat much (a
 * generated header's `#define`s share a file and count up their lines): deflate takes the
 * kernel's rows to about half their bytes, where a block inflates in some 10 µs.
 */

/**
 * A unit's bytes deflated (none for none), in a buffer of their own: zlib's synchronous output
 * is a view of its 16 KiB output chunk, so a unit of a few bytes held as returned would hold the
 * whole chunk (the merge's rows by file of the Linux tree: some 900 MB).
 */
export function deflated(raw: Uint8Array): Buffer {
    if (raw.length === 0) return Buffer.alloc(0);
    const z = deflateRawSync(raw, { level: 9 });
    const own = Buffer.allocUnsafeSlow(z.length);
    z.copy(own);
    return own;
}

/** A unit's bytes inflated, at most `most` bytes (a unit that would inflate past it is not the writer's). @throws RangeError when they do not inflate. */
export function inflated(bytes: Uint8Array, most: number): Buffer {
    if (bytes.length === 0) return Buffer.alloc(0);
    try {
        return inflateRawSync(bytes, { maxOutputLength: Math.max(1, most) });
    } catch (err) {
        throw new RangeError(`does not inflate: ${err instanceof Error ? err.message : String(err)}`);
    }
}

/** Bytes a block's rows take at most, raw: a count per name, five varints of 10 bytes per row. */
export const rowBytesAtMost = (names: number, defs: number): number => 10 * names + 50 * defs;
