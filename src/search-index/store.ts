import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeTable, FORMAT_VERSION } from '../common/search-index/format.js';
import { SegmentReader } from '../common/search-index/segment.js';
import { Table } from './table.js';
import { nextTurn } from '../turns.js';

/**
 * The index's folder of one tree (private, outside the tree): `manifest.json` (the current
 * generation, checked by its CRC-32), one `gen-*` folder per build generation (the file table
 * and the segment files, format.ts), lock files, and the removal of generations no manifest names.
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

/** The manifest of `dir` for the tree `root`; `null` when missing, corrupt, of another version or another tree. */
export async function readManifest(dir: string, root: string): Promise<Manifest | null> {
    let text: string;
    try {
        text = await fsp.readFile(manifestFile(dir), 'utf8');
    } catch {
        return null;
    }
    text = text.trimEnd();
    const nl = text.lastIndexOf('\n');
    const body = text.slice(0, nl);
    const crc = text.slice(nl + 1);
    if (nl === -1 || crc32(Buffer.from(body, 'utf8')).toString(16) !== crc) return null;
    try {
        const m = JSON.parse(body) as Manifest;
        if (m.version !== FORMAT_VERSION || m.root !== root || !Array.isArray(m.skippedDirs) || m.skippedDirs.some((d) => typeof d !== 'string')) return null;
        return m;
    } catch {
        return null;
    }
}

/** Replaces the manifest atomically (a temporary file renamed over it). */
export async function writeManifest(dir: string, m: Manifest): Promise<void> {
    const body = JSON.stringify(m);
    const tmp = path.join(dir, `manifest.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    await fsp.writeFile(tmp, `${body}\n${crc32(Buffer.from(body, 'utf8')).toString(16)}\n`, { mode: 0o600 });
    await fsp.rename(tmp, manifestFile(dir));
}

/** Removes the manifest (the index is rebuilt by the next start). */
export async function dropManifest(dir: string): Promise<void> {
    await fsp.rm(manifestFile(dir), { force: true });
}

/**
 * The stored index of `root` in `dir` built with these options (manifest, table, segments),
 * checked; `null` when there is none or it does not check out.
 */
export async function loadStored(dir: string, root: string, opts: { maxFileSize: number; skipDirs: readonly string[] }): Promise<Stored | null> {
    const m = await readManifest(dir, root);
    if (m === null || m.maxFileSize !== opts.maxFileSize || !sameList(m.skipDirs, opts.skipDirs)) return null;
    const genDir = path.join(dir, m.gen);
    const segs: SegmentReader[] = [];
    try {
        const file = path.join(genDir, 'table.bin');
        const table = await Table.load(await decodeTable(await fsp.readFile(file), file, nextTurn));
        for (const s of m.segments) {
            segs.push(new SegmentReader(path.join(genDir, s)));
            await nextTurn();
        }
        return { m, table, segs };
    } catch {
        for (const s of segs) s.close();
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
    const body = JSON.stringify(s);
    const tmp = path.join(dir, `closed.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    await fsp.writeFile(tmp, `${body}\n${crc32(Buffer.from(body, 'utf8')).toString(16)}\n`, { mode: 0o600 });
    await fsp.rename(tmp, closedFile(dir));
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
        const text = (await fsp.readFile(claim, 'utf8')).trimEnd();
        const nl = text.lastIndexOf('\n');
        const body = text.slice(0, nl);
        if (nl === -1 || crc32(Buffer.from(body, 'utf8')).toString(16) !== text.slice(nl + 1)) return null;
        const s = JSON.parse(body) as ClosedState;
        if (s.gen !== gen || !/^snap-[\w-]+\.bin$/.test(s.snapshot) || !Array.isArray(s.dirty) || !Array.isArray(s.dirTimes)) return null;
        return s;
    } catch {
        return null;
    } finally {
        await fsp.rm(claim, { force: true });
    }
}

/** An exclusive lock file (pid inside); a lock of a dead process is taken over. `null` while another live process holds it. */
export async function takeLock(dir: string, name: string): Promise<{ release: () => Promise<void> } | null> {
    const file = path.join(dir, name);
    for (let attempt = 0; attempt < 2; attempt++) {
        try {
            const fh = await fsp.open(file, 'wx', 0o600);
            await fh.writeFile(String(process.pid));
            await fh.close();
            return { release: () => fsp.rm(file, { force: true }) };
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
            const pid = Number(await fsp.readFile(file, 'utf8').catch(() => ''));
            if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) return null;
            if (pid === process.pid) return null;
            await fsp.rm(file, { force: true });
        }
    }
    return null;
}

/** Removes generations other than `keep` (left by crashed builds or older processes) once an hour old. */
export async function removeOldGenerations(dir: string, keep: string): Promise<void> {
    const hour = 60 * 60 * 1000;
    for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
        if (name === keep || !(name.startsWith('gen-') || name.startsWith('snap-') || name.endsWith('.tmp'))) continue;
        const st = await fsp.stat(path.join(dir, name)).catch(() => null);
        // Another process may still read an older generation for a while.
        if (st && Date.now() - st.mtimeMs > hour) await fsp.rm(path.join(dir, name), { recursive: true, force: true });
    }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
    return a.length === b.length && [...a].sort().join('\0') === [...b].sort().join('\0');
}

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
}
