import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AccessType } from '../../src/config/shared/configuration.js';
import { DIGEST_BYTES, Failure, KIND_CODES, layoutOf, SYMBOL_MAGIC, writeCounts, type PartDefinition, type PartFile } from '../../src/symbols/shared/symbol-format.js';
import type { SymbolsMergeResult, SymbolsMergeTask, SymbolsPartResult, SymbolsPartTask } from '../../src/symbols/shared/table-tasks.js';
import { takeTaskPriority } from '../pool/background.js';
import { runSymbolsTask } from './symbols.js';

/** Files parsed per call of the `symbols` operation (its outcomes are then encoded and let go). */
const BATCH = 64;
const WRITE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

/**
 * The `symbols-part` operation: a part of a generation's source files parsed as the tools parse
 * them (the `symbols` operation: same reads, size limit, binary detection and grammars), their
 * definitions written to a part file. No link is followed out of the indexed tree.
 */
export async function runSymbolsPart(task: SymbolsPartTask): Promise<SymbolsPartResult> {
    takeTaskPriority(task);
    try {
        const realRoots = [{ path: task.root, type: AccessType.Read }];
        const out: PartFile[] = [];
        let definitions = 0;
        for (let i = 0; i < task.paths.length; i += BATCH) {
            const files = task.paths.slice(i, i + BATCH).map((p) => ({ shown: p, real: path.join(task.root, p) }));
            const r = await runSymbolsTask({ op: 'symbols', files, realRoots, maxBytes: task.maxBytes, parseMs: task.parseMs });
            r.files.forEach((f, k) => {
                const id = task.ids[i + k]!;
                if (!f.ok) {
                    out.push([id, f.kind === 'timeout' ? Failure.Timeout : Failure.Other]);
                    return;
                }
                const defs: PartDefinition[] = f.definitions.map((d) => [KIND_CODES.get(d.kind)!, d.name, d.container.join('\0'), d.line, d.endLine, d.signature]);
                definitions += defs.length;
                out.push([id, defs]);
            });
        }
        writeNew(task.out, Buffer.from(JSON.stringify(out), 'utf8'));
        return { ok: true, definitions };
    } catch (err) {
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

function writeNew(file: string, bytes: Buffer): void {
    const fd = fs.openSync(file, WRITE_FLAGS, 0o600);
    try {
        for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at);
        fs.fsyncSync(fd);
    } finally {
        fs.closeSync(fd);
    }
}

/**
 * The `symbols-merge` operation: the part files joined into the generation's symbol table
 * (symbol-format.ts), written under a temporary name, synced, then renamed: a crash leaves no
 * file under its name that is not whole. The part files are removed.
 */
export function runSymbolsMerge(task: SymbolsMergeTask): SymbolsMergeResult {
    takeTaskPriority(task);
    const tmp = `${task.out}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
        const byName = new Map<string, number[]>();
        const defs: PartDefinition[] = [];
        const files: number[] = [];
        const failed: [number, Failure][] = [];
        for (const part of task.parts) {
            for (const [id, got] of JSON.parse(fs.readFileSync(part, 'utf8')) as PartFile[]) {
                if (typeof got === 'number') {
                    failed.push([id, got]);
                    continue;
                }
                for (const d of got) {
                    const list = byName.get(d[1]);
                    if (list) list.push(defs.length);
                    else byName.set(d[1], [defs.length]);
                    defs.push(d);
                    files.push(id);
                }
            }
        }
        const bytes = encode(task.tableSize, byName, defs, files, failed);
        writeNew(tmp, bytes);
        fs.renameSync(tmp, task.out);
        for (const part of task.parts) fs.rmSync(part, { force: true });
        return { ok: true, bytes: bytes.length, names: byName.size, definitions: defs.length };
    } catch (err) {
        fs.rmSync(tmp, { force: true });
        return { ok: false, code: 'index_failed', message: err instanceof Error ? err.message : String(err) };
    }
}

/** Strings joined by `\n` with their char offsets (one more than the strings). */
function joined(strings: readonly string[]): { text: Buffer; offsets: Uint32Array } {
    const offsets = new Uint32Array(strings.length + 1);
    let at = 0;
    strings.forEach((s, i) => {
        offsets[i] = at;
        at += s.length + 1;
    });
    offsets[strings.length] = at;
    return { text: Buffer.from(strings.length === 0 ? '' : `${strings.join('\n')}\n`, 'utf8'), offsets };
}

function encode(tableSize: number, byName: Map<string, number[]>, defs: PartDefinition[], files: number[], failed: [number, Failure][]): Buffer {
    // JS string order (UTF-16 code units): the host compares names as strings.
    const names = [...byName.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const containerIds = new Map<string, number>();
    for (const d of defs) if (d[2] !== '' && !containerIds.has(d[2])) containerIds.set(d[2], containerIds.size);
    const nameText = joined(names);
    const contText = joined([...containerIds.keys()]);
    const sigs = defs.map((d) => Buffer.from(d[5], 'utf8'));
    const counts = {
        tableSize,
        names: names.length,
        defs: defs.length,
        containers: containerIds.size,
        failed: failed.length,
        nameBytes: nameText.text.length,
        containerBytes: contText.text.length,
        sigBytes: sigs.reduce((n, s) => n + s.length, 0),
    };
    const l = layoutOf(counts);
    const buf = Buffer.alloc(l.end);
    SYMBOL_MAGIC.copy(buf, 0);
    writeCounts(buf, counts);
    const u32 = (at: number, n: number): Uint32Array => new Uint32Array(buf.buffer, buf.byteOffset + at, n);
    u32(l.nameOff, names.length + 1).set(nameText.offsets);
    nameText.text.copy(buf, l.nameText);
    const [start, file, line, end, cont, sigOff] = [u32(l.defStart, names.length + 1), u32(l.defFile, defs.length), u32(l.defLine, defs.length), u32(l.defEnd, defs.length), u32(l.defCont, defs.length), u32(l.sigOff, defs.length + 1)];
    let k = 0;
    let sigAt = 0;
    names.forEach((name, n) => {
        start[n] = k;
        for (const i of byName.get(name)!) {
            const d = defs[i]!;
            [file[k], line[k], end[k], cont[k]] = [files[i]!, d[3], d[4], d[2] === '' ? 0 : 1 + containerIds.get(d[2])!];
            buf[l.defKind + k] = d[0];
            sigOff[k] = sigAt;
            sigs[i]!.copy(buf, l.sigText + sigAt);
            sigAt += sigs[i]!.length;
            k++;
        }
    });
    start[names.length] = k;
    sigOff[defs.length] = sigAt;
    u32(l.contOff, containerIds.size + 1).set(contText.offsets);
    contText.text.copy(buf, l.contText);
    failed.sort((a, b) => a[0] - b[0]);
    u32(l.failedIds, failed.length).set(failed.map((f) => f[0]));
    failed.forEach((f, i) => (buf[l.failedWhy + i] = f[1]));
    createHash('sha256').update(buf.subarray(SYMBOL_MAGIC.length + DIGEST_BYTES)).digest().copy(buf, SYMBOL_MAGIC.length);
    return buf;
}
