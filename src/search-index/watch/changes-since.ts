import { BackgroundTasks } from '../../engine/background-pool.js';
import type { IndexCheckResult, IndexCheckTask } from '../shared/protocol.js';
import { Turns } from '../../engine/turns.js';

/**
 * What changed while no watcher looked (a reopen without the last process's snapshot, or a sync):
 * the tree listed again on a thread and compared with a stored table, so that the host's thread
 * never walks a large tree itself.
 */

/**
 * What changed under `task.root` since the table `task.table` was made, listed again on a
 * thread of the background pool, at the build's priority (src/engine/background-pool.ts: the
 * engine's threads would keep the check's memory, some 100 MB for a large tree).
 * @throws Error when the check fails.
 */
export async function changesSince(task: Omit<IndexCheckTask, 'op' | 'nice'>): Promise<{ changed: string[]; dirTimes: string[] }> {
    const res = (await new BackgroundTasks(1).run({ op: 'index-check', ...task } satisfies IndexCheckTask)) as IndexCheckResult;
    if (!res.ok) throw new Error(`index check failed: ${res.message}`);
    return { changed: await splitJoined(res.changed), dirTimes: res.dirTimes };
}

/** The paths of a NUL-joined list (`''`: none), split in slices between yields. */
async function splitJoined(text: string): Promise<string[]> {
    const out: string[] = [];
    if (text === '') return out;
    const turns = new Turns();
    for (let at = 0; ; ) {
        const nul = text.indexOf('\0', at);
        out.push(text.slice(at, nul === -1 ? text.length : nul));
        if (nul === -1) return out;
        at = nul + 1;
        if ((out.length & 255) === 0 && turns.due) await turns.yield();
    }
}
