/**
 * Files the symbol table's build timed out on: the merge keeps the second try's outcome over the
 * first part's failure, and the engine's cache keeps a call's outcome for such a file (however
 * many its definitions, or its timeout) while the file is unchanged.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SymbolCache } from '../../../src/symbols/cache.js';
import { Failure, KIND_CODES, type PartRecord } from '../../../src/symbols/shared/symbol-format.js';
import type { Definition, FileSymbols } from '../../../src/symbols/shared/types.js';
import { SymbolStore } from '../../../src/symbols/symbol-store.js';
import { writePart } from '../../../workers/symbols/part-file.js';
import { runSymbolsMerge } from '../../../workers/symbols/symbols-table.js';
import { tempDir } from '../../support/helpers.js';

function part(file: string, failed: [number, Failure][], records: PartRecord[]): string {
    writePart(file, [failed, []], records);
    return file;
}

const rec = (name: string, id: number): PartRecord => [name, id, KIND_CODES.get('function')!, '', 1, 1, -1, 0, 0];

function defs(n: number): FileSymbols {
    const definitions: Definition[] = Array.from({ length: n }, (_, i) => ({ kind: 'macro', name: `M${i}`, container: [], line: i + 1, endLine: i + 1, signature: '' }));
    return { ok: true, language: 'c', lines: n, chars: n, definitions };
}

const timeout: FileSymbols = { ok: false, kind: 'timeout', message: 'Parsing gen.c took longer than 5 ms: the file was skipped.' };

describe('files timed out when the table was made', () => {
    it('merge: a second try that parsed the file drops its first failure; one that timed out again keeps it', async () => {
        const dir = tempDir('lcf-symretry-');
        const parts = [
            part(path.join(dir, 'p0'), [[3, Failure.Timeout], [4, Failure.Timeout], [5, Failure.Other]], [rec('a', 1)]),
            // Second tries of 3 (parsed) and 4 (timed out again), one file each, last.
            part(path.join(dir, 'p1'), [], [rec('gen3', 3)]),
            part(path.join(dir, 'p2'), [[4, Failure.Timeout]], []),
        ];
        const out = path.join(dir, 'symbols.bin');
        expect(runSymbolsMerge({ op: 'symbols-merge', parts, tableSize: 10, out, retried: [3, 4] })).toMatchObject({ ok: true, definitions: 2 });
        const store = await SymbolStore.load(out, 10);
        try {
            expect(Array.from(store.timedOut)).toEqual([4]);
            expect(store.counts.failed).toBe(2);
            expect(store.fileOf(store.definitionsOf(store.find('gen3'))[0])).toBe(3);
        } finally {
            await store.close();
        }
    });

    it('cache: keeps a kept file\'s definitions past the bound, and its timeout for calls allowing no more time, per stamp', () => {
        const cache = new SymbolCache();
        // Above the cache's bound of definitions: let go at once without keep.
        cache.set('/t/big.h', 's1', 'null', defs(150_000));
        expect(cache.get('/t/big.h', 's1', 'null')).toBeUndefined();
        cache.set('/t/big.h', 's1', 'null', defs(150_000), { parseMs: 5 });
        expect(cache.getKept('/t/big.h', 's1', 'null', 5)).toMatchObject({ ok: true, lines: 150_000 });
        expect(cache.get('/t/big.h', 's1', 'null')).toMatchObject({ ok: true, lines: 150_000 });
        expect(cache.getKept('/t/big.h', 's2', 'null', 5), 'changed file').toBeUndefined();
        expect(cache.getKept('/t/big.h', 's1', '[]', 5), 'other roots').toBeUndefined();

        cache.set('/t/gen.c', 's1', 'null', timeout, { parseMs: 5 });
        expect(cache.getKept('/t/gen.c', 's1', 'null', 5)).toBe(timeout);
        expect(cache.getKept('/t/gen.c', 's1', 'null', 1)).toBe(timeout);
        expect(cache.getKept('/t/gen.c', 's1', 'null', 6), 'a longer limit parses again').toBeUndefined();
        expect(cache.get('/t/gen.c', 's1', 'null'), 'a timeout only for kept lookups').toBeUndefined();
        // Not kept: a call past its deadline (late), other failures, a file without a stamp.
        cache.set('/t/late.c', 's1', 'null', { ...timeout, late: true }, { parseMs: 5 });
        cache.set('/t/io.c', 's1', 'null', { ok: false, kind: 'io', message: 'x' }, { parseMs: 5 });
        cache.set('/t/gone.c', null, 'null', defs(1), { parseMs: 5 });
        expect(cache.keptSize).toBe(2);

        // Bounded: 16 files, and 250,000 definitions (the one just set always stays).
        for (let i = 0; i < 20; i++) cache.set(`/t/f${i}.c`, 's1', 'null', defs(1), { parseMs: 5 });
        expect(cache.keptSize).toBe(16);
        expect(cache.getKept('/t/big.h', 's1', 'null', 5)).toBeUndefined();
        cache.set('/t/a.h', 's1', 'null', defs(200_000), { parseMs: 5 });
        cache.set('/t/b.h', 's1', 'null', defs(300_000), { parseMs: 5 });
        expect(cache.keptSize).toBe(1);
        expect(cache.getKept('/t/b.h', 's1', 'null', 5)).toMatchObject({ ok: true, lines: 300_000 });
    });
});
