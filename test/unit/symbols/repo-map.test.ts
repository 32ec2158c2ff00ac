/** The repository map's ranking and its budget (src/symbols/repo-map.ts), on definitions made by hand. */
import { describe, expect, it } from 'vitest';
import { buildRepoMap, rankDefinitions, type MappedFile } from '../../../src/symbols/repo-map.js';
import type { Definition, SymbolKind } from '../../../src/symbols/shared/types.js';

const def = (name: string, line: number, kind: SymbolKind = 'function'): Definition => ({ kind, name, container: [], line, endLine: line, signature: `${name}()` });
const file = (shown: string, definitions: Definition[], mentions: Record<string, number> | null): MappedFile => ({ shown, definitions, mentions: mentions && new Map(Object.entries(mentions)) });

describe('repo map ranking', () => {
    it('counts the other files that mention a name, not the defining file or the number of mentions', () => {
        const files = [file('a.c', [def('parse_header', 1)], { parse_header: 9 }), file('b.c', [], { parse_header: 1 }), file('c.c', [], { parse_header: 1 })];
        expect(rankDefinitions(files).map((r) => [r.def.name, r.others, r.score])).toEqual([['parse_header', 2, 2]]);
    });

    it('weighs a short plain lower-case word by a fiftieth, another short name by a tenth, and shares a name among the files that define it', () => {
        const files = [
            file('a.ts', [def('run', 1), def('runTaskQueue', 2), def('Run', 3)], { run: 1, runTaskQueue: 1, Run: 1 }),
            file('b.ts', [def('runTaskQueue', 1)], { run: 3, runTaskQueue: 1, Run: 1 }),
            file('c.ts', [], { run: 1, runTaskQueue: 1 }),
            file('d.ts', [], null),
        ];
        const ranked = rankDefinitions(files).map((r) => `${r.def.name}@${files[r.file]!.shown} ${r.others} ${r.score.toFixed(2)}`);
        expect(ranked).toEqual(['runTaskQueue@a.ts 2 1.00', 'runTaskQueue@b.ts 2 1.00', 'Run@a.ts 1 0.10', 'run@a.ts 2 0.04']);
    });

    it('orders equal ranks by kind (types before functions before variables), then file, then line', () => {
        const files = [file('x.go', [def('value', 3, 'variable'), def('helper', 2), def('Thing', 1, 'struct')], { value: 1, helper: 1, Thing: 1 })];
        expect(rankDefinitions(files).map((r) => r.def.name)).toEqual(['Thing', 'helper', 'value']);
    });

    it('keeps the longest run of the ranking that fits, grouped by file in line order', () => {
        const files = [file('a.c', [def('low_rank_fn', 1), def('top_rank_fn', 5)], { low_rank_fn: 1, top_rank_fn: 1 }), file('b.c', [], { top_rank_fn: 1 })];
        const all = buildRepoMap(files, 10_000);
        expect(all.lines).toEqual(['a.c:', '  1 function low_rank_fn — low_rank_fn() [0 files]', '  5 function top_rank_fn — top_rank_fn() [1 file]']);
        const one = buildRepoMap(files, all.lines[0]!.length + all.lines[2]!.length + 3);
        expect(one).toEqual({ lines: ['a.c:', '  5 function top_rank_fn — top_rank_fn() [1 file]'], shown: 1, total: 2, files: 1 });
        expect(buildRepoMap(files, 5)).toEqual({ lines: [], shown: 0, total: 2, files: 0 });
    });
});
