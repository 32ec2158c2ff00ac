/**
 * The suite keeps a caller's own background threads (a build's walk, a tree check, a merge) for
 * the next caller alike (`setOwnThreadsIdleMs`, set in hooks.setup.ts): the index tests check and
 * build small trees one after another, and each own thread started anew cost some 55 ms of CPU.
 * A test of the package's default, where those threads end with their caller, turns it off.
 */
import { onTestFinished } from 'vitest';
import { setOwnThreadsIdleMs } from '../../src/engine/background-pool.js';

export const OWN_THREADS_IDLE_MS = 30_000;

/** Until the calling test ends, a caller's own threads end with it (the package's default). */
export function ownThreadsEndWithCaller(): void {
    setOwnThreadsIdleMs(0);
    onTestFinished(() => setOwnThreadsIdleMs(OWN_THREADS_IDLE_MS));
}
