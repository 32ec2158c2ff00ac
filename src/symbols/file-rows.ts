import { Turns } from '../engine/turns.js';
import { BLOCK_NAMES, eachRow } from './shared/symbol-codec.js';

/**
 * The symbol table's definitions by file: per table entry its definitions' numbers with their
 * first and last lines, so that find_references tells the definition enclosing a use without a
 * parse. Made from the rows on first use (two passes: counts per file, then the rows in place);
 * memory 12 bytes a definition (62 MB for the Linux tree's 5.2 million).
 */
export class FileRows {
    private constructor(
        /** Per table entry (and one past the last), where its definitions start below. */
        readonly start: Uint32Array,
        readonly def: Uint32Array,
        readonly line: Uint32Array,
        readonly end: Uint32Array,
    ) {}

    /** From a table's rows (symbol-store.ts): `blockRows` and `blockDefs` per block and one past the last. */
    static async of(rows: Uint8Array, blockRows: Uint32Array, blockDefs: Uint32Array, names: number, tableSize: number): Promise<FileRows> {
        const defs = blockDefs[blockDefs.length - 1]!;
        const start = new Uint32Array(tableSize + 1);
        const turns = new Turns();
        const pass = async (row: (k: number, file: number, line: number, end: number) => void): Promise<void> => {
            for (let b = 0; b + 1 < blockDefs.length; b++) {
                const base = blockDefs[b]!;
                eachRow(rows, blockRows[b]!, blockRows[b + 1]!, Math.min(BLOCK_NAMES, names - b * BLOCK_NAMES), blockDefs[b + 1]! - base, () => undefined, (k, file, line, end) => row(base + k, file, line, end));
                if ((b & 255) === 0 && turns.due) await turns.yield();
            }
        };
        // A file id past the table is none of its files: its rows are left out.
        await pass((_, file) => {
            if (file < tableSize) start[file + 1]!++;
        });
        for (let f = 0; f < tableSize; f++) start[f + 1]! += start[f]!;
        const [def, line, end] = [new Uint32Array(defs), new Uint32Array(defs), new Uint32Array(defs)];
        const at = start.slice(0, tableSize);
        await pass((k, file, l, e) => {
            if (file >= tableSize) return;
            const i = at[file]!++;
            [def[i], line[i], end[i]] = [k, l, e];
        });
        return new FileRows(start, def, line, end);
    }

    /**
     * The innermost definition of file `id` holding each of `lines`, as find_references picks it
     * from a parse's definitions (the one of fewest lines, the later in the file on a tie): its
     * number, or -1 for none; `null` when a tie is between definitions on the same first line,
     * whose order the table does not keep, that `shown` prints differently.
     */
    enclosing(id: number, lines: readonly number[], shown: (k: number) => string): number[] | null {
        const [from, to] = [this.start[id]!, this.start[id + 1]!];
        const out: number[] = [];
        for (const l of lines) {
            let best = -1;
            let tied = false;
            for (let i = from; i < to; i++) {
                const [a, b] = [this.line[i]!, this.end[i]!];
                if (a > l || l > b) continue;
                if (best === -1) [best, tied] = [i, false];
                else {
                    const [span, bestSpan] = [b - a, this.end[best]! - this.line[best]!];
                    if (span < bestSpan || (span === bestSpan && a > this.line[best]!)) [best, tied] = [i, false];
                    else if (span === bestSpan && a === this.line[best]!) {
                        if (shown(this.def[i]!) !== shown(this.def[best]!)) tied = true;
                    }
                }
            }
            if (tied) return null;
            out.push(best === -1 ? -1 : this.def[best]!);
        }
        return out;
    }
}
