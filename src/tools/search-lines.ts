import type { HitList, Run } from '../common/search/hit-list.js';
import { runHit } from '../common/search/hit-list.js';
import type { SearchHit } from '../common/search/types.js';
import { quotePath } from '../common/display.js';
import type { Turns } from '../turns.js';

/**
 * The hit lines of `search_entries` (`path:line: text`, `path`, `path/`, `path: N`) in blocks of
 * `perBlock` lines joined by `\n`, each block written as UTF-16LE into one reused buffer and
 * decoded once. A packed run's texts are copied as the bytes the worker sent (see PackedHits in
 * protocol.ts) and each path is encoded once per run, so no object or string is made per hit.
 * Memory / event loop: printing 81,383 hits made ~5 short-lived objects per hit on the host's
 * main thread (hit, text, the parts of its line); the young-generation collections they caused
 * were the longest delays left in printing them (9-27 ms each on the loaded 2-core machine,
 * bench/event-loop.ts, `--trace-gc`).
 *
 * @param line - a hit's line as `lineOf` prints it, for hits of runs that are not packed.
 */
export async function* hitBlocks(list: HitList, start: number, perBlock: number, line: (hit: SearchHit) => string, turns: Turns): AsyncGenerator<string, void, undefined> {
    const out = new Utf16Writer();
    let inBlock = 0;
    for (const { run, from, to } of list.ranges(start)) {
        const packed = run.packed;
        /** `quotePath(path) + ':'` of each path of a packed run, encoded when first used. */
        const heads = packed === undefined ? undefined : new Array<Buffer | undefined>(packed.paths.length);
        for (let j = from; j < to; j++) {
            if (inBlock > 0) out.char(10);
            if (packed !== undefined) {
                const p = packed.pathOf[j]!;
                const head = (heads![p] ??= Buffer.from(`${quotePath(packed.paths[p]!)}:`, 'utf16le'));
                out.bytes(head);
                out.number(packed.lines[j]!);
                out.char(58);
                out.char(32);
                out.bytes(packed.text, 2 * (j === 0 ? 0 : packed.ends[j - 1]!), 2 * packed.ends[j]!);
            } else {
                out.string(line(runHit(run, j)));
            }
            if (++inBlock === perBlock) {
                yield out.take();
                inBlock = 0;
                if (turns.due) await turns.yield();
            }
        }
    }
    if (inBlock > 0) yield out.take();
}

/** UTF-16LE text written into one growing, reused buffer; {@link take} decodes it and starts over. */
class Utf16Writer {
    #buf = Buffer.allocUnsafe(1 << 16);
    #at = 0;

    #room(bytes: number): void {
        if (this.#at + bytes <= this.#buf.length) return;
        const grown = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#at + bytes));
        this.#buf.copy(grown, 0, 0, this.#at);
        this.#buf = grown;
    }

    /** One UTF-16 code unit. */
    char(unit: number): void {
        this.#room(2);
        this.#buf[this.#at++] = unit & 0xff;
        this.#buf[this.#at++] = unit >>> 8;
    }

    /** A whole number from 0 to 2^32 - 1 in decimal, as `String(n)` writes it. */
    number(n: number): void {
        let digits = 1;
        for (let v = n; v >= 10; v = Math.floor(v / 10)) digits++;
        this.#room(2 * digits);
        let v = n;
        for (let i = digits - 1; i >= 0; i--) {
            this.#buf[this.#at + 2 * i] = 48 + (v % 10);
            this.#buf[this.#at + 2 * i + 1] = 0;
            v = Math.floor(v / 10);
        }
        this.#at += 2 * digits;
    }

    /** UTF-16LE bytes `from..to` of `bytes`. */
    bytes(bytes: Uint8Array, from = 0, to = bytes.length): void {
        this.#room(to - from);
        this.#buf.set(bytes.subarray(from, to), this.#at);
        this.#at += to - from;
    }

    /** A string's UTF-16 code units (lone surrogates too). */
    string(s: string): void {
        this.#room(2 * s.length);
        this.#at += this.#buf.write(s, this.#at, 'utf16le');
    }

    /** The text written since the last take. */
    take(): string {
        const s = this.#buf.toString('utf16le', 0, this.#at);
        this.#at = 0;
        return s;
    }
}
