import type fs from 'node:fs';

/**
 * A file's stamp: device, inode, size and modification and change times, as `fstat` gives them.
 * Every write to the file moves its change time, which no caller can set back; so bytes checked
 * while a file had a stamp are still its bytes while it has the same stamp, provided the stamp
 * was settled (see {@link settled}) when they were checked.
 */
export function stampOf(st: fs.Stats | fs.BigIntStats): string {
    // Nanoseconds where the stat has them (`{ bigint: true }`).
    const [m, c] = 'mtimeNs' in st ? [st.mtimeNs, st.ctimeNs] : [st.mtimeMs, st.ctimeMs];
    return `${st.dev}:${st.ino}:${st.size}:${m}:${c}`;
}

/**
 * Time past a file's last change before its stamp vouches for its bytes: a write within the same
 * tick of the file system's clock as the change before it leaves the times as they were (coarse
 * clocks tick every few milliseconds, some file systems keep whole seconds). Bytes checked
 * sooner are checked again on each read until a check comes this long after the change.
 */
export const SETTLED_MS = 2000;

/** Whether the stamp of `st`, taken at `now` (epoch ms), is old enough to vouch for bytes checked after it was taken. */
export function settled(st: fs.Stats, now = Date.now()): boolean {
    return now - Math.max(st.mtimeMs, st.ctimeMs) >= SETTLED_MS;
}
