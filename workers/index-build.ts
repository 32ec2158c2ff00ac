import { isDebrisName } from '../src/fs/debris.js';
import { isAscii, isUtf8 } from 'node:buffer';
import { constants as C } from 'node:fs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BINARY_SAMPLE_BYTES, isBinary } from '../src/fs/text.js';
import { decodeTable, Flag, Kind } from '../src/search-index/format.js';
import { encodeSegment } from '../src/search-index/segment.js';
import { distinctGrams } from '../src/engine/fold.js';
import type { IndexCheckResult, IndexCheckTask, IndexChunkResult, IndexChunkTask, IndexWalkResult, IndexWalkTask } from '../src/search-index/protocol.js';

/**
 * Index build tasks on the pool: the walk that lists the tree into a file table, and the chunk
 * task that reads a range of files exactly as the search scan does (same open flags, size limit,
 * binary check and decoding as workers/walk.ts and workers/scan.ts), folds and splits the
 * text as the planner does (fold.ts) and writes the range's posting lists as one segment file.
 */

/** Open flags as the search scan's: never block on a FIFO, never follow a final symlink. */
const OPEN_FLAGS = C.O_RDONLY | C.O_NONBLOCK | C.O_NOCTTY | C.O_NOFOLLOW;
/** As in walk.ts: files above this many bytes are sampled for binary content before being read whole. */
const BIG_FILE = 64 * 1024;

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
        this.end[i] = i + 1;
        return i;
    }

    #grow(): void {
        const m = this.parent.length * 2;
        const g = <T extends Int32Array | Uint8Array | Float64Array>(a: T, ctor: new (n: number) => T): T => {
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
        this.end = g(this.end, Int32Array);
    }
}

/**
 * Takes the task's nice value for this thread (Linux keeps one per thread; a build's threads are
 * its own and end with it). Best effort: where the system refuses, the thread keeps its priority.
 */
function takeNice(nice: number | undefined): void {
    if (nice === undefined) return;
    try {
        if (os.getPriority(0) < nice) os.setPriority(0, nice);
    } catch {
        // not permitted here
    }
}

/** Lists the tree depth-first in sorted order: the order of a sequential search walk. */
export function runIndexWalk(task: IndexWalkTask): IndexWalkResult {
    takeNice(task.nice);
    try {
        const skip = new Set(task.skipDirs);
        const cols = new Columns();
        const rootStat = fs.statSync(task.root);
        if (!rootStat.isDirectory()) return { ok: false, code: 'not_a_directory', message: `${task.root} is not a directory` };
        cols.add('', -1, Kind.Dir, rootStat);
        const walk = (dirId: number, dirPath: string): void => {
            let names: string[];
            try {
                names = fs.readdirSync(dirPath);
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
                    st = fs.lstatSync(p);
                } catch {
                    continue; // vanished since listed: the watcher reports it
                }
                const kind = st.isDirectory() ? Kind.Dir : st.isFile() ? Kind.File : st.isSymbolicLink() ? Kind.Link : Kind.Other;
                if (kind === Kind.Dir && skip.has(name)) continue;
                const id = cols.add(name, dirId, kind, st);
                if (cols.n > task.maxEntries) throw new TooMany();
                if (kind === Kind.Dir) {
                    walk(id, p);
                    cols.end[id] = cols.n;
                }
            }
        };
        walk(0, task.root);
        cols.end[0] = cols.n;
        const n = cols.n;
        return {
            ok: true,
            table: {
                names: cols.names.join('\0'),
                parent: cols.parent.slice(0, n),
                kind: cols.kind.slice(0, n),
                flags: cols.flags.slice(0, n),
                size: cols.size.slice(0, n),
                mtime: cols.mtime.slice(0, n),
                birthtime: cols.birthtime.slice(0, n),
                end: cols.end.slice(0, n),
            },
        };
    } catch (err) {
        if (err instanceof TooMany) return { ok: false, code: 'too_many_entries', message: `more than ${task.maxEntries} entries under ${task.root}` };
        return { ok: false, code: 'walk_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

class TooMany extends Error {}

/** Relative paths of a table's entries (`''` for the root). */
function pathsOf(names: readonly string[], parent: Int32Array): string[] {
    const rel = new Array<string>(names.length);
    rel[0] = '';
    for (let i = 1; i < names.length; i++) {
        const p = parent[i]!;
        rel[i] = p === 0 ? names[i]! : `${rel[p]}/${names[i]}`;
    }
    return rel;
}

/** What changed under the root since the stored table was made (see IndexCheckTask). */
export async function runIndexCheck(task: IndexCheckTask): Promise<IndexCheckResult> {
    try {
        const stored = await decodeTable(fs.readFileSync(task.table), task.table, async () => undefined);
        const walked = runIndexWalk({ op: 'index-walk', root: task.root, skipDirs: task.skipDirs, maxEntries: task.maxEntries });
        if (!walked.ok) return walked;
        const now = walked.table;
        const nowNames = now.names.split('\0');
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
            else if (kind !== Kind.Dir && (now.size[i] !== stored.size[j] || now.mtime[i] !== stored.mtime[j])) changed.push(p);
            else if (kind === Kind.Dir && (now.mtime[i] !== stored.mtime[j] || now.birthtime[i] !== stored.birthtime[j])) dirTimes.push(p);
        }
        for (const p of before.keys()) if (p !== '') changed.push(p);
        if (now.mtime[0] !== stored.mtime[0]) dirTimes.push('');
        return { ok: true, changed, dirTimes };
    } catch (err) {
        return { ok: false, code: 'check_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

/**
 * The text the search scan matches for a file's bytes (workers/scan.ts `eachMatchInBytes`):
 * UTF-16 with BOM decoded as such, a UTF-8 BOM dropped, then UTF-8 when valid, else Latin-1.
 */
export function scanText(buf: Buffer): string {
    if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) {
        const body = Buffer.from(buf.subarray(2, 2 + ((buf.length - 2) & ~1)));
        if (buf[0] === 0xfe) body.swap16();
        return body.toString('utf16le');
    }
    const bom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
    const body = bom === 0 ? buf : buf.subarray(bom);
    return body.toString(isUtf8(body) ? 'utf8' : 'latin1');
}

let scratch = Buffer.allocUnsafe(1 << 16);

/** One bit per gram (2^24), cleared after each file. */
let seenBits: Uint8Array | null = null;
/** ASCII folded: A-Z to a-z. */
const LOWER = new Uint8Array(256).map((_, b) => (b >= 65 && b <= 90 ? b + 32 : b));

/**
 * The distinct grams of ASCII bytes, in order of first occurrence: fold.ts `distinctGrams` of
 * the same text (fold.ts: "for pure ASCII bytes the grams are simply the byte trigrams of the
 * bytes with A-Z lower-cased"), several times faster (no decoding, no call per gram).
 */
export function asciiGrams(bytes: Uint8Array): Uint32Array {
    const bits = (seenBits ??= new Uint8Array(1 << 21));
    let out = new Uint32Array(4096);
    let n = 0;
    if (bytes.length < 3) return out.subarray(0, 0);
    let w = (LOWER[bytes[0]!]! << 8) | LOWER[bytes[1]!]!;
    for (let i = 2; i < bytes.length; i++) {
        w = ((w << 8) | LOWER[bytes[i]!]!) & 0xffffff;
        const byte = w >>> 3;
        const mask = 1 << (w & 7);
        if ((bits[byte]! & mask) !== 0) continue;
        bits[byte] = bits[byte]! | mask;
        if (n === out.length) {
            const grown = new Uint32Array(n * 2);
            grown.set(out);
            out = grown;
        }
        out[n++] = w;
    }
    for (let i = 0; i < n; i++) bits[out[i]! >>> 3] = 0;
    return out.subarray(0, n);
}

/** Appends to growable pairs (key, local id). */
class Pairs {
    keys = new Uint32Array(1 << 20);
    ids = new Uint32Array(1 << 20);
    n = 0;
    push(list: Uint32Array, count: number, id: number): void {
        if (this.n + count > this.keys.length) {
            const size = Math.max(this.keys.length * 2, this.n + count);
            const k = new Uint32Array(size);
            k.set(this.keys.subarray(0, this.n));
            const i = new Uint32Array(size);
            i.set(this.ids.subarray(0, this.n));
            this.keys = k;
            this.ids = i;
        }
        this.keys.set(list.subarray(0, count), this.n);
        this.ids.fill(id, this.n, this.n + count);
        this.n += count;
    }
}

/** Flags of one file and, when it is indexed text, its distinct grams in `set`. */
function indexFile(file: string, maxFileSize: number): { flags: number; textBytes: number; grams?: Uint32Array } {
    let fd: number;
    try {
        fd = fs.openSync(file, OPEN_FLAGS);
    } catch {
        return { flags: Flag.Unindexed, textBytes: 0 };
    }
    try {
        const st = fs.fstatSync(fd);
        if (!st.isFile()) return { flags: Flag.Unindexed, textBytes: 0 };
        const size = st.size;
        if (size > maxFileSize) {
            const got = fs.readSync(fd, scratch, 0, BINARY_SAMPLE_BYTES, 0);
            return { flags: isBinary(scratch.subarray(0, got)) ? Flag.Binary : Flag.Unindexed, textBytes: 0 };
        }
        if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
        let got = 0;
        if (size > BIG_FILE) {
            got = fs.readSync(fd, scratch, 0, BINARY_SAMPLE_BYTES, 0);
            if (isBinary(scratch.subarray(0, got))) return { flags: Flag.Binary, textBytes: 0 };
        }
        while (got < size) {
            const n = fs.readSync(fd, scratch, got, size - got, got);
            if (n === 0) break;
            got += n;
        }
        // Grown while read: what the search sees is uncertain (the watcher reports the change too).
        if (got === size && fs.readSync(fd, Buffer.allocUnsafe(1), 0, 1, got) !== 0) return { flags: Flag.Unindexed, textBytes: 0 };
        const bytes = scratch.subarray(0, got);
        if (got === 0) return { flags: Flag.Empty, textBytes: 0 };
        if (isBinary(bytes)) return { flags: Flag.Binary, textBytes: 0 };
        // The planner's fold and split (fold.ts) of the text the scan matches; for ASCII bytes
        // (most source files) those are the byte trigrams with A-Z lower-cased, without decoding.
        return { flags: Flag.Indexed, textBytes: got, grams: isAscii(bytes) ? asciiGrams(bytes) : distinctGrams(scanText(bytes)) };
    } catch {
        return { flags: Flag.Unindexed, textBytes: 0 };
    } finally {
        fs.closeSync(fd);
    }
}

/** Indexes one id range and writes its segment file. */
export function runIndexChunk(task: IndexChunkTask): IndexChunkResult {
    takeNice(task.nice);
    try {
        const pairs = new Pairs();
        const flags = new Uint8Array(task.ids.length);
        let textBytes = 0;
        for (let i = 0; i < task.ids.length; i++) {
            const r = indexFile(path.join(task.root, task.paths[i]!), task.maxFileSize);
            flags[i] = r.flags;
            textBytes += r.textBytes;
            if (r.grams !== undefined) pairs.push(r.grams, r.grams.length, task.ids[i]! - task.firstId);
        }
        const { keys, starts, ids } = invert(pairs);
        const bytes = encodeSegment(keys, starts, ids, task.firstId, task.count);
        fs.writeFileSync(task.out, bytes, { mode: 0o600 });
        return { ok: true, flags, textBytes, segmentBytes: bytes.length };
    } catch (err) {
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    } finally {
        // Perf: a chunk's buffers are large; the next chunk starts small again.
        if (scratch.length > 1 << 24) scratch = Buffer.allocUnsafe(1 << 16);
    }
}

/**
 * Posting lists from (gram, id) pairs given in ascending id order: distinct grams ascending, list
 * bounds, ids. Grams are below 2^24 (fold.ts), so a counting sort over a 2^24 table does it in two
 * passes (the table, 64 MiB of lazily zeroed pages, is dropped after each chunk).
 */
function invert(pairs: Pairs): { keys: Uint32Array; starts: Uint32Array; ids: Uint32Array } {
    const n = pairs.n;
    const table = new Uint32Array(1 << 24);
    let keys = new Uint32Array(1 << 16);
    let distinct = 0;
    for (let i = 0; i < n; i++) {
        const g = pairs.keys[i]!;
        if (table[g]!++ === 0) {
            if (distinct === keys.length) {
                const k = new Uint32Array(keys.length * 2);
                k.set(keys);
                keys = k;
            }
            keys[distinct++] = g;
        }
    }
    keys = keys.slice(0, distinct).sort();
    const starts = new Uint32Array(distinct + 1);
    let at = 0;
    for (let r = 0; r < distinct; r++) {
        const g = keys[r]!;
        starts[r] = at;
        at += table[g]!;
        table[g] = starts[r]!; // from here on: the next free slot of the gram's list
    }
    starts[distinct] = at;
    const ids = new Uint32Array(n);
    for (let i = 0; i < n; i++) ids[table[pairs.keys[i]!]!++] = pairs.ids[i]!;
    return { keys, starts, ids };
}
