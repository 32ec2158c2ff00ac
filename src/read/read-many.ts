import { WORKER_FAILURE_KINDS, type ToolErrorKind } from '../errors/shared/errors.js';
import type { Access } from '../config/shared/configuration.js';
import type { TaskRunner } from '../search/task-runner.js';
import type { ReadTask, ReadTaskResult } from '../search/shared/protocol.js';
import { MAX_TIMER_MS } from '../search/search-run.js';
import type { ReadItem, ReadOutcome, ReadRender, ShownReadOutcome } from '../search/shared/types.js';

/** Options of {@link Engine.readMany}. */
export interface ReadManyOptions {
    /** Files above this many bytes fail with `too_large`. */
    maxBytes: number;
    /** Real access roots each opened file is re-checked against; `null` when symlink resolution is off. */
    realRoots: readonly Access[] | null;
    /** Items not read after this many milliseconds fail with `timeout`. */
    timeoutMs: number;
    /** The setting named in `too_large` messages (default `maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)`). */
    setting?: string;
    /**
     * Format each file as `read_file` shows it on the worker and hand back that text instead of
     * the bytes (outcomes with `shown`). Event loop: decoding, splitting and hashing a 10 MiB file
     * on the main thread would block the host's event loop for ~200 ms.
     */
    render?: ReadRender;
}

/**
 * Bulk reads on the pool ({@link Engine.readMany}): items in groups of up to 16, at most
 * `maxThreads` groups at once; one outcome per item, in the order given. A failing item (missing,
 * too large, FIFO, outside, timeout) never affects the others.
 */
export async function readMany(engine: TaskRunner, items: readonly ReadItem[], opts: ReadManyOptions): Promise<(ReadOutcome | ShownReadOutcome)[]> {
    const out: (ReadOutcome | ShownReadOutcome)[] = new Array(items.length);
    if (items.length === 0) return out;
    const groupSize = Math.min(16, Math.max(1, Math.ceil(items.length / (engine.maxThreads * 4))));
    const groups: number[][] = [];
    for (let i = 0; i < items.length; i += groupSize) groups.push(Array.from({ length: Math.min(groupSize, items.length - i) }, (_, k) => i + k));
    const timeout = AbortSignal.timeout(Math.min(opts.timeoutMs, MAX_TIMER_MS));
    let next = 0;
    const failAll = (group: number[], kind: ToolErrorKind, message: (shown: string) => string): void => {
        for (const i of group) out[i] = { ok: false, kind, message: message(items[i]!.shown) };
    };
    const lane = async (): Promise<void> => {
        while (next < groups.length) {
            const group = groups[next++]!;
            if (timeout.aborted) {
                failAll(group, 'timeout', (s) => `Read timed out after ${opts.timeoutMs} ms: ${s}`);
                continue;
            }
            const task: ReadTask = {
                op: 'read',
                items: group.map((i) => items[i]!),
                maxBytes: opts.maxBytes,
                realRoots: opts.realRoots,
                setting: opts.setting ?? 'maxFileSize (LLM_CHAT_FS_MAX_FILE_SIZE)',
            };
            if (opts.render) task.render = opts.render;
            try {
                const res = await engine.run<ReadTaskResult>(task, { signal: timeout });
                if (res.ok) group.forEach((i, k) => (out[i] = res.results[k]!));
                else failAll(group, WORKER_FAILURE_KINDS[res.code], (s) => `Could not read ${s}: ${res.message}`);
            } catch (err) {
                if (timeout.aborted) failAll(group, 'timeout', (s) => `Read timed out after ${opts.timeoutMs} ms: ${s}`);
                else failAll(group, 'io', (s) => `Could not read ${s}: ${err instanceof Error ? err.message : String(err)}`);
            }
        }
    };
    await Promise.all(Array.from({ length: Math.min(groups.length, engine.maxThreads) }, lane));
    return out;
}
