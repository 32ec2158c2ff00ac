/**
 * Posting lists cut into checked blocks on a real build: a list long enough to be blocked answers
 * as the scan path does, and a block corrupted on disk is found when a search decodes it: found in
 * the search's first part, that search takes the scan path; found later, the search goes on
 * without that list (every file it could hold is a candidate), with the scan path's answer; in
 * both cases the index is rebuilt and answers again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gramsOf } from '../../../src/search/shared/fold.js';
import { BLOCKED, storedLength } from '../../../src/search-index/shared/posting-list.js';
import { SegmentReader } from '../../../src/search-index/shared/segment.js';
import { pair, type Pair, same, servedSegment } from '../../support/index-pair.js';

/**
 * Files each alone in a directory (so they are half the entries: the index answers), all holding
 * "common", each padded to 4 KiB so that its postings carry masks: "com"'s list is then long
 * enough to be cut into blocks (5,000 postings without masks, a delta of 2 apart, pack into some
 * 700 bytes, posting-pack.ts).
 */
const FILES: Record<string, string> = Object.fromEntries(Array.from({ length: 5000 }, (_, k) => [`d${String(k).padStart(4, '0')}/f.txt`, `common line ${k}\n${'x'.repeat(4096)}\n`]));

/**
 * Every file a candidate, one in a hundred a hit: the walk goes part after part to the end of the
 * tree (a `max_results` never reached), so the list's last block is decoded in a later part.
 */
const SPARSE = { content_pattern: 'common line \\d*77$', max_results: 100 };

/** Flips a byte of the stored list of gram `g`: in its first block or its last. */
function corrupt(p: Pair, g: string, where: 'first block' | 'last block'): void {
    const seg = servedSegment(p);
    const reader = new SegmentReader(seg);
    const ref = reader.lookup([...gramsOf(g)][0]!)!;
    const at = reader.postingsAt + ref.off;
    const list = reader.readList(ref);
    reader.close();
    expect(ref.len & BLOCKED).not.toBe(0);
    expect(list.blocks).toBeGreaterThan(1);
    const stored = storedLength(ref.len);
    const pos = where === 'last block' ? at + stored - 2 : at + stored - list.body.length + 1;
    const fd = fs.openSync(seg, 'r+');
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, pos);
    b[0] = b[0]! ^ 0x10;
    fs.writeSync(fd, b, 0, 1, pos);
    fs.closeSync(fd);
}

async function readyAgain(p: Pair): Promise<void> {
    await new Promise<void>((resolve) => {
        const check = (): void => (p.tree.state === 'ready' ? resolve() : void setTimeout(check, 50));
        check();
    });
}

describe('blocked posting lists on disk', () => {
    it('answers from a blocked list as the scan path does; a corrupt block fails the search\'s first part (scan path) or a later one (the search goes on), and the index is rebuilt', async () => {
        const p = await pair(FILES);
        const all = await same(p, { content_pattern: 'common' });
        expect(all.answered).toBe(true);
        expect(all.text).toContain('d4999/f.txt:1: common line 4999');
        expect((await same(p, SPARSE)).answered).toBe(true);
        for (const where of ['last block', 'first block'] as const) {
            corrupt(p, 'com', where);
            const states: string[] = [];
            p.tree.on('state', (st: { state: string }) => states.push(st.state));
            const r = await same(p, SPARSE);
            expect(r.text, where).toContain('d4977/f.txt:1: common line 4977');
            // Found in the first part: the scan path; found in a later part: answered all the same.
            expect(r.answered, where).toBe(where === 'last block');
            expect(states[0], where).toBe('failed');
            await readyAgain(p);
            expect((await same(p, SPARSE)).answered, where).toBe(true);
        }
    });
});
