import { createRequire } from 'node:module';
import os from 'node:os';
import { nativeSection, type Koffi } from '../../src/fs/shared/native-gate.js';

/**
 * Priority of the engine's pool threads and of the index build's threads (its own pool's, ended
 * with the build). Linux keeps a nice value and a scheduling policy per thread, so both apply to
 * the calling thread only; elsewhere (macOS, Windows) `os.setPriority(0, n)` changes the whole
 * process, the host's own thread with it, so threads keep their priority there.
 *
 * - nice: `os.setPriority(0, nice)` (setpriority(2) on the calling thread, Linux only). The
 *   engine's pool threads take the engine's `workerNice` (src/engine/engine.ts) this way as they
 *   start (entry.cts) and again when their code loads (pool-worker.ts).
 * - Linux, index build only: the `SCHED_IDLE` policy (sched(7)), set with sched_setscheduler(2)
 *   through the `koffi` FFI package. Perf: a thread at nice 10 still keeps its CPU for a while
 *   when the host's thread wakes (the scheduler only preempts it once their virtual run times
 *   differ by the wakeup granularity), so the host's event loop can wait up to 15 ms in the run
 *   queue while two build threads hold both CPUs; a task of a normal
 *   policy waking on a CPU where a SCHED_IDLE one runs preempts it at once. Cost: on a machine
 *   whose CPUs are never idle the build makes almost no progress (searches keep the scan path
 *   meanwhile).
 */

/** Linux's SCHED_IDLE policy number (include/uapi/linux/sched.h). */
const SCHED_IDLE = 5;

/** Minimal view of koffi's API used here. */
/** What holds for a thread's priority: its nice value (0 to 19 here) and whether it runs under SCHED_IDLE. */
export interface ThreadPriority {
    nice: number;
    idle: boolean;
}

/**
 * Whether `os.setPriority(0, n)` changes the calling thread only (Linux: setpriority(2), NOTES).
 * entry.cts repeats this check and the lowering: it must stay CommonJS and load no ES module
 * synchronously.
 */
const PER_THREAD = process.platform === 'linux';

/** The priority this thread took (raising a nice value back needs privileges, so it only goes down). */
let taken: ThreadPriority | undefined;

/**
 * Lowers the calling thread to `nice` and, on Linux, to SCHED_IDLE (the index build's threads).
 * Best effort: where the system refuses, the thread keeps its priority. Returns what holds for
 * the thread afterwards; `nice` undefined: changes nothing.
 */
export function takeBackground(nice: number | undefined): ThreadPriority {
    return lower(nice, true);
}

/** The priority a background task asks for: {@link takeNice} when it shares the CPU with searches (`idle: false`), else {@link takeBackground}. */
export function takeTaskPriority(task: { nice?: number; idle?: boolean }): ThreadPriority {
    return task.idle === false ? takeNice(task.nice) : takeBackground(task.nice);
}

/**
 * Lowers the calling thread to `nice` (0 to 19; the engine's pool threads, at its `workerNice`),
 * keeping its scheduling policy. Linux only (elsewhere it would lower the whole process): changes
 * nothing on other systems, for `nice` undefined, or where the thread is at `nice` or lower
 * already. Best effort: where the system refuses, the thread keeps its priority. Returns what
 * holds for the thread afterwards.
 */
export function takeNice(nice: number | undefined): ThreadPriority {
    return lower(nice, false);
}

function lower(nice: number | undefined, idle: boolean): ThreadPriority {
    if (nice === undefined || !PER_THREAD) return { nice: os.getPriority(0), idle: taken?.idle ?? false };
    if (taken !== undefined && taken.nice >= nice && (taken.idle || !idle)) return taken;
    try {
        if (os.getPriority(0) < nice) os.setPriority(0, nice);
    } catch {
        // not permitted here
    }
    taken = { nice: os.getPriority(0), idle: taken?.idle === true || (idle && setIdlePolicy()) };
    return taken;
}

function setIdlePolicy(): boolean {
    if (!PER_THREAD || (process.arch !== 'x64' && process.arch !== 'arm64')) return false;
    try {
        // Loaded where the host does not terminate this thread (src/fs/shared/native-gate.ts).
        // struct sched_param is one int (sched_priority, 0 for SCHED_IDLE); pid 0: the calling thread.
        const set = nativeSection(
            () => (createRequire(import.meta.url)('koffi') as Koffi).load(null).func('int sched_setscheduler(int, int, _In_ int *)') as (pid: number, policy: number, param: number[]) => number,
        );
        return set(0, SCHED_IDLE, [0]) === 0;
    } catch {
        return false;
    }
}
