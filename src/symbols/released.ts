import { releaseSoon } from '../engine/release-memory.js';

/** How many releases navigation calls asked for (read by tests). */
export const releases = { asked: 0 };

/**
 * `answer`, and once it settles the C heap's free pages handed back to the system (`release`; a
 * release under way stands for the next). A navigation call's reads, inflated rows and parse
 * results leave their freed memory in the threads' malloc arenas, where it would stay until the
 * pool's idle release 2 s later: right after a mix of the five tools on the Linux tree, some
 * 60 MB of the serving process's resident memory. The release runs on a libuv thread, not on the
 * event loop.
 */
export function releasedAfter<T>(answer: Promise<T>, release: () => void = releaseSoon): Promise<T> {
    return answer.finally(() => {
        releases.asked++;
        release();
    });
}
