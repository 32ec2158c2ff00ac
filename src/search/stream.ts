import type { TaskRunner } from './task-runner.js';
import { asPrepared } from './prepare.js';
import type { PreparedSearch } from './shared/protocol.js';
import { SearchRun } from './search-run.js';
import type { SearchHit, SearchRequest } from './shared/types.js';

/** Streaming: stop handing out work while this many hits wait for the consumer. */
const STREAM_HIGH_WATER = 2048;

/**
 * {@link Engine.stream}: hits as the tasks return them (not globally sorted), at most
 * `maxResults`. While {@link STREAM_HIGH_WATER} hits wait for the consumer no work is handed out;
 * breaking out of the loop or aborting `signal` stops the search, and no work goes on afterwards.
 */
export async function* streamHits(engine: TaskRunner, req: SearchRequest | PreparedSearch, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): AsyncGenerator<SearchHit, void, undefined> {
    const search = await asPrepared(req);
    const queue: SearchHit[] = [];
    let head = 0;
    let wake: (() => void) | undefined;
    let finished = false;
    const ac = new AbortController();
    const run = new SearchRun(engine, search, opts.timeoutMs ?? Number.POSITIVE_INFINITY, opts.signal ? AbortSignal.any([opts.signal, ac.signal]) : ac.signal, {
        onHits: (hits) => {
            for (const h of hits) queue.push(h);
            wake?.();
        },
        paused: () => queue.length - head >= STREAM_HIGH_WATER,
    });
    void run.promise.finally(() => {
        finished = true;
        wake?.();
    });
    let yielded = 0;
    try {
        while (yielded < search.maxResults) {
            if (head < queue.length) {
                const hit = queue[head]!;
                queue[head++] = undefined as unknown as SearchHit;
                if (head > 1024 && head * 2 > queue.length) {
                    queue.splice(0, head);
                    head = 0;
                }
                yielded++;
                yield hit;
                run.resume();
            } else if (finished) {
                break;
            } else {
                await new Promise<void>((r) => (wake = r));
                wake = undefined;
            }
        }
    } finally {
        ac.abort();
        await run.promise;
    }
}
