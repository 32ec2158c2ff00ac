/**
 * What test/support's modules clean up after each test and after each test file: they register it
 * here, once, and hooks.setup.ts (a setup file, evaluated for every test file) runs it. A hook
 * registered at the top level of a support module would run for the first file of a fork only: in
 * the unit project (`isolate: false`) a fork evaluates a module once for all the files it runs.
 */

interface Step {
    fn: () => unknown;
    order: number;
}

const afterTest: Step[] = [];
const afterFile: Step[] = [];

/**
 * Runs `fn` after each test of every file, steps of a lower `order` first (unmounts before the
 * removal of the temporary directories that may hold their mount points).
 */
export function afterEachTest(fn: () => unknown, order = 0): void {
    afterTest.push({ fn, order });
}

/** Runs `fn` after the last test of every file. */
export function afterEachFile(fn: () => unknown, order = 0): void {
    afterFile.push({ fn, order });
}

async function run(steps: Step[]): Promise<void> {
    for (const step of [...steps].sort((a, b) => a.order - b.order)) await step.fn();
}

/** The steps after a test (hooks.setup.ts). */
export function runAfterTest(): Promise<void> {
    return run(afterTest);
}

/** The steps after a file (hooks.setup.ts). */
export function runAfterFile(): Promise<void> {
    return run(afterFile);
}
