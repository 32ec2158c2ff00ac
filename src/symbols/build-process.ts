import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Turns } from '../engine/turns.js';
import { PLAN_COLUMNS, type PlanColumns } from './build-plan.js';
import type { BuildResult, BuildSpec } from './table-build.js';

/**
 * The symbol table's build in a process of its own (src/symbols-build.ts). In the host's process
 * the build's threads shared locks with the host's thread (a message port's, V8's task queue, the
 * address space's), and while they waited for a CPU at idle priority the host's event loop waited
 * on them: up to 30 ms on the Linux tree. Between two processes there are none; the host only
 * copies the table's columns to it and hears the outcome over the IPC channel.
 */

/** Which column a piece is of, where it goes in it (bytes) and its bytes in base64. */
export type ColumnPiece = { kind: 'column'; column: (typeof PLAN_COLUMNS)[number]; at: number; data: string };
/**
 * Host to build process: the spec with the columns' lengths, their pieces, the start; the
 * searches' nice value whenever it changes.
 */
export type BuildToChild = { kind: 'spec'; spec: BuildSpec; entries: number; nameBytes: number; mainNice: number } | ColumnPiece | { kind: 'start' } | { kind: 'nice'; nice: number | undefined };
/** Build process to host: up; the figures with the source files planned, the process's peak resident memory and CPU time; or why it failed. */
export type BuildToHost = { kind: 'ready' } | { kind: 'done'; result: BuildResult; files: number; peakRss: number; cpuMs: number } | { kind: 'failed'; message: string };

/**
 * Bytes of a column sent in one message. Event loop: a piece costs the host its base64 and JSON
 * (some 64 KB of text), far under a turn's slice; the Linux tree's table (84,000 entries) is 2 MB.
 */
export const PIECE_BYTES = 48 << 10;

/** How often the host looks whether the searches' nice value changed, to tell the build. */
const NICE_POLL_MS = 250;
/** The end of the build process's standard error kept for the message of a build it ended without an outcome. */
const STDERR_KEEP = 2_000;

/** What a build process that made the table tells. */
export type BuildOutcome = BuildResult & { files: number; peakRss: number; cpuMs: number };

/** A running build process. */
export interface BuildProcess {
    pid: number | undefined;
    /** The figures, once the process has exited after giving them; rejects when it failed, was stopped or ended without them. */
    outcome: Promise<BuildOutcome>;
    /** Ends the process (SIGKILL); resolves once it has exited. */
    stop(): Promise<void>;
}

/**
 * The build process's entry and Node options: the build's in dist/, or, run from the source tree
 * (the tests), the source through tsx's loader, as the pool's threads load theirs (engine/pool.ts).
 * Resolved once as the module loads: resolving tsx reads the disk synchronously.
 */
const ENTRY: { file: string; execArgv: string[] } = (() => {
    const here = fileURLToPath(import.meta.url);
    const top = path.resolve(path.dirname(here), '..');
    if (!here.endsWith('.ts')) return { file: path.join(top, 'symbols-build.js'), execArgv: [] };
    return { file: path.join(top, 'symbols-build.ts'), execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] };
})();

/**
 * Starts the build of `spec` over the table of `cols` in a process of its own, its main thread at
 * `mainNice`. `niceOf` gives the searches' nice value while searches keep coming (the build's
 * next tasks share the CPU at it), else `undefined` (idle priority). The columns are read over
 * later turns: they must not change until the outcome.
 */
export function startBuildProcess(spec: BuildSpec, cols: PlanColumns, mainNice: number, niceOf: () => number | undefined): BuildProcess {
    const { file, execArgv } = ENTRY;
    // Output: the host's standard output may be a protocol (the MCP server's): the build's is dropped.
    const child = fork(file, [], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-STDERR_KEEP)));
    let spawnError: Error | undefined;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
        child.once('exit', (code, signal) => resolve({ code, signal }));
        child.once('error', (err) => {
            spawnError ??= err;
            // A process that never started emits no exit.
            if (child.pid === undefined) resolve({ code: null, signal: null });
        });
    });
    let told: BuildToHost | undefined;
    child.on('message', (m: BuildToHost) => {
        if (m.kind !== 'ready') told = m;
    });
    const post = (m: BuildToChild): void => {
        if (child.connected) child.send(m, (err) => void (err && (spawnError ??= err)));
    };
    let lastNice = niceOf();
    const poll = setInterval(() => {
        const nice = niceOf();
        if (nice !== lastNice) post({ kind: 'nice', nice: (lastNice = nice) });
    }, NICE_POLL_MS).unref();
    const feed = async (): Promise<void> => {
        // Event loop: the fork (some 8 ms of the host's CPU on the Linux tree, the most of any
        // step) ends its turn; each later turn sends pieces of the columns for a slice.
        const turns = new Turns();
        await turns.yield();
        post({ kind: 'nice', nice: lastNice });
        post({ kind: 'spec', spec, entries: cols.parent.length, nameBytes: cols.names.length, mainNice });
        for (const column of PLAN_COLUMNS) {
            const c = cols[column];
            const bytes = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
            for (let at = 0; at < bytes.length; at += PIECE_BYTES) {
                post({ kind: 'column', column, at, data: bytes.toString('base64', at, Math.min(bytes.length, at + PIECE_BYTES)) });
                await turns.check();
            }
        }
        post({ kind: 'start' });
    };
    const outcome = (async (): Promise<BuildOutcome> => {
        await feed();
        const { code, signal } = await exited.finally(() => clearInterval(poll));
        if (told?.kind === 'done') return { ...told.result, files: told.files, peakRss: told.peakRss, cpuMs: told.cpuMs };
        if (told?.kind === 'failed') throw new Error(told.message);
        const how = spawnError !== undefined ? spawnError.message : signal !== null ? `killed by ${signal}` : `exit code ${code}`;
        const tail = stderr.trim().split('\n').slice(-3).join(' ');
        throw new Error(`the symbol table's build process ended without a table (${how})${tail ? `: ${tail}` : ''}`);
    })();
    return {
        pid: child.pid,
        outcome,
        async stop(): Promise<void> {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
            await exited;
        },
    };
}
