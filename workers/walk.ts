import { constants as C, type Dirent, type Stats } from 'node:fs';
import fs from 'node:fs';
import { isInside } from '../src/access/contain.js';
import { EntryKind, packRun, type Segment, type Skip, type SearchTask, type SearchTaskResult, type WalkJob, type WalkSpec } from '../src/engine/protocol.js';
import { compileGlobs, IgnoreCache, readGitignoreFile, type PathTest } from '../src/engine/filters.js';
import type { IgnoreFrame, SearchHit } from '../src/engine/types.js';
import { BINARY_SAMPLE_BYTES, isBinary } from '../src/fs/text.js';
import { CheckpointWriter } from '../src/engine/checkpoint.js';
import { causeOf, errorCode } from '../src/errors.js';
import { isDebrisName } from '../src/fs/debris.js';
import { countBytes, findLiteral, makeMatcher, scanBytes, type ContentMatcher, type LineHit, type LiteralPlan } from './scan.js';

/**
 * The search worker: lists directories, filters entries and scans file contents for a batch of
 * walk jobs, exploring subdirectories depth-first in sorted order until its budget is spent and
 * handing back what is left as new jobs. Its output per job is a list of segments in walk order,
 * which the engine stitches into the global sorted order.
 *
 * Perf: synchronous fs calls. In a worker they block only this thread, and they avoid the
 * four-thread libuv pool that all workers' async calls would share.
 */

/** Entries of a deferred chunk of a large directory. */
const CHUNK = 256;
/** Deeper subtrees than this are handed back as jobs instead of recursing further. */
const MAX_LOCAL_DEPTH = 64;
/** Open flags for content reads. Security: never block on a FIFO, never follow a final symlink swapped in after listing. */
const OPEN_FLAGS = C.O_RDONLY | C.O_NONBLOCK | C.O_NOCTTY | C.O_NOFOLLOW;
/** Files above this many bytes are sampled for binary content before being read whole. */
const BIG_FILE = 64 * 1024;
/** Open flags for directories. */
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NONBLOCK;
/** Linux /proc/self/fd is there: directories can be pinned by descriptor. */
const HAVE_PROC_FD = fs.existsSync('/proc/self/fd');

type Run = Extract<Segment, { t: 'run' }>;

/** A directory being walked: its descriptor (-1 when not pinned), the prefix its entries are reached by, the path to list. */
interface OpenDir {
    fd: number;
    base: string;
    list: string;
}

function pinnedDir(fd: number): OpenDir {
    return { fd, base: `/proc/self/fd/${fd}/`, list: `/proc/self/fd/${fd}` };
}

/** Compiled predicates of one search spec, reused by the tasks of the same call. */
interface Compiled {
    spec: WalkSpec;
    name: RegExp | null;
    content: ContentMatcher | null;
    skip: Set<string>;
    wantFiles: boolean;
    wantDirs: boolean;
    include: PathTest | null;
    exclude: PathTest | null;
    /** `.gitignore` matchers, when the search respects them. */
    ignores: IgnoreCache | null;
    /** Some path filter is on: entries' relative paths are needed. */
    filtered: boolean;
}

let cached: { key: string; compiled: Compiled } | undefined;

function compile(spec: WalkSpec): Compiled {
    const key = JSON.stringify(spec);
    if (cached?.key === key) return cached.compiled;
    const compiled: Compiled = {
        spec,
        name: spec.name ? new RegExp(spec.name.source, spec.name.flags) : null,
        content: spec.content ? makeMatcher(spec.content) : null,
        skip: new Set(spec.skipDirs),
        wantFiles: spec.type !== 'directory',
        wantDirs: spec.type !== 'file' && !spec.content,
        include: spec.include ? compileGlobs(spec.include) : null,
        exclude: spec.exclude ? compileGlobs(spec.exclude) : null,
        ignores: spec.gitignore ? new IgnoreCache() : null,
        filtered: spec.include !== undefined || spec.exclude !== undefined || spec.gitignore,
    };
    cached = { key, compiled };
    return compiled;
}

/**
 * Reusable read buffer, grown up to {@link SCRATCH_MAX}. Perf: no allocation per file. Memory:
 * it used to grow to the largest file scanned (24 MB on the Linux tree, 32 MB after doubling),
 * per worker: a 16-thread engine then peaked at ~610 MB (bench/compare.js --rss-threads 2,16).
 */
let scratch = Buffer.allocUnsafe(1 << 16);
/** Largest size of {@link scratch}, in bytes. */
const SCRATCH_MAX = 1 << 20;

/** {@link scratch}, grown to hold `size` bytes (at most SCRATCH_MAX). */
function scratchOf(size: number): Buffer {
    if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2)));
    return scratch;
}

/** The first `got` bytes of `buf` start with a UTF-16 byte-order mark (such files are decoded whole, see scan.ts). */
function utf16Bom(buf: Buffer, got: number): boolean {
    return got >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff));
}

/**
 * Whether the first `size` bytes of the file hold the literal (ASCII case-insensitively, as the
 * scan's prefilter finds it), read in chunks through {@link scratch}; each chunk keeps the last
 * `literal length - 1` bytes of the one before, so an occurrence across two reads is found.
 * `read`: bytes read.
 */
function streamedLiteral(fd: number, size: number, plan: LiteralPlan): { found: boolean; read: number } {
    const buf = scratchOf(SCRATCH_MAX);
    const keep = plan.folded.length - 1;
    let carried = 0;
    let pos = 0;
    while (pos < size) {
        const n = fs.readSync(fd, buf, carried, Math.min(buf.length - carried, size - pos), pos);
        if (n === 0) break;
        pos += n;
        const len = carried + n;
        if (findLiteral(buf.subarray(0, len), plan, 0) !== -1) return { found: true, read: pos };
        carried = Math.min(keep, len);
        buf.copy(buf, 0, len - carried, len);
    }
    return { found: false, read: pos };
}

/** Walk state of one task. */
class Walker {
    visited = 0;
    scanned = 0;
    hits = 0;
    units = 0;
    capped = false;
    timedOut = false;
    cancelled = false;
    readonly #c: Compiled;
    readonly #task: SearchTask;
    readonly #flag: Int32Array;
    readonly #sliceEnd: number;
    /** Directories are pinned by descriptor (real roots to enforce, and /proc to do it with). */
    readonly #pinned: boolean;
    /** Where hits are recorded before each next entry, with a pattern that may backtrack catastrophically. */
    readonly #checkpoint: CheckpointWriter | null;
    /** Hits found since the last checkpoint, and the index of the job being walked. */
    #unrecorded: SearchHit[] = [];
    #job = 0;
    /** The checkpoint buffer is full: the task hands back what it has instead. */
    #checkpointFull = false;

    constructor(task: SearchTask) {
        this.#task = task;
        this.#c = compile(task.spec);
        this.#pinned = task.spec.realRoots !== null && HAVE_PROC_FD;
        this.#flag = new Int32Array(task.cancel);
        this.#sliceEnd = Date.now() + task.sliceMs;
        this.#checkpoint = task.checkpoint ? new CheckpointWriter(task.checkpoint) : null;
    }

    /** Stop everything now (cap reached, search over, deadline passed). */
    get halted(): boolean {
        return this.capped || this.timedOut || this.cancelled;
    }

    /** Checks the cancel flag and deadline; called at every entry boundary. */
    #check(): boolean {
        if (Atomics.load(this.#flag, 0) !== 0) this.cancelled = true;
        else if (Date.now() > this.#task.spec.deadline) this.timedOut = true;
        return this.halted;
    }

    /** The budget is spent (only after some progress, so that every task advances). */
    #exhausted(): boolean {
        return this.visited > 0 && (this.units >= this.#task.budget || Date.now() >= this.#sliceEnd || this.#checkpointFull);
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
        for (const job of this.#task.jobs) {
            this.#record();
            if (this.halted || this.#check() || this.#exhausted()) {
                results.push(null);
                continue;
            }
            this.#job = results.length;
            const out: Segment[] = [];
            this.#walk(job, out, 0);
            for (const seg of out) if (seg.t === 'run') packRun(seg);
            results.push(out);
        }
        return { ok: true, results, visited: this.visited, scanned: this.scanned, capped: this.capped, timedOut: this.timedOut };
    }

    /**
     * Opens a job's directory. Pinned mode (real roots given, Linux /proc): a directory
     * descriptor whose real path is checked once; everything in it is then reached through
     * `/proc/self/fd/<fd>/name`, so swapping a directory on the way for a link afterwards
     * redirects nothing. `null` (recorded in `out`) when it cannot be opened or moved outside.
     */
    #openDir(job: WalkJob, out: Segment[]): OpenDir | null {
        if (!this.#pinned) return { fd: -1, base: job.real === '/' ? '/' : `${job.real}/`, list: job.real };
        let fd: number;
        try {
            fd = fs.openSync(job.real, DIR_FLAGS);
        } catch (err) {
            out.push({ t: 'run', n: 0, hits: [], at: [], skipped: [{ path: job.rel, reason: reasonOf(err) }] });
            return null;
        }
        if (!this.#fdInside(fd, job.real)) {
            fs.closeSync(fd);
            return null;
        }
        return pinnedDir(fd);
    }

    /** Security: the real path of an open descriptor is the expected one, or still inside the real roots. */
    #fdInside(fd: number, expected: string): boolean {
        let actual: string;
        try {
            actual = fs.readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
            return false;
        }
        return actual === expected || this.#c.spec.realRoots!.some((r) => isInside(actual, r));
    }

    /** Processes one directory (or deferred part of one) into `out`, descending depth-first. */
    #walk(job: WalkJob, out: Segment[], depth: number, opened?: OpenDir): void {
        const dir = opened ?? this.#openDir(job, out);
        if (dir === null) return;
        try {
            this.#walkOpen(job, dir, out, depth);
        } finally {
            if (dir.fd >= 0) fs.closeSync(dir.fd);
        }
    }

    #walkOpen(job: WalkJob, dir: OpenDir, out: Segment[], depth: number): void {
        const c = this.#c;
        let names = job.names;
        let kinds = job.kinds;
        /** `.gitignore` frames in force here (a deferred chunk's job already has its directory's). */
        let frames = job.ignores;
        if (names === undefined || kinds === undefined) {
            let dirents: Dirent[];
            try {
                dirents = fs.readdirSync(dir.list, { withFileTypes: true });
            } catch (err) {
                out.push({ t: 'run', n: 0, hits: [], at: [], skipped: [{ path: job.rel, reason: reasonOf(err) }] });
                return;
            }
            // Sorted by name (UTF-16 code units): with depth-first descent this is component-wise path order.
            dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
            names = new Array<string>(dirents.length);
            kinds = new Array<number>(dirents.length);
            for (let i = 0; i < dirents.length; i++) {
                const d = dirents[i]!;
                names[i] = d.name;
                kinds[i] = d.isDirectory() ? EntryKind.Dir : d.isFile() ? EntryKind.File : d.isSymbolicLink() ? EntryKind.Link : EntryKind.Other;
            }
            if (c.ignores !== null) {
                const at = names.indexOf('.gitignore');
                const rules = at !== -1 && kinds[at] === EntryKind.File ? readGitignoreFile(dir.base + '.gitignore') : null;
                if (rules !== null) {
                    const base = job.rel === c.spec.rootRel ? '' : `${job.rel.slice(c.spec.relStart)}/`;
                    frames = [...(frames ?? []), { base, up: '', rules }];
                }
            }
        }
        let run: Run = { t: 'run', n: 0, hits: [], at: [] };
        const flush = (): void => {
            if (run.n > 0 || run.skipped) out.push(run);
            run = { t: 'run', n: 0, hits: [], at: [] };
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
            // The temporary files of this library's own writes are never listed or searched.
            if (isDebrisName(name)) continue;
            let kind = kinds[i]!;
            const rel = joinRel(job.rel, name);
            /** Where the entry is opened or stat'ed; its real path. They differ in pinned mode and for links. */
            let at = dir.base + name;
            let real = job.real === '/' ? '/' + name : `${job.real}/${name}`;
            let viaLink = false;
            let jumps = job.jumps;
            let stat: Stats | undefined;
            if (kind === EntryKind.Dir && c.skip.has(name)) continue;
            /** Path relative to the searched directory, for the path filters. */
            const sub = c.filtered ? rel.slice(c.spec.relStart) : '';
            if (c.filtered && kind !== EntryKind.Link && this.#leftOut(frames, sub, name, kind === EntryKind.Dir)) continue;
            if (kind === EntryKind.Link) {
                // Symlinks are followed only to targets inside the real access roots, and never into a loop.
                let target: string;
                try {
                    stat = fs.statSync(at);
                    target = fs.realpathSync.native(at);
                } catch (err) {
                    if (c.filtered && this.#leftOut(frames, sub, name, false)) continue;
                    this.#count(run);
                    skip({ path: rel, reason: errorCode(err) === 'ENOENT' ? 'broken symbolic link' : reasonOf(err) });
                    continue;
                }
                if (stat.isDirectory() && c.skip.has(name)) continue;
                // Security: a link out of the accessible directories is not followed (nor listed).
                if (c.spec.realRoots !== null && !c.spec.realRoots.some((r) => isInside(target, r))) continue;
                if (stat.isDirectory()) {
                    // A target containing the current directory or a directory a link was followed from would loop.
                    if (isInside(job.real, target) || job.jumps.some((j) => isInside(j, target))) continue;
                    jumps = [...job.jumps, job.real];
                }
                at = real = target;
                viaLink = true;
                kind = stat.isDirectory() ? EntryKind.Dir : stat.isFile() ? EntryKind.File : EntryKind.Other;
                if (c.filtered && this.#leftOut(frames, sub, name, kind === EntryKind.Dir)) continue;
            }
            this.#count(run);
            if (kind === EntryKind.Dir) {
                if (c.wantDirs && this.#nameOk(name) && (c.include === null || c.include(sub, name, true))) {
                    const times = c.spec.needTimes ? this.#times(at, stat, rel, skip) : undefined;
                    if (times !== null) this.#hit(run, { path: rel, kind: 'directory', ...times });
                }
                if (this.capped) break;
                flush();
                const child: WalkJob = { real, rel, jumps };
                if (frames !== undefined) child.ignores = frames;
                if (depth >= MAX_LOCAL_DEPTH || this.#exhausted()) {
                    out.push({ t: 'job', job: child });
                } else if (this.#pinned && !viaLink) {
                    // Security: opened relative to the pinned parent, never through a link swapped in.
                    let fd: number;
                    try {
                        fd = fs.openSync(at, DIR_FLAGS | C.O_NOFOLLOW);
                    } catch (err) {
                        out.push({ t: 'run', n: 0, hits: [], at: [], skipped: [{ path: rel, reason: reasonOf(err) }] });
                        continue;
                    }
                    this.#walk(child, out, depth + 1, pinnedDir(fd));
                } else {
                    this.#walk(child, out, depth + 1);
                }
                if (this.halted) return;
                continue;
            }
            if (!c.wantFiles || !this.#nameOk(name) || (c.include !== null && !c.include(sub, name, false))) continue;
            let times: { birthtimeMs: number; mtimeMs: number } | undefined;
            if (c.spec.needTimes) {
                const t = this.#times(at, stat, rel, skip);
                if (t === null) continue;
                times = t;
            }
            if (c.content === null) {
                this.#hit(run, { path: rel, kind: 'file', ...times });
            } else if (kind === EntryKind.File) {
                // Security: FIFOs, sockets and devices are never opened (a FIFO would block the read).
                this.#scan(at, viaLink && this.#pinned ? real : null, rel, skip, run, times);
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

    #hit(run: Run, hit: SearchHit): void {
        run.hits.push(hit);
        if (this.#checkpoint !== null) this.#unrecorded.push(hit);
        run.at.push(run.n - 1);
        this.hits++;
        if (this.hits >= this.#task.capHits) this.capped = true;
    }

    #nameOk(name: string): boolean {
        return this.#c.name === null || this.#c.name.test(name);
    }

    /** Excluded by a glob or ignored by a `.gitignore`: left out as if absent (not counted, not walked). */
    #leftOut(frames: readonly IgnoreFrame[] | undefined, sub: string, name: string, isDir: boolean): boolean {
        const c = this.#c;
        if (c.exclude !== null && c.exclude(sub, name, isDir)) return true;
        return frames !== undefined && c.ignores !== null && c.ignores.ignored(frames, sub, isDir);
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
        const s = this.#c.spec;
        const b = st.birthtimeMs;
        const m = st.mtimeMs;
        if (s.createdAfter !== undefined && !(b > s.createdAfter)) return null;
        if (s.createdBefore !== undefined && !(b < s.createdBefore)) return null;
        if (s.modifiedAfter !== undefined && !(m > s.modifiedAfter)) return null;
        if (s.modifiedBefore !== undefined && !(m < s.modifiedBefore)) return null;
        return { birthtimeMs: b, mtimeMs: m };
    }

    /**
     * Content-searches one regular file and records its hits in `run` as the output mode says;
     * binary, oversized, vanished or unreadable files give none.
     * @param check - a real path to re-check the opened descriptor against (a file reached through a link, pinned mode).
     */
    #scan(at: string, check: string | null, rel: string, skip: (s: Skip) => void, run: Run, times: { birthtimeMs: number; mtimeMs: number } | undefined): void {
        let fd: number;
        try {
            fd = fs.openSync(at, OPEN_FLAGS);
        } catch (err) {
            skip({ path: rel, reason: reasonOf(err) });
            return;
        }
        try {
            const st = fs.fstatSync(fd);
            if (!st.isFile()) return;
            if (check !== null && !this.#fdInside(fd, check)) return;
            const size = st.size;
            if (size > this.#c.spec.maxFileSize) {
                // Reported, unless a header sample shows a binary (never searched at any size).
                const got = fs.readSync(fd, scratch, 0, BINARY_SAMPLE_BYTES, 0);
                if (!isBinary(scratch.subarray(0, got))) (run.tooLarge ??= []).push({ path: rel, size, at: run.n - 1 });
                return;
            }
            const c = this.#c;
            // Grown before the sample is read into it, so the sample stays at its start.
            const reusable = size <= SCRATCH_MAX ? scratchOf(size) : null;
            let got = 0;
            if (size > BIG_FILE) {
                // Perf: a large binary is recognised from its first bytes, without reading the rest.
                got = fs.readSync(fd, scratch, 0, BINARY_SAMPLE_BYTES, 0);
                if (isBinary(scratch.subarray(0, got))) return;
                if (size > SCRATCH_MAX && !utf16Bom(scratch, got) && c.content!.literal !== null) {
                    // Memory: a file above the reusable buffer is first streamed through it for the
                    // pattern's literal; one without it has no matching line and is never held whole.
                    const seen = streamedLiteral(fd, size, c.content!.literal);
                    this.units += seen.read >> 14;
                    if (!seen.found) {
                        if (seen.read > 0) this.scanned++;
                        return;
                    }
                    got = 0; // the reusable buffer no longer holds the sample: the file is read again whole
                }
            }
            // Memory: the reusable buffer stops at SCRATCH_MAX; a larger file gets a buffer of its own,
            // released after it, so a worker's memory does not stay at the largest file it scanned.
            const buf = reusable ?? Buffer.allocUnsafe(size);
            if (buf !== scratch && got > 0) scratch.copy(buf, 0, 0, got);
            while (got < size) {
                const n = fs.readSync(fd, buf, got, size - got, got);
                if (n === 0) break;
                got += n;
            }
            this.units += got >> 14;
            const bytes = buf.subarray(0, got);
            if (got === 0 || isBinary(bytes)) return;
            this.scanned++;
            switch (c.spec.mode) {
                case 'content': {
                    const found: LineHit[] = [];
                    scanBytes(bytes, c.content!, this.#task.capHits - this.hits, found, c.spec.context);
                    for (const h of found) {
                        const hit: SearchHit = { path: rel, kind: 'file', line: h.line, text: h.text, ...times };
                        if (h.before !== undefined) {
                            hit.before = h.before;
                            hit.after = h.after!;
                        }
                        this.#hit(run, hit);
                        if (this.capped) break;
                    }
                    break;
                }
                case 'files_with_matches': {
                    // Perf: the scan stops at the file's first matching line.
                    const found: LineHit[] = [];
                    scanBytes(bytes, c.content!, 1, found);
                    if (found.length > 0) this.#hit(run, { path: rel, kind: 'file', ...times });
                    break;
                }
                case 'count': {
                    const n = countBytes(bytes, c.content!);
                    if (n > 0) this.#hit(run, { path: rel, kind: 'file', count: n, ...times });
                    break;
                }
            }
        } catch (err) {
            skip({ path: rel, reason: reasonOf(err) });
        } finally {
            fs.closeSync(fd);
        }
    }
}

/**
 * Hands back entries `from..` of a directory as jobs: subdirectories one each, other entries in
 * chunks, with the directory's `.gitignore` frames.
 */
function deferRest(job: WalkJob, names: string[], kinds: number[], from: number, skip: Set<string>, frames: readonly IgnoreFrame[] | undefined, out: Segment[]): void {
    let chunkNames: string[] = [];
    let chunkKinds: number[] = [];
    const flushChunk = (): void => {
        if (chunkNames.length === 0) return;
        const chunk: WalkJob = { real: job.real, rel: job.rel, jumps: job.jumps, names: chunkNames, kinds: chunkKinds };
        if (frames !== undefined) chunk.ignores = frames;
        out.push({ t: 'job', job: chunk });
        chunkNames = [];
        chunkKinds = [];
    };
    for (let i = from; i < names.length; i++) {
        const name = names[i]!;
        const kind = kinds[i]!;
        if (kind === EntryKind.Dir && skip.has(name)) continue;
        // A directory goes last in its chunk: the chunk's walk visits the entry and descends into it.
        chunkNames.push(name);
        chunkKinds.push(kind);
        if (chunkNames.length >= CHUNK || kind === EntryKind.Dir) flushChunk();
    }
    flushChunk();
}


/** Display path of `name` inside the directory shown as `rel`. */
export function joinRel(rel: string, name: string): string {
    if (rel === '.') return name;
    return rel.endsWith('/') ? rel + name : rel + '/' + name;
}

/** Short reason for a failed filesystem call. */
function reasonOf(err: unknown): string {
    switch (errorCode(err)) {
        case 'EACCES':
        case 'EPERM':
            return 'permission denied';
        case 'ENOENT':
            return 'vanished';
        case 'ELOOP':
            return 'symbolic link loop';
        case 'ENOTDIR':
            return 'not a directory';
        default:
            // The cause in words (`file name too long`, `too many open files (see ulimit -n)`), not an internal path.
            return causeOf(errorCode(err)) ?? (err instanceof Error ? err.message : String(err));
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
