import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HitList } from '../../../src/search/shared/hit-list.js';
import { packRun } from '../../../src/search/shared/pack-runs.js';
import type { Segment } from '../../../src/search/shared/protocol.js';
import type { SearchHit } from '../../../src/search/shared/types.js';
import { hitBlocks } from '../../../src/tools/search-lines.js';
import { lineOf } from '../../../src/tools/search-print.js';
import { Turns } from '../../../src/engine/turns.js';
import { SearchConfiguration } from '../../../src/config/shared/configuration.js';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

type Run = Extract<Segment, { t: 'run' }>;

const run = (hits: SearchHit[], pack: boolean): Run => {
    const r: Run = { t: 'run', n: hits.length, hits: hits.map((h) => ({ ...h })), at: hits.map((_, i) => i) };
    if (pack) packRun(r);
    // As the main thread receives it from a worker.
    return structuredClone(r);
};

async function blocks(list: HitList, start: number, blockBytes?: number): Promise<string[]> {
    const out: string[] = [];
    for await (const b of hitBlocks(list, start, (h) => lineOf(h, false), new Turns(0), blockBytes)) out.push(b);
    return out;
}

describe('hitBlocks (search_entries hit lines written from the runs)', () => {
    const content = (p: string, line: number, text: string): SearchHit => ({ path: p, kind: 'file', line, text });
    const hits = [
        content('a.txt', 1, 'héllo'),
        content('a.txt', 4_294_967_295, ''),
        content('b/日本.txt', 2, '日本語 😀 x'),
        content('odd\nname.txt', 10, 'x\ud83d'),
        content('odd\nname.txt', 11, '\ude00y\u0000\u007f'),
        content('c.txt', 1234567, 'tail'),
    ];
    const others: SearchHit[] = [
        { path: 'dir', kind: 'directory' },
        { path: 'dir/f.txt', kind: 'file' },
        { path: 'counted.txt', kind: 'file', count: 3 },
        { path: 'del\u007f', kind: 'file', count: 1 },
    ];

    it('writes every hit as lineOf does, packed runs and others, in blocks of whole lines', async () => {
        const list = new HitList();
        const a = run(hits, true);
        const b = run(others.slice(0, 2), true);
        const c = run(others.slice(2), false);
        expect(a.packed).toBeDefined();
        expect(b.entries).toBeDefined();
        expect(c.packed).toBeUndefined();
        list.add(a, 1, 6);
        list.add(b, 0, 2);
        list.add(c, 0, 2);
        list.add(a, 0, 1);
        const all = [...list.hits()].map((h) => lineOf(h, false));
        expect(all).toHaveLength(10);
        for (const start of [0, 4, 9, 10]) {
            const want = all.slice(start);
            // One block of everything, and (1 byte per block) one block per line.
            expect((await blocks(list, start)).join('\n'), `start ${start}`).toBe(want.join('\n'));
            expect(await blocks(list, start, 1)).toEqual(want);
            expect((await blocks(list, start, 40)).join('\n')).toBe(want.join('\n'));
        }
        // Spot checks against the expected text itself.
        const text = (await blocks(list, 0)).join('\n').split('\n');
        expect(text[0]).toBe('a.txt:4294967295: ');
        expect(text[2]).toBe('"odd\\nname.txt":10: x\ud83d');
        expect(text[9]).toBe('a.txt:1: héllo');
    });

    it('search_entries lists thousands of content hits on a real tree exactly', async () => {
        const root = tempDir();
        const files: Record<string, string> = {};
        const expected: string[] = [];
        for (let f = 0; f < 40; f++) {
            const name = `d${f % 4}/f${String(f).padStart(2, '0')}.txt`;
            const lines = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? `needle ${f}-${i} é😀` : `other ${i}`));
            files[name] = lines.join('\n') + '\n';
        }
        writeTree(root, files);
        for (const name of Object.keys(files).sort()) {
            files[name]!.split('\n').forEach((l, i) => {
                if (l.includes('needle')) expected.push(`${name}:${i + 1}: ${l}`);
            });
        }
        expect(expected).toHaveLength(2000);
        const { tool } = makePackage(root, { search: new SearchConfiguration(10_000, 10_000, 5000, 120_000) });
        const r = await one(tool('search_entries'), { content_pattern: 'needle' });
        expect(r.status).toBe('success');
        expect(r.result).toBe(expected.join('\n'));
        expect(fs.existsSync(path.join(root, 'd0'))).toBe(true);
    });
});
