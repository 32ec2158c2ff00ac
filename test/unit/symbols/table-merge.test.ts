/**
 * The build's merge in stages (src/symbols/table-merge.ts): the names' stage first, the rows'
 * stage asked for beside it (it follows the names' stage's progress), the rows by file in two
 * halves asked for once the names' stage ends, without waiting for the rows', the join last; the
 * table byte for byte the one task's, on a pool that runs each task as it comes and on the
 * build's real threads (two, or one: then each stage after the one before). A stage that fails
 * fails the merge only once the stages under way have ended, and leaves none of the merge's
 * temporary files; a names' stage that fails without telling does not leave the rows' waiting.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackgroundTasks, SHARED_YOUNG_GENERATION_MB } from '../../../src/engine/background-pool.js';
import { KIND_CODES, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import type { SymbolsMergeResult, SymbolsMergeTask } from '../../../src/symbols/shared/table-tasks.js';
import { merge } from '../../../src/symbols/table-merge.js';
import { writePart } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';

/** The searches' nice value the merge's tasks run at: none (idle priority). */
const idle = (): undefined => undefined;

/** Two parts of `n` names (one definition each, over 40 files), in `dir`. */
function parts(dir: string, n = 500): string[] {
    const digits = String(n - 1).length;
    const records: PartRecord[] = Array.from({ length: n }, (_, i) => [`name_${String(i).padStart(digits, '0')}`, 1 + (i % 40), KIND_CODES.get('function')!, i % 4 === 0 ? 'S' : '', i + 1, i + 3, 10 * i, 8, i] as PartRecord);
    return [0, 1].map((k) => {
        const file = path.join(dir, `symbols-part-${k}.00000000.part`);
        writePart(file, [[], []], records.filter((r) => r[1] % 2 === k));
        return file;
    });
}

/** The table the single task writes of the same parts, in a folder of its own. */
function oneTask(dir: string, n?: number): Buffer {
    fs.mkdirSync(path.join(dir, 'one'));
    const one = path.join(dir, 'one', 'symbols.bin');
    expect(runSymbolsMerge({ op: 'symbols-merge', parts: parts(path.join(dir, 'one'), n), tableSize: 50, out: one })).toMatchObject({ ok: true });
    return fs.readFileSync(one);
}

const label = (t: SymbolsMergeTask): string => (t.stage === 'file-rows' ? `file-rows ${t.half}` : t.stage!);

/**
 * A pool that runs each task in this thread as it comes, a turn after it was asked for (a merge
 * that waited for a stage before asking for the next would show it). The rows' task runs once the
 * names' task has ended (in this one thread it would wait for it). With `fail`, that stage's task
 * fails (the names' without telling the rows' stage); the others go on, those that come after a
 * later turn of the event loop (a merge that cleaned up without waiting for them would have done
 * so by then), and write their files.
 */
function pool(log: string[], fail?: 'names' | 'rows' | 'file-rows 0'): BackgroundTasks {
    let namesEnded: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (namesEnded = resolve));
    return {
        run: async (task: SymbolsMergeTask): Promise<SymbolsMergeResult> => {
            const stage = label(task);
            log.push(`start ${stage}`);
            await new Promise((resolve) => setTimeout(resolve, 5));
            if (task.stage === 'rows') await ended;
            if (stage === fail) {
                log.push(`end ${stage}`);
                if (stage === 'names') namesEnded();
                return { ok: false, code: 'index_failed', message: `${stage} failed` };
            }
            if (fail !== undefined) await new Promise((resolve) => setTimeout(resolve, 20));
            const r = runSymbolsMerge(task);
            log.push(`end ${stage}`);
            if (stage === 'names') namesEnded();
            return r;
        },
    } as unknown as BackgroundTasks;
}

describe("the build's merge in stages", () => {
    it("asks for the rows' stage beside the names', the rows by file's halves as the names' ends, the join last, and writes the one task's table", async () => {
        const dir = tempDir('lcf-table-merge-');
        const one = oneTask(dir);
        fs.mkdirSync(path.join(dir, 'staged'));
        const out = path.join(dir, 'staged', 'symbols.bin');
        const log: string[] = [];
        const r = await merge(pool(log), idle, { op: 'symbols-merge', parts: parts(path.join(dir, 'staged')), tableSize: 50, out, stem: `${out}.1.00000000` });
        expect(r).toMatchObject({ ok: true, names: 500, definitions: 500 });
        expect(log.slice(0, 3)).toEqual(['start names', 'start rows', 'end names']);
        // The halves are asked for before the rows' stage ends: they do not wait for it.
        expect(log.indexOf('start file-rows 0')).toBeLessThan(log.indexOf('end rows'));
        expect(log.indexOf('start file-rows 1')).toBeLessThan(log.indexOf('end rows'));
        expect(log.slice(-2)).toEqual(['start join', 'end join']);
        expect(fs.readFileSync(out).equals(one)).toBe(true);
        expect(fs.readdirSync(path.join(dir, 'staged'))).toEqual(['symbols.bin']);
    });

    for (const threads of [2, 1]) {
        it(`writes the one task's table on ${threads} thread(s) of the build's own, the rows deflated as the names' stage tells of them`, async () => {
            const dir = tempDir('lcf-table-merge-');
            // 40,000 names: 1,250 blocks, told of every 256.
            const one = oneTask(dir, 40_000);
            fs.mkdirSync(path.join(dir, 'staged'));
            const out = path.join(dir, 'staged', 'symbols.bin');
            const own = new BackgroundTasks(threads, true, { youngMb: 4 * SHARED_YOUNG_GENERATION_MB, oldMb: 1024 });
            try {
                const r = await merge(own, idle, { op: 'symbols-merge', parts: parts(path.join(dir, 'staged'), 40_000), tableSize: 50, out, stem: `${out}.1.00000000` });
                expect(r).toMatchObject({ ok: true, names: 40_000, definitions: 40_000 });
            } finally {
                await own.close();
            }
            expect(fs.readFileSync(out).equals(one)).toBe(true);
            expect(fs.readdirSync(path.join(dir, 'staged'))).toEqual(['symbols.bin']);
        });
    }

    for (const fail of ['names', 'rows', 'file-rows 0'] as const) {
        it(`fails when the ${fail} stage fails, once the stages under way ended, and leaves no temporary file`, async () => {
            const dir = tempDir('lcf-table-merge-');
            const out = path.join(dir, 'symbols.bin');
            const log: string[] = [];
            const merged = merge(pool(log, fail), idle, { op: 'symbols-merge', parts: parts(dir), tableSize: 50, out, stem: `${out}.1.00000000` }).finally(() => log.push('merge settled'));
            await expect(merged).rejects.toThrow(`symbols merge failed: ${fail} failed`);
            // Every stage asked for ended before the merge settled; the failed one before those under way beside it.
            const started = log.filter((l) => l.startsWith('start ')).map((l) => l.slice('start '.length));
            for (const stage of started) expect(log.indexOf(`end ${stage}`)).toBeLessThan(log.indexOf('merge settled'));
            for (const stage of started) if (stage !== fail && stage !== 'names') expect(log.indexOf(`end ${fail}`)).toBeLessThan(log.indexOf(`end ${stage}`));
            // The names' stage failed: nothing after it is asked for, and the rows' stage, told so by the merge, did not wait on.
            if (fail === 'names') expect(started).toEqual(['names', 'rows']);
            else expect(started).toEqual(['names', 'rows', 'file-rows 0', 'file-rows 1']);
            // The parts are removed by the names' stage once it read them (by the build when it failed).
            expect(fs.readdirSync(dir)).toEqual(fail === 'names' ? ['symbols-part-0.00000000.part', 'symbols-part-1.00000000.part'] : []);
        });
    }
});
