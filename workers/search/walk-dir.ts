import fs, { type Stats } from 'node:fs';
import { decodeName, hasEscapedBytes, osPath } from '../../src/print/shared/byte-names.js';
import { isInside } from '../../src/access/shared/contain.js';
import { EntryKind, type Segment, type WalkJob } from '../../src/search/shared/protocol.js';
import type { IgnoreFrame } from '../../src/search/shared/types.js';
import { causeOf, errorCode } from '../../src/errors/shared/errors.js';
import { DIR_FLAGS, DIR_NOFOLLOW_FLAGS, heldPath, heldRealPathSync } from '../../src/fs/shared/held.js';
import { listPath, type Listing } from '../fs/dirent-records.js';
import { heldAt } from '../fs/held-at.js';

/**
 * The walk's directories: opened and held by descriptor (src/fs/shared/held.ts) and proven
 * inside the real roots, listed in sorted order, and the rest of a directory handed back as jobs.
 */

/** Entries of a deferred chunk of a large directory. */
const CHUNK = 256;

/** A directory being walked: its descriptor (-1 when not held), the prefix its entries are reached by, the path to list. */
export interface OpenDir {
    fd: number;
    base: string;
    list: string;
    /** `fd` was opened through workers/fs/held-at.ts (closed by it, in reverse order of its opens), not by Node's fs. */
    at: boolean;
}

/**
 * A directory held by descriptor `fd` (see src/fs/shared/held.ts): its entries are reached through its held path.
 * `at`: opened through workers/fs/held-at.ts ({@link openSubdir}), else by Node's fs.
 */
export function heldDir(fd: number, at = false): OpenDir {
    const held = heldPath(fd);
    return { fd, base: `${held}/`, list: held, at };
}

/**
 * Opens subdirectory `name` of the held directory `parent` relative to its descriptor, never
 * through a final link (Security: a directory swapped for a link is not entered, ELOOP or
 * ENOTDIR). Perf: openat(2) where held-at.ts's native layer loads (a descriptor the engine's
 * ledger notes, closed with {@link closeDir}), rather than resolving `/proc/<pid>/fd/N/name`.
 * Throws the open's error, as `fs.openSync` of the held path raises it.
 */
export function openSubdir(parent: OpenDir, name: string): OpenDir {
    return heldDir(heldAt().open(parent.fd, name, DIR_NOFOLLOW_FLAGS), true);
}

/** Closes a walked directory's descriptor (none when not held) by the layer that opened it. */
export function closeDir(dir: OpenDir): void {
    if (dir.fd < 0) return;
    if (dir.at) heldAt().close(dir.fd);
    else fs.closeSync(dir.fd);
}

/**
 * Opens a job's directory. Held mode (`realRoots` given: the caller checked that descriptors can
 * be held): a directory descriptor whose real path is checked once; everything in it is then
 * reached relative to that descriptor (held-at.ts: openat, or its held path under /proc), so
 * swapping a directory on the way for a link afterwards redirects nothing. `null` (recorded in
 * `out`) when it cannot be opened or moved outside.
 */
export function openDir(job: WalkJob, realRoots: readonly string[] | null, out: Segment[]): OpenDir | null {
    if (realRoots === null) return { fd: -1, base: job.real === '/' ? '/' : `${job.real}/`, list: job.real, at: false };
    let fd: number;
    try {
        fd = fs.openSync(osPath(job.real), DIR_FLAGS);
    } catch (err) {
        out.push({ t: 'run', n: 0, hits: [], at: [], skipped: [{ path: job.rel, reason: reasonOf(err) }] });
        return null;
    }
    if (!fdInside(fd, job.real, realRoots)) {
        fs.closeSync(fd);
        return null;
    }
    return heldDir(fd);
}

/** Security: the real path of an open descriptor is the expected one, or still inside the real roots. */
export function fdInside(fd: number, expected: string, realRoots: readonly string[]): boolean {
    const actual = heldRealPathSync(fd);
    if (actual === undefined) return false;
    return actual === expected || realRoots.some((r) => isInside(actual, r));
}

/**
 * Where the symlink at `at` (an entry of `job`'s directory) leads, if the walk follows it: only
 * to targets inside the real roots (Security: a link out of the accessible directories is
 * neither followed nor listed; `realRoots` `null`: anywhere), and never into a loop (a target
 * containing the current directory or a directory a link was followed from). `null`: not
 * followed; `{ err }`: it cannot be resolved (broken, unreadable). `jumps`: the job's, plus the
 * current directory when the target is a directory.
 */
export function followLink(at: string, job: WalkJob, realRoots: readonly string[] | null): { stat: Stats; target: string; jumps: readonly string[] } | { err: unknown } | null {
    let stat: Stats;
    let target: string;
    try {
        stat = fs.statSync(osPath(at));
        target = realpathSync(at);
    } catch (err) {
        return { err };
    }
    if (realRoots !== null && !realRoots.some((r) => isInside(target, r))) return null;
    if (!stat.isDirectory()) return { stat, target, jumps: job.jumps };
    if (isInside(job.real, target) || job.jumps.some((j) => isInside(j, target))) return null;
    return { stat, target, jumps: [...job.jumps, job.real] };
}

/**
 * The entries of the open directory `dir`, sorted by name (UTF-16 code units: with depth-first
 * descent this is component-wise path order), with their kinds ({@link EntryKind});
 * `null` (recorded in `out` under `rel`) when it cannot be listed.
 */
export function listDir(dir: OpenDir, rel: string, out: Segment[]): Listing | null {
    try {
        // Perf: a held directory is listed by its descriptor where the native layer loads (held-at.ts).
        return dir.fd >= 0 ? heldAt().list(dir.fd) : listPath(dir.list);
    } catch (err) {
        out.push({ t: 'run', n: 0, hits: [], at: [], skipped: [{ path: rel, reason: reasonOf(err) }] });
        return null;
    }
}

/**
 * Hands back entries `from..` of a directory as jobs: subdirectories one each, other entries in
 * chunks, with the directory's `.gitignore` frames.
 */
export function deferRest(job: WalkJob, names: string[], kinds: number[], from: number, skip: Set<string>, frames: readonly IgnoreFrame[] | undefined, out: Segment[]): void {
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


/** What display paths of entries of the directory shown as `rel` start with: `rel/` (`''` for `.`, `rel` when it ends with `/`). */
export function relPrefix(rel: string): string {
    if (rel === '.') return '';
    return rel.endsWith('/') ? rel : `${rel}/`;
}

/** Short reason for a failed filesystem call. */
export function reasonOf(err: unknown): string {
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

/** fs.realpathSync.native for paths that may hold bytes that are not UTF-8 (src/print/shared/byte-names.ts). */
export function realpathSync(p: string): string {
    const real = fs.realpathSync.native(osPath(p));
    return hasEscapedBytes(p) || real.includes('\uFFFD') ? decodeName(fs.realpathSync.native(osPath(p), { encoding: 'buffer' })) : real;
}
