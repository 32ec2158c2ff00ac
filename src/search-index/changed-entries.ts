import fs from 'node:fs';
import { osPath } from '../print/shared/byte-names.js';
import type { EntryStat } from '../search/shared/entry-policy.js';
import { EntryKind } from '../search/shared/protocol.js';
import type { Changes } from './watch/changes.js';
import { mergeSpans, spanEnd } from './sorted-ids.js';
import { byName, compareWalk, type Table } from './table.js';

/**
 * The changed paths under a searched directory as one search sees them: the table's subtrees
 * they replace ("blocked", left out of the answer) and the entries on disk now that the walk gets
 * instead ("extras", handed to the workers at their place in walk order), and the current times
 * of the directories whose entries changed.
 */

/** An entry handed to the walk that the table does not describe (changed since the build). */
export interface Extra {
    rel: string;
    name: string;
    parent: number;
    kind: number;
    /** The table id it goes before in walk order. */
    key: number;
}

/** Each table's last {@link ChangedEntries}, with what it was made from (see {@link ChangedEntries.of}). */
const lastMade = new WeakMap<Table, { key: string; entries: ChangedEntries }>();

export class ChangedEntries {
    /**
     * The changed entries under `relRoot` for a search now: those the last search of `table` made
     * when nothing was noted since (the inotify watcher reports every change before a search
     * plans, so what they stat'ed is still what is on disk), else made anew. Perf: not a stat and
     * lookups per changed path in every search (some 3 ms of each plan in a CPU profile of ten
     * copies of the kernel with paths changed since their build).
     */
    static of(table: Table, changes: Changes, relRoot: string, realOf: (rel: string) => string, needTimes: boolean): ChangedEntries {
        if (changes.tops.size === 0 && changes.dirTimes.size === 0) return new ChangedEntries(table, changes, relRoot, realOf, needTimes);
        const live = changes.watcher === 'inotify' && changes.watching && !changes.blind;
        const key = `${changes.seq}|${changes.tops.size}|${changes.dirTimes.size}|${needTimes}|${relRoot}`;
        const last = lastMade.get(table);
        if (live && last !== undefined && last.key === key) return last.entries;
        const entries = new ChangedEntries(table, changes, relRoot, realOf, needTimes);
        if (live) lastMade.set(table, { key, entries });
        return entries;
    }

    readonly extras: Extra[] = [];
    readonly #spans: [number, number][];
    readonly #fresh = new Map<number, fs.Stats>();
    readonly #table: Table;
    readonly #changes: Changes;

    /**
     * @param relRoot - the searched directory, relative to the index's root (`''` for the root).
     * @param needTimes - the search filters on times: directories whose entries changed get their times from disk.
     */
    constructor(table: Table, changes: Changes, relRoot: string, realOf: (rel: string) => string, needTimes: boolean) {
        this.#table = table;
        this.#changes = changes;
        const t = table.t;
        const blocked: [number, number][] = [];
        const seen = new Set<string>();
        const depth = relRoot === '' ? 1 : relRoot.split('/').length + 1;
        // The topmost changed paths only: a changed directory is walked whole.
        const tops = changes.tops.below(relRoot);
        for (const rel0 of tops) {
            // The topmost part of the path the table does not know (a new directory is walked whole).
            let rel = rel0;
            const parts = rel0.split('/');
            for (let k = depth; k <= parts.length; k++) {
                const prefix = parts.slice(0, k).join('/');
                if (!table.has(prefix)) {
                    rel = prefix;
                    break;
                }
            }
            if (seen.has(rel)) continue;
            seen.add(rel);
            const id = table.idOf(rel);
            if (id !== undefined) blocked.push([id, t.end[id]!]);
            let st: fs.Stats;
            try {
                // A name that is not UTF-8 by its bytes (print/shared/byte-names.ts): as a string Node would ask for U+FFFD.
                st = fs.lstatSync(osPath(realOf(rel)));
            } catch {
                continue; // gone: the table's entry (blocked above) is left out
            }
            const slash = rel.lastIndexOf('/');
            const name = rel.slice(slash + 1);
            const parent = table.idOf(slash === -1 ? '' : rel.slice(0, slash))!;
            const kind = st.isDirectory() ? EntryKind.Dir : st.isFile() ? EntryKind.File : st.isSymbolicLink() ? EntryKind.Link : EntryKind.Other;
            let key = id;
            if (key === undefined) {
                // Before the first child of the parent with a greater name.
                key = t.end[parent]!;
                for (let c = parent + 1; c < t.end[parent]!; c = t.end[c]!) {
                    if (byName(t.names.get(c), name) > 0) {
                        key = c;
                        break;
                    }
                }
            }
            this.extras.push({ rel, name, parent, kind, key });
        }
        this.extras.sort((a, b) => a.key - b.key || compareWalk(a.rel, b.rel));
        this.#spans = mergeSpans(blocked);
        if (needTimes) {
            // Over the whole tree: a link may lead the walk out of the searched directory.
            for (const rel0 of [...(relRoot === '' ? tops : changes.tops.below('')), ...[...changes.dirTimes].map((d) => `${d}/x`)]) {
                const slash = rel0.lastIndexOf('/');
                const pid = table.idOf(slash === -1 ? '' : rel0.slice(0, slash));
                if (pid === undefined || this.#fresh.has(pid)) continue;
                try {
                    this.#fresh.set(pid, fs.lstatSync(osPath(realOf(table.pathOf(pid)))));
                } catch {
                    // the walk reports it
                }
            }
        }
    }

    /** End of the changed subtree holding `id` (its entries come from the walk), or -1. */
    blockedTo(id: number): number {
        return this.#spans.length === 0 ? -1 : spanEnd(this.#spans, id);
    }

    /** The stat of table entry `i` as the walk would see it now: from disk for a directory whose entries changed, else the table's. */
    statOf(i: number): EntryStat {
        const t = this.#table.t;
        return this.#fresh.get(i) ?? { birthtimeMs: t.birthtime[i]!, mtimeMs: t.mtime[i]!, size: t.size[i]! };
    }

    /** The directory `rel` holds, is or lies below a changed path. */
    touches(rel: string): boolean {
        return this.#changes.touches(rel);
    }

    /** Some directory's times changed while no process watched. */
    get staleDirTimes(): boolean {
        return this.#changes.dirTimes.size > 0;
    }
}
