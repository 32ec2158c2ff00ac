import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadAverages } from './common.js';

/**
 * Suites run as steps of a larger run (monorepo.ts, symbols-targets.ts): each in a Node process of
 * its own, so one suite's memory does not count in the next; its standard output kept for the
 * figures read from it.
 */

/** One step's run: its suite's arguments and output. */
export interface StepRun<S extends string = string> {
    step: S;
    command: string[];
    output: string;
    ok: boolean;
    ms: number;
}

/** One row of a summary: how to read the figure from a step's output, and its target. */
export interface Figure<S extends string = string> {
    label: string;
    step: S;
    read: (out: string) => string | undefined;
    target: string;
}

/** A reader of a figure: the first group of `re` in a step's output. */
export const first = (re: RegExp) => (out: string): string | undefined => re.exec(out)?.[1];

/** Runs the suite `args` (`args[0]` its name, as `npm run bench --` takes them) with `KERNEL_TREE` set to `kernel`, under `log`'s name on standard error. */
export function runStep<S extends string>(step: S, args: string[], kernel: string, log: string, nodeArgs: string[] = []): StepRun<S> {
    const script = fileURLToPath(new URL('./run.js', import.meta.url));
    const t0 = performance.now();
    console.error(`${log}: ${args.join(' ')} (load average ${loadAverages()})`);
    const r = spawnSync(process.execPath, [...nodeArgs, script, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, KERNEL_TREE: kernel } });
    const output = `${r.stdout ?? ''}${r.error ? `\n${r.error.message}` : ''}`;
    return { step, command: args, output, ok: r.status === 0, ms: performance.now() - t0 };
}

/** The summary's cell for `figure` from `runs`: its value, else why there is none. */
export function cell<S extends string>(figure: Figure<S>, runs: readonly StepRun<S>[]): string {
    const run = runs.find((r) => r.step === figure.step);
    if (!run) return 'not run';
    const value = figure.read(run.output);
    if (value !== undefined) return value.trim();
    return run.ok ? 'not printed' : 'step failed';
}
