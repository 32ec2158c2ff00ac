/**
 * A tree of small files whose word makes dense posting lists, stored as packs of a bit or two a
 * posting (posting-pack.ts): the planner counts the list's files from the dictionary entry, not
 * from its bytes, so a search with thousands of candidates still makes them as the walk goes
 * (plan.ts, windowed-ids.ts) and a capped search stops early, as in walk-parts.test.ts. The
 * lists' bytes at the segment's bytes per posting would say fewer than the lazy threshold.
 */
import { describe, expect, it } from 'vitest';
import { gramsOf } from '../../../src/search/shared/fold.js';
import { SegmentLists } from '../../../src/search-index/postings.js';
import { storedLength } from '../../../src/search-index/shared/posting-list.js';
import { SegmentReader } from '../../../src/search-index/shared/segment.js';
import { pair, type Pair, same, servedSegment } from '../../support/index-pair.js';

/** The planner's threshold (plan.ts LAZY_FROM): from this many estimated candidates on, they are made as the walk goes. */
const LAZY_FROM = 2048;
const DIRS = 40;
const PER_DIR = 150;
/** Every other file holds the word: 3,000 candidates, half the files. */
const HOLDING = (DIRS * PER_DIR) / 2;

function files(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let d = 0; d < DIRS; d++) {
        for (let f = 0; f < PER_DIR; f++) {
            const name = `d${String(d).padStart(2, '0')}/f${String(f).padStart(3, '0')}.txt`;
            out[name] = f % 2 === 0 ? `dense_word ${d}-${f}\n` : `hay only ${d}-${f} ${(d * PER_DIR + f) * 7919}\n`;
        }
    }
    return out;
}

/** For the word's grams in the served segment: the least of their counts as the planner reads them, and as the lists' bytes told them. */
function estimates(p: Pair, word: string): { counted: number; byBytes: number } {
    const reader = new SegmentReader(servedSegment(p));
    try {
        const src = new SegmentLists(reader);
        const grams = [...gramsOf(word)];
        return {
            counted: Math.min(...grams.map((g) => src.size(g))),
            byBytes: Math.min(...grams.map((g) => Math.ceil((storedLength(reader.lookup(g)!.len) * reader.postings) / reader.postingsLength))),
        };
    } finally {
        reader.close();
    }
}

describe('dense posting lists of a tree of small files', () => {
    it('are counted exactly, so a capped search makes candidates only as far as its walk goes', async () => {
        const p = await pair(files());
        await p.tree.settled();
        const { counted, byBytes } = estimates(p, 'dense_word');
        expect(counted).toBe(HOLDING);
        // The tree is one where the bytes mislead: they say fewer than the lazy threshold.
        expect(byBytes).toBeLessThan(LAZY_FROM);
        const capped = await same(p, { content_pattern: 'dense_word', max_results: 30 });
        expect(capped.answered).toBe(true);
        expect(capped.text).toContain('d00/f000.txt:1: dense_word 0-0');
        expect(p.tree.lastPlan.handedOut).toBeLessThan(600);
        expect(p.tree.lastPlan.handedOut).toBeGreaterThanOrEqual(30);
        expect(p.tree.lastPlan.candidates).toBeLessThan(HOLDING);
        const all = await same(p, { content_pattern: 'dense_word' });
        expect(all.answered).toBe(true);
        expect(all.text.split('\n').filter((l) => l.includes(': dense_word')).length).toBe(HOLDING);
        expect(p.tree.lastPlan.candidates).toBe(HOLDING);
    });
});
