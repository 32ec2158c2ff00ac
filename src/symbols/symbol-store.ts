import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { signatureCheck, signatureText } from './shared/signature.js';
import { DIGEST_BYTES, Failure, HEADER_BYTES, kindOfCode, layoutOf, readCounts, SIG_CUT, SIG_MAX_BYTES, SIG_UNKNOWN, SYMBOL_MAGIC, type SymbolCounts, type SymbolLayout } from './shared/symbol-format.js';
import type { Definition } from './shared/types.js';
import { Turns } from '../engine/turns.js';

/** Bytes read at once while the file is checked. */
const READ_BYTES = 1 << 20;
/** Names a regex scans between checks of its time and yields (about 0.5 MB of the Linux tree's names). */
const MATCH_SLICE = 1 << 15;

/**
 * UTF-8 text (lines ending in `\n`) decoded a slice at a time between yields: the Linux tree's
 * 3.2 million names are 64 MB, whose decoding in one call held the event loop over 100 ms.
 */
async function decodeInSlices(buf: Buffer, from: number, to: number, turns: Turns): Promise<string> {
    const parts: string[] = [];
    for (let at = from; at < to; ) {
        let cut = Math.min(to, at + READ_BYTES);
        // A slice ends after a line end, never inside a character.
        if (cut < to) cut = buf.lastIndexOf(0x0a, cut - 1) + 1 || to;
        if (cut <= at) cut = to;
        parts.push(buf.toString('utf8', at, cut));
        at = cut;
        if (turns.due) await turns.yield();
    }
    return parts.join('');
}

/**
 * The longest run of word characters every match of the regex `source` holds, or `''` when that
 * is not plain to see: only a source without alternation, classes or escapes, and a run outside
 * any group, whose last character no quantifier follows.
 */
export function requiredWord(source: string): string {
    if (/[|[\\]/.test(source)) return '';
    let [best, depth] = ['', 0];
    for (const m of source.matchAll(/\(|\)|\{[^}]*\}|\w+/g)) {
        if (m[0] === '(') depth++;
        else if (m[0] === ')') depth--;
        else if (depth === 0 && m[0][0] !== '{') {
            const quantified = /^[?*+{]/.test(source.slice(m.index + m[0].length));
            const run = quantified ? m[0].slice(0, -1) : m[0];
            if (run.length > best.length) best = run;
        }
    }
    return depth === 0 ? best : '';
}

/** A symbols file that is not whole, not this generation's, or not the index's own: it is ignored and made again. */
export class SymbolFileError extends Error {}

/**
 * A generation's symbol table as served (symbol-format.ts): the names as one string with their
 * offsets, the definitions' columns as typed arrays over one buffer (memory: no object per
 * definition); signatures are read from the source files for the lines a call prints. The whole
 * file is checked against its digest when loaded; a file that fails is never used.
 */
export class SymbolStore {
    readonly counts: SymbolCounts;
    readonly bytes: number;
    readonly #names: string;
    readonly #nameOff: Uint32Array;
    readonly #defStart: Uint32Array;
    readonly #file: Uint32Array;
    readonly #line: Uint32Array;
    readonly #end: Uint32Array;
    readonly #cont: Uint32Array;
    readonly #kind: Uint8Array;
    readonly #conts: string;
    readonly #contOff: Uint32Array;
    readonly #fh: fsp.FileHandle;
    readonly #l: SymbolLayout;
    /** Files whose parse timed out when the table was made (parsed again when asked). */
    readonly timedOut: Uint32Array;

    /**
     * @param head - the file's bytes up to the names' text (header, name offsets).
     * @param cols - its bytes from the definitions' starts to the signatures' places.
     */
    private constructor(fh: fsp.FileHandle, head: Buffer, cols: Buffer, counts: SymbolCounts, bytes: number, names: string) {
        const l = layoutOf(counts);
        const u32 = (at: number, n: number): Uint32Array => (at < l.nameText ? new Uint32Array(head.buffer, head.byteOffset + at, n) : new Uint32Array(cols.buffer, cols.byteOffset + at - l.defStart, n));
        [this.#fh, this.#l, this.counts, this.bytes] = [fh, l, counts, bytes];
        this.#nameOff = u32(l.nameOff, counts.names + 1);
        this.#names = names;
        this.#defStart = u32(l.defStart, counts.names + 1);
        [this.#file, this.#line, this.#end, this.#cont] = [u32(l.defFile, counts.defs), u32(l.defLine, counts.defs), u32(l.defEnd, counts.defs), u32(l.defCont, counts.defs)];
        this.#kind = new Uint8Array(cols.buffer, cols.byteOffset + l.defKind - l.defStart, counts.defs);
        this.#contOff = u32(l.contOff, counts.containers + 1);
        this.#conts = cols.toString('utf8', l.contText - l.defStart, l.contText - l.defStart + counts.containerBytes);
        const ids = u32(l.failedIds, counts.failed);
        this.timedOut = ids.filter((_, i) => cols[l.failedWhy - l.defStart + i] === Failure.Timeout);
        if (this.#names.length !== this.#nameOff[counts.names] || this.#conts.length !== this.#contOff[counts.containers]) throw new SymbolFileError('symbols file: text and offsets disagree');
    }

    /**
     * Opens and checks `file` (no link followed; a regular file of this user): its digest over
     * every byte, its counts and layout against its size, and `tableSize` against the table it
     * was made for. @throws SymbolFileError when it does not check out.
     */
    static async load(file: string, tableSize: number): Promise<SymbolStore> {
        // O_NONBLOCK: a FIFO put in its place must not hold the open (and the process) forever.
        const fh = await fsp.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
        try {
            const st = await fh.stat();
            if (!st.isFile() || (process.getuid !== undefined && st.uid !== process.getuid())) throw new SymbolFileError(`${file} is not a file of this user`);
            if (st.size < HEADER_BYTES) throw new SymbolFileError(`${file} is too short`);
            const first = Buffer.alloc(HEADER_BYTES);
            await fh.read(first, 0, HEADER_BYTES, 0);
            if (!first.subarray(0, SYMBOL_MAGIC.length).equals(SYMBOL_MAGIC)) throw new SymbolFileError(`${file} is not a symbols file`);
            const counts = readCounts(first);
            const l = layoutOf(counts);
            if (l.end !== st.size || counts.tableSize !== tableSize) throw new SymbolFileError(`${file} does not fit its generation`);
            // Memory: the columns are kept; the names' bytes only until decoded; the signatures'
            // places are only hashed (read from disk for the definitions printed).
            const parts: [number, Buffer][] = [[0, Buffer.allocUnsafeSlow(l.nameText)], [l.nameText, Buffer.allocUnsafeSlow(l.defStart - l.nameText)], [l.defStart, Buffer.allocUnsafeSlow(l.defSig - l.defStart)]];
            const hash = createHash('sha256');
            const chunk = Buffer.allocUnsafe(READ_BYTES);
            const turns = new Turns();
            for (let at = SYMBOL_MAGIC.length + DIGEST_BYTES; at < st.size; ) {
                const { bytesRead } = await fh.read(chunk, 0, Math.min(READ_BYTES, st.size - at), at);
                if (bytesRead === 0) throw new SymbolFileError(`${file} ended early`);
                hash.update(chunk.subarray(0, bytesRead));
                for (const [from, buf] of parts) {
                    const [a, b] = [Math.max(at, from), Math.min(at + bytesRead, from + buf.length)];
                    if (a < b) chunk.copy(buf, a - from, a - at, b - at);
                }
                at += bytesRead;
                if (turns.due) await turns.yield();
            }
            const [[, head], [, nameText], [, cols]] = parts as [[number, Buffer], [number, Buffer], [number, Buffer]];
            first.copy(head, 0);
            if (!hash.digest().equals(first.subarray(SYMBOL_MAGIC.length, SYMBOL_MAGIC.length + DIGEST_BYTES))) throw new SymbolFileError(`${file} fails its checksum`);
            return new SymbolStore(fh, head, cols, counts, st.size, await decodeInSlices(nameText, 0, counts.nameBytes, turns));
        } catch (err) {
            await fh.close();
            throw err instanceof SymbolFileError ? err : new SymbolFileError(err instanceof Error ? err.message : String(err));
        }
    }

    async close(): Promise<void> {
        await this.#fh.close().catch(() => undefined);
    }

    /** Where definition `k`'s signature stands in its file, read from the table's file: offset, length | cut, check. */
    async #place(k: number): Promise<[number, number, number]> {
        const b = Buffer.alloc(8);
        await Promise.all([this.#fh.read(b, 0, 4, this.#l.defSig + 4 * k), this.#fh.read(b, 4, 2, this.#l.defSigLen + 2 * k), this.#fh.read(b, 6, 2, this.#l.defCheck + 2 * k)]);
        return [b.readUInt32LE(0), b.readUInt16LE(4), b.readUInt16LE(6)];
    }

    nameAt(n: number): string {
        return this.#names.slice(this.#nameOff[n]!, this.#nameOff[n + 1]! - 1);
    }

    /** The number of the name `name`, or -1 (binary search in JS string order). */
    find(name: string): number {
        let [a, b] = [0, this.counts.names - 1];
        while (a <= b) {
            const m = (a + b) >>> 1;
            const x = this.nameAt(m);
            if (x === name) return m;
            if (x < name) a = m + 1;
            else b = m - 1;
        }
        return -1;
    }

    /**
     * The numbers of the names `re` matches (its own flags, tested on each name alone), until
     * `stop.deadline` (epoch ms) or `stop.signal`: then `stopped` and the names found so far.
     * Perf: one global scan over a slice of the joined names at a time finds the lines worth
     * testing; a line with no match start is skipped, every line a match starts in is tested on its
     * own. Between slices the call yields and checks its time.
     */
    async matching(re: RegExp, stop: { deadline: number; signal?: AbortSignal | undefined } = { deadline: Infinity }): Promise<{ names: number[]; stopped: boolean }> {
        const scan = new RegExp(re.source, `gm${re.unicode ? 'u' : ''}${re.ignoreCase ? 'i' : ''}`);
        // Perf: a word every match holds is looked for with indexOf, faster than the regex's scan.
        const lit = re.ignoreCase ? '' : requiredWord(re.source);
        const next = (text: string, at: number): number => {
            if (lit !== '') return text.indexOf(lit, at);
            scan.lastIndex = at;
            return scan.exec(text)?.index ?? -1;
        };
        const out: number[] = [];
        const off = this.#nameOff;
        const n = this.counts.names;
        const turns = new Turns();
        for (let first = 0; first < n; first += MATCH_SLICE) {
            if (Date.now() >= stop.deadline || stop.signal?.aborted === true) return { names: out, stopped: true };
            if (turns.due) await turns.yield();
            const last = Math.min(n, first + MATCH_SLICE);
            const base = off[first]!;
            const text = this.#names.slice(base, off[last]!);
            for (let at = 0; at < text.length; ) {
                const hit = next(text, at);
                if (hit === -1) break;
                // The line the match starts in: the last offset at or before it.
                let [a, b] = [first, last - 1];
                while (a < b) {
                    const mid = (a + b + 1) >>> 1;
                    if (off[mid]! <= base + hit) a = mid;
                    else b = mid - 1;
                }
                if (re.test(this.nameAt(a))) out.push(a);
                at = off[a + 1]! - base;
            }
        }
        return { names: out, stopped: false };
    }

    /** The definitions' numbers of name number `n`: `[from, to)`. */
    definitionsOf(n: number): [number, number] {
        return [this.#defStart[n]!, this.#defStart[n + 1]!];
    }

    fileOf(k: number): number {
        return this.#file[k]!;
    }

    /** Definition `k` without its signature, with its name given. */
    definition(k: number, name: string): Definition {
        const c = this.#cont[k]!;
        const container = c === 0 ? [] : this.#conts.slice(this.#contOff[c - 1]!, this.#contOff[c]! - 1).split('\0');
        return { kind: kindOfCode(this.#kind[k]!)!, name, container, line: this.#line[k]!, endLine: this.#end[k]!, signature: '' };
    }

    /**
     * The signatures of definitions `ks`, read back from their source files (`realOf(k)`, each
     * unchanged since the generation): `null` for one whose text is not known or does not give
     * the signature the table checked (the caller parses that file again).
     */
    async signatures(ks: readonly number[], realOf: (k: number) => string): Promise<(string | null)[]> {
        const places = await Promise.all(ks.map((k) => this.#place(k)));
        const byFile = new Map<string, number[]>();
        ks.forEach((k, i) => {
            if (places[i]![0] === SIG_UNKNOWN) return;
            const real = realOf(k);
            const list = byFile.get(real);
            if (list) list.push(i);
            else byFile.set(real, [i]);
        });
        const out: (string | null)[] = ks.map(() => null);
        await Promise.all(
            [...byFile].map(async ([real, is]) => {
                const fh = await fsp.open(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW).catch(() => null);
                if (fh === null) return;
                try {
                    for (const i of is) {
                        const [at, lenCut, check] = places[i]!;
                        const len = lenCut & SIG_MAX_BYTES;
                        const buf = Buffer.alloc(len);
                        const { bytesRead } = len === 0 ? { bytesRead: 0 } : await fh.read(buf, 0, len, at);
                        if (bytesRead !== len) continue;
                        const sig = signatureText(buf.toString('utf8'), (lenCut & SIG_CUT) !== 0);
                        if (signatureCheck(sig) === check) out[i] = sig;
                    }
                } catch {
                    // Unreadable now: parsed again by the caller.
                } finally {
                    await fh.close();
                }
            }),
        );
        return out;
    }
}
