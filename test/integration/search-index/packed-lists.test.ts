/**
 * Posting lists stored as packs (posting-pack.ts) on a real build and merge: a tree of small
 * files, some of 4 KiB or more (masked postings, whose runs stay single postings), whose common
 * words make lists of every density; the served lists hold packs, and every search answers as the
 * scan path does, answered by the index.
 */
import { describe, expect, it } from 'vitest';
import { gramsOf } from '../../../src/search/shared/fold.js';
import { BLOCKED, checkedBody, storedLength } from '../../../src/search-index/shared/posting-list.js';
import { PACK_MASKED, PACK_PLAIN } from '../../../src/search-index/shared/posting-pack.js';
import { SegmentReader } from '../../../src/search-index/shared/segment.js';
import { mulberry32 } from '../../../bench/tree.js';
import { pair, type Pair, same, servedSegment } from '../../support/index-pair.js';

const WORDS = ['common', 'frequent', 'usual', 'sometimes', 'rarely', 'seldom', 'unique', 'quartz', 'zephyr', 'jackdaw'];

/** 1,500 files in 30 directories: word k in a file with chance 0.9^(2k), a seventh of the files padded past 4 KiB instead. */
function files(): Record<string, string> {
    const rand = mulberry32(41);
    const out: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) {
        // A padded file holds none of the words: their lists are unmasked runs, packed; "end"'s runs mix in masked postings.
        const lines = i % 7 === 0 ? ['pad'.repeat(1400)] : WORDS.filter((_, k) => rand() < 0.9 ** (2 * k)).map((w) => `${w} ${i % 97}`);
        out[`d${String(i % 30).padStart(2, '0')}/f${String(i).padStart(4, '0')}.txt`] = `${lines.join('\n')}\nend ${i}\n`;
    }
    return out;
}

/** Whether the served list of `gram`'s first trigram starts with a pack (its body's first byte). */
function firstUnit(p: Pair, word: string): number {
    const reader = new SegmentReader(servedSegment(p));
    try {
        const ref = reader.lookup([...gramsOf(word)][0]!)!;
        const stored = Buffer.alloc(storedLength(ref.len));
        reader.postingBytes(stored, ref.off, stored.length);
        return checkedBody(stored, (ref.len & BLOCKED) !== 0, ref.crc, 'seg')[0]!;
    } finally {
        reader.close();
    }
}

describe('packed posting lists', () => {
    it('serves lists of packs, masked and not, and answers every search as the scan path does', async () => {
        const p = await pair(files());
        await p.tree.settled();
        // The most common word's list opens with a pack; a list whose first run holds masked postings, with a single posting.
        expect(firstUnit(p, 'common')).toBe(PACK_PLAIN);
        expect(firstUnit(p, 'end')).toBeGreaterThan(PACK_MASKED);
        const queries = [
            ...WORDS.map((w) => ({ content_pattern: `${w} 4\\d` })),
            ...WORDS.map((w) => ({ content_pattern: w, output_mode: 'count' })),
            { content_pattern: 'end 14\\d\\d$' },
            { content_pattern: 'zephyr 1[0-9]', max_results: 7 },
            { content_pattern: 'quartz|jackdaw', output_mode: 'files_with_matches' },
            { content_pattern: 'padpadpad', output_mode: 'count' },
            { content_pattern: 'common 5.*' },
        ];
        let answered = 0;
        for (const q of queries) if ((await same(p, q)).answered) answered++;
        // Counting the words in most files is left to the scan path (the index cannot narrow it); 21 of 25 answered when written.
        expect(answered).toBeGreaterThanOrEqual(20);
    });
});
