import type { Segment, Skip, TooLarge, WalkJob } from './shared/protocol.js';
import type { SearchHit } from './shared/types.js';
import { HitList, runAt, runHit, runSize } from './shared/hit-list.js';

/**
 * The ordered merge of a parallel walk. Jobs finish in any order; this keeps them in a tree by
 * their position in the sequential walk (depth-first, children sorted by name) and moves a
 * cursor over the finished prefix, so that the hits it emits, and the point where `maxResults`
 * or `maxTotalEntries` stops the walk, are exactly those of a sequential walk.
 *
 * Pending jobs are handed out in walk order (a heap on the position key), so workers stay near
 * the cursor and what is held ahead of it stays small: no list of every path, only the frontier.
 */

type Run = Extract<Segment, { t: 'run' }>;

/** Files too large to search that are listed at most; the rest are only counted. */
export const TOO_LARGE_LISTED = 20;

/** A job and, once done, its output in walk order. */
export class WalkNode {
    state: 'pending' | 'running' | 'done' = 'pending';
    /** Output: runs of entries and child nodes, in walk order; `null` until done and after the cursor passed. */
    items: (Run | WalkNode)[] | null = null;
    /** The cursor's position in `items`. */
    pos = 0;
    /** Hits a task recorded for it before being terminated (a timeout's partial result); `null`: none. */
    partial: SearchHit[] | null = null;
    constructor(
        /** Position in the sequential walk: indices of the items leading here from the root. */
        readonly key: readonly number[],
        readonly job: WalkJob,
    ) {}
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
        const d = a[i]! - b[i]!;
        if (d !== 0) return d;
    }
    return a.length - b.length;
}

/** Binary min-heap of pending nodes by walk position. */
class NodeHeap {
    readonly #a: WalkNode[] = [];
    get size(): number {
        return this.#a.length;
    }
    push(n: WalkNode): void {
        const a = this.#a;
        a.push(n);
        let i = a.length - 1;
        while (i > 0) {
            const p = (i - 1) >> 1;
            if (compareKeys(a[p]!.key, n.key) <= 0) break;
            a[i] = a[p]!;
            i = p;
        }
        a[i] = n;
    }
    pop(): WalkNode | undefined {
        const a = this.#a;
        const top = a[0];
        const last = a.pop();
        if (a.length === 0 || last === undefined) return top;
        let i = 0;
        for (;;) {
            const l = 2 * i + 1;
            if (l >= a.length) break;
            const r = l + 1;
            const c = r < a.length && compareKeys(a[r]!.key, a[l]!.key) < 0 ? r : l;
            if (compareKeys(a[c]!.key, last.key) >= 0) break;
            a[i] = a[c]!;
            i = c;
        }
        a[i] = last;
        return top;
    }
}

export class OrderedWalk {
    /** Hits the cursor passed, in sorted order, as ranges of the workers' runs (see hit-list.ts). */
    readonly emittedList = new HitList();
    /** Unreadable entries the cursor passed. */
    readonly skipped: Skip[] = [];
    /** The first {@link TOO_LARGE_LISTED} files above the size limit the cursor passed, in walk order. */
    readonly tooLarge: { path: string; size: number }[] = [];
    /** All files above the size limit the cursor passed. */
    tooLargeCount = 0;
    /** Entries the cursor passed. */
    visited = 0;
    /** Why the sequential walk stops here, once known. */
    stop: 'max_results' | 'too_many_entries' | null = null;
    /** The cursor passed the whole tree. */
    complete = false;
    readonly #heap = new NodeHeap();
    readonly #stack: WalkNode[];

    constructor(
        root: WalkJob,
        readonly maxResults: number,
        readonly maxTotalEntries: number,
    ) {
        const node = new WalkNode([], root);
        this.#heap.push(node);
        this.#stack = [node];
    }

    /** Jobs waiting to be handed out. */
    get pending(): number {
        return this.#heap.size;
    }

    /** Hits the cursor passed, in sorted order, as objects (made on each call). */
    get emitted(): SearchHit[] {
        return this.emittedList.toArray();
    }

    /** Hits still needed: a task may stop after this many. */
    get hitsNeeded(): number {
        return this.maxResults - this.emittedList.length;
    }

    /** Entries after which the walk has certainly exceeded `maxTotalEntries`. */
    get entriesNeeded(): number {
        return this.maxTotalEntries - this.visited + 1;
    }

    /** Takes up to `n` pending jobs, earliest in walk order first. */
    take(n: number): WalkNode[] {
        const out: WalkNode[] = [];
        while (out.length < n) {
            const node = this.#heap.pop();
            if (!node) break;
            node.state = 'running';
            out.push(node);
        }
        return out;
    }

    /** Puts a job that was handed out but not started back in line. */
    requeue(node: WalkNode): void {
        node.state = 'pending';
        this.#heap.push(node);
    }

    /** Records a job's output; the jobs it left for later join the queue. */
    resolve(node: WalkNode, segments: readonly Segment[]): void {
        const items: (Run | WalkNode)[] = new Array(segments.length);
        for (let i = 0; i < segments.length; i++) {
            const s = segments[i]!;
            if (s.t === 'run') {
                items[i] = s;
            } else {
                const child = new WalkNode([...node.key, i], s.job);
                this.#heap.push(child);
                items[i] = child;
            }
        }
        node.items = items;
        node.state = 'done';
    }

    /** Moves the cursor over every finished item it can reach, stopping where the sequential walk would. */
    advance(): void {
        const stack = this.#stack;
        while (this.stop === null && stack.length > 0) {
            const top = stack[stack.length - 1]!;
            if (top.state !== 'done' || top.items === null) return;
            if (top.pos >= top.items.length) {
                top.items = null; // Perf: memory behind the cursor is released
                stack.pop();
                continue;
            }
            const item = top.items[top.pos++]!;
            if (item instanceof WalkNode) {
                stack.push(item);
                continue;
            }
            // Not `push(...skipped)`: a spread of a long array can overflow the stack.
            if (item.skipped) for (const s of item.skipped) this.skipped.push(s);
            // The entries of the run the sequential walk gets through, and why it stops in it.
            let passed = item.n;
            let stop: OrderedWalk['stop'] = null;
            const size = runSize(item);
            let j = 0;
            for (; j < size; j++) {
                if (this.visited + runAt(item, j) + 1 > this.maxTotalEntries) {
                    passed = this.maxTotalEntries - this.visited;
                    stop = 'too_many_entries';
                    break;
                }
                if (this.emittedList.length + j + 1 >= this.maxResults) {
                    passed = runAt(item, j) + 1;
                    stop = 'max_results';
                    j++;
                    break;
                }
            }
            this.emittedList.add(item, 0, j);
            if (stop === null && this.visited + item.n > this.maxTotalEntries) {
                passed = this.maxTotalEntries - this.visited;
                stop = 'too_many_entries';
            }
            if (item.tooLarge) this.#noteTooLarge(item.tooLarge, passed);
            if (stop !== null) {
                this.visited = stop === 'too_many_entries' ? this.maxTotalEntries + 1 : this.visited + passed;
                this.stop = stop;
                return;
            }
            this.visited += item.n;
        }
        if (this.stop === null && stack.length === 0) this.complete = true;
    }

    #noteTooLarge(files: readonly TooLarge[], passed: number): void {
        for (const f of files) {
            if (f.at >= passed) break;
            this.tooLargeCount++;
            if (this.tooLarge.length < TOO_LARGE_LISTED) this.tooLarge.push({ path: f.path, size: f.size });
        }
    }

    /** Records the hits a running job's task found before it was terminated. */
    partial(node: WalkNode, hits: SearchHit[]): void {
        if (node.state === 'running') node.partial = hits;
    }

    /**
     * Every hit known so far in sorted order, at most `maxResults`: the emitted ones, then those
     * of finished jobs ahead of the cursor and those recorded by terminated ones (a partial
     * result, for a timeout).
     */
    knownHits(): SearchHit[] {
        const out = this.emittedList.toArray(0, this.maxResults);
        const push = (hits: readonly SearchHit[]): void => {
            for (const h of hits) {
                if (out.length >= this.maxResults) break;
                out.push(h);
            }
        };
        const collect = (items: readonly (Run | WalkNode)[], from: number): void => {
            for (let i = from; i < items.length && out.length < this.maxResults; i++) {
                const item = items[i]!;
                if (!(item instanceof WalkNode)) {
                    for (let j = 0, n = runSize(item); j < n && out.length < this.maxResults; j++) out.push(runHit(item, j));
                } else if (item.state === 'done' && item.items) collect(item.items, 0);
                else if (item.partial) push(item.partial);
            }
        };
        for (let d = this.#stack.length - 1; d >= 0 && out.length < this.maxResults; d--) {
            const node = this.#stack[d]!;
            if (node.state === 'done' && node.items) collect(node.items, node.pos);
            else if (node.partial) push(node.partial);
        }
        return out;
    }
}
