/**
 * How many of the pool's threads a search answered from the index takes: a part whose files are
 * few and small goes to one thread (opening a second costs more than its work), a larger one to
 * every thread; the answers are the scan path's either way, capped or not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/engine/engine.js';
import type { RunOptions } from '../../../src/search/task-runner.js';
import { NEAR_FIRST_UNITS, ONE_THREAD_UNITS } from '../../../src/search/task-shape.js';
import { pair, same, type Pair } from '../../support/index-pair.js';

/** 20 directories of 100 small files; `rare_word` in 3 files, `dense_word` in a fifth of them. */
function files(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let d = 0; d < 20; d++) {
        for (let f = 0; f < 100; f++) {
            const words = [f % 5 === 0 ? 'dense_word' : 'hay', d * 100 + f === 7 || d * 100 + f === 1050 || d * 100 + f === 1999 ? 'rare_word' : 'straw'];
            out[`d${String(d).padStart(2, '0')}/f${String(f).padStart(3, '0')}.txt`] = `${words.join(' ')}\n`;
        }
    }
    return out;
}

/** Counts the search sessions the engine opens (one per thread a search takes). */
function countSessions(engine: Engine): { sessions: number } {
    const seen = { sessions: 0 };
    const run = engine.run.bind(engine);
    engine.run = <T>(task: object, options?: RunOptions): Promise<T> => {
        if ((task as { op?: string }).op === 'search-session') seen.sessions++;
        return run<T>(task, options);
    };
    return seen;
}

async function threadsOf(p: Pair, seen: { sessions: number }, args: Record<string, unknown>): Promise<{ text: string; sessions: number }> {
    const before = seen.sessions;
    const r = await same(p, args);
    expect(r.answered, JSON.stringify(args)).toBe(true);
    return { text: r.text, sessions: seen.sessions - before };
}

describe('threads of a search answered from the index', () => {
    it('takes one thread for a few small candidates, every thread for many, with the scan path\'s answers', async () => {
        const p = await pair(files());
        const seen = countSessions(p.indexed.engine);
        const many = p.indexed.engine.maxThreads > 1;
        const rare = await threadsOf(p, seen, { content_pattern: 'rare_word' });
        expect(rare.text.split('\n').filter((l) => l.includes('rare_word'))).toHaveLength(3);
        expect(p.tree.lastPlan.firstWork).toBeLessThanOrEqual(ONE_THREAD_UNITS);
        expect(rare.sessions).toBe(1);
        // 400 candidates in one part: more work than one thread takes alone.
        const dense = await threadsOf(p, seen, { content_pattern: 'dense_word' });
        expect(dense.text.split('\n').filter((l) => l.includes('dense_word'))).toHaveLength(400);
        expect(p.tree.lastPlan.firstWork).toBeGreaterThan(ONE_THREAD_UNITS);
        if (many) expect(dense.sessions).toBeGreaterThan(1);
        // Capped: the first part is what the cap needs; filtered: fewer candidates.
        await threadsOf(p, seen, { content_pattern: 'dense_word', max_results: 5 });
        await threadsOf(p, seen, { content_pattern: 'dense_word', include: ['d0[0-2]/**'] });
        await threadsOf(p, seen, { content_pattern: 'rare_word', exclude: ['d10/**'] });
    });

    it('gives a capped search\'s first part one thread while its candidates fill the cap; uncapped, the same work takes every thread', async () => {
        const p = await pair(files());
        const seen = countSessions(p.indexed.engine);
        const many = p.indexed.engine.maxThreads > 1;
        // 400 candidates, each a hit: the first part, as many files as max_results, fills it.
        const capped = await threadsOf(p, seen, { content_pattern: 'dense_word', max_results: 200 });
        expect(capped.text.split('\n').filter((l) => l.includes('dense_word'))).toHaveLength(200);
        expect(p.tree.lastPlan.firstWork).toBeGreaterThan(ONE_THREAD_UNITS);
        expect(p.tree.lastPlan.firstWork).toBeLessThanOrEqual(NEAR_FIRST_UNITS);
        expect(capped.sessions).toBe(1);
        // Not capped: the same first work takes every thread.
        const all = await threadsOf(p, seen, { content_pattern: 'dense_word', max_results: 2000 });
        expect(all.text.split('\n').filter((l) => l.includes('dense_word'))).toHaveLength(400);
        if (many) expect(all.sessions).toBeGreaterThan(1);
    });

    it('spreads the later parts of a capped search over every thread when its candidates hold few hits', async () => {
        // 800 candidates of the literal, 60 hits of the pattern (a digit after it in 3 files of 100).
        const out: Record<string, string> = {};
        for (let d = 0; d < 20; d++) {
            for (let f = 0; f < 100; f++) {
                const word = f % 5 >= 2 ? 'straw' : f % 40 === 0 ? 'sparse_word7' : 'sparse_word';
                out[`d${String(d).padStart(2, '0')}/f${String(f).padStart(3, '0')}.txt`] = `${word} and hay\n`;
            }
        }
        const p = await pair(out);
        const seen = countSessions(p.indexed.engine);
        const sparse = await threadsOf(p, seen, { content_pattern: 'sparse_word\\d', max_results: 30 });
        expect(sparse.text.split('\n').filter((l) => l.includes('sparse_word7'))).toHaveLength(30);
        expect(p.tree.lastPlan.handedOut).toBeGreaterThan(100);
        if (p.indexed.engine.maxThreads > 1) expect(sparse.sessions).toBeGreaterThan(1);
    });

    it('counts a candidate by its bytes, and a changed file as unknown work: both take every thread', async () => {
        const big = `${'filler line without it\n'.repeat(200_000)}big_rare_word at the end\n`;
        // Two candidates in two directories: two jobs, which two threads can share.
        const p = await pair({ ...files(), 'd05/zz-big.txt': big, 'd15/zz-big.txt': big });
        const seen = countSessions(p.indexed.engine);
        const many = p.indexed.engine.maxThreads > 1;
        const indexed = await threadsOf(p, seen, { content_pattern: 'big_rare_word' });
        expect(indexed.text).toContain('d05/zz-big.txt:200001:');
        expect(indexed.text).toContain('d15/zz-big.txt:200001:');
        expect(p.tree.lastPlan.firstWork).toBeGreaterThan(ONE_THREAD_UNITS);
        if (many) expect(indexed.sessions).toBeGreaterThan(1);
        // Small files changed since the build: their work is not in the table.
        fs.writeFileSync(path.join(p.root, 'd01/f001.txt'), 'now a changed_rare_word\n');
        fs.writeFileSync(path.join(p.root, 'd12/f001.txt'), 'now a changed_rare_word\n');
        const changed = await threadsOf(p, seen, { content_pattern: 'changed_rare_word' });
        expect(changed.text).toContain('d01/f001.txt:1:');
        expect(changed.text).toContain('d12/f001.txt:1:');
        expect(p.tree.lastPlan.firstWork).toBe(Number.POSITIVE_INFINITY);
        if (many) expect(changed.sessions).toBeGreaterThan(1);
    });
});
