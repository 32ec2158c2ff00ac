import type { SearchHit } from './types.js';
import { runHit } from './hit-list.js';
import type { EntryColumns, PackedEntries, Segment } from './walk-output.js';

/**
 * A search task's runs packed for the thread boundary and unpacked again: hits as columns rather
 * than an object each, and a job's consecutive runs joined, because the host receives and keeps
 * every run until its search ends, and each object costs its garbage collector (see
 * walk-output.ts for the packed forms).
 */

type Run = Extract<Segment, { t: 'run' }>;

/**
 * Builds the {@link EntryColumns} one task's runs share: {@link add} packs a run's hits when they
 * are plain entries, {@link finish} fills the columns (the runs already point at them).
 */
export class EntryPacker {
    readonly cols: EntryColumns = { names: '', ends: new Uint32Array(0), dirs: new Uint8Array(0), at: new Uint32Array(0) };
    #names: string[] = [];
    #ends: number[] = [];
    #dirs: number[] = [];
    #at: number[] = [];
    #end = 0;

    /** Entries recorded so far. */
    get length(): number {
        return this.#ends.length;
    }

    /** Records one entry hit: its name after the run's prefix, whether it is a directory, its index in its run. */
    push(name: string, dir: boolean, at: number): void {
        this.#names.push(name);
        this.#end += name.length;
        this.#ends.push(this.#end);
        this.#dirs.push(dir ? 1 : 0);
        this.#at.push(at);
    }

    /** The entries recorded from `from` on, as a run's {@link PackedEntries}; `undefined` when there are none. */
    since(from: number, prefix: string): PackedEntries | undefined {
        return this.#ends.length > from ? { cols: this.cols, prefix, from, to: this.#ends.length } : undefined;
    }

    /** Packs `run`'s hits if every one is a plain entry (`path` and `kind` only); `false` leaves the run as it is. */
    add(run: Run): boolean {
        const hits = run.hits;
        if (hits.length === 0 || run.at.length !== hits.length) return false;
        for (const h of hits) if ((h.kind !== 'file' && h.kind !== 'directory') || Object.keys(h).length !== 2) return false;
        // The common directory of the run's paths (a run is the entries of one directory), else none.
        const first = hits[0]!.path;
        let prefix = first.slice(0, first.lastIndexOf('/') + 1);
        for (const h of hits) {
            const p = h.path;
            if (p.length <= prefix.length || !p.startsWith(prefix) || p.indexOf('/', prefix.length) !== -1) {
                prefix = '';
                break;
            }
        }
        const from = this.#ends.length;
        for (let i = 0; i < hits.length; i++) {
            const h = hits[i]!;
            this.push(prefix === '' ? h.path : h.path.slice(prefix.length), h.kind === 'directory', run.at[i]!);
        }
        run.entries = this.since(from, prefix)!;
        run.hits = [];
        run.at = [];
        return true;
    }

    /** Fills the shared columns; call once, after the last {@link add}. */
    finish(): void {
        const c = this.cols;
        c.names = this.#names.join('');
        c.ends = Uint32Array.from(this.#ends);
        c.dirs = Uint8Array.from(this.#dirs);
        c.at = Uint32Array.from(this.#at);
        this.#names = [];
    }
}

/**
 * Packs the hits of `run` for the thread boundary: plain entry hits into `entries` (the task's
 * shared columns when `entries` is given, else the run's own), plain content hits (path, kind
 * 'file', line, text; nothing else) into {@link PackedHits}; other runs stay as they are.
 */
export function packRun(run: Run, entries?: EntryPacker): void {
    const hits = run.hits;
    if (hits.length === 0) return;
    if (entries !== undefined) {
        if (entries.add(run)) return;
    } else {
        const own = new EntryPacker();
        if (own.add(run)) return own.finish();
    }
    if (hits.length < 2) return;
    for (const h of hits) {
        if (h.kind !== 'file' || h.line === undefined || h.text === undefined || Object.keys(h).length !== 4) return;
    }
    const paths: string[] = [];
    const n = hits.length;
    let chars = 0;
    for (const h of hits) chars += h.text!.length;
    // Memory / event loop: the run's five columns share one ArrayBuffer, its own (not a slice of
    // Buffer's shared pool: a clone copies the whole ArrayBuffer). Each ArrayBuffer a thread
    // receives is one more backing store its garbage collector tracks and sweeps (a buffer per
    // column would bring some 4,600 of them to the host for a search with 81,383 hits).
    const buffer = new ArrayBuffer(16 * n + 2 * chars);
    const at = new Uint32Array(buffer, 0, n);
    const pathOf = new Uint32Array(buffer, 4 * n, n);
    const lines = new Uint32Array(buffer, 8 * n, n);
    const ends = new Uint32Array(buffer, 12 * n, n);
    const text = new Uint8Array(buffer, 16 * n, 2 * chars);
    const texts = new Array<string>(n);
    let end = 0;
    let last: string | undefined;
    for (let i = 0; i < n; i++) {
        const h = hits[i]!;
        if (h.path !== last) {
            paths.push(h.path);
            last = h.path;
        }
        at[i] = run.at[i]!;
        pathOf[i] = paths.length - 1;
        lines[i] = h.line!;
        texts[i] = h.text!;
        end += h.text!.length;
        ends[i] = end;
    }
    Buffer.from(buffer, text.byteOffset, text.byteLength).write(texts.join(''), 'utf16le');
    run.packed = { paths, pathOf, lines, at, text, ends };
    run.hits = [];
    run.at = [];
}


/**
 * Joins the consecutive runs of one job's output where the result is the same sequence of
 * entries and hits (`at` and the too-large files' `at` shifted by the entries before them), so
 * a job's output is a few runs between the jobs it left for later, not one per directory.
 * Memory / event loop: the runs live on the host's main thread until the search ends, and
 * young-generation collections copy them; one run per directory (some 21,000 for a search with
 * 81,383 hits) makes pauses of 6-14 ms each. A run whose entry hits are in the task's
 * {@link EntryColumns} keeps its own run (their `at` and path prefix are the columns'), and takes
 * in only following runs without hits.
 * @returns `out`, joined in place.
 */
export function coalesceRuns(out: Segment[]): Segment[] {
    let last: Run | undefined;
    let k = 0;
    for (const seg of out) {
        if (seg.t === 'run' && last !== undefined && seg.entries === undefined && (last.entries === undefined || seg.hits.length === 0)) {
            appendRun(last, seg);
            continue;
        }
        last = seg.t === 'run' ? seg : undefined;
        out[k++] = seg;
    }
    out.length = k;
    return out;
}

/** Appends `b`'s entries, hits, skips and too-large files to `a` (not packed runs). */
function appendRun(a: Run, b: Run): void {
    for (let i = 0; i < b.hits.length; i++) {
        a.hits.push(b.hits[i]!);
        a.at.push(b.at[i]! + a.n);
    }
    if (b.skipped) for (const s of b.skipped) (a.skipped ??= []).push(s);
    if (b.tooLarge) for (const f of b.tooLarge) (a.tooLarge ??= []).push({ ...f, at: f.at + a.n });
    a.n += b.n;
}

/** Turns a packed run back into one hit object per hit (paths shared), in order. */
export function unpackRun(run: Run): void {
    const e = run.entries;
    if (e !== undefined) {
        const hits = new Array<SearchHit>(e.to - e.from);
        for (let i = 0; i < hits.length; i++) hits[i] = runHit(run, i);
        run.hits = hits;
        run.at = Array.from(e.cols.at.subarray(e.from, e.to));
        delete run.entries;
        return;
    }
    const p = run.packed;
    if (p === undefined) return;
    const hits = new Array<SearchHit>(p.lines.length);
    for (let i = 0; i < hits.length; i++) hits[i] = runHit(run, i);
    run.hits = hits;
    run.at = Array.from(p.at);
    delete run.packed;
}

