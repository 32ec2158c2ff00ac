import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isEntryName, skippedAbove } from './tree-paths.js';

/**
 * The directories @parcel/watcher leaves out of a tree (watch-parcel.ts). It reports nothing
 * inside them, so the watch must know which they are: those its live subscription leaves out, those
 * of a skipped name met since (to leave out from the next subscription on), and whether those left
 * out are still directories.
 */
export class LeftOutDirs {
    /** The directories the live subscription leaves out by path; `null` while it leaves them out by name. */
    byPath: Set<string> | null = null;
    /** Directories of a skipped name found since the live subscription was made (left out from the next one on), and those being looked at. */
    readonly found = new Set<string>();
    readonly #probing = new Set<string>();
    readonly #root: string;
    readonly #skip: () => ReadonlySet<string>;
    readonly #closed: () => boolean;

    /** `skip`: the skipped directory names; `closed`: the watch was unsubscribed (nothing more is looked at). */
    constructor(root: string, skip: () => ReadonlySet<string>, closed: () => boolean) {
        this.#root = root;
        this.#skip = skip;
        this.#closed = closed;
    }

    /** The directories left out by path now or from the next subscription on (relative, sorted); `null` while by name. */
    list(): readonly string[] | null {
        return this.byPath === null ? null : [...new Set([...this.byPath, ...this.found])].sort();
    }

    /**
     * Whether the watcher's `rel` is inside a directory of a skipped name (never noted); such a
     * directory it watches, holding `rel` or being `rel`, is left out from the next subscription on.
     */
    insideSkipped(rel: string): boolean {
        const within = skippedAbove(this.#skip(), rel);
        if (within !== null) this.#leaveOut(within);
        else if (this.#skip().has(rel.slice(rel.lastIndexOf('/') + 1))) this.#leaveOut(rel);
        return within !== null;
    }

    /** Leaves out `rel` (relative path) from the next subscription on, if it is a directory (one lstat per directory). */
    #leaveOut(rel: string): void {
        if (this.byPath === null || this.byPath.has(rel) || this.found.has(rel) || this.#probing.has(rel) || this.#closed()) return;
        this.#probing.add(rel);
        void fsp
            .lstat(path.join(this.#root, rel))
            .then(
                (st) => {
                    if (st.isDirectory()) this.found.add(rel);
                },
                () => undefined,
            )
            .finally(() => this.#probing.delete(rel));
    }

    /**
     * Hands each directory left out by path that is no longer a directory to `note` (sync: one
     * lstat per directory left out); true when there was one.
     */
    noteGone(note: (rel: string) => void): boolean {
        if (this.byPath === null || this.byPath.size === 0) return false;
        let gone = false;
        for (const rel of this.byPath) {
            let dir = false;
            try {
                dir = fs.lstatSync(path.join(this.#root, rel)).isDirectory();
            } catch {
                // gone: watched again
            }
            if (!dir) {
                note(rel);
                gone = true;
            }
        }
        return gone;
    }

    /** Those of `rels` (relative paths, repeats allowed) that are directories now. */
    async stillDirs(rels: readonly string[]): Promise<Set<string>> {
        const unique = [...new Set(rels)].filter((rel) => rel.split('/').every(isEntryName));
        const out = new Set<string>();
        await Promise.all(unique.map((rel) => fsp.lstat(path.join(this.#root, rel)).then((st) => st.isDirectory() && out.add(rel), () => undefined)));
        return out;
    }
}
