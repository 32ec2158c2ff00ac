import { createRequire } from 'node:module';
import v8 from 'node:v8';
import { MessageChannel } from 'node:worker_threads';

/**
 * Hands the C heap's free pages back to the system when the pool goes idle and after an index's
 * build, merge or listing: the threads' malloc arenas keep what those threads freed, which at ten
 * times the Linux tree held 45-80 MB of a serving process's resident memory. glibc's
 * `malloc_trim` trims every arena; it runs through koffi's asynchronous call, on a libuv thread,
 * since it takes tens of milliseconds on a loaded machine. Elsewhere (another C library, no koffi) it does nothing.
 * What trimming cannot return (pages with live chunks, spread over many arenas) the package's own
 * server process keeps down with fewer arenas ({@link limitMallocArenas}).
 */

type Trim = ((pad: number) => number) & { async: (pad: number, done: (err: unknown, res: number) => void) => void };

let trim: Trim | null | undefined;

/** The C library's function of `signature`, through koffi; null where it cannot be had (not Linux, not glibc, no koffi). */
function libc(signature: string): unknown {
    if (process.platform !== 'linux') return null;
    try {
        const koffi = createRequire(import.meta.url)('koffi') as { load(path: string | null): { func(signature: string): unknown } };
        return koffi.load(null).func(signature);
    } catch {
        // Not glibc (musl has no malloc_trim) or koffi not loadable here.
        return null;
    }
}

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

/** The C heap arenas of the package's own server process (the CLI's `mcp` command): the host's thread's and one the threads share. */
export const SERVER_MALLOC_ARENAS = 2;

/** mallopt's parameter for the most arenas (glibc's malloc.h, M_ARENA_MAX). */
const M_ARENA_MAX = -8;

/**
 * Caps the C heap's arenas at `n` for the threads that first allocate from now on (glibc's
 * `mallopt(M_ARENA_MAX, n)`; arenas made already stay, and are shared). glibc gives each thread
 * that allocates while others hold the arenas one of its own, up to eight per core, and an
 * arena keeps what its thread's buffers left behind, which malloc_trim cannot hand back where
 * live chunks remain: at ten times the Linux tree, five arenas of 22-35 MB in the MCP server.
 * For a process of the package's own (the CLI's `mcp` command), never a host's by default.
 * Leaves a limit the environment sets (`MALLOC_ARENA_MAX`, `glibc.malloc.arena_max` in
 * `GLIBC_TUNABLES`) as it is. Returns whether the limit was set here.
 */
export function limitMallocArenas(n: number): boolean {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`Invalid arena count: ${n}; expected a positive integer.`);
    if (process.env['MALLOC_ARENA_MAX'] !== undefined || (process.env['GLIBC_TUNABLES'] ?? '').includes('glibc.malloc.arena_max')) return false;
    const mallopt = libc('int mallopt(int, int)') as ((param: number, value: number) => number) | null;
    return mallopt !== null && mallopt(M_ARENA_MAX, n) === 1;
}

/**
 * Keeps the young generation of the process's main thread at its first size (V8's
 * `--semi-space-growth-factor=1`, read each time a heap would grow it): in the package's own
 * server process the main thread's grew to 16 MB while an index was built and stayed so while
 * serving, where each call makes little garbage. Threads given a young generation of their own
 * (`resourceLimits`, as every pool's are) start at that size and are not changed by it. For a
 * process of the package's own (the CLI's `mcp` command), never a host's by default.
 */
export function keepMainYoungGenerationSmall(): void {
    v8.setFlagsFromString('--semi-space-growth-factor=1');
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
