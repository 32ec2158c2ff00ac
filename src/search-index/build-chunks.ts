import path from 'node:path';
import { Kind, type FileTable } from './shared/format.js';
import type { IndexChunkTask } from './shared/protocol.js';
import type { Pause } from './shared/table-names.js';

/** Most regular files in one chunk task. */
const MAX_CHUNK_FILES = 20_000;
/** Entries of the table looked at between two calls of the pause. */
const ENTRY_SLICE = 1024;

export interface ChunkOptions {
    root: string;
    /** The generation's folder: chunk `k` writes its parts as `part-<k>-<p>.bin` there. */
    genDir: string;
    maxFileSize: number;
    /** Bytes of text (files up to `maxFileSize`) after which a chunk is cut. */
    segmentBytes: number;
}

/**
 * The content phase's chunks of a walked table, cut one at a time as the build's threads ask for
 * them: consecutive id ranges with at most {@link MAX_CHUNK_FILES} files or about `segmentBytes`
 * of text each, the last one reaching the table's end. Memory and event loop: the host holds the
 * chunks under way and one cut ahead (not every file's path for the whole phase: ~100 MB of
 * strings at ten times the Linux tree), writes each path into the chunk's buffer as the table is
 * walked (in slices between pauses; no join of 20,000 paths in one turn), and the buffers are
 * moved to the thread, not copied (a structured clone of a chunk's 1 MB of paths took 7-27 ms
 * of the host's thread on a loaded machine).
 */
export class ChunkCutter {
    readonly #t: FileTable;
    readonly #o: ChunkOptions;
    readonly #pause: Pause;
    /** Next entry to look at, and the first id of the chunk being cut. */
    #i = 1;
    #first = 0;
    /** The relative paths of the directories on the way down to the current entry, by depth. */
    readonly #dirs: { id: number; rel: string }[] = [{ id: 0, rel: '' }];
    #ids = new Int32Array(1024);
    #files = 0;
    /** The chunk's paths, UTF-16LE (every JS string round-trips, escaped names too), joined by NUL. */
    #paths = Buffer.allocUnsafeSlow(1 << 18);
    #pathBytes = 0;
    #bytes = 0;
    #cut = 0;
    /** The chunk cut ahead: the table's trailing entries without files are added to it. */
    #ahead: IndexChunkTask | null | undefined;
    /** Serializes {@link next} (the lanes ask concurrently). */
    #queue: Promise<unknown> = Promise.resolve();

    constructor(t: FileTable, o: ChunkOptions, pause: Pause) {
        [this.#t, this.#o, this.#pause] = [t, o, pause];
    }

    /** Regular files of the table (counted in slices). */
    async fileCount(): Promise<number> {
        const kind = this.#t.kind;
        let n = 0;
        for (let i = 1; i < kind.length; i++) {
            if (kind[i] === Kind.File) n++;
            if ((i & 0xffff) === 0) await this.#pause();
        }
        return n;
    }

    /** The next chunk, `null` past the last one. */
    next(): Promise<IndexChunkTask | null> {
        const r = this.#queue.then(() => this.#next());
        this.#queue = r.catch(() => undefined);
        return r;
    }

    async #next(): Promise<IndexChunkTask | null> {
        if (this.#ahead === undefined) this.#ahead = await this.#cutOne();
        const out = this.#ahead;
        if (out === null) return null;
        this.#ahead = await this.#cutOne();
        // Entries after the last file (directories, links) are in the last chunk's range.
        if (this.#ahead === null && this.#first < this.#t.names.length) {
            out.count = this.#t.names.length - out.firstId;
            this.#first = this.#t.names.length;
        }
        return out;
    }

    /** Walks the table on to the next cut; `null` when no file is left (a table without any gets one empty chunk). */
    async #cutOne(): Promise<IndexChunkTask | null> {
        const t = this.#t;
        const n = t.names.length;
        const dirs = this.#dirs;
        for (; this.#i < n; this.#i++) {
            const i = this.#i;
            if ((i & (ENTRY_SLICE - 1)) === 0) await this.#pause();
            const p = t.parent[i]!;
            while (dirs[dirs.length - 1]!.id !== p) dirs.pop();
            const kind = t.kind[i];
            if (kind === Kind.Dir) dirs.push({ id: i, rel: p === 0 ? t.names.get(i) : `${dirs[dirs.length - 1]!.rel}/${t.names.get(i)}` });
            if (kind !== Kind.File) continue;
            this.#add(i, p === 0 ? t.names.get(i) : `${dirs[dirs.length - 1]!.rel}/${t.names.get(i)}`);
            if (t.size[i]! <= this.#o.maxFileSize) this.#bytes += t.size[i]!;
            if (this.#bytes >= this.#o.segmentBytes || this.#files >= MAX_CHUNK_FILES) {
                this.#i++;
                return this.#take(i + 1);
            }
        }
        return this.#files > 0 || this.#cut === 0 ? this.#take(n) : null;
    }

    #add(id: number, rel: string): void {
        if (this.#files === this.#ids.length) {
            const ids = new Int32Array(this.#ids.length * 2);
            ids.set(this.#ids);
            this.#ids = ids;
        }
        this.#ids[this.#files++] = id;
        const need = this.#pathBytes + 2 + rel.length * 2;
        if (need > this.#paths.length) {
            const grown = Buffer.allocUnsafeSlow(Math.max(need, this.#paths.length * 2));
            this.#paths.copy(grown, 0, 0, this.#pathBytes);
            this.#paths = grown;
        }
        if (this.#files > 1) this.#pathBytes = this.#paths.writeUInt16LE(0, this.#pathBytes);
        this.#pathBytes += this.#paths.write(rel, this.#pathBytes, 'utf16le');
    }

    /** The chunk of ids `[first, end)`, its buffers its own (to be moved to the thread). */
    #take(end: number): IndexChunkTask {
        const paths = new Uint8Array(this.#pathBytes);
        paths.set(this.#paths.subarray(0, this.#pathBytes));
        const task: IndexChunkTask = {
            op: 'index-chunk',
            root: this.#o.root,
            firstId: this.#first,
            count: end - this.#first,
            ids: this.#ids.slice(0, this.#files),
            paths,
            maxFileSize: this.#o.maxFileSize,
            out: path.join(this.#o.genDir, `part-${this.#cut++}`),
        };
        this.#first = end;
        this.#files = 0;
        this.#pathBytes = 0;
        this.#bytes = 0;
        return task;
    }
}
