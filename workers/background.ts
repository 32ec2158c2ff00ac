import { createRequire } from 'node:module';
import os from 'node:os';

/**
 * Priority of the index build's threads (its own pool's, ended with the build). Linux keeps a
 * nice value and a scheduling policy per thread, so both apply to the calling thread only.
 *
 * - nice: `os.setPriority(0, nice)`, everywhere Node supports it.
 * - Linux: the `SCHED_IDLE` policy (sched(7)), set with sched_setscheduler(2) through the `koffi`
 *   FFI package. Perf: a thread at nice 10 still keeps its CPU for a while when the host's thread
 *   wakes (the scheduler only preempts it once their virtual run times differ by the wakeup
 *   granularity), and the host's event loop waited up to 15 ms in the run queue while two build
 *   threads held both CPUs (index bench, issue 10); a task of a normal policy waking on a CPU where
 *   a SCHED_IDLE one runs preempts it at once. Cost: on a machine whose CPUs are never idle the
 *   build makes almost no progress (searches keep the scan path meanwhile).
 */

/** Linux's SCHED_IDLE policy number (include/uapi/linux/sched.h). */
const SCHED_IDLE = 5;

/** Minimal view of koffi's API used here. */
interface Koffi {
    load(path: string | null): { func(signature: string): (...args: unknown[]) => unknown };
}

/** The policies this thread took (one call per thread is enough). */
let taken: { nice: number; idle: boolean } | undefined;

/**
 * Lowers the calling thread to `nice` (and, on Linux, to SCHED_IDLE). Best effort: where the
 * system refuses, the thread keeps its priority. Returns what holds for the thread afterwards:
 * its nice value and whether it runs under SCHED_IDLE.
 */
export function takeBackground(nice: number | undefined): { nice: number; idle: boolean } {
    if (nice === undefined) return { nice: os.getPriority(0), idle: taken?.idle ?? false };
    if (taken !== undefined && taken.nice >= nice) return taken;
    try {
        if (os.getPriority(0) < nice) os.setPriority(0, nice);
    } catch {
        // not permitted here
    }
    taken = { nice: os.getPriority(0), idle: taken?.idle === true || setIdlePolicy() };
    return taken;
}

function setIdlePolicy(): boolean {
    if (process.platform !== 'linux' || (process.arch !== 'x64' && process.arch !== 'arm64')) return false;
    try {
        const koffi = createRequire(import.meta.url)('koffi') as Koffi;
        const libc = koffi.load(null);
        // struct sched_param is one int (sched_priority, 0 for SCHED_IDLE); pid 0: the calling thread.
        const set = libc.func('int sched_setscheduler(int, int, _In_ int *)') as (pid: number, policy: number, param: number[]) => number;
        return set(0, SCHED_IDLE, [0]) === 0;
    } catch {
        return false;
    }
}
