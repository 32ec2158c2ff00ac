import { createRequire } from 'node:module';
import type { TaskRunner } from '../search/task-runner.js';
import { MAX_TIMER_MS } from '../search/search-run.js';
import { WORKER_FAILURE_KINDS } from '../errors/shared/errors.js';
import type { MediaResult, MediaTask } from './shared/protocol.js';

/**
 * Runs one media task (an image, a PDF, a notebook) on the pool. Event loop: decoding a
 * 12-megapixel JPEG takes ~100 ms and parsing a PDF as long; on the host's thread either would
 * stall every other call. Never rejects: a timeout or a dead worker is a failed result.
 */
export async function runMediaTask(engine: TaskRunner, task: MediaTask, timeoutMs: number): Promise<MediaResult> {
    if (task.op === 'image' || (task.op === 'pdf' && task.pageImages !== undefined)) holdSharp();
    const timeout = AbortSignal.timeout(Math.min(timeoutMs, MAX_TIMER_MS));
    try {
        const res = await engine.run<MediaResult | { ok: false; code: keyof typeof WORKER_FAILURE_KINDS; message: string }>(task, { signal: timeout });
        if (res.ok || 'kind' in res) return res;
        return { ok: false, kind: WORKER_FAILURE_KINDS[res.code], message: `Could not read ${task.shown}: ${res.message}` };
    } catch (err) {
        if (timeout.aborted) return { ok: false, kind: 'timeout', message: `Read timed out after ${timeoutMs} ms: ${task.shown}` };
        return { ok: false, kind: 'io', message: `Could not read ${task.shown}: ${err instanceof Error ? err.message : String(err)}` };
    }
}

let held = false;

/**
 * Loads sharp on the host's thread once, before a pool thread does. On glibc Linux a pool thread
 * that exits (piscina ends idle threads) would otherwise unload libvips while other threads still
 * use it, crashing the process; sharp's documentation asks for this. A failure here is ignored:
 * the pool thread's load fails too and reports it (workers/media/libraries.ts).
 */
function holdSharp(): void {
    if (held) return;
    held = true;
    try {
        createRequire(import.meta.url)('sharp');
    } catch {
        // reported by the worker
    }
}
