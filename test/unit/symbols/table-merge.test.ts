/**
 * The build's merge in stages (src/symbols/table-merge.ts), on a pool that runs each task with the
 * worker's own code as it comes: the names' stage first, the rows' two stages both under way
 * before either ends, the join last, the table the one task writes; a stage that fails fails the
 * merge only once the one beside it has ended, and leaves none of the merge's temporary files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BackgroundTasks } from '../../../src/engine/background-pool.js';
import { KIND_CODES, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import type { SymbolsMergeResult, SymbolsMergeTask } from '../../../src/symbols/shared/table-tasks.js';
import { merge } from '../../../src/symbols/table-merge.js';
import { writePart } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';

/** The searches' nice value the merge's tasks run at: none (idle priority). */
const idle = (): undefined => undefined;

function parts(dir: string): string[] {
    const records: PartRecord[] = Array.from({ length: 500 }, (_, i) => [`name_${String(i).padStart(3, '0')}`, 1 + (i % 40), KIND_CODES.get('function')!, i % 4 === 0 ? 'S' : '', i + 1, i + 3, 10 * i, 8, i] as PartRecord);
    return [0, 1].map((k) => {
        const file = path.join(dir, `symbols-part-${k}.00000000.part`);
        writePart(file, [[], []], records.filter((r) => r[1] % 2 === k));
        return file;
    });
}

/**
 * A pool whose `rows` and `file-rows` tasks end only once both have started. With `fail`, that
 * stage's task fails first, and the other goes on only after a later turn of the event loop (a
 * merge that cleaned up without waiting for it would have done so by then) and writes its files.
 */
function pool(log: string[], fail?: 'rows' | 'file-rows'): BackgroundTasks {
    let bothStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (bothStarted = resolve));
    let middle = 0;
    let failed: () => void = () => undefined;
    const hasFailed = new Promise<void>((resolve) => (failed = resolve));
    return {
        run: async (task: SymbolsMergeTask): Promise<SymbolsMergeResult> => {
            log.push(`start ${task.stage}`);
            if (task.stage === 'rows' || task.stage === 'file-rows') {
                if (++middle === 2) bothStarted();
                await started;
                if (task.stage === fail) {
                    log.push(`end ${task.stage}`);
                    failed();
                    return { ok: false, code: 'index_failed', message: `${task.stage} failed` };
                }
                if (fail !== undefined) {
                    await hasFailed;
                    await new Promise((resolve) => setTimeout(resolve, 20));
                }
            }
            const r = runSymbolsMerge(task);
            log.push(`end ${task.stage}`);
            return r;
        },
    } as unknown as BackgroundTasks;
}

describe('the build\'s merge in stages', () => {
    it('runs the names\' stage, then the rows\' two side by side, then the join, and writes the one task\'s table', async () => {
        const dir = tempDir('lcf-table-merge-');
        fs.mkdirSync(path.join(dir, 'one'));
        fs.mkdirSync(path.join(dir, 'staged'));
        const one = path.join(dir, 'one', 'symbols.bin');
        expect(runSymbolsMerge({ op: 'symbols-merge', parts: parts(path.join(dir, 'one')), tableSize: 50, out: one })).toMatchObject({ ok: true, names: 500 });
        const out = path.join(dir, 'staged', 'symbols.bin');
        const log: string[] = [];
        const r = await merge(pool(log), idle, { op: 'symbols-merge', parts: parts(path.join(dir, 'staged')), tableSize: 50, out, stem: `${out}.1.00000000` });
        expect(r).toMatchObject({ ok: true, names: 500, definitions: 500 });
        expect(log.slice(0, 4)).toEqual(['start names', 'end names', 'start rows', 'start file-rows']);
        expect(log.slice(-2)).toEqual(['start join', 'end join']);
        expect(fs.readFileSync(out).equals(fs.readFileSync(one))).toBe(true);
        expect(fs.readdirSync(path.join(dir, 'staged'))).toEqual(['symbols.bin']);
    });

    for (const fail of ['rows', 'file-rows'] as const) {
        it(`fails when the ${fail} stage fails, once the stage beside it ended, and leaves no temporary file`, async () => {
            const dir = tempDir('lcf-table-merge-');
            const out = path.join(dir, 'symbols.bin');
            const log: string[] = [];
            const merged = merge(pool(log, fail), idle, { op: 'symbols-merge', parts: parts(dir), tableSize: 50, out, stem: `${out}.1.00000000` }).finally(() => log.push('merge settled'));
            await expect(merged).rejects.toThrow(`symbols merge failed: ${fail} failed`);
            const other = fail === 'rows' ? 'file-rows' : 'rows';
            // The failed stage ended first; the other wrote its columns after, and they are gone too.
            expect(log.indexOf(`end ${fail}`)).toBeLessThan(log.indexOf(`end ${other}`));
            expect(log.indexOf(`end ${other}`)).toBeLessThan(log.indexOf('merge settled'));
            expect(log).not.toContain('start join');
            expect(fs.readdirSync(dir)).toEqual([]);
        });
    }
});
