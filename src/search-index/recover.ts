import { listedSince } from './reopen.js';
import type { TreeState } from './tree-state.js';

/**
 * Recovery of a serving index after its inotify watcher lost events (a queue overflow in a mass
 * change): the tree watched again, then checked against the served table (the tree check of
 * changes-since.ts), and what differs noted as changed paths, as after a reopen. Searches take the
 * scan path until then (the watcher is `blind`), never a stale answer; a rebuild follows only
 * when the changed paths pass the rebuild limit (Changes.note asks for it), or when the tree
 * cannot be watched or checked. Perf: on ten copies of the Linux tree a check takes seconds, a
 * rebuild minutes, and every search meanwhile is a scan.
 */

/** Checks a tree's losses one after the other (see the module comment). */
export class LossRecovery {
    readonly #s: TreeState;
    /** What the index waits for before it serves (its start). */
    readonly #starting: () => Promise<void> | null;
    readonly #rebuild: () => void;
    #running: Promise<void> | null = null;

    constructor(s: TreeState, starting: () => Promise<void> | null, rebuild: () => void) {
        this.#s = s;
        this.#starting = starting;
        this.#rebuild = rebuild;
    }

    /** Events were lost: recovers once the index serves (a build under way handles its own losses). */
    start(): void {
        if (this.#running !== null) return;
        let failed = false;
        this.#running = this.#run()
            .catch(() => {
                failed = true;
                this.#rebuild();
            })
            .finally(() => {
                this.#running = null;
                // Lost again after the last look: once more (a failure waits for the rebuild instead).
                if (!failed && this.#due) this.start();
            });
    }

    /** Resolves once no recovery runs. */
    async idle(): Promise<void> {
        while (this.#running !== null) await this.#running;
    }

    get #due(): boolean {
        return this.#s.state === 'ready' && this.#s.changes.lostSinceServed;
    }

    async #run(): Promise<void> {
        await this.#starting();
        const s = this.#s;
        // Events lost again and again (a tree changing faster than the queue is read): a rebuild.
        for (let round = 0; this.#due; round++) {
            if (round === 3) throw new Error('events lost during every check');
            const { manifest: m, table } = s;
            if (m === null || table === null) return;
            // Every directory watched first: a change after this is reported, one before it is seen by the check.
            await s.changes.renew();
            const from = s.changes.seq;
            const found = await listedSince(s.reopenContext(), m.gen);
            if (s.table !== table || s.manifest?.gen !== m.gen || s.state !== 'ready') return;
            await s.changes.noteAll(found);
            s.changes.recovered(from);
        }
    }
}
