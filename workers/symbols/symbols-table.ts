import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AccessType } from '../../src/config/shared/configuration.js';
import { signatureCheck } from '../../src/symbols/shared/signature.js';
import { SIG_NONE } from '../../src/symbols/shared/symbol-codec.js';
import { DIGEST_BYTES, Failure, HEADER_BYTES, KIND_CODES, layoutOf, SIG_MAX_BYTES, SYMBOL_MAGIC, writeCounts, type PartRecord, type SymbolLayout } from '../../src/symbols/shared/symbol-format.js';
import type { SymbolsMergeResult, SymbolsMergeTask, SymbolsPartResult, SymbolsPartTask } from '../../src/symbols/shared/table-tasks.js';
import { takeTaskPriority } from '../pool/background.js';
import { runSymbolsTask } from './symbols.js';
import { STREAMED, TableEncoder, type Streamed } from './table-encode.js';
import { encodePoints } from '../../src/symbols/shared/checkpoint-codec.js';
import { writeAll } from '../../src/fs/shared/write-all.js';
import { copyInto, WRITE_FLAGS } from './table-io.js';
import { PartReader, writePart } from './part-file.js';

/** Files parsed per call of the `symbols` operation (its outcomes are then encoded and let go). */
const BATCH = 64;

/**
 * The `symbols-part` operation: a part of a generation's source files parsed as the tools parse
 * them (the `symbols` operation: same reads, size limit, binary detection and grammars), their
 * definitions written to a part file sorted by name (symbol-format.ts). No link is followed out
 * of the indexed tree.
 */
export async function runSymbolsPart(task: SymbolsPartTask): Promise<SymbolsPartResult> {
    takeTaskPriority(task);
    try {
        const realRoots = [{ path: task.root, type: AccessType.Read }];
        const failed: [number, Failure][] = [];
        const points: [number, string][] = [];
        const records: PartRecord[] = [];
        for (let i = 0; i < task.paths.length; i += BATCH) {
            const files = task.paths.slice(i, i + BATCH).map((p) => ({ shown: p, real: path.join(task.root, p) }));
            const r = await runSymbolsTask({ op: 'symbols', files, realRoots, maxBytes: task.maxBytes, parseMs: task.parseMs, spans: true, checkpoints: true });
            r.files.forEach((f, k) => {
                const id = task.ids[i + k]!;
                if (!f.ok) {
                    failed.push([id, f.kind === 'timeout' ? Failure.Timeout : Failure.Other]);
                    return;
                }
                if (f.checkpoints!.length > 0) points.push([id, encodePoints(f.chars, f.crc!, f.checkpoints!).toString('base64')]);
                f.definitions.forEach((d, j) => {
                    const [at, len, cut] = [f.sigSpans![3 * j]!, f.sigSpans![3 * j + 1]!, f.sigSpans![3 * j + 2]!];
                    const known = at >= 0 && len <= SIG_MAX_BYTES;
                    records.push([d.name, id, KIND_CODES.get(d.kind)!, d.container.join('\0'), d.line, d.endLine, known ? at : SIG_NONE, known ? 2 * len + (cut ? 1 : 0) : 0, signatureCheck(d.signature)]);
                });
            });
        }
        // Stable: a name's definitions stay in file order.
        records.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        writePart(task.out, [failed, points], records);
        return { ok: true, definitions: records.length, timedOut: failed.filter((f) => f[1] === Failure.Timeout).map((f) => f[0]) };
    } catch (err) {
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

/** The parts' readers, each at its next definition, in a heap; a name's definitions come in file id order (a file is in one part, in file order there). */
const before = (a: PartReader, b: PartReader): boolean => (a.name !== b.name ? a.name < b.name : a.file !== b.file ? a.file < b.file : a.k < b.k);

/**
 * The `symbols-merge` operation: the part files (each sorted by name) merged into the
 * generation's symbol table (symbol-format.ts). Memory: a k-way merge reading each part through a
 * small buffer and writing each section to a temporary file as it goes (table-encode.ts); only
 * one name's definitions, the containers' dictionary, the checkpoints and the failed files are
 * held, then at the end the raw rows, read back to make the rows by file (streamed to their own
 * temporary file a file at a time). The
 * sections are then joined under a temporary name, synced, and renamed: a crash leaves no file
 * under its name that is not whole. The part files are removed.
 */
export function runSymbolsMerge(task: SymbolsMergeTask): SymbolsMergeResult {
    takeTaskPriority(task);
    const stem = `${task.out}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const tmp = `${stem}.tmp`;
    let enc: TableEncoder | undefined;
    const readers: PartReader[] = [];
    try {
        enc = new TableEncoder(stem);
        const failed: [number, Failure][] = [];
        const points: [number, string][] = [];
        const heap: PartReader[] = [];
        const retried = new Set(task.retried ?? []);
        const firstRetry = task.parts.length - retried.size;
        for (const [k, part] of task.parts.entries()) {
            const r = new PartReader(part, k);
            readers.push(r);
            failed.push(...r.head[0].filter((f) => k >= firstRetry || !retried.has(f[0])));
            points.push(...r.head[1]);
            if (r.next()) push(heap, r);
        }
        // As pointSections keeps them: the files whose checkpoints (with their CRC) the table holds.
        enc.pointed = new Set(points.filter((p) => p[0] >= 0 && p[0] < task.tableSize && p[1] !== '').map((p) => p[0]));
        const containers = new Map<string, number>();
        let name: string | null = null;
        // Memory: one name's definitions at a time (a name's count is written before its rows).
        while (heap.length > 0) {
            const top = heap[0]!;
            if (top.name !== name) {
                if (name !== null) enc.end();
                enc.begin((name = top.name));
            }
            let c = 0;
            if (top.cont !== '') {
                c = containers.get(top.cont) ?? containers.size + 1;
                if (c > containers.size) containers.set(top.cont, c);
            }
            enc.row(top.file, top.line, top.end, c, top.kind, top.sig, top.sigLen, top.check);
            if (!top.next()) {
                if (heap.length === 1) heap.pop();
                else heap[0] = heap.pop()!;
            }
            down(heap, 0);
        }
        if (name !== null) enc.end();
        enc.finish();
        const bytes = assemble(task, tmp, enc, [...containers.keys()], failed, pointSections(task.tableSize, points), enc.byFile(task.tableSize));
        fs.renameSync(tmp, task.out);
        for (const part of task.parts) fs.rmSync(part, { force: true });
        return { ok: true, bytes, names: enc.names, definitions: enc.defs };
    } catch (err) {
        fs.rmSync(tmp, { force: true });
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    } finally {
        for (const r of readers) r.close();
        for (const w of enc?.cols.values() ?? []) {
            w.close();
            fs.rmSync(w.file, { force: true });
        }
    }
}

function push(heap: PartReader[], h: PartReader): void {
    heap.push(h);
    for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!before(heap[i]!, heap[p]!)) break;
        [heap[i], heap[p]] = [heap[p]!, heap[i]!];
        i = p;
    }
}

function down(heap: PartReader[], i: number): void {
    for (;;) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
    }
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
function pointSections(tableSize: number, points: [number, string][]): { offsets: Buffer; data: Buffer } {
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
function assemble(task: SymbolsMergeTask, tmp: string, enc: TableEncoder, containers: string[], failed: [number, Failure][], points: { offsets: Buffer; data: Buffer }, byFile: { offsets: Buffer; crcs: Buffer }): number {
    const cols = enc.cols;
    const cont = joined(containers);
    failed.sort((a, b) => a[0] - b[0]);
    const ids = Buffer.alloc(4 * failed.length);
    failed.forEach((f, i) => ids.writeUInt32LE(f[0], 4 * i));
    const size = (c: Streamed): number => cols.get(c)!.bytes;
    const counts = { tableSize: task.tableSize, names: enc.names, defs: enc.defs, containers: containers.length, failed: failed.length, nameBytes: enc.nameBytes, containerBytes: cont.text.length, codedBytes: size('names'), rowBytes: size('rows'), sigBytes: size('sigs'), pointBytes: points.data.length, fileRowBytes: size('fileRows') };
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
            ...STREAMED.map((c) => [c, cols.get(c)!.file] as [Streamed, string]),
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
        const bytesOf = (from: string | Buffer): number => (typeof from === 'string' ? [...cols.values()].find((w) => w.file === from)!.bytes : from.length);
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
