import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { READ_NOFOLLOW_FLAGS } from '../fs/shared/held.js';
import { decodeTable, FORMAT_VERSION } from './shared/format.js';
import { SegmentReader } from './shared/segment.js';
import { GEN_NAME, removable, SEGMENT_NAME, SNAPSHOT_NAME } from './folder.js';
import { Table } from './table.js';
import { nextTurn } from '../engine/turns.js';

// The folder's trust check (folder.ts) and its build lock (lock.ts), with the rest of the folder.
export { openIndexFolder } from './folder.js';
export { takeLock } from './lock.js';

/**
 * The index's folder of one tree (private, outside the tree; folder.ts decides whether it is the
 * index's own): `manifest.json` (the current generation, checked by its CRC-32 and its fields'
 * types), one `gen-*` folder per build generation (the file table and the segment files,
 * format.ts), the closed state, and the removal of old entries. Its own small files are read
 * without following a link.
 */

/** What `manifest.json` says: the current generation and how it was built. */
export interface Manifest {
    version: number;
    root: string;
    skipDirs: string[];
    maxFileSize: number;
    gen: string;
    /** Relative paths of the directories the build's walk left out by name (the top-most ones). */
    skippedDirs: string[];
    segments: string[];
    textBytes: number;
    diskBytes: number;
    buildMs: number;
}

/** A stored generation opened: its manifest, loaded table and segment readers. */
export interface Stored {
    m: Manifest;
    table: Table;
    segs: SegmentReader[];
}

const manifestFile = (dir: string): string => path.join(dir, 'manifest.json');

/** The body of a small file of the index written as `body\ncrc32\n`; `null` when missing, a link or not checking out. */
async function readChecked(file: string): Promise<string | null> {
    const text = (await fsp.readFile(file, { encoding: 'utf8', flag: READ_NOFOLLOW_FLAGS }).catch(() => '')).trimEnd();
    const nl = text.lastIndexOf('\n');
    const body = text.slice(0, nl);
    return nl !== -1 && crc32(Buffer.from(body, 'utf8')).toString(16) === text.slice(nl + 1) ? body : null;
}

/** Writes `file` atomically as `body\ncrc32\n` (a new temporary file renamed over it). */
async function writeChecked(dir: string, file: string, prefix: string, body: string): Promise<void> {
    const tmp = path.join(dir, `${prefix}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    await fsp.writeFile(tmp, `${body}\n${crc32(Buffer.from(body, 'utf8')).toString(16)}\n`, { mode: 0o600, flag: 'wx' });
    await fsp.rename(tmp, file);
}

const isCount = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x) && x >= 0;
const isStrings = (x: unknown, name?: RegExp): boolean => Array.isArray(x) && x.every((s) => typeof s === 'string' && (name === undefined || name.test(s)));

/**
 * `x` when it is a manifest of `root` of this format, every field of its type (the generation
 * and segments named as the build names them: nothing outside the folder is ever read or removed).
 * A checksum only says the file is whole: a manifest of another shape is treated as a corrupt one.
 */
function asManifest(x: unknown, root: string): Manifest | null {
    const m = x as Partial<Record<keyof Manifest, unknown>> | null;
    if (typeof m !== 'object' || m === null || m.version !== FORMAT_VERSION || m.root !== root) return null;
    const ok =
        isStrings(m.skipDirs) &&
        isCount(m.maxFileSize) &&
        typeof m.gen === 'string' &&
        GEN_NAME.test(m.gen) &&
        isStrings(m.skippedDirs) &&
        isStrings(m.segments, SEGMENT_NAME) &&
        isCount(m.textBytes) &&
        isCount(m.diskBytes) &&
        isCount(m.buildMs);
    return ok ? (m as Manifest) : null;
}

/** The manifest of `dir` for the tree `root`; `null` when missing, corrupt, of another shape, version or tree. Never rejects. */
export async function readManifest(dir: string, root: string): Promise<Manifest | null> {
    try {
        const body = await readChecked(manifestFile(dir));
        return body === null ? null : asManifest(JSON.parse(body), root);
    } catch {
        return null;
    }
}

/** Replaces the manifest atomically (a temporary file renamed over it). */
export async function writeManifest(dir: string, m: Manifest): Promise<void> {
    await writeChecked(dir, manifestFile(dir), 'manifest', JSON.stringify(m));
}

/** Removes the manifest (the index is rebuilt by the next start); best effort, never rejects (a rebuild replaces it anyway). */
export async function dropManifest(dir: string): Promise<void> {
    await fsp.rm(manifestFile(dir), { force: true }).catch(() => undefined);
}

/**
 * The stored index of `root` in `dir` built with these options (manifest, table, segments),
 * checked; `null` when there is none or it does not check out. Never rejects: it runs while the
 * watcher starts, where a rejection would go unhandled. `read`: the table file's bytes read
 * already (for the tree check's threads too, which leave their checksum to this load).
 */
export async function loadStored(dir: string, root: string, opts: { maxFileSize: number; skipDirs: readonly string[] }, read?: { gen: string; bytes: Promise<SharedArrayBuffer> }): Promise<Stored | null> {
    const m = await readManifest(dir, root);
    if (m === null || m.maxFileSize !== opts.maxFileSize || !sameList(m.skipDirs, opts.skipDirs)) return null;
    const genDir = path.join(dir, m.gen);
    const segs: SegmentReader[] = [];
    let table: Table | undefined;
    try {
        const file = path.join(genDir, 'table.bin');
        const bytes = read?.gen === m.gen ? Buffer.from(await read.bytes) : await fsp.readFile(file);
        table = await Table.load(await decodeTable(bytes, file, nextTurn), file);
        for (const s of m.segments) {
            segs.push(new SegmentReader(path.join(genDir, s)));
            await nextTurn();
        }
        return { m, table, segs };
    } catch {
        for (const s of segs) s.close();
        table?.close();
        return null;
    }
}

/**
 * What a closing process knew: for generation `gen`, the paths changed since it was built and the
 * watcher's snapshot of the tree at that moment. The next process takes it (once) and asks the
 * watcher what changed since the snapshot instead of listing the tree again.
 */
export interface ClosedState {
    gen: string;
    /** File name of the snapshot in the index folder. */
    snapshot: string;
    dirty: string[];
    dirTimes: string[];
}

const closedFile = (dir: string): string => path.join(dir, 'closed.json');

/** Saves `s` (atomically, with a CRC-32), replacing an earlier one (whose snapshot is removed). */
export async function saveClosedState(dir: string, s: ClosedState): Promise<void> {
    await writeChecked(dir, closedFile(dir), 'closed', JSON.stringify(s));
}

/**
 * Takes the closed state of generation `gen` (renamed away first, so two processes never both
 * take it); `null` when there is none, it is corrupt or of another generation.
 */
export async function takeClosedState(dir: string, gen: string): Promise<ClosedState | null> {
    const claim = path.join(dir, `closed.${process.pid}.${randomBytes(4).toString('hex')}.claim.tmp`);
    try {
        await fsp.rename(closedFile(dir), claim);
    } catch {
        return null;
    }
    try {
        const body = await readChecked(claim);
        const s = body === null ? null : (JSON.parse(body) as Partial<Record<keyof ClosedState, unknown>> | null);
        if (typeof s !== 'object' || s === null || s.gen !== gen || typeof s.snapshot !== 'string' || !SNAPSHOT_NAME.test(s.snapshot) || !isStrings(s.dirty) || !isStrings(s.dirTimes)) return null;
        return s as ClosedState;
    } catch {
        return null;
    } finally {
        await fsp.rm(claim, { force: true }).catch(() => undefined);
    }
}

/**
 * Removes generations other than `keep` (left by crashed builds or older processes), snapshots
 * and temporary files once an hour old: only entries with the index's names and kinds (folder.ts),
 * never following a link. Best effort: what cannot be removed stays for a later build.
 */
export async function removeOldGenerations(dir: string, keep: string): Promise<void> {
    const hour = 60 * 60 * 1000;
    for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
        const st = name === keep ? null : await fsp.lstat(path.join(dir, name)).catch(() => null);
        // Another process may still read an older generation for a while.
        if (st !== null && removable(name, st) && Date.now() - st.mtimeMs > hour) await fsp.rm(path.join(dir, name), { recursive: true, force: true }).catch(() => undefined);
    }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
    return a.length === b.length && [...a].sort().join('\0') === [...b].sort().join('\0');
}
