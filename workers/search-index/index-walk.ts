import fs from 'node:fs';
import { decodeName, osPath } from '../../src/print/shared/byte-names.js';
import { isDebrisName } from '../../src/fs/shared/debris.js';
import { decodeTable, encodeTableParts, Flag, Kind, type FileTable } from '../../src/search-index/shared/format.js';
import { Names } from '../../src/search-index/shared/table-names.js';
import { nameGrams } from '../../src/search-index/shared/name-grams.js';
import { foldChangeTime } from '../../src/search-index/shared/change-time.js';
import type { IndexCheckResult, IndexCheckTask, IndexWalkResult, IndexWalkTask } from '../../src/search-index/shared/protocol.js';
import { takeTaskPriority } from '../pool/background.js';

/**
 * Index tasks that list the tree: the build's walk into a file table (in the order of a
 * sequential search walk), and the check that compares a new listing with a stored table (what
 * changed while no process watched).
 */

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Growable typed columns. */
class Columns {
    n = 0;
    names: string[] = [];
    parent = new Int32Array(1024);
    kind = new Uint8Array(1024);
    flags = new Uint8Array(1024);
    size = new Float64Array(1024);
    mtime = new Float64Array(1024);
    birthtime = new Float64Array(1024);
    ctime = new Uint32Array(1024);
    end = new Int32Array(1024);

    add(name: string, parent: number, kind: number, st: fs.Stats | null): number {
        if (this.n === this.parent.length) this.#grow();
        const i = this.n++;
        this.names.push(name);
        this.parent[i] = parent;
        this.kind[i] = kind;
        this.size[i] = st ? st.size : 0;
        this.mtime[i] = st ? st.mtimeMs : 0;
        this.birthtime[i] = st ? st.birthtimeMs : 0;
        // Not the root's (its own stat follows a link; only its modification time is compared).
        this.ctime[i] = st && parent >= 0 ? foldChangeTime(st.ctimeMs) : 0;
        this.end[i] = i + 1;
        return i;
    }

    #grow(): void {
        const m = this.parent.length * 2;
        const g = <T extends Int32Array | Uint32Array | Uint8Array | Float64Array>(a: T, ctor: new (n: number) => T): T => {
            const b = new ctor(m);
            b.set(a);
            return b;
        };
        this.parent = g(this.parent, Int32Array);
        this.kind = g(this.kind, Uint8Array);
        this.flags = g(this.flags, Uint8Array);
        this.size = g(this.size, Float64Array);
        this.mtime = g(this.mtime, Float64Array);
        this.birthtime = g(this.birthtime, Float64Array);
        this.ctime = g(this.ctime, Uint32Array);
        this.end = g(this.end, Int32Array);
    }
}

type Failure = Extract<IndexWalkResult, { ok: false }>;

/**
 * Lists the tree into a file table with its names' posting lists, encoded as the table file is
 * (format.ts), and posts it on the task's port, moved (see IndexWalkResult); the host decodes it in
 * slices (Perf: a structured clone of some 90,000 names and the columns, split and decoded at once,
 * would hold its event loop for tens of milliseconds; the name grams are counted here, not on the
 * host).
 */
export async function runIndexWalk(task: IndexWalkTask): Promise<IndexWalkResult> {
    try {
        const walked = await walkEncoded(task);
        if (!walked.ok) return walked;
        const bytes = walked.table.length;
        task.port?.postMessage(walked.table, [walked.table.buffer as ArrayBuffer]);
        return { ok: true, bytes, skipped: walked.skipped };
    } finally {
        task.port?.close();
    }
}

/** The walk's file table, encoded in a buffer of its own (see {@link runIndexWalk}). */
export async function walkEncoded(task: Omit<IndexWalkTask, 'port'>): Promise<{ ok: true; table: Uint8Array; skipped: string[] } | Failure> {
    const walked = walkTable(task);
    if (!walked.ok) return walked;
    // Memory: the parts are copied straight into the buffer that is moved (one copy of the table, not two).
    const parts = await encodeTableParts({ ...walked.table, grams: nameGrams(walked.table.names) }, async () => undefined);
    const table = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
        table.set(part, at);
        at += part.length;
    }
    return { ok: true, table, skipped: walked.skipped };
}

/** Lists the tree depth-first in sorted order: the order of a sequential search walk. */
function walkTable(task: Omit<IndexWalkTask, 'port'>): { ok: true; table: Omit<FileTable, 'grams'>; skipped: string[] } | Failure {
    takeTaskPriority(task);
    try {
        const skip = new Set(task.skipDirs);
        const cols = new Columns();
        const skipped: string[] = [];
        const rootStat = fs.statSync(task.root);
        if (!rootStat.isDirectory()) return { ok: false, code: 'not_a_directory', message: `${task.root} is not a directory` };
        cols.add('', -1, Kind.Dir, rootStat);
        const walk = (dirId: number, dirPath: string, dirRel: string): void => {
            let names: string[];
            try {
                names = fs.readdirSync(osPath(dirPath));
                // A name that is not UTF-8 came out with U+FFFD: as bytes, escaped (byte-names.ts).
                if (names.some((n) => n.includes('\uFFFD'))) names = fs.readdirSync(osPath(dirPath), { encoding: 'buffer' }).map(decodeName);
            } catch {
                cols.flags[dirId]! |= Flag.Unreadable;
                return;
            }
            names.sort(byName);
            for (const name of names) {
                // The temporary files of this library's own writes are never indexed (never searched).
                if (isDebrisName(name)) continue;
                const p = dirPath === '/' ? '/' + name : `${dirPath}/${name}`;
                let st: fs.Stats;
                try {
                    st = fs.lstatSync(osPath(p));
                } catch {
                    continue; // vanished since listed: the watcher reports it
                }
                const kind = st.isDirectory() ? Kind.Dir : st.isFile() ? Kind.File : st.isSymbolicLink() ? Kind.Link : Kind.Other;
                if (kind === Kind.Dir && skip.has(name)) {
                    skipped.push(dirRel === '' ? name : `${dirRel}/${name}`);
                    continue;
                }
                const id = cols.add(name, dirId, kind, st);
                if (cols.n > task.maxEntries) throw new TooMany();
                if (kind === Kind.Dir) {
                    walk(id, p, dirRel === '' ? name : `${dirRel}/${name}`);
                    cols.end[id] = cols.n;
                }
            }
        };
        walk(0, task.root, '');
        cols.end[0] = cols.n;
        const n = cols.n;
        return {
            ok: true,
            skipped,
            table: {
                // Views, not copies: the columns are read once (encoded or compared) and dropped.
                names: Names.of(cols.names),
                parent: cols.parent.subarray(0, n),
                kind: cols.kind.subarray(0, n),
                flags: cols.flags.subarray(0, n),
                size: cols.size.subarray(0, n),
                mtime: cols.mtime.subarray(0, n),
                birthtime: cols.birthtime.subarray(0, n),
                ctime: cols.ctime.subarray(0, n),
                end: cols.end.subarray(0, n),
            },
        };
    } catch (err) {
        if (err instanceof TooMany) return { ok: false, code: 'too_many_entries', message: `more than ${task.maxEntries} entries under ${task.root}` };
        return { ok: false, code: 'walk_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

class TooMany extends Error {}

/** Relative paths of a table's entries (`''` for the root). */
function pathsOf(names: Names, parent: Int32Array): string[] {
    const rel = new Array<string>(names.length);
    rel[0] = '';
    for (let i = 1; i < names.length; i++) {
        const p = parent[i]!;
        rel[i] = p === 0 ? names.get(i) : `${rel[p]}/${names.get(i)}`;
    }
    return rel;
}

/**
 * What changed under the root since the stored table was made (see IndexCheckTask), by walking
 * the tree into a second table and comparing the two by path: where index-check.ts cannot stat
 * by descriptor, and the reference its tests compare it with.
 */
export async function runIndexCheckByWalk(task: IndexCheckTask): Promise<IndexCheckResult> {
    try {
        const stored = await decodeTable(fs.readFileSync(task.table), task.table, async () => undefined);
        const walked = walkTable({ op: 'index-walk', root: task.root, skipDirs: task.skipDirs, maxEntries: task.maxEntries, ...(task.nice !== undefined && { nice: task.nice }) });
        if (!walked.ok) return walked;
        const now = walked.table;
        const nowNames = now.names;
        const before = new Map<string, number>();
        const storedPaths = pathsOf(stored.names, stored.parent);
        storedPaths.forEach((p, i) => before.set(p, i));
        const changed: string[] = [];
        const dirTimes: string[] = [];
        const nowPaths = pathsOf(nowNames, now.parent);
        for (let i = 1; i < nowPaths.length; i++) {
            const p = nowPaths[i]!;
            const j = before.get(p);
            if (j === undefined) {
                changed.push(p);
                continue;
            }
            before.delete(p);
            const kind = now.kind[i]!;
            if (kind !== stored.kind[j] || (now.flags[i]! & Flag.Unreadable) !== (stored.flags[j]! & Flag.Unreadable)) changed.push(p);
            else if (kind !== Kind.Dir && (now.size[i] !== stored.size[j] || now.mtime[i] !== stored.mtime[j] || now.birthtime[i] !== stored.birthtime[j] || now.ctime[i] !== stored.ctime[j])) changed.push(p);
            else if (kind === Kind.Dir && (now.mtime[i] !== stored.mtime[j] || now.birthtime[i] !== stored.birthtime[j])) dirTimes.push(p);
        }
        for (const p of before.keys()) if (p !== '') changed.push(p);
        if (now.mtime[0] !== stored.mtime[0]) dirTimes.push('');
        return { ok: true, changed: changed.join('\0'), dirTimes };
    } catch (err) {
        return { ok: false, code: 'check_failed', message: err instanceof Error ? err.message : String(err) };
    }
}
