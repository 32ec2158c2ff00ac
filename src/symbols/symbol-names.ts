import { BLOCK_NAMES, BLOCK_SHIFT, VarintReader } from './shared/symbol-codec.js';
import { Turns } from '../engine/turns.js';

/** Bytes of names a regex scans between checks of its time and yields (about 1 MB: 36,000 of the Linux tree's names). */
const MATCH_BYTES = 1 << 20;
/** Bytes of the names sampled for how often each byte occurs (one in this many). */
const SAMPLE_EVERY = 61;

/**
 * The longest run of word characters every match of the regex `source` holds, or `''` when that
 * is not plain to see: a source without alternation (`v` mode's classes are not read), and a run
 * outside any group, whose last character no quantifier follows. Classes and escapes end a run.
 */
export function requiredWord(source: string): string {
    if (source.includes('|')) return '';
    let [best, depth] = ['', 0];
    // An escape is read whole (`\x41`, `\u{1F600}`, `\cJ`, `\p{L}`, `\k<n>`, `\12`): its letters are not a run.
    for (const m of source.matchAll(/\\(?:x[0-9a-fA-F]{2}|u\{[^}]*\}|u[0-9a-fA-F]{4}|c[A-Za-z]|[pPk](?:\{[^}]*\}|<[^>]*>)?|\d+|.)|\[(?:\\.|[^\]\\])*\]|\(|\)|\{[^}]*\}|\w+/gsu)) {
        if (m[0] === '(') depth++;
        else if (m[0] === ')') depth--;
        else if (depth === 0 && /^\w/.test(m[0])) {
            const quantified = /^[?*+{]/.test(source.slice(m.index + m[0].length));
            const run = quantified ? m[0].slice(0, -1) : m[0];
            if (run.length > best.length) best = run;
        }
    }
    return depth === 0 ? best : '';
}

/** The word characters every match of `source` starts with (`^word…`, no alternation anywhere, none quantified), or `''`. */
export function anchoredPrefix(source: string): string {
    if (source.includes('|')) return '';
    const m = /^\^(\w+)/.exec(source);
    if (m === null) return '';
    return /^[?*+{]/.test(source.slice(m[0].length)) ? m[1]!.slice(0, -1) : m[1]!;
}

/**
 * A table's names as served: their UTF-8 bytes, each ended by `\n`, sorted by JS string order,
 * with where each block of {@link BLOCK_NAMES} names starts. Memory: one buffer outside the heap,
 * no object or string per name; the file keeps them front coded (a third of the size), decoded
 * once when loaded. Perf: a regex's word or anchored start is looked for in the bytes (no string
 * made of them); other regexes run over a megabyte of names decoded at a time.
 */
export class NameList {
    private constructor(
        readonly bytes: Buffer,
        readonly blockAt: Uint32Array,
        readonly count: number,
        /** How often each byte occurs in a sample of the names. */
        readonly freq: Uint32Array,
    ) {}

    /** The names decoded from their front coding (`coded`), yielding between blocks. @throws RangeError when the coding does not give `count` names in `bytes` bytes. */
    static async decode(coded: Uint8Array, count: number, bytes: number, turns: Turns): Promise<NameList> {
        const out = Buffer.allocUnsafeSlow(bytes);
        const blockAt = new Uint32Array(Math.ceil(count / BLOCK_NAMES) + 1);
        const r = new VarintReader(coded);
        const freq = new Uint32Array(256);
        let [at, prev, sampled] = [0, 0, 0];
        for (let n = 0; n < count; n++) {
            if ((n & (BLOCK_NAMES - 1)) === 0) {
                blockAt[n >> BLOCK_SHIFT] = at;
                // Event loop: the names are sampled as they are decoded, a block at a time; a pass
                // of its own over the kernel's 91 MB of names takes 10-20 ms in one turn.
                for (; sampled < at; sampled += SAMPLE_EVERY) freq[out[sampled]!]!++;
                if (turns.due) await turns.yield();
            }
            if (r.at >= coded.length) throw new RangeError('names: fewer than counted');
            const shared = r.next();
            const rest = r.next();
            const start = at;
            if (shared > at - prev || at + shared + rest + 1 > bytes || r.at + rest > coded.length) throw new RangeError('names: a name does not fit');
            // Perf: a byte loop beats a native copy per name (most names share under 30 bytes).
            for (let i = 0; i < shared; i++) out[at++] = out[prev + i]!;
            for (let i = 0; i < rest; i++) out[at++] = coded[r.at + i]!;
            r.at += rest;
            out[at++] = 0x0a;
            prev = start;
        }
        if (at !== bytes || r.at !== coded.length) throw new RangeError('names: more than counted');
        blockAt[blockAt.length - 1] = at;
        for (; sampled < at; sampled += SAMPLE_EVERY) freq[out[sampled]!]!++;
        return new NameList(out, blockAt, count, freq);
    }

    /** Where name `n`'s bytes start. */
    #start(n: number): number {
        let at = this.blockAt[n >> BLOCK_SHIFT]!;
        for (let i = n & (BLOCK_NAMES - 1); i > 0; i--) at = this.bytes.indexOf(0x0a, at) + 1;
        return at;
    }

    #text(from: number): string {
        return this.bytes.toString('utf8', from, this.bytes.indexOf(0x0a, from));
    }

    nameAt(n: number): string {
        return this.#text(this.#start(n));
    }

    /** The number of the first name not before `s` in JS string order (`count` when none). */
    lowerBound(s: string): number {
        // The last block whose first name is before `s`, then its names in order.
        let [a, b] = [0, this.blockAt.length - 2];
        while (a < b) {
            const m = (a + b + 1) >>> 1;
            if (this.#text(this.blockAt[m]!) < s) a = m;
            else b = m - 1;
        }
        let n = a << BLOCK_SHIFT;
        for (let at = this.blockAt[a] ?? 0; n < this.count; n++) {
            const end = this.bytes.indexOf(0x0a, at);
            if (this.bytes.toString('utf8', at, end) >= s) break;
            at = end + 1;
        }
        return n;
    }

    /** The number of the name `name`, or -1. */
    find(name: string): number {
        const n = this.lowerBound(name);
        return n < this.count && this.nameAt(n) === name ? n : -1;
    }

    /** The number of the name whose bytes hold byte `at`: its block by a binary search, then the line ends before it in the block. */
    #nameHolding(at: number): number {
        let [a, b] = [0, this.blockAt.length - 2];
        while (a < b) {
            const m = (a + b + 1) >>> 1;
            if (this.blockAt[m]! <= at) a = m;
            else b = m - 1;
        }
        let n = a << BLOCK_SHIFT;
        for (let p = this.blockAt[a]!; p < at; p++) if (this.bytes[p] === 0x0a) n++;
        return n;
    }

    /**
     * The part of `word` to look for: from its rarest byte in the names on. Perf: a byte search
     * is fast when the needle's first byte is rare and slow when it is common (on the Linux tree's
     * names, `ioctl` is found in 24 ms and `_ioctl` in 190 ms); every name holding the word holds
     * that part, and each one found is tested with the regex.
     */
    #needle(word: string): Buffer {
        const lit = Buffer.from(word, 'utf8');
        let best = 0;
        for (let i = 1; i + Math.min(3, lit.length) <= lit.length; i++) if (this.freq[lit[i]!]! < this.freq[lit[best]!]!) best = i;
        return lit.subarray(best);
    }

    /**
     * The numbers of the names `re` matches (its own flags, tested on each name alone), in order,
     * until `stop.deadline` (epoch ms) or `stop.signal`: then `stopped` and the names found so
     * far. Between megabytes of names the call yields and checks its time.
     */
    async matching(re: RegExp, stop: { deadline: number; signal?: AbortSignal | undefined }): Promise<{ names: number[]; stopped: boolean }> {
        const out: number[] = [];
        const turns = new Turns();
        const halt = async (): Promise<boolean> => {
            if (Date.now() >= stop.deadline || stop.signal?.aborted === true) return true;
            if (turns.due) await turns.yield();
            return false;
        };
        const prefix = re.ignoreCase || re.flags.includes('v') ? '' : anchoredPrefix(re.source);
        if (prefix !== '') {
            // Perf: names starting with a word are side by side in the sorted names.
            let n = this.lowerBound(prefix);
            for (let at = n < this.count ? this.#start(n) : 0; n < this.count; n++) {
                if ((n & 1023) === 0 && (await halt())) return { names: out, stopped: true };
                const end = this.bytes.indexOf(0x0a, at);
                const name = this.bytes.toString('utf8', at, end);
                if (!name.startsWith(prefix)) break;
                if (re.test(name)) out.push(n);
                at = end + 1;
            }
            return { names: out, stopped: false };
        }
        const word = re.ignoreCase || re.flags.includes('v') ? '' : requiredWord(re.source);
        if (word !== '') {
            // Perf: the word's bytes are looked for in the names' bytes; only the names holding it are decoded and tested.
            const lit = this.#needle(word);
            for (let from = 0; from < this.bytes.length; ) {
                if (await halt()) return { names: out, stopped: true };
                const window = this.bytes.subarray(0, Math.min(this.bytes.length, from + MATCH_BYTES + lit.length));
                let at = from;
                for (let hit = window.indexOf(lit, at); hit !== -1; hit = window.indexOf(lit, at)) {
                    const start = this.bytes.lastIndexOf(0x0a, hit) + 1;
                    const end = this.bytes.indexOf(0x0a, hit);
                    if (re.test(this.bytes.toString('utf8', start, end))) out.push(this.#nameHolding(start));
                    at = end + 1;
                }
                from = Math.max(at, from + MATCH_BYTES);
            }
            return { names: out, stopped: false };
        }
        const scan = new RegExp(re.source, `gm${re.unicode ? 'u' : ''}${re.ignoreCase ? 'i' : ''}`);
        for (let b = 0; b < this.blockAt.length - 1; ) {
            if (await halt()) return { names: out, stopped: true };
            // Whole blocks, about MATCH_BYTES of names.
            let e = b + 1;
            while (e < this.blockAt.length - 1 && this.blockAt[e]! - this.blockAt[b]! < MATCH_BYTES) e++;
            const text = this.bytes.toString('utf8', this.blockAt[b]!, this.blockAt[e]!);
            let [n, lineAt] = [b << BLOCK_SHIFT, 0];
            for (let at = 0; at < text.length; ) {
                scan.lastIndex = at;
                const hit = scan.exec(text)?.index;
                if (hit === undefined) break;
                // The line the match starts in, counted on from the last.
                for (let p = text.indexOf('\n', lineAt); p !== -1 && p < hit; p = text.indexOf('\n', p + 1)) [n, lineAt] = [n + 1, p + 1];
                const end = text.indexOf('\n', lineAt);
                if (re.test(text.slice(lineAt, end))) out.push(n);
                at = end + 1;
            }
            b = e;
        }
        return { names: out, stopped: false };
    }
}
