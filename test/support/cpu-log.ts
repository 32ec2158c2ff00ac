/**
 * Per-file CPU for measuring the suite: with `LLM_CHAT_FILE_TEST_CPU_LOG=<file>` set, each test
 * file appends one JSON line (file, project, wall ms, CPU ms of its fork including the pool's
 * threads and the subprocesses it waited for, and of it the system's, worker threads started, the
 * fork's heap after it). Off by default; the fork's
 * own clock is the only one that sees the pool threads a file starts, which a per-file `time` of
 * vitest cannot split.
 */
import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

const LOG_VAR = 'LLM_CHAT_FILE_TEST_CPU_LOG';

/** [user, system] CPU of this process and its waited-for children, in ms (Linux /proc; zeros elsewhere). */
function cpuMs(): [number, number] {
    try {
        const stat = fs.readFileSync('/proc/self/stat', 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // Fields 14 to 17 of proc(5) (utime, stime, cutime, cstime), counted from the state field (3) here.
        return [(Number(f[11]) + Number(f[13])) * 10, (Number(f[12]) + Number(f[14])) * 10];
    } catch {
        return [0, 0];
    }
}

/** Registers the hooks in the calling setup file when the variable is set. */
export function logCpuPerFile(): void {
    const out = process.env[LOG_VAR];
    if (out === undefined || out === '') return;
    // This module is evaluated for each file: the listener counts that file's threads, then goes.
    let threads = 0;
    const count = (): void => void threads++;
    process.on('worker', count);
    let cpu0: [number, number] = [0, 0];
    let wall0 = 0;
    let file = '';
    let project = '';
    // vitest 4 hands the suite second; the first argument must be a destructuring pattern.
    // eslint-disable-next-line no-empty-pattern
    beforeAll(({}, suite) => {
        cpu0 = cpuMs();
        wall0 = performance.now();
        file = suite.file.filepath;
        project = suite.file.projectName ?? '';
    });
    afterAll(() => {
        process.off('worker', count);
        const [user, sys] = cpuMs();
        const sysMs = sys - cpu0[1];
        // The fork's heap after the file: a fork runs many files, and a heap near its limit makes every later file's GC dearer.
        const heapMB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
        const line = { file, project, wallMs: Math.round(performance.now() - wall0), cpuMs: user - cpu0[0] + sysMs, sysMs, threads, heapMB };
        fs.appendFileSync(out, `${JSON.stringify(line)}\n`);
    });
}
