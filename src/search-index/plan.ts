import path from 'node:path';
import { EntryPolicy } from '../search/shared/entry-policy.js';
import { hasTwoForms } from '../search/shared/normal-form.js';
import type { PlannedWalk } from '../search/backend.js';
import type { PreparedSearch } from '../search/shared/protocol.js';
import { ListedIds, type CandidateIds } from './candidate-ids.js';
import { TableWalk } from './answer.js';
import { ChangedEntries } from './changed-entries.js';
import type { Changes } from './watch/changes.js';
import { Flag, Kind } from './shared/format.js';
import type { SegmentReader } from './shared/segment.js';
import { planQuery } from './planner.js';
import { evaluateQuery, evaluateSegments, guessCandidates, segmentSources } from './postings.js';
import { WindowedIds } from './windowed-ids.js';
import { countIn, intersect, mergeIds } from './sorted-ids.js';
import type { Table } from './table.js';
import type { IndexState } from './status.js';

/**
 * Whether and how the index answers one search: whether its changes allow it, the filters it
 * models, the candidates of the content and name patterns (posting lists), then the walk answered
 * from the table (answer.ts).
 */

/** Topmost changed paths above which a search takes the scan path (each is looked up on disk per search). */
const MAX_TOPS = 20_000;

/**
 * Whether an index in `state` may answer a search, as far as its changes tell: serving, its
 * watcher neither failed nor lost events since the served table, every change reported noted,
 * and no more changed paths than a search can walk from disk.
 */
export function changesAllow(state: IndexState, changes: Changes): boolean {
    // While a rebuild runs, the inotify watcher keeps watching (never dropped and made anew
    // unless events were lost): the old table and the changed paths still answer.
    const serving = state === 'ready' || (state === 'building' && changes.watcher === 'inotify');
    if (!serving || (state === 'ready' && changes.blind) || changes.lostSinceServed || changes.pending > 0) return false;
    // Past the rebuild limit, @parcel/watcher may have dropped events unseen (it skips an overflow);
    // the inotify watcher reports every loss, so its changed subtrees are walked from disk meanwhile.
    return !(changes.watcher === 'parcel' ? changes.overRebuildLimit : changes.tops.size > MAX_TOPS);
}

/** The served state of one tree's index. */
export interface Served {
    root: string;
    table: Table;
    segments: readonly SegmentReader[];
    changes: Changes;
    skipDirs: readonly string[];
    maxFileSize: number;
    /** Told of a list that failed its check after the search's first part (see WindowedIds). */
    failed?: (err: unknown) => void;
}

/** Files the index kept as candidates under the searched directory, entries handed to the workers, and the first part's work (see `PlannedWalk.work`). */
export interface PlanFigures {
    candidates: number;
    handedOut: number;
    firstWork: number;
}

/**
 * The searched root's segments as the index answers the search; `undefined` when the index does
 * not model the search (a skipped directory it indexed, a root outside it or changed, a changed
 * `.gitignore`), `null` when it would not narrow a content search (then the scan path is as fast).
 * @throws IndexFormatError when a segment read fails its checks.
 */
export function planSearch(s: Served, search: PreparedSearch, rootReal: string): { walk: PlannedWalk; figures: PlanFigures } | null | undefined {
    const changes = s.changes;
    if (search.needTimes && changes.dirTimesPending) return undefined;
    // A changed `.gitignore` changes what its whole directory shows: the scan path.
    if (search.respectGitignore && changes.gitignoreChanged) return undefined;
    const policy = new EntryPolicy(search);
    for (const d of s.skipDirs) if (!policy.skip.has(d)) return undefined;
    const relRoot = path.relative(s.root, rootReal).split(path.sep).join('/');
    if (relRoot === '..' || relRoot.startsWith('../') || path.isAbsolute(relRoot)) return undefined;
    const table = s.table;
    const t = table.t;
    const sId = table.idOf(relRoot);
    if (sId === undefined || t.kind[sId] !== Kind.Dir || t.flags[sId]! & Flag.Unreadable) return undefined;
    for (let p = relRoot; ; p = p.slice(0, Math.max(0, p.lastIndexOf('/')))) {
        if (changes.dirty.has(p)) return undefined;
        if (p === '') break;
    }
    const n = table.size;
    const lo = sId + 1;
    const hi = t.end[sId]!;
    const content = search.contentPattern !== undefined;
    // A pattern with characters of two normal forms may match text or names held in the other
    // one, which the index's grams do not find: its content search takes the scan path, its
    // names are decided one by one (shared/normal-form.ts).
    if (content && hasTwoForms(search.contentPattern!.source)) return null;
    const root = s.root;
    const realOf = (rel: string): string => (rel === '' ? root : root === '/' ? `/${rel}` : `${root}/${rel}`);
    // Candidates over the whole table: a symlinked directory may lead anywhere in it. Sparse:
    // candidates, entries always decided one by one (links, special files, files not indexed),
    // files too large for this search; their directories are checked on the way.
    const big = content && search.maxFileSize < s.maxFileSize ? bigFiles(table, 1, n, search.maxFileSize) : null;
    const byName = search.namePattern && !hasTwoForms(search.namePattern.source) ? evaluateQuery(planQuery(search.namePattern.source, search.namePattern.flags), { list: (g) => table.nameIds(g), size: (g) => table.nameCount(g) }) : null;
    let cands: Uint32Array | null = byName;
    let list: CandidateIds | null = null;
    if (content) {
        const q = planQuery(search.contentPattern!.source, search.contentPattern!.flags);
        const sources = segmentSources(s.segments, 1, n);
        const guess = q.op === 'all' ? Number.POSITIVE_INFINITY : guessCandidates(sources, q);
        // Estimated from the dictionaries to keep more than 60% of the files: broad, left to the names
        // or the scan path. Many candidates: made as the walk goes (windowed-ids.ts), which costs what
        // the search reads, so the scan path would not be faster.
        if (byName === null && guess >= LAZY_FROM && guess <= 0.6 * n) list = new WindowedIds(sources, q, mergeIds(new Uint32Array(0), table.always, 1, n, big), s.failed);
        else if (guess <= 0.6 * n) {
            const found = evaluateSegments(sources, q, 1, n)!;
            cands = byName === null ? found : intersect(found, byName);
        }
        // A content search the index does not narrow to under half the entries: the scan path is as fast.
        if (list === null && (cands === null || countIn(cands, lo, hi) * 2 > hi - lo)) return null;
    }
    if (list === null && cands !== null) list = new ListedIds(mergeIds(cands, table.always, 1, n, big));
    const walk = new TableWalk(table, {
        search,
        rootId: sId,
        displayRoot: search.root.display,
        gitignore: search.respectGitignore ? [...search.gitignoreAbove] : null,
        policy,
        list,
        changed: ChangedEntries.of(table, changes, relRoot, realOf, search.needTimes),
        realOf,
        root,
        // Only while the watcher reports changes: a change it noted empties the cache.
        links: changes.watching && !changes.blind ? table.links.at(changes.seq) : null,
    });
    const figures = { candidates: cands === null ? (list === null ? hi - lo : 0) : countIn(cands, lo, hi), handedOut: 0, firstWork: -1 };
    // The walk in parts: the first as many entries as `max_results` (a candidate mostly holds a
    // hit, so a capped search mostly ends with it), each next one four times the last.
    let budget = Math.max(MIN_PART, search.maxResults);
    const part = (): PlannedWalk => {
        const { segments, done, work } = walk.next(budget);
        budget *= 4;
        figures.handedOut = walk.handedOut;
        if (figures.firstWork === -1) figures.firstWork = work;
        if (list instanceof WindowedIds) {
            figures.candidates = list.listed;
            list.strict = false;
        }
        return { segments, more: done ? null : part, work };
    };
    return { walk: part(), figures };
}

/** Candidates, as the dictionaries estimate them, from which they are made as the walk goes. */
const LAZY_FROM = 2048;

/**
 * Entries decided in the first part of a walk at least (hits made, entries handed out). Perf: the
 * table walk costs the host about as much per entry as a worker's scan of a small file, so the
 * first part stays near what a capped search needs (at max_results 50 on the Linux tree, the
 * plan's median CPU time 1.39 ms with 256, 1.02 ms with 64).
 */
const MIN_PART = 64;

/** Text files in [lo, hi) above `max` bytes: the walk reports them as too large. */
function bigFiles(table: Table, lo: number, hi: number, max: number): Uint32Array {
    const t = table.t;
    const out: number[] = [];
    for (let i = lo; i < hi; i++) if (t.kind[i] === Kind.File && t.size[i]! > max && !(t.flags[i]! & Flag.Binary)) out.push(i);
    return Uint32Array.from(out);
}
