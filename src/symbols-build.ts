/**
 * Entry point of the symbol table's build process (started by src/symbols/build-process.ts): it
 * gets the spec and the file table's columns over IPC, plans the parts (src/symbols/build-plan.ts),
 * runs them on threads of its own (src/symbols/table-build.ts) and answers with the figures or the
 * failure. It exits when its
 * parent goes away (the IPC channel closes), so a build never outlives the process it serves.
 */
import os from 'node:os';
import type { BuildToChild, BuildToHost } from './symbols/build-process.js';
import { planParts, type PlanColumns } from './symbols/build-plan.js';
import { runBuild, type BuildSpec } from './symbols/table-build.js';

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

/** The spec, the table's columns as they come in, and the bytes of each received. */
let spec: BuildSpec | undefined;
let cols: PlanColumns | undefined;
const got = new Map<string, number>();
let nice: number | undefined;

/** Plans the parts from the columns, then runs them; the files planned, with the figures. */
async function build(): Promise<{ result: Awaited<ReturnType<typeof runBuild>>; files: number }> {
    if (spec === undefined || cols === undefined) throw new Error('the build process was started without its spec');
    for (const [name, col] of Object.entries(cols)) if (got.get(name) !== col.byteLength) throw new Error(`the build process got ${got.get(name) ?? 0} of the ${col.byteLength} bytes of the table's ${name}`);
    const { partFiles, ...rest } = spec;
    const { parts, big, files } = await planParts(cols, spec.maxFileSize, partFiles);
    [spec, cols] = [undefined, undefined];
    return { result: await runBuild({ ...rest, parts, big }, () => nice), files };
}

process.on('message', (m: BuildToChild) => {
    if (m.kind === 'nice') nice = m.nice;
    else if (m.kind === 'spec') {
        spec = m.spec;
        cols = { names: Buffer.alloc(m.nameBytes), parent: new Int32Array(m.entries), kind: new Uint8Array(m.entries), size: new Float64Array(m.entries) };
        // No higher than any of the build's threads runs at (they inherit it, and only lower
        // themselves): the searches' nice value, which the threads sharing the CPU with searches
        // take; the others go on to the idle priority (workers/pool/background.ts).
        try {
            if (os.getPriority(0) < m.mainNice) os.setPriority(0, m.mainNice);
        } catch {
            // not permitted here: the threads lower themselves as they take a task
        }
    } else if (m.kind === 'column') {
        const c = cols![m.column];
        got.set(m.column, (got.get(m.column) ?? 0) + Buffer.from(c.buffer, c.byteOffset, c.byteLength).write(m.data, m.at, 'base64'));
    } else if (m.kind === 'start') {
        build().then(
            ({ result, files }) => send({ kind: 'done', result, files, peakRss: process.resourceUsage().maxRSS * 1024, cpuMs: cpuMs() }, true),
            (err: unknown) => send({ kind: 'failed', message: err instanceof Error ? err.message : String(err) }, true),
        );
    }
});
send({ kind: 'ready' });
