import v8 from 'node:v8';
import { MessageChannel } from 'node:worker_threads';
import { libc } from './malloc-arenas.js';

/**
 * Hands the C heap's free pages back to the system when the pool goes idle and after an index's
 * build, merge or listing: the threads' malloc arenas keep what those threads freed, which at ten
 * times the Linux tree held 45-80 MB of a serving process's resident memory. glibc's
 * `malloc_trim` trims every arena; it runs through koffi's asynchronous call, on a libuv thread,
 * since it takes tens of milliseconds on a loaded machine. Elsewhere (another C library, no koffi) it does nothing.
 * What trimming cannot return (pages with live chunks, spread over many arenas) the package's own
 * server process keeps down with fewer arenas (malloc-arenas.ts `limitMallocArenas`).
 */

type Trim = ((pad: number) => number) & { async: (pad: number, done: (err: unknown, res: number) => void) => void };

let trim: Trim | null | undefined;

function load(): Trim | null {
    trim ??= libc('int malloc_trim(size_t)') as Trim | null;
    return trim;
}

/** Returns the C heap's free memory to the system; resolves when done (true: it ran), never rejects. */
export function releaseFreedMemory(): Promise<boolean> {
    const t = load();
    if (t === null) return Promise.resolve(false);
    return new Promise((resolve) => t.async(0, (err) => resolve(err === null || err === undefined)));
}

/** A release under way (see {@link releaseSoon}). */
let releasing: Promise<boolean> | null = null;

/** {@link releaseFreedMemory}, unless one is under way already (then that one stands for it). */
export function releaseSoon(): void {
    releasing ??= releaseFreedMemory().finally(() => {
        releasing = null;
    });
}

/** The flag that keeps a young generation from growing (V8 reads it each time a heap would grow it). */
const YOUNG_GENERATION_FIXED = '--semi-space-growth-factor=1';

/**
 * Keeps the young generation of the process's main thread at its first size (V8's
 * `--semi-space-growth-factor=1`): in the package's own server process the main thread's grew to
 * 32 MB while an index was built and stayed so while serving, where each call makes little
 * garbage. Node sets V8's flags again from the command line as each thread comes up, which undoes
 * the flag, so it is set again as each thread comes online. The flag is the process's: the pools'
 * threads (`resourceLimits`) keep theirs at its first size too, within what they are given. For a
 * process of the package's own (the CLI's `mcp` command), never a host's by default.
 */
export function keepMainYoungGenerationSmall(): void {
    v8.setFlagsFromString(YOUNG_GENERATION_FIXED);
    process.on('worker', (worker) => worker.once('online', () => v8.setFlagsFromString(YOUNG_GENERATION_FIXED)));
}

/**
 * Frees `buffer`'s memory now, not at the next full garbage collection, which a host that makes
 * little garbage may not run for minutes: it is moved into a message that is dropped unread (the
 * buffer is detached; a view of it has length 0 from then on).
 */
export function freeBuffer(buffer: ArrayBuffer): void {
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(null, [buffer]);
    port1.close();
    port2.close();
}
