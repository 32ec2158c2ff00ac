import fs from 'node:fs';
import { awaitRead, CheckQueue, newCheckQueue } from '../../src/search-index/shared/check-queue.js';
import { CrawlGate } from '../../src/search-index/shared/crawl-gate.js';
import { decodeTable } from '../../src/search-index/shared/format.js';
import type { IndexCheckResult, IndexCheckTask } from '../../src/search-index/shared/protocol.js';
import { heldAt } from '../fs/held-at.js';
import { takeTaskPriority } from '../pool/background.js';
import { Check } from './check-dir.js';
import { RootFailure, TooMany, Unwatched } from './check-errors.js';
import { CheckWatches, WatchFailed } from './check-watches.js';
import { runIndexCheckByWalk } from './index-walk.js';

/**
 * The check of a stored table against the tree (what changed while no process watched), without
 * a second table: the stored table's directories are listed one by one, each listing matched
 * with the directory's stored children by name (check-dir.ts), each entry stat'ed relative to its
 * open directory (statx, held-at.ts). Large subdirectories go to a queue the check's threads
 * share (check-queue.ts). Perf: no path string, Map or Stats object per entry (the walk-and-compare
 * of index-walk.ts makes all three: 12.8-14.3 s on ten copies of the Linux tree, one thread).
 *
 * Its result is the walk-and-compare's (the same paths, in another order): an entry new, gone,
 * of another kind or readability, or with another size, modification, birth or change time (a
 * file), and a directory's times apart. Where statx cannot be called, the thread that takes the root runs
 * the walk-and-compare instead. With `task.watch` each directory is watched before it is stat'ed
 * and listed (check-watches.ts): the reopen's watcher needs no crawl of its own.
 */

/** What changed under the root since the stored table was made (see IndexCheckTask), the directories this thread took. */
export async function runIndexCheck(task: IndexCheckTask): Promise<IndexCheckResult> {
    takeTaskPriority(task);
    const queue = new CheckQueue(task.queue ?? newCheckQueue());
    const gate = task.gate === undefined ? null : new CrawlGate(task.gate);
    try {
        const at = heldAt();
        if (at.statAt === undefined && task.watch !== undefined) throw new Error('the tree check cannot watch directories here (no statx)');
        if (at.statAt === undefined) {
            const first = queue.take();
            if (first === null) return { ok: true, changed: '', dirTimes: [] };
            try {
                // No name has a NUL: the whole crawl is waited for.
                if (gate !== null && !gate.waitFor('\0')) throw new Unwatched();
                return await runIndexCheckByWalk(task);
            } finally {
                queue.done();
            }
        }
        if (task.tableRead !== undefined && !awaitRead(task.tableRead)) throw new Error(`${task.table} could not be read`);
        const bytes = task.tableBytes === undefined ? fs.readFileSync(task.table) : Buffer.from(task.tableBytes);
        const stored = await decodeTable(bytes, task.table, async () => undefined, task.tableBytes !== undefined && task.tableChecked === true);
        const watches = task.watch === undefined ? null : new CheckWatches(task.root, task.watch.fd, task.watch.mask);
        const check = new Check(task, stored, at, queue, gate, watches);
        for (let d = queue.take(); d !== null; d = queue.take()) {
            try {
                check.queued(d.id, d.mtime, d.birthtime);
            } finally {
                queue.done();
            }
        }
        return { ok: true, changed: check.changed.join('\0'), dirTimes: check.dirTimes, ...(watches !== null && { watched: { wds: watches.wds, paths: watches.paths.join('\0') } }) };
    } catch (err) {
        queue.fail();
        if (err instanceof WatchFailed) return { ok: false, code: 'check_failed', message: `${task.root}: ${err.message}` };
        if (err instanceof TooMany) return { ok: false, code: 'too_many_entries', message: `more than ${task.maxEntries} entries under ${task.root}` };
        if (err instanceof RootFailure) return { ok: false, code: err.code, message: err.message };
        if (err instanceof Unwatched) return { ok: false, code: 'check_failed', message: `${task.root} could not be watched` };
        return { ok: false, code: 'check_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

