import { closeSync, readFileSync } from 'node:fs';
import type { ReadTask, ReadTaskResult } from '../../src/search/shared/protocol.js';
import type { ReadOutcome, ReadRender, ShownReadOutcome } from '../../src/search/shared/types.js';
import { toToolError } from '../../src/errors/shared/errors.js';
import { contentHash } from '../../src/fs/shared/content-hash.js';
import { openRegularFileSync, readRegularFileSync } from '../../src/fs/shared/safe-read.js';
import { formatRead } from '../../src/text/shared/read-render.js';
import { readWindowed, WINDOWED_READ_BYTES } from './read-window.js';

/**
 * The bulk-read worker: reads its items one after another with the same safe open as the main
 * thread (no FIFOs or devices, descriptor re-checked against the real roots) and hashes them for
 * the read-before-write tracker. One outcome per item; one bad path never spoils the others.
 */
export async function runReadTask(task: ReadTask): Promise<ReadTaskResult> {
    const results: (ReadOutcome | ShownReadOutcome)[] = [];
    for (const item of task.items) {
        try {
            // Perf: synchronous I/O, which blocks only this worker thread, never the host's event
            // loop. An async read awaits ~7 fs calls per file, each queued on libuv's 4-thread pool
            // that all workers and the main thread share: readMany of 2,000 Linux-tree files takes
            // ~50-60 ms with the checks done synchronously here, ~425 ms with them async.
            if (task.render) {
                results.push(readShown(item.shown, item.real, task, task.render));
                continue;
            }
            const file = readRegularFileSync(item.shown, item.real, task.realRoots, task.maxBytes, task.setting);
            results.push({ ok: true, bytes: file.bytes, hash: contentHash(file.bytes), size: file.size });
        } catch (err) {
            const e = toToolError(err, item.shown);
            results.push({ ok: false, kind: e.kind, message: e.message });
        }
    }
    return { ok: true, results };
}

/**
 * The text `read_file` shows of one file, its hash and size. Perf: only the text shown crosses
 * to the main thread, which decodes and splits nothing; a file above {@link WINDOWED_READ_BYTES}
 * is read in windows (workers/read/read-window.ts), never whole.
 * @throws ToolError as readRegularFileSync and formatRead do.
 */
function readShown(shown: string, real: string, task: ReadTask, render: ReadRender): ShownReadOutcome {
    const { fd, stats } = openRegularFileSync(shown, real, task.realRoots, task.maxBytes, task.setting);
    try {
        if (stats.size > WINDOWED_READ_BYTES) {
            const windowed = readWindowed(fd, shown, render.args, render.maxChars);
            if (windowed !== null) return { ok: true, ...windowed };
        }
        const bytes = readFileSync(fd);
        return { ok: true, shown: formatRead(shown, bytes, render.args, render.maxChars), hash: contentHash(bytes), size: bytes.length };
    } finally {
        closeSync(fd);
    }
}
