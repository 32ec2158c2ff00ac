import { constants as C, existsSync, readlinkSync } from 'node:fs';
import { decodeName } from '../../print/shared/byte-names.js';
import fs from 'node:fs/promises';

/**
 * Held descriptors: the one place that knows the open flags of safe opens (reads, directories,
 * in-place writes, new files) and how a descriptor
 * is named and checked through Linux `/proc/self/fd`. A directory or file *held* open is reached
 * by its held path (`/proc/<pid>/fd/N`, see {@link heldPath}), which names the opened object itself: swapping its
 * original path for a link afterwards redirects nothing (the `*at` system calls Node does not
 * expose; the workers call them where they can: workers/fs/held-at.ts). Imported by both threads:
 * the main thread's safe reads and writes (fs/secure.ts and its siblings) and the workers' walk.
 */

/** Reading a file. Security: never blocks on a FIFO, never makes a terminal the controlling one. */
export const READ_FLAGS = C.O_RDONLY | C.O_NONBLOCK | C.O_NOCTTY;
/** {@link READ_FLAGS} refusing a final symlink (one swapped in after the entry was listed or checked). */
export const READ_NOFOLLOW_FLAGS = READ_FLAGS | C.O_NOFOLLOW;
/** Opening a directory to list or hold it. */
export const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NONBLOCK;
/** {@link DIR_FLAGS} refusing a final symlink: a directory swapped for a link is not entered. */
export const DIR_NOFOLLOW_FLAGS = DIR_FLAGS | C.O_NOFOLLOW;
/** Writing an existing file in place (read and write), never through a final symlink. */
export const WRITE_NOFOLLOW_FLAGS = C.O_RDWR | C.O_NOFOLLOW | C.O_NONBLOCK | C.O_NOCTTY;
/** Creating a new file (a temporary or backup file): it must not exist, not even as a link. */
export const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;

/**
 * `/proc/<pid>/fd/` where `/proc/self` names this process (the usual case), else `/proc/self/fd/`.
 * Both name the one descriptor table of all the process's threads; the first skips resolving the
 * `self` link on every open through a held path (Perf: about 1.3 µs less per file opened; `/proc`
 * of another PID namespace, where the numbers differ, keeps `self`).
 */
const HELD_PREFIX = heldPrefix();

function heldPrefix(): string {
    try {
        if (readlinkSync('/proc/self') === String(process.pid)) return `/proc/${process.pid}/fd/`;
    } catch {
        // No /proc (or not Linux's): CAN_HOLD is false and the prefix is never used.
    }
    return '/proc/self/fd/';
}

/** Descriptors can be held by path here (Linux `/proc/self/fd` is mounted). */
export const CAN_HOLD = existsSync('/proc/self/fd');

/** The held path of descriptor `fd`: a link whose target is the descriptor's real path. */
export function heldPath(fd: number): string {
    return `${HELD_PREFIX}${fd}`;
}

/** `p` is a held path (or a path below one). */
export function isHeldPath(p: string): boolean {
    return p.startsWith(HELD_PREFIX);
}

/** The real path of open descriptor `fd`, or `undefined` where descriptors cannot be held (or it cannot be read). */
export function heldRealPathSync(fd: number): string | undefined {
    try {
        // Decoded as the library holds names (print/shared/byte-names.ts), so a real path compares equal.
        return decodeName(readlinkSync(heldPath(fd), { encoding: 'buffer' }));
    } catch {
        return undefined;
    }
}

/** {@link heldRealPathSync}, asynchronously. */
export async function heldRealPath(fd: number): Promise<string | undefined> {
    try {
        return decodeName(await fs.readlink(heldPath(fd), { encoding: 'buffer' }));
    } catch {
        return undefined;
    }
}
