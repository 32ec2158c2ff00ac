/**
 * glibc's thread arenas in a process's memory map. Each arena beside the main one (which grows
 * the program break) lives in a heap of its own, mapped at a multiple of its maximum size (64 MiB
 * on 64-bit): its used part read-write, the rest reserved (`---p`) up to that size.
 */

/** glibc's version, as Node's report gives it; absent with another C library. */
export const GLIBC = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;

/** Whether the arena count of a process can be read here: Linux x86-64 or arm64 with glibc. */
export const ARENAS_READABLE = process.platform === 'linux' && GLIBC !== undefined && (process.arch === 'x64' || process.arch === 'arm64');

const HEAP_MAX = 64n << 20n;

/** The thread arenas (64 MiB heaps) in `maps`, the text of a `/proc/<pid>/maps`. */
export function arenasIn(maps: string): number {
    const rows = maps
        .trim()
        .split('\n')
        .map((line) => {
            const [range, perm] = line.split(' ');
            const [start, end] = range!.split('-').map((x) => BigInt(`0x${x}`));
            return { start: start!, end: end!, perm: perm! };
        });
    let n = 0;
    for (const [i, m] of rows.entries()) {
        if (m.start % HEAP_MAX !== 0n || !m.perm.startsWith('rw')) continue;
        const next = rows[i + 1];
        if (m.end - m.start === HEAP_MAX || (next !== undefined && next.start === m.end && next.perm === '---p' && next.end - m.start === HEAP_MAX)) n++;
    }
    return n;
}
