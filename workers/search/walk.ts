import fs, { type Stats } from 'node:fs';
import { EntryKind, SPLIT_MIN_UNITS, type Segment, type Skip, type SearchTask, type SearchTaskResult, type WalkJob } from '../../src/search/shared/protocol.js';
import { coalesceRuns, EntryPacker, packRun } from '../../src/search/shared/pack-runs.js';
import type { SearchHit } from '../../src/search/shared/types.js';
import { CheckpointWriter } from '../../src/search/shared/checkpoint.js';
import { errorCode } from '../../src/errors/shared/errors.js';
import { isDebrisName } from '../../src/fs/shared/debris.js';
import { CAN_HOLD } from '../../src/fs/shared/held.js';
import { scanEntry, scanPath, type ScanSpec } from './scan-file.js';
import { closeDir, deferRest, fdInside, followLink, listDir, openDir, openSubdir, reasonOf, relPrefix, type OpenDir } from './walk-dir.js';
import { SearchPolicy } from './search-policy.js';

/**
 * The search worker: lists directories, filters entries and scans file contents for a batch of
 * walk jobs, exploring subdirectories depth-first in sorted order until its budget is spent and
 * handing back what is left as new jobs. Its output per job is a list of segments in walk order,
 * which the engine stitches into the global sorted order.
 *
 * The entry policy (which entries a search keeps) is search-policy.ts's, reading a file for its
 * matches scan-file.ts's, the held-descriptor opens src/fs/shared/held.ts's.
 *
 * Perf: synchronous fs calls. In a worker they block only this thread, and they avoid the
 * four-thread libuv pool that all workers' async calls would share.
 */

/** Deeper subtrees than this are handed back as jobs instead of recursing further. */
const MAX_LOCAL_DEPTH = 64;

/** Entries without a system call (plain file entries of a walk or name search) after which {@link Walker} reads the clock again. */
const CLOCK_EVERY = 32;

type Run = Extract<Segment, { t: 'run' }>;

/** Walk state of one task. */
class Walker {
    visited = 0;
    scanned = 0;
    hits = 0;
    units = 0;
    capped = false;
    timedOut = false;
    cancelled = false;
    readonly #c: SearchPolicy;
    readonly #task: SearchTask;
    readonly #flag: Int32Array;
    /** Threads of the search waiting for work (see {@link SearchTask.hunger}); null: not told. */
    readonly #hunger: Int32Array | null;
    /** This task answered a waiting thread: it hands back what is left. */
    #split = false;
    readonly #sliceEnd: number;
    /** Directories are held by descriptor (real roots to enforce, and /proc to do it with). */
    readonly #held: boolean;
    /** Where hits are recorded before each next entry, with a pattern that may backtrack catastrophically. */
    readonly #checkpoint: CheckpointWriter | null;
    /** Hits found since the last checkpoint, and the index of the job being walked. */
    #unrecorded: SearchHit[] = [];
    #job = 0;
    /** The checkpoint buffer is full: the task hands back what it has instead. */
    #checkpointFull = false;
    /** The entry hits of the task's runs, as shared columns (see EntryColumns in protocol.ts). */
    readonly #entries = new EntryPacker();
    /**
     * Hits are plain entries (path and kind: no content, no times) recorded by name straight into
     * {@link #entries}, no object per hit; not with a checkpoint, which records hit objects.
     */
    readonly #plain: boolean;
    /** How files are searched (content searches only; see {@link #scanSpec}). */
    readonly #spec: ScanSpec;
    /** The clock as {@link #check} last read it (ms since the epoch). */
    #now = Date.now();
    /** Entries handled without a system call since the clock was read (see {@link #check}). */
    #cheap = 0;

    constructor(task: SearchTask) {
        this.#task = task;
        this.#c = SearchPolicy.of(task.search);
        this.#held = task.search.root.realRoots !== null && CAN_HOLD;
        this.#flag = new Int32Array(task.cancel);
        this.#hunger = task.hunger ? new Int32Array(task.hunger) : null;
        this.#sliceEnd = Date.now() + task.sliceMs;
        this.#checkpoint = task.checkpoint ? new CheckpointWriter(task.checkpoint) : null;
        this.#plain = this.#c.content === null && !task.search.needTimes && this.#checkpoint === null;
        const s = task.search;
        this.#spec = { matcher: this.#c.content!, mode: s.outputMode, maxFileSize: s.maxFileSize, max: 0, context: s.contextLines };
    }

    /** Stop everything now (cap reached, search over, deadline passed). */
    get halted(): boolean {
        return this.capped || this.timedOut || this.cancelled;
    }

    /**
     * Checks the cancel flag and deadline; called at every entry boundary. The clock is read
     * here ({@link #now}, also {@link #exhausted}'s) after an entry that may have made a system
     * call, and otherwise every {@link CLOCK_EVERY} entries. Perf: `Date.now()` costs 53 ns, and two
     * reads per entry would be 9.4 ms of the ~160 ms of worker CPU time a walk of the Linux tree's
     * 89,209 entries takes; 32 entries without a system call take a few microseconds.
     */
    #check(): boolean {
        if (Atomics.load(this.#flag, 0) !== 0) this.cancelled = true;
        else {
            if (this.#cheap === 0 || this.#cheap >= CLOCK_EVERY) {
                this.#now = Date.now();
                this.#cheap = 0;
            }
            if (this.#now > this.#task.deadline) this.timedOut = true;
        }
        return this.halted;
    }

    /**
     * The budget is spent (only after some progress, so that every task advances), or another
     * thread of the search has no work and this task answers it (see {@link SearchTask.hunger}).
     */
    #exhausted(): boolean {
        if (this.visited === 0) return false;
        if (this.units >= this.#task.budget || this.#now >= this.#sliceEnd || this.#checkpointFull || this.#split) return true;
        return this.#hunger !== null && this.units >= SPLIT_MIN_UNITS && (this.#split = takeOne(this.#hunger));
    }

    /**
     * With a checkpoint buffer: records the hits found since the last call and the progress
     * figures. Called before each next entry, whose regex may run away until the hard abort
     * terminates this worker; the engine then reads what was recorded, so only the stuck file's
     * own hits are lost. A full buffer makes the task hand back its results instead.
     */
    #record(): void {
        const cp = this.#checkpoint;
        if (cp === null) return;
        if (this.#unrecorded.length > 0) {
            if (!cp.append(this.#job, this.#unrecorded)) this.#checkpointFull = true;
            this.#unrecorded = [];
        }
        cp.progress(this.visited, this.scanned);
    }

    run(): SearchTaskResult {
        const results: (Segment[] | null)[] = [];
        // Perf: the entry hits of all the task's runs travel as one set of columns (see EntryColumns).
        const entries = this.#entries;
        // Memory / event loop: the runs left with no hit object share one empty `hits` and one
        // empty `at` per task; a structured clone keeps that sharing, so the host receives two
        // arrays, not two per directory (most runs have no hit object, and each array is an
        // object the host's young-generation collections copy while the search runs). Nothing
        // writes to a run's arrays once the task is done.
        const noHits: SearchHit[] = [];
        const noAt: number[] = [];
        for (const job of this.#task.jobs) {
            this.#record();
            if (this.halted || this.#check() || this.#exhausted()) {
                results.push(null);
                continue;
            }
            this.#job = results.length;
            const out: Segment[] = [];
            this.#walk(job, out, 0);
            coalesceRuns(out);
            for (const seg of out) {
                if (seg.t !== 'run') continue;
                packRun(seg, entries);
                if (seg.hits.length === 0) seg.hits = noHits;
                if (seg.at.length === 0) seg.at = noAt;
            }
            results.push(out);
        }
        entries.finish();
        return { ok: true, results, visited: this.visited, scanned: this.scanned, capped: this.capped, timedOut: this.timedOut };
    }

    /** Processes one directory (or deferred part of one) into `out`, descending depth-first. */
    #walk(job: WalkJob, out: Segment[], depth: number, opened?: OpenDir): void {
        const dir = opened ?? openDir(job, this.#held ? this.#c.search.root.realRoots : null, out);
        if (dir === null) return;
        try {
            this.#walkOpen(job, dir, out, depth);
        } finally {
            closeDir(dir);
        }
    }

    #walkOpen(job: WalkJob, dir: OpenDir, out: Segment[], depth: number): void {
        const c = this.#c;
        let names = job.names;
        let kinds = job.kinds;
        /** `.gitignore` frames in force here (a deferred chunk's job already has its directory's). */
        let frames = job.ignores;
        if (names === undefined || kinds === undefined) {
            const listed = listDir(dir, job.rel, out);
            if (listed === null) return;
            names = listed.names;
            kinds = listed.kinds;
            frames = c.withGitignore(frames, job.rel, dir.base, names, kinds);
        }
        let run: Run = { t: 'run', n: 0, hits: [], at: [] };
        /** Plain entry hits: the run's first in the task's columns, and the display path their names follow. */
        const packer = this.#entries;
        let from = packer.length;
        const prefix = relPrefix(job.rel);
        const flush = (): void => {
            const entries = packer.since(from, prefix);
            if (entries !== undefined) run.entries = entries;
            if (run.n > 0 || run.skipped) out.push(run);
            run = { t: 'run', n: 0, hits: [], at: [] };
            from = packer.length;
        };
        const skip = (s: Skip): void => {
            (run.skipped ??= []).push(s);
        };
        for (let i = 0; i < names.length; i++) {
            this.#record();
            if (this.#check()) break;
            if (this.#exhausted()) {
                flush();
                deferRest(job, names, kinds, i, c.skip, frames, out);
                return;
            }
            const name = names[i]!;
            // The temporary files of this library's own writes are never listed or searched (all start with a dot).
            if (name.charCodeAt(0) === 0x2e && isDebrisName(name)) continue;
            let kind = kinds[i]!;
            if (kind === EntryKind.Dir && c.skip.has(name)) continue;
            // Perf: the plain file entry of a walk or name search needs none of the paths below.
            if (this.#plain && kind === EntryKind.File && !c.filtered) {
                this.#count(run);
                if (c.kept(name, '', false)) this.#entry(run, name, false);
                if (this.capped) break;
                this.#cheap++;
                continue;
            }
            // What follows may make system calls (stat, open, scan): the next check reads the clock.
            this.#cheap = 0;
            const rel = prefix + name;
            /** Where the entry is opened or stat'ed; its real path. They differ in held mode and for links. */
            let at = dir.base + name;
            let real = job.real === '/' ? '/' + name : `${job.real}/${name}`;
            let viaLink = false;
            let jumps = job.jumps;
            let stat: Stats | undefined;
            /** Path relative to the searched directory, for the path filters. */
            const sub = c.filtered ? rel.slice(c.search.relStart) : '';
            if (c.filtered && kind !== EntryKind.Link && c.leftOut(frames, sub, name, kind === EntryKind.Dir)) continue;
            if (kind === EntryKind.Link) {
                const link = followLink(at, job, c.search.root.realRoots);
                if (link === null) continue;
                if ('err' in link) {
                    if (c.filtered && c.leftOut(frames, sub, name, false)) continue;
                    this.#count(run);
                    skip({ path: rel, reason: errorCode(link.err) === 'ENOENT' ? 'broken symbolic link' : reasonOf(link.err) });
                    continue;
                }
                if (link.stat.isDirectory() && c.skip.has(name)) continue;
                stat = link.stat;
                const target = link.target;
                jumps = link.jumps;
                at = real = target;
                viaLink = true;
                kind = stat.isDirectory() ? EntryKind.Dir : stat.isFile() ? EntryKind.File : EntryKind.Other;
                if (c.filtered && c.leftOut(frames, sub, name, kind === EntryKind.Dir)) continue;
            }
            this.#count(run);
            if (kind === EntryKind.Dir) {
                if (c.kept(name, sub, true)) {
                    const times = c.search.needTimes ? this.#times(at, stat, rel, skip) : undefined;
                    if (times !== null) {
                        if (this.#plain) this.#entry(run, name, true);
                        else this.#hit(run, { path: rel, kind: 'directory', ...times });
                    }
                }
                if (this.capped) break;
                flush();
                const child: WalkJob = { real, rel, jumps };
                if (frames !== undefined) child.ignores = frames;
                if (depth >= MAX_LOCAL_DEPTH || this.#exhausted()) {
                    out.push({ t: 'job', job: child });
                } else if (this.#held && !viaLink) {
                    // Security: opened relative to the held parent, never through a link swapped in.
                    let subDir: OpenDir;
                    try {
                        subDir = openSubdir(dir, name);
                    } catch (err) {
                        out.push({ t: 'run', n: 0, hits: [], at: [], skipped: [{ path: rel, reason: reasonOf(err) }] });
                        continue;
                    }
                    this.#walk(child, out, depth + 1, subDir);
                } else {
                    this.#walk(child, out, depth + 1);
                }
                // The child's entries are behind this run's start (its own runs hold them).
                from = packer.length;
                if (this.halted) return;
                continue;
            }
            if (!c.kept(name, sub, false)) continue;
            let times: { birthtimeMs: number; mtimeMs: number } | undefined;
            if (c.search.needTimes) {
                const t = this.#times(at, stat, rel, skip);
                if (t === null) continue;
                times = t;
            }
            if (c.content === null) {
                if (this.#plain) this.#entry(run, name, false);
                else this.#hit(run, { path: rel, kind: 'file', ...times });
            } else if (kind === EntryKind.File) {
                // Security: FIFOs, sockets and devices are never opened (a FIFO would block the read).
                // An entry of a held directory is opened relative to it (dir.fd), a link's target by its real path.
                this.#scan(this.#held && !viaLink ? dir.fd : -1, name, at, viaLink && this.#held ? real : null, rel, skip, run, times);
            }
            if (this.capped) break;
        }
        flush();
    }

    /** Counts one visited entry; reaching the entry cap ends the task. */
    #count(run: Run): void {
        run.n++;
        this.visited++;
        this.units++;
        if (this.visited >= this.#task.capEntries) this.capped = true;
    }

    /** A plain entry hit (see {@link #plain}), recorded by its name in the run's directory. */
    #entry(run: Run, name: string, dir: boolean): void {
        this.#entries.push(name, dir, run.n - 1);
        this.hits++;
        if (this.hits >= this.#task.capHits) this.capped = true;
    }

    #hit(run: Run, hit: SearchHit): void {
        run.hits.push(hit);
        if (this.#checkpoint !== null) this.#unrecorded.push(hit);
        run.at.push(run.n - 1);
        this.hits++;
        if (this.hits >= this.#task.capHits) this.capped = true;
    }

    /**
     * Times of an entry if it passes the timestamp filters, `null` when filtered out or unreadable.
     * `known`: the stat of a followed link's target; other entries are lstat'ed (Security: an entry
     * swapped for a link after listing shows the link's own times, not those of its target).
     */
    #times(at: string, known: Stats | undefined, rel: string, skip: (s: Skip) => void): { birthtimeMs: number; mtimeMs: number } | null {
        let st = known;
        if (st === undefined) {
            try {
                st = fs.lstatSync(at);
            } catch (err) {
                skip({ path: rel, reason: reasonOf(err) });
                return null;
            }
        }
        return this.#c.timesOk(st);
    }

    /**
     * Content-searches one regular file and records its hits in `run` as the output mode says;
     * binary, oversized, vanished or unreadable files give none.
     * @param dirFd - the held directory the file `name` is opened in, or -1: opened at `at`.
     * @param check - a real path to re-check the opened descriptor against (a file reached through a link, pinned mode).
     */
    #scan(dirFd: number, name: string, at: string, check: string | null, rel: string, skip: (s: Skip) => void, run: Run, times: { birthtimeMs: number; mtimeMs: number } | undefined): void {
        const c = this.#c;
        const realRoots = c.search.root.realRoots!;
        let found;
        try {
            found = dirFd >= 0 ? scanEntry(dirFd, name, this.#scanSpec()) : scanPath(at, check === null ? null : (fd) => fdInside(fd, check, realRoots), this.#scanSpec());
        } catch (err) {
            skip({ path: rel, reason: reasonOf(err) });
            return;
        }
        if (found === null) return;
        this.units += found.units;
        if (found.scanned) this.scanned++;
        if (found.tooLarge >= 0) {
            (run.tooLarge ??= []).push({ path: rel, size: found.tooLarge, at: run.n - 1 });
        } else if (c.search.outputMode === 'count') {
            if (found.count > 0) this.#hit(run, { path: rel, kind: 'file', count: found.count, ...times });
        } else if (c.search.outputMode === 'files_with_matches') {
            if (found.lines.length > 0) this.#hit(run, { path: rel, kind: 'file', ...times });
        } else {
            for (const h of found.lines) {
                const hit: SearchHit = { path: rel, kind: 'file', line: h.line, text: h.text, ...times };
                if (h.before !== undefined) {
                    hit.before = h.before;
                    hit.after = h.after!;
                }
                this.#hit(run, hit);
                if (this.capped) break;
            }
        }
    }

    /** The scan's limits for the next file (the hits still wanted change as hits are found). */
    #scanSpec(): ScanSpec {
        const spec = this.#spec;
        spec.max = this.#task.capHits - this.hits;
        return spec;
    }
}

/** Runs one search task; every failure becomes an `ok: false` result. */
export function runSearchTask(task: SearchTask): SearchTaskResult {
    try {
        return new Walker(task).run();
    } catch (err) {
        return { ok: false, code: 'walk_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

/** Takes one from a positive count shared between threads; false when it is 0. */
function takeOne(count: Int32Array): boolean {
    for (;;) {
        const v = Atomics.load(count, 0);
        if (v <= 0) return false;
        if (Atomics.compareExchange(count, 0, v, v - 1) === v) return true;
    }
}
