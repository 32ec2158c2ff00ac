import fs from 'node:fs';
import type { Koffi } from '../../src/fs/shared/native-gate.js';
import { hasEscapedBytes, osPath } from '../../src/print/shared/byte-names.js';
import { heldPath } from '../../src/fs/shared/held.js';

/**
 * statx(2) of an entry of a held directory, for held-at.ts's native layer: by the entry's name,
 * or by the address of its NUL-terminated name (raw-listing.ts, where the kernel wrote it).
 */

/** The two ways of {@link statAtOf}; see held-at.ts `HeldAt.statAt` and `statAtAddress`. */
export interface StatAt {
    statAt?(dirFd: number, name: string, out: Float64Array): number;
    statAtAddress?(dirFd: number, address: number, out: Float64Array): number;
}

/** struct statx's offsets (include/uapi/linux/stat.h): stx_mode, stx_size, stx_btime, stx_ctime, stx_mtime. */
const STX_MODE = 28;
const STX_SIZE = 40;
const STX_BTIME = 80;
const STX_CTIME = 96;
const STX_MTIME = 112;
/** libuv's lstat: STATX_BASIC_STATS | STATX_BTIME, AT_SYMLINK_NOFOLLOW. */
const STATX_MASK = 0xfff;
const AT_SYMLINK_NOFOLLOW = 0x100;

/**
 * {@link StatAt} where the C library exports statx (glibc 2.28, musl 1.2.5); nothing where not.
 * `addressOf` gives a buffer's address (held-at.ts, through `memset`).
 */
export function statAtOf(koffi: Koffi, libc: ReturnType<Koffi['load']>, addressOf: (b: Uint8Array) => number): StatAt {
    let statx: (dirFd: number, name: string, flags: number, mask: number, buf: Buffer) => number;
    let statxAt: (dirFd: number, name: number, flags: number, mask: number, buf: number) => number;
    try {
        statx = libc.func('int statx(int, const char *, int, unsigned int, void *)') as typeof statx;
        // Perf: the name's and the result's addresses as integers: no string koffi encodes and
        // copies per call, no buffer it looks up (0.12-0.19 µs of CPU a call against 0.21-0.25 µs).
        statxAt = libc.func('int statx(int, uintptr_t, int, unsigned int, uintptr_t)') as typeof statxAt;
    } catch {
        return {};
    }
    // Off V8's heap (a new backing store of its own, never moved): its address holds.
    const buf = Buffer.allocUnsafeSlow(256).fill(0);
    const bufAddress = addressOf(buf);
    const u16 = new Uint16Array(buf.buffer, buf.byteOffset, 128);
    const u32 = new Uint32Array(buf.buffer, buf.byteOffset, 64);
    const i32 = new Int32Array(buf.buffer, buf.byteOffset, 64);
    // Node's msFromTimeSpec: seconds * 1e3 + nanoseconds / 1e6, on the doubles libuv gives.
    const ms = (at: number): number => (i32[(at >> 2) + 1]! * 4294967296 + u32[at >> 2]!) * 1e3 + u32[(at >> 2) + 2]! / 1e6;
    const fill = (out: Float64Array): number => {
        out[0] = u16[STX_MODE >> 1]!;
        out[1] = u32[(STX_SIZE >> 2) + 1]! * 4294967296 + u32[STX_SIZE >> 2]!;
        out[2] = ms(STX_MTIME);
        out[3] = ms(STX_BTIME);
        out[4] = ms(STX_CTIME);
        return 0;
    };
    const statAt = (dirFd: number, name: string, out: Float64Array): number => {
        // A name that is not UTF-8 (print/shared/byte-names.ts) goes through the held path as bytes.
        if (hasEscapedBytes(name)) {
            try {
                const st = fs.lstatSync(osPath(`${heldPath(dirFd)}/${name}`));
                out[0] = st.mode;
                out[1] = st.size;
                out[2] = st.mtimeMs;
                out[3] = st.birthtimeMs;
                out[4] = st.ctimeMs;
                return 0;
            } catch (err) {
                return -((err as NodeJS.ErrnoException).errno ?? -1);
            }
        }
        return statx(dirFd, name, AT_SYMLINK_NOFOLLOW, STATX_MASK, buf) < 0 ? koffi.errno() : fill(out);
    };
    const statAtAddress = (dirFd: number, address: number, out: Float64Array): number =>
        statxAt(dirFd, address, AT_SYMLINK_NOFOLLOW, STATX_MASK, bufAddress) < 0 ? koffi.errno() : fill(out);
    return { statAt, statAtAddress };
}
