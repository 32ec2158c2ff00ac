import fsp from 'node:fs/promises';
import os from 'node:os';
import { BACKGROUND_NICE, BackgroundTasks } from '../../engine/background-pool.js';
import { endRead, newCheckQueue, newReadState } from '../shared/check-queue.js';
import type { IndexCheckResult, IndexCheckTask } from '../shared/protocol.js';
import type { CheckedWatches } from './watch.js';
import { Turns } from '../../engine/turns.js';

/**
 * What changed while no watcher looked (a reopen without the last process's snapshot, or a sync):
 * the tree listed again on a thread and compared with a stored table, so that the host's thread
 * never walks a large tree itself.
 */

/**
 * What changed under `task.root` since the table `task.table` was made, compared on threads of
 * its own (two where there are two CPUs: the check is what a reopened index waits for before it
 * answers), ended before it returns. Memory: a thread kept idle for the next task would hold its
 * heap and its views of the table's shared bytes until it left (at ten times the Linux tree the
 * process held 260 MB right after a reopen). The threads share one queue of directories (check-queue.ts).
 *
 * Priority: `nice` (the searches' own when searches are waiting, else {@link BACKGROUND_NICE}),
 * never SCHED_IDLE. The index answers nothing until the check ends, so the check is on the path
 * to "ready": under SCHED_IDLE it got no CPU while anything else ran (25-31 s for ten copies of
 * the Linux tree at load 8-16, of some 10 s of CPU); at nice 10 the host's thread still goes first.
 * With `task.watch`, the watches the threads added (workers/search-index/check-watches.ts) are
 * handed back in `watched`. `checked`: the table's read ({@link readShared}), whose bytes' checksum
 * the caller checks itself before it uses the result (a reopen's load of the stored index).
 * @throws Error when the check fails (a watch too).
 */
export async function changesSince(task: Omit<IndexCheckTask, 'op' | 'nice' | 'queue' | 'idle' | 'tableBytes' | 'tableRead' | 'tableChecked'>, nice: number = BACKGROUND_NICE, checked?: Promise<SharedRead>): Promise<{ changed: string[]; dirTimes: string[]; watched?: CheckedWatches }> {
    const threads = Math.min(2, os.availableParallelism());
    const queue = newCheckQueue();
    // Perf and memory: the table read once, its columns views of these bytes in every thread
    // (format.ts), rather than a copy of 74 MB per thread for ten copies of the Linux tree; the
    // threads start (their modules load) while it is read, and wait for its end.
    const read = checked !== undefined ? await checked : threads > 1 ? await readShared(task.table) : undefined;
    const shared = read !== undefined && { tableBytes: read.bytes, tableRead: read.state, tableChecked: checked !== undefined };
    const tasks = new BackgroundTasks(threads, true);
    let results: IndexCheckResult[];
    try {
        results = (await Promise.all(Array.from({ length: threads }, () => tasks.run({ op: 'index-check', ...task, queue, ...shared } satisfies IndexCheckTask, { sharedNice: nice, build: true })))) as IndexCheckResult[];
    } finally {
        await tasks.close();
    }
    const changed: string[] = [];
    const dirTimes: string[] = [];
    const watched: CheckedWatches = { wds: [], paths: [] };
    for (const res of results) {
        if (!res.ok) throw new Error(`index check failed: ${res.message}`);
        await splitJoined(res.changed, changed);
        for (const d of res.dirTimes) dirTimes.push(d);
        if (res.watched === undefined) continue;
        for (const wd of res.watched.wds) watched.wds.push(wd);
        // The root's path is '': one list of one empty path joined is '' too, so the count comes from the descriptors.
        if (res.watched.wds.length > 0) await splitJoined(res.watched.paths, watched.paths, true);
    }
    return { changed, dirTimes, ...(task.watch !== undefined && { watched }) };
}


/** {@link readShared}'s reads side by side (libuv's thread pool has four threads by default), each of at least {@link READ_SLICE} bytes. */
const READ_PARALLEL = 4;
const READ_SLICE = 4 << 20;

/** A file being read into shared memory. */
export interface SharedRead {
    bytes: SharedArrayBuffer;
    /** The read's state, for threads to wait on (check-queue.ts `awaitRead`). */
    state: SharedArrayBuffer;
    /** The bytes, once read whole. @throws Error when they cannot be. */
    done: Promise<SharedArrayBuffer>;
}

/** The read of `file` into shared memory, begun once its size is known. @throws Error when it cannot be opened. */
export async function readShared(file: string): Promise<SharedRead> {
    const fh = await fsp.open(file, 'r');
    let size: number;
    try {
        size = (await fh.stat()).size;
    } catch (err) {
        await fh.close().catch(() => undefined);
        throw err;
    }
    const bytes = new SharedArrayBuffer(size);
    const state = newReadState();
    const done = (async (): Promise<SharedArrayBuffer> => {
        let whole = false;
        try {
            const buf = Buffer.from(bytes);
            // Perf: in slices read side by side on libuv's threads, the fresh memory's pages
            // faulted in by each (66 MB at ten times the Linux tree: 60-90 ms sooner).
            const slice = Math.max(READ_SLICE, Math.ceil(size / READ_PARALLEL));
            const reads: Promise<void>[] = [];
            for (let from = 0; from < size; from += slice) {
                const to = Math.min(size, from + slice);
                reads.push(
                    (async (): Promise<void> => {
                        for (let at = from; at < to; ) {
                            const { bytesRead } = await fh.read(buf, at, to - at, at);
                            if (bytesRead === 0) throw new Error(`${file}: ended after ${at} of ${size} bytes`);
                            at += bytesRead;
                        }
                    })(),
                );
            }
            await Promise.all(reads);
            whole = true;
            return bytes;
        } finally {
            // Always ended: a thread waits for it.
            endRead(state, whole);
            await fh.close().catch(() => undefined);
        }
    })();
    done.catch(() => undefined);
    return { bytes, state, done };
}

/** The paths of a NUL-joined list (`''`: none, unless `some`) added to `out`, split in slices between yields. */
async function splitJoined(text: string, out: string[], some = false): Promise<void> {
    if (text === '' && !some) return;
    const turns = new Turns();
    for (let at = 0; ; ) {
        const nul = text.indexOf('\0', at);
        out.push(text.slice(at, nul === -1 ? text.length : nul));
        if (nul === -1) return;
        at = nul + 1;
        if ((out.length & 255) === 0 && turns.due) await turns.yield();
    }
}
