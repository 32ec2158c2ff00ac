import { FIND_WASM } from './find-wasm.js';

/**
 * The prefilter's SIMD search (find.wat) for one set of literals: the first start at or after a
 * position of any of them in a buffer, ASCII case-insensitively. The buffer is copied into the
 * module's memory a window of {@link WINDOW} bytes at a time (Perf: a memcpy, a few percent of the
 * screen's time), so its memory stays small whatever the file's size; no buffer is held between
 * calls. Each call into the module lists up to {@link BATCH} starts, which later calls on the
 * same buffer answer from. Perf: a call per start spent a twentieth of a search with many hits
 * (`unsigned|code`) crossing from JavaScript into WebAssembly.
 * The window's copy also serves the scan's line bookkeeping (newlines counted and looked for,
 * see LiteralSet's line methods).
 */

/** Most literals one search screens (the module's table holds 8 entries of 128 bytes). */
export const SIMD_MAX_LITERALS = 8;
const ENTRY = 128;
const TABLE = SIMD_MAX_LITERALS * ENTRY;
/** Most starts one call lists; they follow the place where the next call goes on, at {@link OUT}. */
const BATCH = 1024;
const OUT = TABLE;
const WINDOW = 1 << 20;
/** Readable bytes past the copied data: the screen's loads of a 64-byte block at a literal's far place (find.wat). */
const SLACK = 64;
const PAGE = 65_536;

/** The part of the WebAssembly API used here (the project's TypeScript libraries do not declare it). */
interface WasmApi {
    validate(bytes: Uint8Array): boolean;
    Module: new (bytes: Uint8Array) => object;
    Instance: new (module: object) => { exports: unknown };
}

const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

interface FindExports {
    memory: { buffer: ArrayBuffer; grow(pages: number): number };
    scan(count: number, data: number, len: number, from: number, end: number, out: number, max: number): number;
    newlines(data: number, from: number, to: number): number;
    lastNewline(data: number, from: number, to: number): number;
    nextNewline(data: number, from: number, to: number): number;
}

let compiled: object | null | undefined;

/** The module, compiled once per thread; null where the runtime has no WebAssembly SIMD. */
function findModule(): object | null {
    if (compiled === undefined) {
        const bytes = Buffer.from(FIND_WASM, 'base64');
        compiled = wasm !== undefined && wasm.validate(bytes) ? new wasm.Module(bytes) : null;
    }
    return compiled;
}

/** Whether {@link SimdFind} can run here. */
export function simdAvailable(): boolean {
    return findModule() !== null;
}

/** One literal as the screen sees it: its lower-cased bytes and the two places screened. */
export interface ScreenedLiteral {
    folded: Uint8Array;
    first: number;
    second: number;
}

export class SimdFind {
    readonly #x: FindExports;
    readonly #count: number;
    readonly #data: number;
    readonly #longest: number;
    /** Whether a window of the current buffer is in memory (the caller passes one buffer between resets). */
    #loaded = false;
    /** The window's start in the buffer, the end of the starts it searches, and how many bytes were copied. */
    #start = 0;
    #end = 0;
    #copied = 0;
    /** The module's output: the place the last call stopped at, then the starts it listed (window offsets). */
    readonly #out: Int32Array;
    /** Where a window is copied to (the memory never grows after the constructor, so the view stays valid). */
    readonly #window: Uint8Array;
    /** Every start in [#listedFrom, #listedTo) of the buffer is in #out[1..#listed]; #next: the first not yet passed. */
    #listedFrom = 0;
    #listedTo = 0;
    #listed = 0;
    #next = 1;
    #lastFrom = 0;

    /** @throws RangeError for no literals, more than {@link SIMD_MAX_LITERALS}, or an empty one; Error where {@link simdAvailable} is false. */
    constructor(literals: readonly ScreenedLiteral[]) {
        const mod = findModule();
        if (mod === null) throw new Error('WebAssembly SIMD is not available');
        if (literals.length === 0 || literals.length > SIMD_MAX_LITERALS || literals.some((l) => l.folded.length === 0)) {
            throw new RangeError(`a SIMD search takes 1 to ${SIMD_MAX_LITERALS} literals, none of them empty`);
        }
        this.#x = new wasm!.Instance(mod).exports as FindExports;
        this.#count = literals.length;
        const bytes = literals.reduce((n, l) => n + l.folded.length, 0);
        this.#longest = Math.max(...literals.map((l) => l.folded.length));
        this.#data = align16(OUT + 4 * (BATCH + 1) + bytes);
        const need = this.#data + WINDOW + this.#longest + SLACK;
        const mem = this.#x.memory;
        if (need > mem.buffer.byteLength) mem.grow(Math.ceil((need - mem.buffer.byteLength) / PAGE));
        const view = new DataView(mem.buffer);
        const heap = new Uint8Array(mem.buffer);
        this.#out = new Int32Array(mem.buffer, OUT, BATCH + 1);
        this.#window = new Uint8Array(mem.buffer, this.#data, need - this.#data);
        let at = OUT + 4 * (BATCH + 1);
        literals.forEach((l, k) => {
            const t = k * ENTRY;
            for (const [place, off] of [[l.first, 0], [l.second, 32]] as const) {
                const v = l.folded[place]!;
                heap.fill(v, t + off, t + off + 16);
                heap.fill(v >= 97 && v <= 122 ? 0x20 : 0, t + off + 16, t + off + 32);
            }
            view.setInt32(t + 64, l.first, true);
            view.setInt32(t + 68, l.second, true);
            view.setInt32(t + 72, l.folded.length, true);
            view.setInt32(t + 76, at, true);
            heap.set(l.folded, at);
            at += l.folded.length;
        });
    }

    /** Forgets the window: called before another buffer, or new content in the same one. */
    reset(): void {
        this.#loaded = false;
    }

    /**
     * The part of the buffer whose bytes are in the module's memory since the last {@link find}:
     * `[windowFrom, windowTo)` (empty after a reset). The newline methods below answer within it.
     */
    get windowFrom(): number {
        return this.#start;
    }

    get windowTo(): number {
        return this.#loaded ? this.#start + this.#copied : this.#start;
    }

    /** The number of newline bytes in `[from, to)` of the buffer, a range within the window. */
    newlines(from: number, to: number): number {
        return this.#x.newlines(this.#data, from - this.#start, to - this.#start);
    }

    /** The place of the last newline byte in `[from, to)` of the buffer (a range within the window), or -1. */
    lastNewline(from: number, to: number): number {
        const at = this.#x.lastNewline(this.#data, from - this.#start, to - this.#start);
        return at === -1 ? -1 : this.#start + at;
    }

    /** The place of the first newline byte in `[from, to)` of the buffer (a range within the window), or -1. */
    nextNewline(from: number, to: number): number {
        const at = this.#x.nextNewline(this.#data, from - this.#start, to - this.#start);
        return at === -1 ? -1 : this.#start + at;
    }

    /** Start of the first occurrence at or after `from` of any literal in `buf`, or -1 (same contract as LiteralSet.find). */
    find(buf: Uint8Array, from: number): number {
        const out = this.#out;
        while (from < buf.length) {
            if (!this.#loaded || from < this.#start || from >= this.#end) this.#load(buf, from);
            if (from < this.#listedFrom || from > this.#listedTo) this.#forget(from);
            // The listed starts are in order: skip those before `from` (from the first again after a call with a lower one).
            if (from < this.#lastFrom) this.#next = 1;
            this.#lastFrom = from;
            while (this.#next <= this.#listed && this.#start + out[this.#next]! < from) this.#next++;
            if (this.#next <= this.#listed) return this.#start + out[this.#next]!;
            if (this.#listedTo >= this.#end) {
                from = this.#end;
                continue;
            }
            const at = this.#listedTo - this.#start;
            this.#listed = this.#x.scan(this.#count, this.#data, this.#copied, at, this.#end - this.#start, OUT, BATCH);
            this.#listedFrom = this.#listedTo;
            this.#listedTo = this.#start + out[0]!;
            this.#next = 1;
        }
        return -1;
    }

    /** Drops the listed starts: the next call into the module lists from `from`. */
    #forget(from: number): void {
        this.#listedFrom = this.#listedTo = from;
        this.#listed = 0;
        this.#next = 1;
    }

    /** Copies the window of starts from `from` (and the bytes a literal starting there may reach) into the module's memory. */
    #load(buf: Uint8Array, from: number): void {
        this.#loaded = true;
        this.#forget(from);
        this.#start = from;
        this.#end = Math.min(buf.length, from + WINDOW);
        const copyEnd = Math.min(buf.length, this.#end + this.#longest - 1);
        this.#copied = copyEnd - from;
        this.#window.set(buf.subarray(from, copyEnd));
    }
}

function align16(n: number): number {
    return (n + 15) & ~15;
}
