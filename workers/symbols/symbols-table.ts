import { randomBytes } from 'node:crypto';
import v8 from 'node:v8';
import fs from 'node:fs';
import path from 'node:path';
import { AccessType } from '../../src/config/shared/configuration.js';
import { signatureCheck } from '../../src/symbols/shared/signature.js';
import { SIG_NONE } from '../../src/symbols/shared/symbol-codec.js';
import { Failure, KIND_CODES, SIG_MAX_BYTES, type PartRecord } from '../../src/symbols/shared/symbol-format.js';
import type { SymbolsMergeResult, SymbolsMergeTask, SymbolsPartResult, SymbolsPartTask } from '../../src/symbols/shared/table-tasks.js';
import { takeTaskPriority } from '../pool/background.js';
import { runSymbolsTask } from './symbols.js';
import { parserLoaded } from './parser.js';
import { columnFile, TableEncoder, type MergeState } from './table-encode.js';
import { encodePoints } from '../../src/symbols/shared/checkpoint-codec.js';
import { writeColumn } from './table-io.js';
import { joinTable, removeColumns } from './merge-join.js';
import { deflateRows, fileRows, fileSplit } from './merge-stages.js';
import { PartReader, writePart } from './part-file.js';
import { progressFailed } from '../../src/symbols/shared/merge-progress.js';

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
        // Stable: a name's definitions stay in file order. Perf: two names are seldom equal, and
        // telling so is quicker than telling which comes after.
        records.sort((a, b) => (a[0] < b[0] ? -1 : a[0] === b[0] ? 0 : 1));
        writePart(task.out, [failed, points], records);
        return { ok: true, definitions: records.length, timedOut: failed.filter((f) => f[1] === Failure.Timeout).map((f) => f[0]), parser: parserLoaded(), heapBytes: v8.getHeapStatistics().total_heap_size };
    } catch (err) {
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

/** The parts' readers, each at its next definition, in a heap; a name's definitions come in file id order (a file is in one part, in file order there). */
const before = (a: PartReader, b: PartReader): boolean => (a.name !== b.name ? a.name < b.name : a.file !== b.file ? a.file < b.file : a.k < b.k);

/**
 * The `symbols-merge` operation: the part files (each sorted by name) merged into the
 * generation's symbol table (symbol-format.ts), in stages (`task.stage`; all in turn without
 * one): the names' (below), the rows deflated (beside it on the build's other thread, following
 * its `progress`) and the rows by file (in two halves side by side after it: `split`, `half`;
 * merge-stages.ts), the join (merge-join.ts). Memory: a k-way merge reading each part
 * through a small buffer and writing each section to a temporary file as it goes
 * (table-encode.ts); only the name before, the containers' dictionary, the checkpoints and the
 * failed files are held, then the raw rows, read back to make the rows by file (streamed to their
 * own temporary file a file at a time). The part files are removed after the names' stage; a
 * stage that fails removes every temporary file of the merge.
 */
export function runSymbolsMerge(task: SymbolsMergeTask): SymbolsMergeResult {
    takeTaskPriority(task);
    const stem = task.stem ?? `${task.out}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const all = task.stage === undefined;
    const progress = task.progress === undefined ? undefined : new Int32Array(task.progress);
    try {
        let [names, split] = [task.names ?? 0, task.split];
        if (all || task.stage === 'names') {
            ({ names, split } = mergeNames(task, stem, progress));
            for (const part of task.parts) fs.rmSync(part, { force: true });
        }
        if (all || task.stage === 'rows') deflateRows(stem, progress);
        if (all || task.stage === 'file-rows') fileRows(stem, task.tableSize, names, split === undefined || all ? undefined : { split, half: task.half ?? 0 });
        if (all || task.stage === 'join') return { ok: true, ...joinTable(all ? { ...task, split: undefined } : task, stem) };
        return { ok: true, bytes: 0, names, definitions: 0, split };
    } catch (err) {
        if (progress !== undefined && task.stage === 'names') progressFailed(progress);
        removeColumns(stem);
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

/**
 * The names' stage: the parts merged into the names' columns and `state` (table-encode.ts). The
 * count of names, and where the rows by file split into halves of about equal work (merge-stages.ts).
 */
function mergeNames(task: SymbolsMergeTask, stem: string, progress?: Int32Array): { names: number; split: number } {
    let enc: TableEncoder | undefined;
    const readers: PartReader[] = [];
    try {
        enc = new TableEncoder(stem, progress);
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
        enc.pointed = new Uint8Array(task.tableSize);
        for (const p of points) if (p[0] >= 0 && p[0] < task.tableSize && p[1] !== '') enc.pointed[p[0]] = 1;
        const containers = new Map<string, number>();
        const rowsOf = new Uint32Array(task.tableSize);
        let name: string | null = null;
        // Memory: one name's definitions at a time (a name's count is written before its rows).
        while (heap.length > 0) {
            const top = heap[0]!;
            if (top.name !== name) {
                if (name !== null) enc.end();
                enc.begin(top.nameBytes, top.nameLength);
                name = top.name;
            }
            let c = 0;
            if (top.cont !== '') {
                c = containers.get(top.cont) ?? containers.size + 1;
                if (c > containers.size) containers.set(top.cont, c);
            }
            enc.row(top.file, top.line, top.end, c, top.kind, top.sig, top.sigLen, top.check);
            if (top.file < rowsOf.length) rowsOf[top.file]!++;
            if (!top.next()) {
                if (heap.length === 1) heap.pop();
                else heap[0] = heap.pop()!;
            }
            down(heap, 0);
        }
        if (name !== null) enc.end();
        enc.finish();
        const state: MergeState = { names: enc.names, defs: enc.defs, nameBytes: enc.nameBytes, containers: [...containers.keys()], failed, points };
        writeColumn(columnFile(stem, 'state'), JSON.stringify(state));
        return { names: enc.names, split: fileSplit(rowsOf) };
    } finally {
        for (const r of readers) r.close();
        for (const w of enc?.cols.values() ?? []) w.close();
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
