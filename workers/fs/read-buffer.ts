import fs from 'node:fs';
import { chosenAt, heldAt } from './held-at.js';

/**
 * Buffers that files are read into, placed half a page into a memory page.
 *
 * Perf: the kernel copies a read's bytes from the page cache, whose pages start on 4 KiB
 * boundaries, into the caller's buffer. On the project's benchmark machine (AMD EPYC, a VM) that
 * copy runs at about half speed into a buffer starting 16 bytes into a page, which is where the
 * C library puts a large allocation (an mmap'd chunk after its 16-byte header), as the scan's
 * reusable buffer is once grown to 1 MiB: a single-threaded full scan of the Linux 6.1 tree takes
 * 2.3-2.5 s with the buffer there and 1.6 s with it started 2,048 bytes into its page.
 *
 * The address is learnt through held-at.ts's native layer (koffi), where this thread uses it;
 * elsewhere (another platform, `LLM_CHAT_FILE_NATIVE_AT=0`) the buffer is used where it lies.
 */

/** Size of a memory page and of a page-cache page, in bytes (4 KiB on Linux x86-64 and arm64; a multiple of it works as well). */
export const PAGE_BYTES = 4096;
/** Where in its page a read buffer starts, in bytes. */
export const READ_BUFFER_PAGE_OFFSET = 2048;

/**
 * A new buffer of `size` bytes (contents unset) starting {@link READ_BUFFER_PAGE_OFFSET} bytes
 * into a memory page where its address can be learnt; a plain `Buffer.allocUnsafeSlow(size)`
 * otherwise. It holds up to a page more memory than `size`. `load`: choose held-at.ts's layer
 * for this thread if not chosen yet (koffi loaded, where the native layer is used); `false`: use
 * it only if this thread has chosen it already: a task that does not need the native layer
 * otherwise (a windowed read) does not load an addon for a buffer's placement.
 */
export function readBuffer(size: number, load = true): Buffer {
    const addressOf = (load ? heldAt() : chosenAt())?.addressOf;
    if (addressOf === undefined) return Buffer.allocUnsafeSlow(size);
    const raw = Buffer.allocUnsafeSlow(size + PAGE_BYTES);
    const inPage = Number(addressOf(raw) % BigInt(PAGE_BYTES));
    const skip = (READ_BUFFER_PAGE_OFFSET - inPage + PAGE_BYTES) % PAGE_BYTES;
    return raw.subarray(skip, skip + size);
}

/**
 * The bytes of a file whose size is not known before it is read (a procfs or sysfs file, whose
 * stat says 0 bytes): `head` holds its first `got` bytes; the rest is read by position until a
 * read returns nothing or `limit` bytes are in. Returns `head` itself when they fit in it, else a
 * buffer of its own, grown by doubling (the caller's reusable buffer is never replaced).
 */
export function readToEnd(fd: number, head: Buffer, got: number, limit: number): Buffer {
    let buf = head;
    while (got < limit) {
        if (got === buf.length) {
            // Never loads the native layer for the placement: the scan that called this has chosen it already.
            const grown = readBuffer(Math.min(limit, buf.length * 2), false);
            buf.copy(grown, 0, 0, got);
            buf = grown;
        }
        const n = fs.readSync(fd, buf, got, Math.min(buf.length, limit) - got, got);
        if (n === 0) break;
        got += n;
    }
    return buf.subarray(0, got);
}
