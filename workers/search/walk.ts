import fs, { type Stats } from 'node:fs';
import { osPath } from '../../src/print/shared/byte-names.js';
import { EntryKind, type Segment, type Skip, type SearchTask, type SearchTaskResult, type WalkJob } from '../../src/search/shared/protocol.js';
import { errorCode } from '../../src/errors/shared/errors.js';
import { isDebrisName } from '../../src/fs/shared/debris.js';
import { CAN_HOLD } from '../../src/fs/shared/held.js';
import { scanEntry, scanPath, type ScanSpec } from './scan-file.js';
import { closeDir, deferRest, fdInside, followLink, listDir, openDir, openSubdir, reasonOf, relPrefix, type OpenDir } from './walk-dir.js';
import { entersLinkedDir } from '../../src/search/shared/entry-policy.js';
import { SearchPolicy } from './search-policy.js';
import { WalkTask, type Run } from './walk-task.js';

/**
 * The search worker: lists directories, filters entries and scans file contents for a batch of
 * walk jobs, exploring subdirectories depth-first in sorted order until its budget is spent and
 * handing back what is left as new jobs. Its output per job is a list of segments in walk order,
 * which the engine stitches into the global sorted order.
 *
 * The entry policy (which entries a search keeps) is search-policy.ts's, reading a file for its
 * matches scan-file.ts's, the held-descriptor opens src/fs/shared/held.ts's, the task's counts,
 * stops and recorded hits walk-task.ts's.
 *
 * Perf: synchronous fs calls. In a worker they block only this thread, and they avoid the
 * four-thread libuv pool that all workers' async calls would share.
 */

/** Deeper subtrees than this are handed back as jobs instead of recursing further. */
const MAX_LOCAL_DEPTH = 64;

/** The depth-first walk of one task. */
class Walker {
    readonly #c: SearchPolicy;
    readonly #task: SearchTask;
    /** Its counts, stops and recorded hits. */
    readonly #t: WalkTask;
    /** Directories are held by descriptor (real roots to enforce, and /proc to do it with). */
    readonly #held: boolean;
    /**
     * Hits are plain entries (path and kind: no content, no times) recorded by name straight into
     * the task's entry columns, no object per hit; not with a checkpoint, which records hit objects.
     */
    readonly #plain: boolean;
    /** How files are searched (content searches only; see {@link #scanSpec}). */
    readonly #spec: ScanSpec;

    constructor(task: SearchTask) {
        this.#task = task;
        this.#t = new WalkTask(task);
        this.#c = SearchPolicy.of(task.search);
        this.#held = task.search.root.realRoots !== null && CAN_HOLD;
        this.#plain = this.#c.content === null && !task.search.needTimes && !this.#t.checkpointed;
        const s = task.search;
        this.#spec = { matcher: this.#c.content!, mode: s.outputMode, maxFileSize: s.maxFileSize, max: 0, context: s.contextLines };
    }

    run(): SearchTaskResult {
        const t = this.#t;
        const results: (Segment[] | null)[] = [];
        for (const job of this.#task.jobs) {
            t.record();
            if (t.halted || t.check() || t.exhausted()) {
                results.push(null);
                continue;
            }
            t.begin(results.length);
            const out: Segment[] = [];
            this.#walk(job, out, 0);
            results.push(t.pack(out));
        }
        return t.result(results);
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
        const t = this.#t;
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
        const packer = t.entries;
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
            t.record();
            if (t.check()) break;
            if (t.exhausted()) {
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
                t.count(run);
                if (c.kept(name, '', false)) t.entry(run, name, false);
                if (t.capped) break;
                t.cheap++;
                continue;
            }
            // What follows may make system calls (stat, open, scan): the next check reads the clock.
            t.cheap = 0;
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
                    t.count(run);
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
            t.count(run);
            if (kind === EntryKind.Dir) {
                if (c.kept(name, sub, true)) {
                    const times = c.search.needTimes ? this.#times(at, stat, rel, skip) : undefined;
                    if (times !== null) {
                        if (this.#plain) t.entry(run, name, true);
                        else t.hit(run, { path: rel, kind: 'directory', ...times });
                    }
                }
                if (t.capped) break;
                if (viaLink && !entersLinkedDir(real, c.search.root.real)) continue;
                flush();
                const child: WalkJob = { real, rel, jumps };
                if (frames !== undefined) child.ignores = frames;
                if (depth >= MAX_LOCAL_DEPTH || t.exhausted()) {
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
                if (t.halted) return;
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
                if (this.#plain) t.entry(run, name, false);
                else t.hit(run, { path: rel, kind: 'file', ...times });
            } else if (kind === EntryKind.File) {
                // Security: FIFOs, sockets and devices are never opened (a FIFO would block the read).
                // An entry of a held directory is opened relative to it (dir.fd), a link's target by its real path.
                this.#scan(this.#held && !viaLink ? dir.fd : -1, name, at, viaLink && this.#held ? real : null, rel, skip, run, times);
            }
            if (t.capped) break;
        }
        flush();
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
                st = fs.lstatSync(osPath(at));
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
        if (found !== null) this.#t.scannedFile(run, rel, found, times);
    }
    /** The scan's limits for the next file (the hits still wanted change as hits are found). */
    #scanSpec(): ScanSpec {
        const spec = this.#spec;
        spec.max = Math.min(this.#t.hitsLeft, this.#c.search.maxMatchesPerFile ?? Number.POSITIVE_INFINITY);
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
