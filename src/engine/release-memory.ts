import { createRequire } from 'node:module';

/**
 * Hands the C heap's free pages back to the system when the pool goes idle and after an index's
 * build, merge or listing: the threads' malloc arenas keep what those threads freed, which at ten
 * times the Linux tree held 45-80 MB of a serving process's resident memory. glibc's
 * `malloc_trim` trims every arena; it runs through koffi's asynchronous call, on a libuv thread,
 * since it takes tens of milliseconds on a loaded machine. Elsewhere (another C library, no koffi) it does nothing.
 */

type Trim = ((pad: number) => number) & { async: (pad: number, done: (err: unknown, res: number) => void) => void };

let trim: Trim | null | undefined;

function load(): Trim | null {
    if (trim !== undefined) return trim;
    trim = null;
    if (process.platform !== 'linux') return null;
    try {
        const koffi = createRequire(import.meta.url)('koffi') as { load(path: string | null): { func(signature: string): unknown } };
        trim = koffi.load(null).func('int malloc_trim(size_t)') as Trim;
    } catch {
        // Not glibc (musl has no malloc_trim) or koffi not loadable here.
        trim = null;
    }
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
