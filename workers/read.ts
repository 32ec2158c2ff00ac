import type { ReadTask, ReadTaskResult } from '../src/engine/protocol.js';
import type { ReadOutcome } from '../src/engine/types.js';
import { toToolError } from '../src/errors.js';
import { contentHash } from '../src/file-pool.js';
import { readRegularFile } from '../src/fs/secure.js';

/**
 * The bulk-read worker: reads its items one after another with the same safe open as the main
 * thread (no FIFOs or devices, descriptor re-checked against the real roots) and hashes them for
 * the read-before-write tracker. One outcome per item; one bad path never spoils the others.
 */
export async function runReadTask(task: ReadTask): Promise<ReadTaskResult> {
    const results: ReadOutcome[] = [];
    for (const item of task.items) {
        try {
            const file = await readRegularFile(item.shown, item.real, task.realRoots, task.maxBytes, task.setting);
            results.push({ ok: true, bytes: file.bytes, hash: contentHash(file.bytes), size: file.size });
        } catch (err) {
            const e = toToolError(err, item.shown);
            results.push({ ok: false, kind: e.kind, message: e.message });
        }
    }
    return { ok: true, results };
}
