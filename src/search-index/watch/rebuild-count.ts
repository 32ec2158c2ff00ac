/**
 * What counts toward a tree's next rebuild (changes.ts): its changed paths and the events inside
 * skipped directories. While a build runs, a rebuild is asked for only when the changes since the
 * build began pass the limit: what it began from is in its table, and the paths noted before it
 * are dropped when it is served (Changes.settle). Counted too, they would ask for a second full
 * rebuild at the first event during one asked for by the limit, and whether it followed would
 * depend on the build's speed (a request is dropped only while a build still runs).
 */

/** Where a build began: the last change its table holds, and the skipped directories' events counted by then. */
export interface BuildStart {
    seq: number;
    dropped: number;
}

export class RebuildCount {
    /** Events inside skipped directories since the served generation's build began (never noted). */
    dropped = 0;
    /** The build under way, and the distinct paths noted since it began. */
    #build: (BuildStart & { paths: number }) | null = null;

    /** A build begins after change `seq`; see the module comment. */
    begin(seq: number): BuildStart {
        this.#build = { seq, dropped: this.dropped, paths: 0 };
        return { seq, dropped: this.dropped };
    }

    /** The build begun last failed (or the index closed). */
    end(): void {
        this.#build = null;
    }

    /** A generation built from `start` is served: only the skipped directories' events counted after it began still count. */
    served(start: BuildStart): void {
        this.#build = null;
        this.dropped = Math.max(0, this.dropped - start.dropped);
    }

    /** A path was noted; `before`: the sequence number of its previous change (`undefined` if it was clean). */
    noted(before: number | undefined): void {
        const b = this.#build;
        if (b !== null && (before === undefined || before <= b.seq)) b.paths++;
    }

    /** The changes counted pass `limit` (`dirty`: the changed paths): during a build, only those since it began. */
    over(dirty: number, limit: number): boolean {
        const b = this.#build;
        return b === null ? dirty + this.dropped > limit : b.paths + this.dropped - b.dropped > limit;
    }
}
