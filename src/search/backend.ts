import type { PreparedSearch, Segment } from './shared/protocol.js';

/**
 * A search backend: something that knows, faster than a walk, which entries a search can match
 * (the trigram index, a symbol table, a remote code-search server). It narrows a search to
 * candidates; the workers still run the real pattern on each, so every backend's results are
 * exactly the scan path's. Backends are handed to the engine when it is built (EngineOptions
 * `backends`) and asked in that order; the first that answers plans the search.
 */
export interface SearchBackend {
    /**
     * The walk of `search` under `rootReal` (its real path) as the segments of entries the workers
     * must still look at, in walk order; `null` when this backend cannot narrow the search (the
     * scan path, or the next backend). Must not reject for a search it cannot answer. A walk may
     * come in parts ({@link PlannedWalk}), so that a search stopped early pays only for its start.
     */
    plan(search: PreparedSearch, rootReal: string): Promise<Segment[] | PlannedWalk | null>;
    /** A tool is about to change, or has changed, what is at a path (see {@link WriteEvent}). */
    write?(event: WriteEvent): void;
}

/**
 * A backend's walk in parts: `segments` in walk order, then, when `more` is set, what `more()`
 * gives, and so on. The search asks for the next part only when its workers have taken every job
 * before it, and never once it has stopped (`max_results`, a timeout). `more` must not throw: it
 * works on what the backend read when it planned the search.
 */
export interface PlannedWalk {
    segments: Segment[];
    more: (() => PlannedWalk) | null;
    /**
     * The work the entries handed out in `segments` make, in the workers' units (1 per entry plus
     * its bytes / 16 KiB), when the backend knows it: a part whose work one thread does in about
     * the time another takes to start runs on one (task-shape.ts `ONE_THREAD_UNITS`). Absent: unknown.
     */
    work?: number;
}

/**
 * A change made through the tools, reported before the tool acts (`before`) and once it has
 * finished (`after`), so a backend's very next answer sees it, whatever its watcher's delay.
 * `path` is absolute: the real path, and for a path reached through a link also as written.
 */
export interface WriteEvent {
    readonly path: string;
    readonly phase: 'before' | 'after';
}

/** A backend, or a function making one from the engine being built (for backends that size their work by its threads). */
export type BackendSource = SearchBackend | ((engine: SearchingEngine) => SearchBackend);

/** What a backend may know of the engine it serves: its threads, their nice value, and the tasks under way. */
export interface SearchingEngine {
    readonly maxThreads: number;
    readonly workerNice: number;
    readonly active: number;
}
