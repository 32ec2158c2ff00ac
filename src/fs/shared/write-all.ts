import fs from 'node:fs';

/** Writes all of `bytes` to `fd`, at `position` (at the file's offset when absent); a short write is continued. */
export function writeAll(fd: number, bytes: Uint8Array, position?: number): void {
    for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at, position === undefined ? null : position + at);
}
