/**
 * Entry point of the symbol table's build process (started by src/symbols/build-process.ts): it
 * gets the plan and its parts over IPC, runs the build on threads of its own
 * (src/symbols/table-build.ts) and answers with the figures or the failure. It exits when its
 * parent goes away (the IPC channel closes), so a build never outlives the process it serves.
 */
import os from 'node:os';
import type { BuildToChild, BuildToHost } from './symbols/build-process.js';
import { runBuild, type BuildPlan } from './symbols/table-build.js';

/** Sends `message`; a last one (the build's outcome) ends the process once it is written. */
function send(message: BuildToHost, last = false): void {
    process.send?.(message, undefined, undefined, () => void (last && process.exit(0)));
}

// The parent gone, nothing reads the table: the threads end with the process.
process.on('disconnect', () => process.exit(1));

/** The process's CPU time so far, all its threads (ms). */
function cpuMs(): number {
    const { user, system } = process.cpuUsage();
    return Math.round((user + system) / 1000);
}

let plan: BuildPlan | undefined;
let nice: number | undefined;
process.on('message', (m: BuildToChild) => {
    if (m.kind === 'nice') nice = m.nice;
    else if (m.kind === 'plan') {
        plan = { ...m.plan, parts: [] };
        // No higher than any of the build's threads runs at (they inherit it, and only lower
        // themselves): the searches' nice value, which the threads sharing the CPU with searches
        // take; the others go on to the idle priority (workers/pool/background.ts).
        try {
            if (os.getPriority(0) < m.mainNice) os.setPriority(0, m.mainNice);
        } catch {
            // not permitted here: the threads lower themselves as they take a task
        }
    } else if (m.kind === 'part') plan!.parts.push(m.part);
    else if (m.kind === 'start') {
        runBuild(plan!, () => nice).then(
            (result) => send({ kind: 'done', result, peakRss: process.resourceUsage().maxRSS * 1024, cpuMs: cpuMs() }, true),
            (err: unknown) => send({ kind: 'failed', message: err instanceof Error ? err.message : String(err) }, true),
        );
    }
});
send({ kind: 'ready' });
