import { createRequire } from 'node:module';

/**
 * The C library's functions the package calls (through koffi), and the cap on the C heap's
 * arenas of the package's own server process. This module imports nothing but `node:module`:
 * src/cli.ts sets the cap before anything else of the package loads, and each module loaded
 * before it gives the runtime's threads the chance to take arenas of their own, which the cap
 * does not take back (importing `node:v8` and `node:worker_threads` there was enough for two or
 * three more).
 */

/** The C library's function of `signature`, through koffi; null where it cannot be had (not Linux, not glibc, no koffi). */
export function libc(signature: string): unknown {
    if (process.platform !== 'linux') return null;
    try {
        const koffi = createRequire(import.meta.url)('koffi') as { load(path: string | null): { func(signature: string): unknown } };
        return koffi.load(null).func(signature);
    } catch {
        // Not glibc (musl has no malloc_trim) or koffi not loadable here.
        return null;
    }
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
