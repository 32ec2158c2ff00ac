/**
 * A search answered from the index in parts (search-index/plan.ts, windowed-ids.ts): the table is
 * walked and the candidates made only as far as the search needs, so a search capped by
 * `max_results` stops early, and every answer is still the scan path's, with changed files,
 * filters and a linked directory behind the walk.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pair, same, type Pair } from '../../support/index-pair.js';

/** 30 directories of 200 files; 2 of every 5 hold the word (2,400 files): many candidates, under half the files. */
function files(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let d = 0; d < 30; d++) {
        for (let f = 0; f < 200; f++) {
            const name = `d${String(d).padStart(2, '0')}/f${String(f).padStart(3, '0')}.txt`;
            out[name] = f % 5 < 2 ? `first line\nthe needle_word in ${d}/${f}\nlast line\n` : `hay only ${d}/${f}\n`;
        }
    }
    return out;
}

async function answered(p: Pair, args: Record<string, unknown>): Promise<string> {
    const r = await same(p, args);
    expect(r.answered, JSON.stringify(args)).toBe(true);
    return r.text;
}

describe('search index walk in parts', () => {
    it('stops a capped search after its first hits, with exactly the scan path\'s first N; an uncapped one gets them all', async () => {
        const p = await pair(files());
        const capped = await answered(p, { content_pattern: 'needle_word', max_results: 30 });
        expect(capped).toContain('d00/f000.txt:2: the needle_word in 0/0');
        // Only the start of the walk was planned: far fewer entries than the 2,400 candidates, made as far as it went.
        expect(p.tree.lastPlan.handedOut).toBeLessThan(600);
        expect(p.tree.lastPlan.handedOut).toBeGreaterThanOrEqual(30);
        expect(p.tree.lastPlan.candidates).toBeLessThan(2400);
        const all = await answered(p, { content_pattern: 'needle_word' });
        expect(all.split('\n').filter((l) => l.includes(': the needle_word')).length).toBe(2400);
        expect(p.tree.lastPlan.handedOut).toBe(2400);
        expect(p.tree.lastPlan.candidates).toBe(2400);
        // Counts and file lists stop at the same place as the scan path's.
        await answered(p, { content_pattern: 'needle_word', output_mode: 'files_with_matches', max_results: 7 });
        await answered(p, { content_pattern: 'needle_word', output_mode: 'count', max_results: 1500 });
    });

    it('sees files changed since the build wherever they lie in the walk, capped or not', async () => {
        const p = await pair(files());
        // The first candidate loses the word, a file the table has without it gains it, and a new file and directory late in the walk hold it.
        fs.writeFileSync(path.join(p.root, 'd00/f000.txt'), 'no longer\n');
        fs.writeFileSync(path.join(p.root, 'd00/f004.txt'), 'now a needle_word here\n');
        fs.writeFileSync(path.join(p.root, 'd29/f999.txt'), 'late needle_word\n');
        fs.mkdirSync(path.join(p.root, 'd30'));
        fs.writeFileSync(path.join(p.root, 'd30/new.txt'), 'needle_word in a new directory\n');
        const capped = await answered(p, { content_pattern: 'needle_word', max_results: 5 });
        expect(capped).toContain('d00/f004.txt:1: now a needle_word here');
        expect(capped).not.toContain('d00/f000.txt');
        const all = await answered(p, { content_pattern: 'needle_word' });
        expect(all).toContain('d29/f999.txt:1: late needle_word');
        expect(all).toContain('d30/new.txt:1: needle_word in a new directory');
    });

    it('applies include and exclude filters and walks a linked directory behind the walk as the scan path does', async () => {
        // The searched directory `top` and, before it in walk order, a directory it links to.
        const tree: Record<string, string> = {};
        for (const [name, text] of Object.entries(files())) tree[`top/${name}`] = text;
        for (let f = 0; f < 10; f++) tree[`aaa/g${f}.txt`] = f % 2 === 0 ? `needle_word outside ${f}\n` : 'hay\n';
        const p = await pair(tree, undefined, (root) => fs.symlinkSync('../aaa', path.join(root, 'top/zz-link')));
        const top = path.join(p.root, 'top');
        const included = await answered(p, { path: top, content_pattern: 'needle_word', include: 'f01*.txt', max_results: 20 });
        expect(included).toContain('d00/f010.txt');
        expect(included).not.toContain('d00/f000.txt');
        const excluded = await answered(p, { path: top, content_pattern: 'needle_word', exclude: 'd00/', max_results: 20 });
        expect(excluded).toContain('d01/f000.txt');
        expect(excluded).not.toContain('d00/');
        // The link's target lies before the walk's position when the walk reaches it: its candidates come from the whole lists.
        const all = await answered(p, { path: top, content_pattern: 'needle_word' });
        expect(all).toContain('zz-link/g2.txt:1: needle_word outside 2');
        expect(all.split('\n').filter((l) => l.includes('needle_word')).length).toBe(2405);
    });
});
