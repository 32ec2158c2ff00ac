import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { DIGEST_BYTES, HEADER_BYTES, layoutOf, SYMBOL_MAGIC, writeCounts, type SymbolLayout } from '../../src/symbols/shared/symbol-format.js';
import type { SymbolsMergeTask } from '../../src/symbols/shared/table-tasks.js';
import { writeAll } from '../../src/fs/shared/write-all.js';
import { columnFile, COLUMNS, STREAMED, type MergeState } from './table-encode.js';
import { copyInto, WRITE_FLAGS } from './table-io.js';

/**
 * The merge's last stage: the columns of the stages before and what the names' stage kept
 * (`state`) joined into the table (symbol-format.ts) under a temporary name, synced and renamed:
 * a crash leaves no file under its name that is not whole. The columns are removed.
 */
export function joinTable(task: SymbolsMergeTask, stem: string): { bytes: number; names: number; definitions: number } {
    const tmp = `${stem}.tmp`;
    try {
        const state = JSON.parse(fs.readFileSync(columnFile(stem, 'state'), 'utf8')) as MergeState;
        const byFile = byFileColumns(stem, task.split);
        const bytes = assemble(task, tmp, stem, state, pointSections(task.tableSize, state.points), byFile);
        fs.renameSync(tmp, task.out);
        return { bytes, names: state.names, definitions: state.defs };
    } finally {
        fs.rmSync(tmp, { force: true });
        removeColumns(stem);
    }
}

/**
 * The rows by file's offsets and CRCs; made in halves split at `split` (merge-stages.ts
 * `fileRows`), put together: the second half's rows appended to the first's column, its offsets
 * moved past the first's rows.
 */
function byFileColumns(stem: string, split: number | undefined): { offsets: Buffer; crcs: Buffer } {
    const [offsets, crcs] = [fs.readFileSync(columnFile(stem, 'fileOff')), fs.readFileSync(columnFile(stem, 'fileCrc'))];
    if (split === undefined) return { offsets, crcs };
    const second = fs.readFileSync(columnFile(stem, 'fileOff1'));
    if (offsets.length !== 4 * (split + 1)) throw new Error("symbols merge: the rows by file's halves disagree");
    const fd = fs.openSync(columnFile(stem, 'fileRows'), fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW);
    try {
        copyInto(fd, columnFile(stem, 'fileRows1'), () => undefined);
    } finally {
        fs.closeSync(fd);
    }
    const joined = Buffer.alloc(4 * split + second.length);
    offsets.copy(joined, 0, 0, 4 * split);
    const first = offsets.readUInt32LE(4 * split);
    for (let i = 0; i < second.length; i += 4) joined.writeUInt32LE(first + second.readUInt32LE(i), 4 * split + i);
    return { offsets: joined, crcs: Buffer.concat([crcs, fs.readFileSync(columnFile(stem, 'fileCrc1'))]) };
}

/** Removes every temporary column of the merge `stem`. */
export function removeColumns(stem: string): void {
    for (const c of COLUMNS) fs.rmSync(columnFile(stem, c), { force: true });
}

/** Strings joined by `\n` with their char offsets (one more than the strings). */
function joined(strings: readonly string[]): { text: Buffer; offsets: Buffer } {
    const offsets = Buffer.alloc(4 * (strings.length + 1));
    let at = 0;
    strings.forEach((s, i) => {
        offsets.writeUInt32LE(at, 4 * i);
        at += s.length + 1;
    });
    offsets.writeUInt32LE(at, 4 * strings.length);
    return { text: Buffer.from(strings.length === 0 ? '' : `${strings.join('\n')}\n`, 'utf8'), offsets };
}

/** The checkpoints' sections: per table entry where its bytes start (one more than the entries), and the bytes. Memory: a few bytes per checkpoint. */
export function pointSections(tableSize: number, points: [number, string][]): { offsets: Buffer; data: Buffer } {
    // An id outside the table is none of its files.
    points = points.filter((p) => p[0] >= 0 && p[0] < tableSize).sort((a, b) => a[0] - b[0]);
    const data = Buffer.concat(points.map((p) => Buffer.from(p[1], 'base64')));
    const offsets = Buffer.alloc(4 * (tableSize + 1));
    let [at, k] = [0, 0];
    for (let id = 0; id <= tableSize; id++) {
        offsets.writeUInt32LE(at, 4 * id);
        if (k < points.length && points[k]![0] === id) at += Buffer.byteLength(points[k++]![1], 'base64');
    }
    return { offsets, data };
}

/** Writes the table to `tmp`: the header, then each section at its place (streamed columns copied), the digest last; synced. Its size. */
function assemble(task: SymbolsMergeTask, tmp: string, stem: string, state: MergeState, points: { offsets: Buffer; data: Buffer }, byFile: { offsets: Buffer; crcs: Buffer }): number {
    const { containers, failed } = state;
    const cont = joined(containers);
    failed.sort((a, b) => a[0] - b[0]);
    const ids = Buffer.alloc(4 * failed.length);
    failed.forEach((f, i) => ids.writeUInt32LE(f[0], 4 * i));
    const size = (c: (typeof STREAMED)[number]): number => fs.statSync(columnFile(stem, c)).size;
    const counts = { tableSize: task.tableSize, names: state.names, defs: state.defs, containers: containers.length, failed: failed.length, nameBytes: state.nameBytes, containerBytes: cont.text.length, codedBytes: size('names'), rowBytes: size('rows'), sigBytes: size('sigs'), pointBytes: points.data.length, fileRowBytes: size('fileRows') };
    const l = layoutOf(counts);
    const header = Buffer.alloc(HEADER_BYTES);
    SYMBOL_MAGIC.copy(header, 0);
    writeCounts(header, counts);
    const hash = createHash('sha256');
    const fd = fs.openSync(tmp, WRITE_FLAGS, 0o600);
    try {
        writeAll(fd, header);
        hash.update(header.subarray(SYMBOL_MAGIC.length + DIGEST_BYTES));
        let at = HEADER_BYTES;
        const seen = (b: Buffer): void => {
            hash.update(b);
            at += b.length;
        };
        const pad = (to: number): void => {
            const zeros = Buffer.alloc(to - at);
            writeAll(fd, zeros);
            seen(zeros);
        };
        const sections: [keyof SymbolLayout, string | Buffer][] = [
            ...STREAMED.map((c) => [c, columnFile(stem, c)] as [keyof SymbolLayout, string]),
            ['contOff', cont.offsets],
            ['contText', cont.text],
            ['failedIds', ids],
            ['failedWhy', Buffer.from(failed.map((f) => f[1]))],
            ['pointOff', points.offsets],
            ['points', points.data],
            ['fileOff', byFile.offsets],
            ['fileCrc', byFile.crcs],
        ];
        // In the file's order; an empty section shares its offset with the next, so it is left out.
        const bytesOf = (from: string | Buffer): number => (typeof from === 'string' ? fs.statSync(from).size : from.length);
        sections.splice(0, sections.length, ...sections.filter(([, from]) => bytesOf(from) > 0).sort((a, b) => l[a[0]] - l[b[0]]));
        for (const [name, from] of sections) {
            pad(l[name]);
            if (typeof from === 'string') copyInto(fd, from, seen);
            else {
                writeAll(fd, from);
                seen(from);
            }
        }
        pad(l.end);
        writeAll(fd, hash.digest(), SYMBOL_MAGIC.length);
        fs.fsyncSync(fd);
        return at;
    } finally {
        fs.closeSync(fd);
    }
}
